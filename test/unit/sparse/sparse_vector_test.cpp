// The sparse row type's parser, validation and per-row arithmetic
// (core/sparse/sparse_vector.h), and the algorithms allowed on sparse rows.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/algorithms/algorithm.h"
#include "core/algorithms/non_private.h"
#include "core/error.h"
#include "core/sparse/sparse_vector.h"
#include "core/sparse/support.h"

namespace dptrain::sparse {
namespace {

// The ErrorKind and SQLSTATE of what `f` throws.
template <typename F>
std::string sqlstate_of(F f) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidData);
    EXPECT_FALSE(e.hint().empty());
    return e.sqlstate();
  }
  ADD_FAILURE() << "no error";
  return "";
}

TEST(SparseVector, ParsesOneBasedText) {
  const Row r = parse(" { 1:0.5 , 7:-0.25 } / 8 ");
  EXPECT_EQ(r.dim, 8);
  ASSERT_EQ(r.index.size(), 2u);
  EXPECT_EQ(r.index[0], 0);  // 1-based text, 0-based storage
  EXPECT_EQ(r.index[1], 6);
  EXPECT_EQ(r.value[0], 0.5);
  EXPECT_EQ(r.value[1], -0.25);
  const Row empty = parse("{}/3");
  EXPECT_EQ(empty.dim, 3);
  EXPECT_TRUE(empty.index.empty());
}

TEST(SparseVector, FormatRoundTripsExactly) {
  Row r;
  r.dim = 10;
  r.index = {0, 9};
  r.value = {0.1, 1.0 / 3.0};
  EXPECT_EQ(format(r.view()), "{1:0.10000000000000001,10:0.33333333333333331}/10");
  const Row back = parse(format(r.view()));
  EXPECT_EQ(back.value, r.value);
  EXPECT_EQ(back.index, r.index);
  EXPECT_EQ(format(parse("{}/4").view()), "{}/4");
}

TEST(SparseVector, RefusesMalformedText) {
  for (const char* bad : {"", "1:2/3", "{1:2/3", "{1:2}", "{1:2}/", "{1 2}/3", "{1:}/3", "{:1}/3", "{1:2,}/3",
                          "{1:2}/3x", "{-1:2}/3", "{1:2}/-3", "{1:abc}/3"})
    EXPECT_EQ(sqlstate_of([&] { parse(bad); }), "22P02") << bad;
}

// Fuzzing: a number was read from its first 64 characters only, so a valid
// longer one (as many digits as a user cares to write) was refused with
// "expected \",\" or \"}\"" in the middle of the number.
TEST(SparseVector, ReadsANumberOfAnyLength) {
  const std::string tiny = "0." + std::string(80, '0') + "1", long_one = "1." + std::string(70, '0') + "1e2";
  const Row r = parse("{1:" + tiny + ",3:" + long_one + "}/3");
  ASSERT_EQ(r.value.size(), 2u);
  EXPECT_EQ(r.value[0], std::strtod(tiny.c_str(), nullptr));
  EXPECT_EQ(r.value[1], 100.0);
  EXPECT_EQ(sqlstate_of([&] { parse("{1:" + long_one + "x}/3"); }), "22P02");
}

TEST(SparseVector, RefusesIndicesOutOfRangeUnsortedOrTwice) {
  EXPECT_EQ(sqlstate_of([] { parse("{0:1}/3"); }), "22P02");  // 1-based
  EXPECT_EQ(sqlstate_of([] { parse("{4:1}/3"); }), sqlstate::kArraySubscriptError);
  EXPECT_EQ(sqlstate_of([] { parse("{2:1,1:1}/3"); }), "22023");
  EXPECT_EQ(sqlstate_of([] { parse("{2:1,2:1}/3"); }), "22023");
  EXPECT_EQ(sqlstate_of([] { parse("{1:1}/0"); }), "22023");
  EXPECT_EQ(sqlstate_of([] { parse("{1:1}/100000001"); }), "22023");
  EXPECT_EQ(sqlstate_of([] { parse("{1:1}/99999999999999999999"); }), "22P02");
}

