// The one random source (src/core/privacy/random_source.h): its byte stream
// is ChaCha20 of (key, 64-bit nonce, block counter from 0), its keys come
// from where the header says, and its key travels as 32-bit words.
#include "core/privacy/random_source.h"

#include <gtest/gtest.h>
#include <sodium.h>

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "core/privacy/samplers.h"

namespace dptrain::privacy {
namespace {

// A source is never copied or moved: a copy would replay the same noise.
static_assert(!std::is_copy_constructible_v<RandomSource> && !std::is_move_constructible_v<RandomSource> &&
              !std::is_copy_assignable_v<RandomSource> && !std::is_move_assignable_v<RandomSource>);

RandomSource::Key test_key(unsigned char first) {
  RandomSource::Key k{};
  for (int i = 0; i < 32; ++i) k[i] = static_cast<unsigned char>(first + 7 * i);
  return k;
}

// The first n bytes of ChaCha20(key, nonce) from block 0, in one libsodium call.
std::vector<unsigned char> chacha20(const RandomSource::Key& key, std::uint64_t nonce, std::size_t n) {
  unsigned char le[8];
  for (int i = 0; i < 8; ++i) le[i] = static_cast<unsigned char>(nonce >> (8 * i));
  std::vector<unsigned char> out(n, 0);
  crypto_stream_chacha20_xor_ic(out.data(), out.data(), n, le, 0, key.data());
  return out;
}

std::vector<unsigned char> words_as_bytes(RandomSource& rng, std::size_t words) {
  std::vector<unsigned char> out(8 * words);
  for (std::size_t i = 0; i < words; ++i) {
    const std::uint64_t v = rng.next_u64();
    for (int j = 0; j < 8; ++j) out[8 * i + j] = static_cast<unsigned char>(v >> (8 * j));  // x86-64: little-endian
  }
  return out;
}

std::string hex(const unsigned char* p, std::size_t n) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  for (std::size_t i = 0; i < n; ++i) {
    s += digits[p[i] >> 4];
    s += digits[p[i] & 15];
  }
  return s;
}

TEST(RandomSource, ZeroKeyGivesThePublishedChaCha20Keystream) {
  // RFC 7539, Appendix A.1, test vectors #1 and #2: key 0, nonce 0, blocks 0
  // and 1 (for an all-zero nonce the original 64-bit-nonce cipher and the
  // IETF one agree). This pins the cipher itself, not just libsodium.
  auto rng = RandomSource::from_key(RandomSource::Key{}, 0);
  unsigned char out[128];
  rng.fill(out, sizeof(out));
  EXPECT_EQ(hex(out, 64),
            "76b8e0ada0f13d90405d6ae55386bd28bdd219b8a08ded1aa836efcc8b770dc7"
            "da41597c5157488d7724e03fb8d84a376a43b8f41518a11cc387b669b2ee6586");
  EXPECT_EQ(hex(out + 64, 64),
            "9f07e7be5551387a98ba977c732d080dcb0f29a048e3656912c6533e32ee7aed"
            "29b721769ce64e43d57133b074d839d531ed1f28510afb45ace10a1f4b794d6f");
}

TEST(RandomSource, IsTheChaCha20StreamOfKeyNonceAndBlockCounter) {
  // next_u64 and fill read one byte stream: the keystream of (key, nonce)
  // from block 0, across many refills of the 512-byte buffer, whatever the
  // mix of read sizes.
  for (std::uint64_t nonce : {std::uint64_t{1}, std::uint64_t{12345}, (std::uint64_t{1} << 63) | 77}) {
    const RandomSource::Key key = test_key(static_cast<unsigned char>(nonce));
    const std::vector<unsigned char> expected = chacha20(key, nonce, 9600 + 3 * 1000 + 8 * 100);
    auto rng = RandomSource::from_key(key, nonce);
    std::vector<unsigned char> got = words_as_bytes(rng, 1200);  // 9600 bytes, 18.75 buffers
    for (std::size_t chunk : {1, 2, 997, 2000}) {                // 3000 bytes, unaligned
      std::vector<unsigned char> part(chunk);
      rng.fill(part.data(), chunk);
      got.insert(got.end(), part.begin(), part.end());
    }
    const std::vector<unsigned char> tail = words_as_bytes(rng, 100);  // words at an odd offset
    got.insert(got.end(), tail.begin(), tail.end());
    ASSERT_EQ(got.size(), expected.size());
    for (std::size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], expected[i]) << "nonce " << nonce << ", byte " << i;
  }
}

