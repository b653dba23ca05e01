// bench/keystream_speed: how fast could the noise's keystream be? (issue 18, item 5)
//
//   build/bench/keystream_speed [--megabytes M] [--rounds R]
//
// The white-box noise reads 8 bytes of ChaCha20 keystream per Gaussian, from
// a fresh stream per mini-batch (RandomSource::from_key(key, t), 512-byte
// refills: privacy/random_source.h). This compares, in one run, interleaved
// round by round (best of R):
//   * per batch: a new nonce for every 512 bytes (the per-batch pattern);
//   * long stream: one nonce, 64 KB per call (what a stream per epoch would read);
// for libsodium's ChaCha20 (what dptrain uses), OpenSSL's ChaCha20 (EVP; the same
// cipher: a 16-byte IV = the 64-bit block counter and the 64-bit nonce) and
// OpenSSL's AES-256-CTR (hardware AES where the CPU has it). Nothing here is
// used by dptrain: it measures what a change of library would gain.
#include <openssl/evp.h>
#include <sodium.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

namespace {

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

struct Evp {
  EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
  explicit Evp(const char* name, const unsigned char* key) {
    EVP_CIPHER* c = EVP_CIPHER_fetch(nullptr, name, nullptr);
    if (c == nullptr || EVP_EncryptInit_ex2(ctx, c, key, nullptr, nullptr) != 1) std::abort();
    EVP_CIPHER_free(c);
  }
  ~Evp() { EVP_CIPHER_CTX_free(ctx); }
  // A new 16-byte IV, then n bytes of keystream (the encryption of zeros).
  void stream(const unsigned char* iv, unsigned char* out, const unsigned char* zeros, int n) {
    int len = 0;
    if (iv != nullptr && EVP_EncryptInit_ex2(ctx, nullptr, nullptr, iv, nullptr) != 1) std::abort();
    if (EVP_EncryptUpdate(ctx, out, &len, zeros, n) != 1) std::abort();
  }
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"keystream speed: libsodium ChaCha20 vs OpenSSL ChaCha20 / AES-256-CTR"};
  long megabytes = 100;
  int rounds = 5;
  app.add_option("--megabytes", megabytes, "keystream per measurement")->check(CLI::PositiveNumber);
  app.add_option("--rounds", rounds, "rounds; the best is reported")->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);
  if (sodium_init() < 0) return 1;

  unsigned char key[32];
  for (int i = 0; i < 32; ++i) key[i] = static_cast<unsigned char>(7 * i + 1);
  const long batches = megabytes * 1024 * 1024 / 512, chunks = megabytes * 1024 * 1024 / 65536;
  std::vector<unsigned char> zeros(65536, 0), out(65536);
  Evp chacha("ChaCha20", key), aes("AES-256-CTR", key);
  const char* names[6] = {"libsodium chacha20, per batch", "openssl chacha20, per batch", "openssl aes-256-ctr, per batch",
                          "libsodium chacha20, long stream", "openssl chacha20, long stream", "openssl aes-256-ctr, long stream"};
  double best[6];
  std::fill(best, best + 6, 1e300);
  unsigned sink = 0;
  for (int r = 0; r < rounds; ++r) {
    double t[7];
    t[0] = now();
    for (long i = 0; i < batches; ++i) {
      unsigned char nonce[8];
      std::memcpy(nonce, &i, 8);
      crypto_stream_chacha20_xor_ic(out.data(), zeros.data(), 512, nonce, 0, key);
      sink += out[3];
    }
    t[1] = now();
    for (long i = 0; i < batches; ++i) {
      unsigned char iv[16] = {0};
      std::memcpy(iv + 8, &i, 8);
      chacha.stream(iv, out.data(), zeros.data(), 512);
      sink += out[3];
    }
    t[2] = now();
    for (long i = 0; i < batches; ++i) {
      unsigned char iv[16] = {0};
      std::memcpy(iv, &i, 8);
      aes.stream(iv, out.data(), zeros.data(), 512);
      sink += out[3];
    }
    t[3] = now();
    const unsigned char nonce[8] = {0};
    for (long i = 0; i < chunks; ++i) {
      crypto_stream_chacha20_xor_ic(out.data(), zeros.data(), 65536, nonce, static_cast<uint64_t>(i) * 1024, key);
      sink += out[3];
    }
    t[4] = now();
    for (long i = 0; i < chunks; ++i) chacha.stream(nullptr, out.data(), zeros.data(), 65536), sink += out[3];
    t[5] = now();
    for (long i = 0; i < chunks; ++i) aes.stream(nullptr, out.data(), zeros.data(), 65536), sink += out[3];
    t[6] = now();
    for (int k = 0; k < 6; ++k) best[k] = std::min(best[k], t[k + 1] - t[k]);
  }
  const double bytes = static_cast<double>(megabytes) * 1024 * 1024;
  for (int k = 0; k < 6; ++k)
    std::printf("%-34s %6.3f ns/byte  %6.2f ns per 8-byte draw\n", names[k], best[k] / bytes * 1e9, best[k] / bytes * 8e9);
  std::printf("(checksum %u)\n", sink);
  return 0;
}
