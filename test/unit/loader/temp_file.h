// Small input files for the loader tests, deleted when the test ends.
#pragma once

#include <unistd.h>
#include <zlib.h>

#include <cstdlib>
#include <stdexcept>
#include <string>

namespace dptrain::loader::testing {

class TempFile {
 public:
  // Writes `content` (gzip-compressed if `gzip`) to a fresh file whose name ends in `suffix`.
  explicit TempFile(const std::string& content, const std::string& suffix = ".txt", bool gzip = false) {
    std::string pattern = std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") +
                          "/dptrain-loader-test-XXXXXX" + suffix;
    const int fd = mkstemps(pattern.data(), static_cast<int>(suffix.size()));
    if (fd < 0) throw std::runtime_error("mkstemps failed");
    close(fd);
    path_ = pattern;
    if (gzip) {
      gzFile f = gzopen(path_.c_str(), "wb");
      if (!content.empty()) gzwrite(f, content.data(), static_cast<unsigned>(content.size()));
      gzclose(f);
    } else {
      FILE* f = std::fopen(path_.c_str(), "wb");
      std::fwrite(content.data(), 1, content.size(), f);
      std::fclose(f);
    }
  }
  ~TempFile() { std::remove(path_.c_str()); }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;

  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace dptrain::loader::testing

// Expects `statement` to throw dptrain::Error whose message contains `text`.
#define EXPECT_LOAD_ERROR(statement, text)                                                   \
  do {                                                                                       \
    try {                                                                                    \
      statement;                                                                             \
      ADD_FAILURE() << "expected an error containing \"" << (text) << "\"";                  \
    } catch (const ::dptrain::Error& e) {                                                    \
      EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << "message: " << e.what(); \
    }                                                                                        \
  } while (0)
