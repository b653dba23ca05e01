// Writing an output file (dptrain export --out) so that it is never left
// partial or corrupt.
//
// The export used to stream into std::ofstream(path) and check only the
// stream state after `<<`: the text sat in the stream's buffer, and the
// error of the final write -- a full disk (ENOSPC), a quota -- came at the
// unchecked close. The CLI said "written", exited 0, and left a truncated
// JSON file in place of the user's previous one.
//
// Now a regular file is written to a fresh temporary file next to it
// (mkstemp: O_EXCL, so no planted name is followed), flushed to disk and
// renamed over `path` only when every byte is down: `path` holds the old
// file or the new one, never a part. A symbolic link at `path` is replaced,
// not written through (no write lands where a planted link points). An
// existing character device or FIFO (/dev/tty, a named pipe) cannot be
// renamed over and is written in place, with every error checked; so is an
// existing writable regular file in a directory where no temporary file can
// be made. The names of the CLI's own descriptors (/dev/stdout, /dev/stderr,
// /dev/fd/N, /proc/self/fd/N) are written to the descriptor itself.
#pragma once

#include <string>

namespace dptrain::client {

// Throws std::runtime_error naming `path` and the system's reason.
void write_output_file(const std::string& path, const std::string& text);

}  // namespace dptrain::client
