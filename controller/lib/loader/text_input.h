// Reading input files for `dptrain load`. Every reader goes through zlib,
// which inflates gzip files and passes plain files through unchanged, so
// `adult.data.gz` and `adult.data` are read the same way.
#pragma once

#include <zlib.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dptrain::loader {

// "file:line" for error messages.
std::string file_line(const std::string& path, std::uint64_t line);

// Line-by-line reader; strips the line terminator ("\n" or "\r\n"). Every
// line must be UTF-8 without NUL bytes (text values end up in PostgreSQL text
// and JSON): another encoding is an InvalidData error naming file, line and byte.
// Throws dptrain::Error(InvalidParameter) if the file cannot be opened and
// InvalidData on a read error (e.g. a truncated gzip stream).
// A line longer than max_line bytes (default 1 GB, PostgreSQL's largest
// value: no row can hold it) is an InvalidData error, not a buffer that grows
// until memory runs out (/dev/zero, a binary file, a gzip bomb of one line).
inline constexpr std::size_t kMaxLineBytes = std::size_t{1} << 30;

class LineReader {
 public:
  explicit LineReader(const std::string& path, std::size_t max_line = kMaxLineBytes);
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  bool next(std::string& line);
  std::uint64_t line_number() const { return line_; }  // 1-based, of the last line returned
  const std::string& path() const { return path_; }

 private:
  bool fill();
  void check_length(std::size_t bytes) const;
  void strip_bom(std::string& line) const;
  void check_text(const std::string& line) const;
  gzFile file_ = nullptr;
  std::string path_;
  std::vector<char> buffer_;
  std::size_t max_line_;
  std::size_t pos_ = 0, end_ = 0;
  std::uint64_t line_ = 0;
  bool eof_ = false;
};

// Whether the paths name one file (the same device and inode: also ./F and F,
// a symlink, a hard link). False if either cannot be stat'ed: opening it
// reports that.
bool same_file(const std::string& a, const std::string& b);

// A binary file (inflated if gzip-compressed), read in pieces so that a
// format like IDX checks its header before it allocates for the body.
class BinaryInput {
 public:
  explicit BinaryInput(const std::string& path);
  ~BinaryInput();
  BinaryInput(const BinaryInput&) = delete;
  BinaryInput& operator=(const BinaryInput&) = delete;

  // Reads up to n bytes into out: fewer only at the end of the content.
  std::size_t read(unsigned char* out, std::size_t n);
  // The size of the content if known without reading it (a file that is not
  // compressed), else nullopt.
  std::optional<std::uint64_t> size() const { return size_; }
  const std::string& path() const { return path_; }

 private:
  gzFile file_;
  std::string path_;
  std::optional<std::uint64_t> size_;
};

}  // namespace dptrain::loader
