// Standard input, output and error kept taken before any connection opens.
//
// Started with one of them closed (`dptrain train ... >&-`, `2>&-`, a job
// runner that closes them), the CLI gave that number to the next file it
// opened: the server connection's socket. The result "written to stdout"
// went into the server's protocol stream (exit status 0, the model's id
// lost), and a NOTICE "written to stderr" in the middle of a controller-mode
// run broke the protocol ("invalid frontend message type 78"), so the
// server ended the connection and the run failed. Now a closed one is
// reopened on /dev/null the wrong way round (stdout and stderr read-only,
// stdin write-only), so that a write to it still fails (EBADF) and is
// reported as a failed write, and no file of the CLI takes 0, 1 or 2.
#pragma once

namespace dptrain::client {

// False if a closed one could not be reopened (no /dev/null).
bool keep_standard_descriptors_taken();

}  // namespace dptrain::client
