// Appending integers in network byte order (big-endian), as PostgreSQL's
// binary formats (COPY BINARY, a type's send/recv form) want them.
#pragma once

#include <cstdint>
#include <string>

namespace dptrain::client {

inline void put_u16(std::string& out, std::uint16_t v) {
  const char b[2] = {static_cast<char>(v >> 8), static_cast<char>(v)};
  out.append(b, 2);
}

inline void put_u32(std::string& out, std::uint32_t v) {
  const char b[4] = {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8),
                     static_cast<char>(v)};
  out.append(b, 4);
}

inline void put_u64(std::string& out, std::uint64_t v) {
  put_u32(out, static_cast<std::uint32_t>(v >> 32));
  put_u32(out, static_cast<std::uint32_t>(v));
}

}  // namespace dptrain::client
