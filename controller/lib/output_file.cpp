#include "output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <regex>
#include <stdexcept>
#include <vector>

namespace dptrain::client {
namespace {

[[noreturn]] void fail(const std::string& path, const std::string& what, int error) {
  throw std::runtime_error("cannot write " + path + ": " + what + ": " + std::strerror(error));
}

// Every byte of `text` to `fd` (write(2) may write less than asked).
void write_all(int fd, const std::string& text, const std::string& path) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail(path, "write", errno);
    done += static_cast<std::size_t>(n);
  }
}

// `flags`: O_TRUNC for a regular file; fsync too, so that ENOSPC and EIO of
// delayed writes are seen.
void write_in_place(const std::string& path, const std::string& text, int flags = 0) {
  const int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC | flags);
  if (fd < 0) fail(path, "open", errno);
  try {
    write_all(fd, text, path);
    if ((flags & O_TRUNC) && fsync(fd) != 0) fail(path, "fsync", errno);
  } catch (...) {
    close(fd);
    throw;
  }
  if (close(fd) != 0) fail(path, "close", errno);
}

// The number of the open descriptor a name of the process's own descriptors
// stands for (/dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N: what a
// shell's process substitution `--out >(gzip > m.gz)` passes), or -1.
int descriptor_of(const std::string& path) {
  static const std::regex alias(R"(/dev/(stdout|stderr|fd/([0-9]{1,9}))|/proc/self/fd/([0-9]{1,9}))");
  std::smatch m;
  if (!std::regex_match(path, m, alias)) return -1;
  if (m[1] == "stdout") return STDOUT_FILENO;
  if (m[1] == "stderr") return STDERR_FILENO;
  return std::stoi(m[2].matched ? m[2].str() : m[3].str());
}

// Written to the descriptor itself, as to standard output; a regular file
// behind it is synced, so that ENOSPC and EIO of delayed writes are seen.
void write_to_descriptor(int fd, const std::string& path, const std::string& text) {
  write_all(fd, text, path);
  struct stat st {};
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && fsync(fd) != 0) fail(path, "fsync", errno);
}

}  // namespace

void write_output_file(const std::string& path, const std::string& text) {
  // These are symbolic links to the descriptors (or, below /proc, to their
  // files), which the rename below would replace: /dev/stdout was replaced
  // by a regular file in /dev when run as root (the model never reached
  // stdout, and every later process's /dev/stdout was that file), and for
  // any other user it was refused, as no temporary file can be made in /dev.
  if (const int fd = descriptor_of(path); fd >= 0) return write_to_descriptor(fd, path, text);
  struct stat st {};
  const bool exists = lstat(path.c_str(), &st) == 0;
  if (exists && S_ISDIR(st.st_mode)) fail(path, "open", EISDIR);
  if (exists && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))) return write_in_place(path, text);

  const std::size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  std::string temp = (dir == "/" ? "" : dir) + "/." + base + ".XXXXXX";
  std::vector<char> name(temp.begin(), temp.end());
  name.push_back('\0');
  const int fd = mkstemp(name.data());
  // A writable file in a directory this user may not write (no temporary
  // file can be made there): written in place, as before the rename, every
  // error still checked; only the all-or-nothing replacement is lost.
  if (fd < 0 && (errno == EACCES || errno == EPERM) && exists && S_ISREG(st.st_mode) &&
      access(path.c_str(), W_OK) == 0)
    return write_in_place(path, text, O_TRUNC);
  if (fd < 0) fail(path, "create a temporary file in " + dir, errno);
  temp = name.data();
  try {
    // mkstemp makes the file 0600; give it the mode a new file gets
    // (0666 less the umask), or the mode of the regular file it replaces.
    const mode_t mask = umask(0);
    umask(mask);
    const mode_t mode = exists && S_ISREG(st.st_mode) ? st.st_mode & 07777 : 0666 & ~mask;
    if (fchmod(fd, mode) != 0) fail(path, "chmod", errno);
    write_all(fd, text, path);
    if (fsync(fd) != 0) fail(path, "fsync", errno);  // ENOSPC / EIO of delayed writes come here
  } catch (...) {
    close(fd);
    unlink(temp.c_str());
    throw;
  }
  if (close(fd) != 0) {
    const int error = errno;
    unlink(temp.c_str());
    fail(path, "close", error);
  }
  if (rename(temp.c_str(), path.c_str()) != 0) {
    const int error = errno;
    unlink(temp.c_str());
    fail(path, "rename", error);
  }
}

}  // namespace dptrain::client
