// The stack keystream of the white-box noise (src/core/privacy/keystream.h).
#include "core/privacy/keystream.h"

#include <gtest/gtest.h>

#include <set>

#include "core/privacy/random_source.h"

namespace dptrain::privacy {
namespace {

RandomSource::Key test_key(unsigned char first) {
  RandomSource::Key k{};
  for (int i = 0; i < 32; ++i) k[i] = static_cast<unsigned char>(first + 7 * i);
  return k;
}

TEST(Keystream, IsTheSameStreamAsRandomSourceFromKey) {
  // Same cipher, nonce layout and block counter: byte-identical streams,
  // also across the 512-byte refill boundary of the keystream and the
  // 4096-byte one of RandomSource.
  for (std::uint64_t nonce : {std::uint64_t{1}, std::uint64_t{12345}, kSamplingNonceBit | 77}) {
    const RandomSource::Key key = test_key(static_cast<unsigned char>(nonce));
    Keystream ks(key, nonce);
    auto rs = RandomSource::from_key(key, nonce);
    for (int i = 0; i < 1200; ++i) ASSERT_EQ(ks.next_u64(), rs->next_u64()) << "word " << i;
  }
}

TEST(Keystream, NoncesAndKeysSeparateStreams) {
  const RandomSource::Key key = test_key(3);
  Keystream a(key, 1), b(key, 2), c(test_key(4), 1);
  const std::uint64_t x = a.next_u64(), y = b.next_u64(), z = c.next_u64();
  EXPECT_NE(x, y);
  EXPECT_NE(x, z);
}

TEST(Keystream, UniformsStayInsideTheOpenInterval) {
  Keystream ks(test_key(9), 5);
  for (int i = 0; i < 100000; ++i) {
    const double u = ks.uniform_open01();
    ASSERT_GT(u, 0.0);
    ASSERT_LT(u, 1.0);
  }
  std::set<std::uint64_t> seen;
  for (int i = 0; i < 20000; ++i) {
    const std::uint64_t v = ks.uniform_below(7);
    ASSERT_LT(v, 7u);
    seen.insert(v);
  }
  EXPECT_EQ(seen.size(), 7u);
}

TEST(KeyWords, RoundTripAndLittleEndianLayout) {
  RandomSource::Key key{};
  key[0] = 0x01;
  key[1] = 0x02;
  key[3] = 0xff;
  key[31] = 0x80;
  const KeyWords w = key_to_words(key);
  EXPECT_EQ(w[0], 0xff000201u);
  EXPECT_EQ(w[7], 0x80000000u);
  EXPECT_EQ(key_from_words(w), key);
  const RandomSource::Key k2 = test_key(200);
  EXPECT_EQ(key_from_words(key_to_words(k2)), k2);
  // Every word is an exact double (< 2^32).
  for (std::uint32_t v : key_to_words(k2)) EXPECT_EQ(static_cast<std::uint32_t>(static_cast<double>(v)), v);
}

TEST(KeyWords, DrawKeyTakesFreshBytes) {
  auto a = RandomSource::seeded(1), b = RandomSource::seeded(2);
  EXPECT_NE(draw_key(*a), draw_key(*b));
  auto s1 = RandomSource::secure(), s2 = RandomSource::secure();
  EXPECT_NE(draw_key(*s1), draw_key(*s2));
}

}  // namespace
}  // namespace dptrain::privacy