TEST(SparseVector, RefusesNaNAndInfinity) {
  EXPECT_EQ(sqlstate_of([] { parse("{1:NaN}/3"); }), sqlstate::kFloatingPointException);
  EXPECT_EQ(sqlstate_of([] { parse("{2:inf}/3"); }), sqlstate::kFloatingPointException);
  EXPECT_EQ(sqlstate_of([] { parse("{2:-Infinity}/3"); }), sqlstate::kFloatingPointException);
  EXPECT_EQ(sqlstate_of([] { parse("{2:1e400}/3"); }), "22003");
  const double x[2] = {1.0, std::numeric_limits<double>::quiet_NaN()};
  EXPECT_EQ(sqlstate_of([&] { from_dense(x, 2); }), sqlstate::kFloatingPointException);
}

TEST(SparseVector, ValidateChecksABinaryValue) {
  const std::int32_t index[2] = {3, 1};
  const double value[2] = {1, 2};
  EXPECT_EQ(sqlstate_of([&] { validate({5, 2, index, value}); }), "22023");
  EXPECT_EQ(sqlstate_of([&] { validate({2, 3, index, value}); }), "22023");  // nnz > dim
  const std::int32_t negative[1] = {-1};
  EXPECT_EQ(sqlstate_of([&] { validate({5, 1, negative, value}); }), sqlstate::kArraySubscriptError);
}

TEST(SparseVector, DenseRoundTripAndArithmetic) {
  const double x[6] = {0, 0.5, 0, 0, -2, 0};
  const Row r = from_dense(x, 6);
  EXPECT_EQ(r.index, (std::vector<std::int32_t>{1, 4}));
  double back[6];
  to_dense(r.view(), back);
  for (int j = 0; j < 6; ++j) EXPECT_EQ(back[j], x[j]);
  EXPECT_EQ(squared_norm(r.view()), 0.25 + 4.0);
  const double w[6] = {10, 1, 10, 10, 3, 10};
  EXPECT_EQ(dot(w, r.view()), 0.5 * 1 - 2 * 3);  // 0.5 - 6
  double y[6] = {1, 1, 1, 1, 1, 1};
  axpy(2.0, r.view(), y);
  EXPECT_EQ(y[1], 2.0);
  EXPECT_EQ(y[4], -3.0);
  EXPECT_EQ(y[0], 1.0);
}

TEST(SparseVector, AugmentMatchesTheDenseInterceptRow) {
  // ||(3, 4)|| = 5 > bound 1: scaled by 1/5, then b = 1 appended at index d.
  const Row r = parse("{2:3,4:4}/5");
  const Row a = augment(r.view(), 1.0, 1.0);
  EXPECT_EQ(a.dim, 6);
  EXPECT_EQ(a.index, (std::vector<std::int32_t>{1, 3, 5}));
  EXPECT_DOUBLE_EQ(a.value[0], 0.6);
  EXPECT_DOUBLE_EQ(a.value[1], 0.8);
  EXPECT_EQ(a.value[2], 1.0);
  // within the bound: unchanged
  const Row small = augment(parse("{1:0.5}/2").view(), 1.0, 1.0);
  EXPECT_EQ(small.value[0], 0.5);
}

// An algorithm whose passes have no sparse overload (as a new one might).
class DenseOnly : public NonPrivateSgd {
 public:
  std::string name() const override { return "dense_only"; }
  bool reads_sparse_rows() const override { return false; }
};

TEST(SparseSupport, EveryAlgorithmButNotADistributedTable) {
  TrainingConfig c;
  for (const std::string& a : known_algorithms()) {
    c.algorithm = a;
    EXPECT_NO_THROW(check(c)) << a;
  }
  EXPECT_EQ(supported_algorithms(), known_algorithms());
  // An algorithm that says it cannot read sparse rows is refused with
  // 0A000, naming it, with the hint to densify.
  try {
    check(DenseOnly(), c);
    ADD_FAILURE() << "accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::NotImplemented);
    EXPECT_NE(std::string(e.what()).find("dense_only"), std::string::npos);
    EXPECT_NE(e.hint().find("float8[]"), std::string::npos);
  }
  // An unknown name is refused as everywhere else (22023).
  c.algorithm = "future_algorithm";
  try {
    check(c);
    ADD_FAILURE() << "accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidParameter);
  }
  c.algorithm = "bolton";
  c.shard_rows = {10, 10};
  EXPECT_THROW(check(c), Error);  // distributed
}

}  // namespace
}  // namespace dptrain::sparse
