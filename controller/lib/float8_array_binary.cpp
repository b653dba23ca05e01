#include "float8_array_binary.h"

#include <cstdint>
#include <cstring>

#include "big_endian.h"
#include "pg_connection.h"

namespace dptrain::client {
namespace {

// A cursor over the bytes of a value; every read is bounds-checked.
class Reader {
 public:
  Reader(const char* data, std::size_t length) : p_(reinterpret_cast<const unsigned char*>(data)), left_(length) {}
  std::uint32_t u32() {
    need(4);
    const std::uint32_t v = (std::uint32_t{p_[0]} << 24) | (std::uint32_t{p_[1]} << 16) |
                            (std::uint32_t{p_[2]} << 8) | std::uint32_t{p_[3]};
    advance(4);
    return v;
  }
  std::int32_t i32() { return static_cast<std::int32_t>(u32()); }
  double f64() {
    const std::uint64_t hi = u32(), lo = u32();
    const std::uint64_t bits = (hi << 32) | lo;
    double v;
    std::memcpy(&v, &bits, sizeof v);
    return v;
  }
  bool done() const { return left_ == 0; }

 private:
  void need(std::size_t n) const {
    if (left_ < n) throw PgError("malformed binary float8[] value (truncated)");
  }
  void advance(std::size_t n) {
    p_ += n;
    left_ -= n;
  }
  const unsigned char* p_;
  std::size_t left_;
};

}  // namespace

std::size_t float8_array_binary_size(std::size_t n) { return n ? 20 + 12 * n : 12; }

void append_float8_array_binary(std::string& out, const double* values, std::size_t n) {
  put_u32(out, n ? 1 : 0);
  put_u32(out, 0);  // no NULLs
  put_u32(out, kFloat8Oid);
  if (n == 0) return;
  put_u32(out, static_cast<std::uint32_t>(n));
  put_u32(out, 1);  // lower bound
  // The elements are most of the bytes: written straight into the buffer.
  const std::size_t at = out.size();
  out.resize(at + 12 * n);
  unsigned char* p = reinterpret_cast<unsigned char*>(&out[at]);
  for (std::size_t k = 0; k < n; ++k, p += 12) {
    std::uint64_t bits;
    std::memcpy(&bits, &values[k], 8);
    p[0] = p[1] = p[2] = 0;
    p[3] = 8;
    for (int b = 0; b < 8; ++b) p[4 + b] = static_cast<unsigned char>(bits >> (56 - 8 * b));
  }
}

std::string float8_array_to_binary(const double* values, std::size_t n) {
  std::string out;
  out.reserve(float8_array_binary_size(n));
  append_float8_array_binary(out, values, n);
  return out;
}

std::vector<double> float8_array_from_binary(const char* data, std::size_t length) {
  Reader r(data, length);
  const std::int32_t ndim = r.i32();
  (void) r.i32();  // the has-null flag: each element says so itself
  if (r.u32() != kFloat8Oid) throw PgError("a binary float8[] value of another element type");
  if (ndim < 0 || ndim > 6) throw PgError("malformed binary float8[] value (dimensions)");
  std::size_t count = ndim ? 1 : 0;
  for (std::int32_t i = 0; i < ndim; ++i) {
    const std::int32_t n = r.i32();
    (void) r.i32();  // lower bound
    if (n < 0) throw PgError("malformed binary float8[] value (a negative length)");
    count *= static_cast<std::size_t>(n);
  }
  // Each element takes 12 bytes: a claimed count beyond the bytes is refused
  // before anything is allocated for it.
  if (count > length / 12) throw PgError("malformed binary float8[] value (truncated)");
  std::vector<double> out;
  out.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    const std::int32_t len = r.i32();
    if (len == -1) throw PgError("a float8[] value with a NULL element");
    if (len != 8) throw PgError("malformed binary float8[] value (an element of " + std::to_string(len) + " bytes)");
    out.push_back(r.f64());
  }
  if (!r.done()) throw PgError("malformed binary float8[] value (trailing bytes)");
  return out;
}

}  // namespace dptrain::client
