#!/usr/bin/env bash
# The documented exit status of a usage error is 2 (README.md, "The CLI:
# exit status and output"); it was CLI11's own code per kind of error
# (105 for a bad value, 109 for an unknown flag, 114 for a repeated one, ...),
# documented nowhere. A connection error stays 1; --help and --version 0,
# with the help on stdout. No database is reached: --db points nowhere.
set -uo pipefail
: "${DPTRAIN_CLI:?}"
fail() { echo "FAIL: $*" >&2; exit 1; }

# status EXPECTED ARGS...: the exit status, and a message on stderr unless 0.
status() {
  local expected=$1; shift
  local err rc
  err=$("$DPTRAIN_CLI" "$@" 2>&1 >/dev/null); rc=$?
  [ "$rc" = "$expected" ] || fail "exit status $rc, expected $expected, for: $* ($err)"
  [ "$expected" = 0 ] || [ -n "$err" ] || fail "no message on stderr for: $*"
}

nowhere=(--db "host=/nonexistent dbname=none")
status 2 train --table t --epsilon 0.1abc "${nowhere[@]}"
status 2 train --table t --epsilon inf "${nowhere[@]}"
status 2 train --table t --no-such-flag "${nowhere[@]}"
status 2 train --table t --epsilon 1 --epsilon 2 "${nowhere[@]}"
status 2 train --epsilon 1 "${nowhere[@]}"                            # --table missing
status 2 train --table t --server --controller "${nowhere[@]}"          # excluded together
status 2 predict --model m "${nowhere[@]}"                              # neither --features nor --file
status 2 no-such-command
status 2
status 1 train --table t --epsilon 1 "${nowhere[@]}"                    # could not connect
status 0 --version
status 0 train --help
[ "$("$DPTRAIN_CLI" train --help 2>/dev/null | grep -c -- '--epsilon')" -ge 1 ] || fail "train --help is not on stdout"
echo "cli_exit_status: ok"
