#include "loader/copy_binary.h"

#include "big_endian.h"
#include "float8_array_binary.h"

#include <cstring>

namespace dptrain::loader {
namespace {

using client::put_u16;
using client::put_u32;
using client::put_u64;

void put_label(std::string& out, LabelType type, const LabelValue& y) {
  switch (type) {
    case LabelType::Boolean:
      put_u32(out, 1);
      out.push_back(y.boolean ? 1 : 0);
      break;
    case LabelType::Integer:
      put_u32(out, 4);
      put_u32(out, static_cast<std::uint32_t>(y.integer));
      break;
    case LabelType::Text:
      put_u32(out, static_cast<std::uint32_t>(y.text.size()));
      out.append(y.text);
      break;
  }
}

}  // namespace

void copy_binary_header(std::string& out) {
  static const char signature[11] = {'P', 'G', 'C', 'O', 'P', 'Y', '\n', '\377', '\r', '\n', '\0'};
  out.append(signature, sizeof(signature));
  put_u32(out, 0);  // flags: no OIDs
  put_u32(out, 0);  // header extension length
}

void copy_binary_trailer(std::string& out) { put_u16(out, 0xFFFF); }

void copy_binary_row(std::string& out, std::int64_t id, const double* x, std::size_t n, LabelType type,
                     const LabelValue& y) {
  put_u16(out, 3);
  put_u32(out, 8);
  put_u64(out, static_cast<std::uint64_t>(id));
  put_u32(out, static_cast<std::uint32_t>(client::float8_array_binary_size(n)));
  client::append_float8_array_binary(out, x, n);
  put_label(out, type, y);
}

void copy_binary_sparse_row(std::string& out, std::int64_t id, const double* x, std::size_t n, LabelType type,
                            const LabelValue& y) {
  put_u16(out, 3);
  put_u32(out, 8);
  put_u64(out, static_cast<std::uint64_t>(id));
  std::uint32_t nnz = 0;
  for (std::size_t k = 0; k < n; ++k) nnz += x[k] != 0.0;
  // dptrain.sparsevec's binary form (src/pg/sparsevec.cpp): dim, nnz,
  // nnz 0-based indices, nnz float8 values.
  put_u32(out, 8 + 12 * nnz);
  put_u32(out, static_cast<std::uint32_t>(n));
  put_u32(out, nnz);
  for (std::size_t k = 0; k < n; ++k)
    if (x[k] != 0.0) put_u32(out, static_cast<std::uint32_t>(k));
  for (std::size_t k = 0; k < n; ++k) {
    if (x[k] == 0.0) continue;
    std::uint64_t bits;
    std::memcpy(&bits, &x[k], 8);
    put_u64(out, bits);
  }
  put_label(out, type, y);
}

}  // namespace dptrain::loader
