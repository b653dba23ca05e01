// The binary float8[] of the controller's passes (float8_array_binary.h):
// the bytes PostgreSQL's array_send writes, exact round trips, and clear
// errors for values a server could not have sent.
#include "float8_array_binary.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "pg_connection.h"

#include "../hex_bytes.h"

namespace dptrain::client {
namespace {

using testing::hex_bytes;

TEST(Float8ArrayBinary, WritesTheBytesOfArraySend) {
  // SELECT array_send('{1.5,-2}'::float8[]) gives
  // \x 00000001 00000000 000002bd 00000002 00000001
  //    00000008 3ff8000000000000 00000008 c000000000000000
  const double v[] = {1.5, -2.0};
  EXPECT_EQ(hex_bytes(float8_array_to_binary(v, 2)),
            "00000001" "00000000" "000002bd" "00000002" "00000001"
            "00000008" "3ff8000000000000" "00000008" "c000000000000000");
  // '{}'::float8[]: no dimensions.
  EXPECT_EQ(hex_bytes(float8_array_to_binary(nullptr, 0)), "00000000" "00000000" "000002bd");
}

TEST(Float8ArrayBinary, RoundTripsEveryBit) {
  const std::vector<double> v = {0.0, -0.0, 1e-310, std::numeric_limits<double>::max(), -3.0000000000000004,
                                 0.1, std::numeric_limits<double>::infinity()};
  const std::string bytes = float8_array_to_binary(v.data(), v.size());
  const std::vector<double> back = float8_array_from_binary(bytes.data(), bytes.size());
  ASSERT_EQ(back.size(), v.size());
  for (std::size_t i = 0; i < v.size(); ++i) EXPECT_EQ(std::memcmp(&back[i], &v[i], sizeof(double)), 0) << i;
  EXPECT_TRUE(float8_array_from_binary(float8_array_to_binary(nullptr, 0).data(), 12).empty());
}

TEST(Float8ArrayBinary, ReadsTwoDimensionsRowMajor) {
  // '{{1,2},{3,4}}'::float8[]: dims 2 x 2, as the text parser reads it.
  std::string b;
  auto u32 = [&b](std::uint32_t x) {
    for (int s = 24; s >= 0; s -= 8) b += static_cast<char>(x >> s);
  };
  u32(2), u32(0), u32(701), u32(2), u32(1), u32(2), u32(1);
  for (double x : {1.0, 2.0, 3.0, 4.0}) {
    std::uint64_t bits;
    std::memcpy(&bits, &x, 8);
    u32(8), u32(static_cast<std::uint32_t>(bits >> 32)), u32(static_cast<std::uint32_t>(bits));
  }
  EXPECT_EQ(float8_array_from_binary(b.data(), b.size()), (std::vector<double>{1, 2, 3, 4}));
}

TEST(Float8ArrayBinary, RefusesWhatNoServerSends) {
  const double v[] = {1.0, 2.0};
  const std::string good = float8_array_to_binary(v, 2);
  // truncated, trailing bytes
  EXPECT_THROW(float8_array_from_binary(good.data(), good.size() - 1), PgError);
  EXPECT_THROW(float8_array_from_binary((good + "x").data(), good.size() + 1), PgError);
  // a NULL element
  std::string with_null = good;
  with_null.replace(20, 4, std::string("\xff\xff\xff\xff", 4));
  EXPECT_THROW(float8_array_from_binary(with_null.data(), with_null.size()), PgError);
  // an int4[] (element type 23)
  std::string ints = good;
  ints.replace(8, 4, std::string("\x00\x00\x00\x17", 4));
  EXPECT_THROW(float8_array_from_binary(ints.data(), ints.size()), PgError);
  // a claimed count of 2^31 - 1 elements in 32 bytes: refused before any allocation
  std::string huge = good;
  huge.replace(12, 4, std::string("\x7f\xff\xff\xff", 4));
  EXPECT_THROW(float8_array_from_binary(huge.data(), huge.size()), PgError);
}

}  // namespace
}  // namespace dptrain::client
