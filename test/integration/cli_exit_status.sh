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
# a model name with a control character (a newline, ESC, DEL, a C1 control):
# a usage error, as dp_train refuses it (22023)
status 2 train --table t --epsilon 1 --name $'two\nlines' "${nowhere[@]}"
status 2 train --table t --epsilon 1 --name $'\e[31mred' "${nowhere[@]}"
status 2 tune --table t --epsilon 1 --name $'del\x7f' "${nowhere[@]}"
status 2 models rename --model m --to $'c1\xc2\x85' "${nowhere[@]}"
err=$("$DPTRAIN_CLI" train --table t --epsilon 1 --name $'two\nlines' "${nowhere[@]}" 2>&1 >/dev/null)
[ "$(head -1 <<<"$err")" = "--name: a model name must not contain control characters (control character 0x0a at byte 4)" ] \
  || fail "--name with a newline: $err"
status 1 train --table t --epsilon 1 --name 'résumé 2' "${nowhere[@]}"  # printable: on to the connection
# a flag given twice, as an option given twice (CLI11 let a flag take its last
# repeat: `--json --json` passed silently); options that take lists repeat
status 2 train --table t --epsilon 1 --json --json "${nowhere[@]}"
status 2 tune --table t --epsilon 1 --server --server "${nowhere[@]}"
status 2 load --table t --replace --replace /nonexistent.csv "${nowhere[@]}"
err=$("$DPTRAIN_CLI" train --table t --epsilon 1 --json --json "${nowhere[@]}" 2>&1 >/dev/null)
[ "$err" = "--json: given 2 times; give it once" ] || fail "--json --json: $err"
status 1 train --table t --epsilon 1 --classes a --classes b "${nowhere[@]}"   # on to the connection
status 1 load --table t --missing '?' --missing NA --categories 'a=x' --categories 'b=y' /nonexistent.csv \
  "${nowhere[@]}"
status 2 no-such-command
status 2
status 1 train --table t --epsilon 1 "${nowhere[@]}"                    # could not connect
# ... in one line with its SQLSTATE (libpq's question as the HINT); it was
# libpq's text whole, a line per address tried, the SQLSTATE after the last
err=$("$DPTRAIN_CLI" train --table t --epsilon 1 "${nowhere[@]}" 2>&1 >/dev/null)
grep -qx 'dptrain: error: could not connect to the database: connection to server on socket ".*" failed: No such file or directory (SQLSTATE 08001)' \
  <<<"$err" || fail "could not connect: $err"
sed -n 2p <<<"$err" | grep -qx "HINT:  Is the server running locally and accepting connections on that .*socket?" \
  && [ "$(wc -l <<<"$err")" = 2 ] || fail "could not connect, the hint: $err"
err=$("$DPTRAIN_CLI" train --table t --epsilon 1 --db "host=127.0.0.1,127.0.0.2 port=1 dbname=none" 2>&1 >/dev/null)
grep -qx 'dptrain: error: could not connect to the database: connection to server at "127.0.0.1", port 1 failed: .*; connection to server at "127.0.0.2", port 1 failed: .* (SQLSTATE 08001)' \
  <<<"$err" && [ "$(wc -l <<<"$err")" = 2 ] || fail "could not connect to two addresses: $err"
status 0 --version
status 0 train --help
[ "$("$DPTRAIN_CLI" train --help 2>/dev/null | grep -c -- '--epsilon')" -ge 1 ] || fail "train --help is not on stdout"
echo "cli_exit_status: ok"
