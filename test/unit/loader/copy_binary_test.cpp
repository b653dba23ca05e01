#include <gtest/gtest.h>

#include "loader/copy_binary.h"

#include "../hex_bytes.h"

namespace dptrain::loader {
namespace {

using testing::hex_bytes;

// Byte layouts from the PostgreSQL manual ("COPY", Binary Format) and
// array_send: ndim, has-null flag, element type oid, (dim, lower bound), then
// (length, value) per element; float8 1.0 = 0x3ff0000000000000.
TEST(CopyBinary, HeaderAndTrailer) {
  std::string s;
  copy_binary_header(s);
  EXPECT_EQ(hex_bytes(s), "5047434f50590aff0d0a00" "00000000" "00000000");
  s.clear();
  copy_binary_trailer(s);
  EXPECT_EQ(hex_bytes(s), "ffff");
}

TEST(CopyBinary, RowWithBooleanIntegerAndTextLabels) {
  const double x[2] = {1.0, -2.0};
  const std::string prefix =
      "0003"                              // 3 fields
      "00000008" "0000000000000007"       // id bigint 7
      "0000002c"                          // array: 20 + 2 * 12 = 44 bytes
      "00000001" "00000000" "000002bd"    // 1 dimension, no NULLs, float8
      "00000002" "00000001"               // 2 elements, lower bound 1
      "00000008" "3ff0000000000000"       // 1.0
      "00000008" "c000000000000000";      // -2.0
  std::string s;
  LabelValue y;
  y.boolean = true;
  copy_binary_row(s, 7, x, 2, LabelType::Boolean, y);
  EXPECT_EQ(hex_bytes(s), prefix + "00000001" "01");
  s.clear();
  y.integer = -3;
  copy_binary_row(s, 7, x, 2, LabelType::Integer, y);
  EXPECT_EQ(hex_bytes(s), prefix + "00000004" "fffffffd");
  s.clear();
  y.text = "ab";
  copy_binary_row(s, 7, x, 2, LabelType::Text, y);
  EXPECT_EQ(hex_bytes(s), prefix + "00000002" "6162");
}

// dptrain.sparsevec's binary form (src/pg/sparsevec.cpp): dim, nnz, the
// 0-based indices, then the values; zeros are left out.
TEST(CopyBinary, SparseRowKeepsTheNonZeroValues) {
  const double x[4] = {0.0, 1.0, 0.0, -2.0};
  std::string s;
  LabelValue y;
  y.boolean = false;
  copy_binary_sparse_row(s, 7, x, 4, LabelType::Boolean, y);
  EXPECT_EQ(hex_bytes(s), "0003"
                    "00000008" "0000000000000007"       // id bigint 7
                    "00000020"                          // 8 + 2 * 12 = 32 bytes
                    "00000004" "00000002"               // dim 4, 2 entries
                    "00000001" "00000003"               // indices 1, 3 (0-based)
                    "3ff0000000000000" "c000000000000000"  // 1.0, -2.0
                    "00000001" "00");
}

}  // namespace
}  // namespace dptrain::loader
