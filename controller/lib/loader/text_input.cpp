#include "loader/text_input.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "core/error.h"
#include "pg_connection.h"

namespace dptrain::loader {
namespace {

constexpr unsigned kChunk = 1u << 18;

gzFile open_input(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0)
    fail(ErrorKind::InvalidParameter, "cannot open input file \"" + path + "\": " + std::strerror(errno), {},
         "Check the path (gzip-compressed files are read directly).");
  if (S_ISDIR(st.st_mode))
    fail(ErrorKind::InvalidParameter, "input \"" + path + "\" is a directory, not a file");
  gzFile f = gzopen(path.c_str(), "rb");
  if (f == nullptr)
    fail(ErrorKind::InvalidParameter, "cannot open input file \"" + path + "\": " + std::strerror(errno));
  gzbuffer(f, kChunk);
  return f;
}

// Reads up to n bytes; throws on a zlib error (corrupt or truncated gzip).
std::size_t checked_read(gzFile f, const std::string& path, char* out, unsigned n) {
  const int got = gzread(f, out, n);
  if (got < 0) {
    int code = 0;
    const char* msg = gzerror(f, &code);
    fail(ErrorKind::InvalidData, "cannot read \"" + path + "\": " + (msg ? msg : "read error"), {},
         "Is the gzip file complete?");
  }
  if (got == 0) {
    int code = 0;
    const char* msg = gzerror(f, &code);
    if (code != Z_OK)  // Z_BUF_ERROR here: the gzip stream ended early
      fail(ErrorKind::InvalidData, "cannot read \"" + path + "\": " + (msg ? msg : "read error"), {},
           "Is the gzip file complete?");
  }
  return static_cast<std::size_t>(got);
}

// Offset of the first byte that does not belong to a well-formed UTF-8
// sequence (RFC 3629: no overlong forms, no surrogates, at most U+10FFFF), or
// of a NUL byte, which no PostgreSQL text can hold; npos if there is none.
std::size_t first_bad_byte(const std::string& s) {
  const auto* b = reinterpret_cast<const unsigned char*>(s.data());
  const std::size_t n = s.size();
  std::size_t i = 0;
  while (i < n) {
    const unsigned c = b[i];
    if (c == 0) return i;
    if (c < 0x80) {
      ++i;
      continue;
    }
    std::size_t len;
    unsigned lo = 0x80, hi = 0xBF;  // the allowed range of the second byte
    if (c >= 0xC2 && c <= 0xDF) len = 2;
    else if (c >= 0xE0 && c <= 0xEF) len = 3, lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
    else if (c >= 0xF0 && c <= 0xF4) len = 4, lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
    else return i;
    if (i + len > n || b[i + 1] < lo || b[i + 1] > hi) return i;
    for (std::size_t k = 2; k < len; ++k)
      if (b[i + k] < 0x80 || b[i + k] > 0xBF) return i;
    i += len;
  }
  return std::string::npos;
}

}  // namespace

bool same_file(const std::string& a, const std::string& b) {
  struct stat sa, sb;
  return ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

void LineReader::check_text(const std::string& line) const {
  const std::size_t at = first_bad_byte(line);
  if (at == std::string::npos) return;
  char byte[8];
  std::snprintf(byte, sizeof byte, "0x%02X", static_cast<unsigned char>(line[at]));
  if (line[at] == '\0')
    fail(ErrorKind::InvalidData, file_line(path_, line_) + " holds a NUL byte (at byte " + std::to_string(at + 1) + ")",
         {}, "Is this a text file? Binary formats other than IDX are not read.");
  fail(ErrorKind::InvalidData,
       file_line(path_, line_) + " is not valid UTF-8 (byte " + byte + " at byte " + std::to_string(at + 1) + " of the line)",
       "Text values become PostgreSQL text and JSON, which must be UTF-8.",
       "Convert the file to UTF-8 first, e.g. iconv -f latin1 -t utf-8 " + path_ + " > converted.csv");
}

std::string file_line(const std::string& path, std::uint64_t line) { return path + ":" + std::to_string(line); }

LineReader::LineReader(const std::string& path, std::size_t max_line)
    : file_(open_input(path)), path_(path), buffer_(kChunk), max_line_(max_line) {}

LineReader::~LineReader() {
  if (file_) gzclose(file_);
}

void LineReader::strip_bom(std::string& line) const {
  // A UTF-8 byte-order mark (spreadsheet exports) is not part of the first field.
  if (line_ == 0 && line.compare(0, 3, "\xEF\xBB\xBF") == 0) line.erase(0, 3);
}

void LineReader::check_length(std::size_t bytes) const {
  if (bytes > max_line_)
    fail(ErrorKind::InvalidData, file_line(path_, line_ + 1) + " is longer than " + std::to_string(max_line_) + " bytes",
         {}, "Is this a text file? Binary formats other than IDX are not read.");
}

bool LineReader::fill() {
  if (eof_) return false;
  // Ctrl-C or SIGTERM while a large file is parsed: stop reading now, not
  // at the end of the file (the signal handler only cancels statements).
  if (client::interrupted()) throw client::PgError("canceling the load due to user request", "57014");
  if (pos_ > 0) {  // keep the unfinished line at the front
    std::memmove(buffer_.data(), buffer_.data() + pos_, end_ - pos_);
    end_ -= pos_;
    pos_ = 0;
  }
  check_length(end_);
  if (end_ == buffer_.size()) buffer_.resize(buffer_.size() * 2);  // a very long line
  const std::size_t got = checked_read(file_, path_, buffer_.data() + end_,
                                       static_cast<unsigned>(buffer_.size() - end_));
  if (got == 0) eof_ = true;
  end_ += got;
  return got > 0;
}

bool LineReader::next(std::string& line) {
  for (;;) {
    const char* start = buffer_.data() + pos_;
    const void* nl = std::memchr(start, '\n', end_ - pos_);
    if (nl != nullptr) {
      std::size_t len = static_cast<const char*>(nl) - start;
      check_length(len);
      pos_ += len + 1;
      if (len > 0 && start[len - 1] == '\r') --len;
      line.assign(start, len);
      strip_bom(line);
      ++line_;
      check_text(line);
      return true;
    }
    if (!fill()) {
      if (pos_ == end_) return false;
      std::size_t len = end_ - pos_;  // last line without a terminator
      const char* s = buffer_.data() + pos_;
      if (len > 0 && s[len - 1] == '\r') --len;
      line.assign(s, len);
      strip_bom(line);
      pos_ = end_;
      ++line_;
      check_text(line);
      return true;
    }
  }
}

BinaryInput::BinaryInput(const std::string& path) : file_(open_input(path)), path_(path) {
  struct stat st;
  if (gzdirect(file_) == 1 && ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode))
    size_ = static_cast<std::uint64_t>(st.st_size);
}

BinaryInput::~BinaryInput() { gzclose(file_); }

std::size_t BinaryInput::read(unsigned char* out, std::size_t n) {
  std::size_t used = 0;
  while (used < n) {
    const auto piece = static_cast<unsigned>(std::min<std::size_t>(n - used, kChunk));
    const std::size_t got = checked_read(file_, path_, reinterpret_cast<char*>(out + used), piece);
    if (got == 0) break;
    used += got;
  }
  return used;
}

}  // namespace dptrain::loader