TEST(RandomSource, SeededKeyIsBlake2bOfTheSeed) {
  // seeded(seed, stream) = from_key(BLAKE2b-256("dptrain-" || seed as 8
  // little-endian bytes), stream): the documented derivation, so seeded
  // runs stay reproducible across versions.
  for (std::uint64_t seed : {std::uint64_t{0}, std::uint64_t{5}, std::uint64_t{0x0123456789abcdef}}) {
    unsigned char in[16] = {'d', 'p', 't', 'r', 'a', 'i', 'n', '-'};
    for (int i = 0; i < 8; ++i) in[8 + i] = static_cast<unsigned char>(seed >> (8 * i));
    RandomSource::Key key;
    ASSERT_EQ(crypto_generichash(key.data(), key.size(), in, sizeof(in), nullptr, 0), 0);
    for (std::uint64_t stream : {std::uint64_t{0}, std::uint64_t{9}}) {
      auto a = RandomSource::seeded(seed, stream);
      auto b = RandomSource::from_key(key, stream);
      EXPECT_EQ(words_as_bytes(a, 100), words_as_bytes(b, 100)) << seed << " " << stream;
    }
  }
}

TEST(RandomSource, SecureSourcesDifferAndSeededOnesReproduce) {
  auto a = RandomSource::secure(), b = RandomSource::secure();
  EXPECT_FALSE(a.is_seeded());
  EXPECT_NE(words_as_bytes(a, 4), words_as_bytes(b, 4));  // equal with probability 2^-256

  auto s1 = RandomSource::seeded(5), s2 = RandomSource::seeded(5);
  EXPECT_TRUE(s1.is_seeded());
  EXPECT_TRUE(RandomSource::from_key(test_key(1)).is_seeded());
  std::vector<double> v1(1000, 0.0), v2(1000, 0.0), scratch(1000);
  add_l2_laplace_noise(s1, v1.data(), v1.size(), 1.0, scratch.data());
  add_l2_laplace_noise(s2, v2.data(), v2.size(), 1.0, scratch.data());
  EXPECT_EQ(v1, v2);

  // Another seed, another stream of the same seed, another nonce or key:
  // another byte stream.
  const std::uint64_t first = RandomSource::seeded(5).next_u64();
  EXPECT_NE(first, RandomSource::seeded(6).next_u64());
  EXPECT_NE(first, RandomSource::seeded(5, 1).next_u64());
  const RandomSource::Key key = test_key(3);
  auto x = RandomSource::from_key(key, 1), y = RandomSource::from_key(key, 2), z = RandomSource::from_key(test_key(4), 1);
  const std::uint64_t wx = x.next_u64();
  EXPECT_NE(wx, y.next_u64());
  EXPECT_NE(wx, z.next_u64());
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
  EXPECT_NE(draw_key(a), draw_key(b));
  auto s1 = RandomSource::secure(), s2 = RandomSource::secure();
  EXPECT_NE(draw_key(s1), draw_key(s2));
  // The key is the next 32 bytes of the stream.
  auto c = RandomSource::seeded(1), d = RandomSource::seeded(1);
  const RandomSource::Key k = draw_key(c);
  unsigned char expected[32];
  d.fill(expected, sizeof(expected));
  EXPECT_EQ(hex(k.data(), 32), hex(expected, 32));
}

}  // namespace
}  // namespace dptrain::privacy
