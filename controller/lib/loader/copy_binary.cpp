#include "loader/copy_binary.h"

#include <cstring>

namespace dptrain::loader {
namespace {

void put16(std::string& out, std::uint16_t v) {
  const char b[2] = {static_cast<char>(v >> 8), static_cast<char>(v)};
  out.append(b, 2);
}

void put32(std::string& out, std::uint32_t v) {
  const char b[4] = {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8),
                     static_cast<char>(v)};
  out.append(b, 4);
}

void put64(std::string& out, std::uint64_t v) {
  put32(out, static_cast<std::uint32_t>(v >> 32));
  put32(out, static_cast<std::uint32_t>(v));
}

void put_label(std::string& out, LabelType type, const LabelValue& y) {
  switch (type) {
    case LabelType::Boolean:
      put32(out, 1);
      out.push_back(y.boolean ? 1 : 0);
      break;
    case LabelType::Integer:
      put32(out, 4);
      put32(out, static_cast<std::uint32_t>(y.integer));
      break;
    case LabelType::Text:
      put32(out, static_cast<std::uint32_t>(y.text.size()));
      out.append(y.text);
      break;
  }
}

}  // namespace

void copy_binary_header(std::string& out) {
  static const char signature[11] = {'P', 'G', 'C', 'O', 'P', 'Y', '\n', '\377', '\r', '\n', '\0'};
  out.append(signature, sizeof(signature));
  put32(out, 0);  // flags: no OIDs
  put32(out, 0);  // header extension length
}

void copy_binary_trailer(std::string& out) { put16(out, 0xFFFF); }

void copy_binary_row(std::string& out, std::int64_t id, const double* x, std::size_t n, LabelType type,
                     const LabelValue& y) {
  put16(out, 3);
  put32(out, 8);
  put64(out, static_cast<std::uint64_t>(id));
  // float8[]: ndim, has-nulls flag, element type, then (length, lower bound)
  // per dimension, then each element as (byte length, value).
  put32(out, static_cast<std::uint32_t>(20 + 12 * n));
  put32(out, 1);
  put32(out, 0);
  put32(out, kFloat8Oid);
  put32(out, static_cast<std::uint32_t>(n));
  put32(out, 1);
  // The elements are most of the bytes: write them straight into the buffer.
  const std::size_t at = out.size();
  out.resize(at + 12 * n);
  unsigned char* p = reinterpret_cast<unsigned char*>(&out[at]);
  for (std::size_t k = 0; k < n; ++k, p += 12) {
    std::uint64_t bits;
    std::memcpy(&bits, &x[k], 8);
    p[0] = p[1] = p[2] = 0;
    p[3] = 8;
    for (int b = 0; b < 8; ++b) p[4 + b] = static_cast<unsigned char>(bits >> (56 - 8 * b));
  }
  put_label(out, type, y);
}

void copy_binary_sparse_row(std::string& out, std::int64_t id, const double* x, std::size_t n, LabelType type,
                            const LabelValue& y) {
  put16(out, 3);
  put32(out, 8);
  put64(out, static_cast<std::uint64_t>(id));
  std::uint32_t nnz = 0;
  for (std::size_t k = 0; k < n; ++k) nnz += x[k] != 0.0;
  // dptrain.sparsevec's binary form (src/pg/sparsevec.cpp): dim, nnz,
  // nnz 0-based indices, nnz float8 values.
  put32(out, 8 + 12 * nnz);
  put32(out, static_cast<std::uint32_t>(n));
  put32(out, nnz);
  for (std::size_t k = 0; k < n; ++k)
    if (x[k] != 0.0) put32(out, static_cast<std::uint32_t>(k));
  for (std::size_t k = 0; k < n; ++k) {
    if (x[k] == 0.0) continue;
    std::uint64_t bits;
    std::memcpy(&bits, &x[k], 8);
    put64(out, bits);
  }
  put_label(out, type, y);
}

}  // namespace dptrain::loader
