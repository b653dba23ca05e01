#!/usr/bin/env bash
# Progress bars go to stderr only when it is a terminal, and only when asked
# for: `dptrain train --json` on a terminal drew "training [....] 0/1" and
# never ended the line (ProgressBar drew at construction even for total 0),
# and every small `dptrain load` drew "load train [....] 0/n" the same way,
# so what came next on the terminal (jq's output, the next message) was
# printed after a stray bar. stderr is a pseudo-terminal here (python pty),
# stdout a pipe, which must carry the result alone.
# Env: DPTRAIN_CLI, PGHOST/PGPORT/PGUSER of a live throwaway cluster.
set -euo pipefail
: "${DPTRAIN_CLI:?set DPTRAIN_CLI to the dptrain binary}"
source "$(dirname "$0")/lib/scratch_db.sh"
scratch_db progresstty
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"; dropdb --if-exists --force "$db" >/dev/null 2>&1 || true' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
separable_points 400
printf 'a,b,label\n0.1,0.2,yes\n0.3,0.4,no\n0.5,0.1,yes\n' >"$WORK/tiny.csv"

# on_tty ARGS...: runs the CLI with stderr on a pseudo-terminal; stdout to
# $WORK/out, what the terminal showed to $WORK/tty.
on_tty() {
  python3 - "$WORK" "$DPTRAIN_CLI" "$@" <<'PY'
import os, pty, subprocess, sys
work, cmd = sys.argv[1], sys.argv[2:]
master, slave = pty.openpty()
with open(os.path.join(work, "out"), "wb") as out:
    rc = subprocess.run(cmd, stdout=out, stderr=slave).returncode
os.close(slave)
tty = b""
while True:
    try:
        chunk = os.read(master, 65536)
    except OSError:
        break
    if not chunk:
        break
    tty += chunk
open(os.path.join(work, "tty"), "wb").write(tty)
sys.exit(rc)
PY
}

on_tty train --db "dbname=$db" --table pts --label y --epsilon 1 --controller --epochs 3 --json || fail "train --json failed"
field 'j["model_id"]' <"$WORK/out" >/dev/null || fail "stdout of train --json is not one JSON object"
! grep -q "training \[" "$WORK/tty" || fail "train --json drew a progress bar: $(cat -v "$WORK/tty" | tail -c 200)"
echo "ok: train --json draws no bar on a terminal; stdout is the JSON alone"

on_tty train --db "dbname=$db" --table pts --label y --epsilon 1 --controller --epochs 3 || fail "train failed"
grep -q "training \[#*\] 3/3" "$WORK/tty" || fail "train drew no progress bar on a terminal"
[ "$(tail -c 2 "$WORK/tty" | od -An -c | tr -d ' ')" = '\r\n' ] || fail "the bar's line was not ended"
[ "$(wc -l <"$WORK/out")" = 1 ] && grep -q "^model " "$WORK/out" || fail "stdout is not the summary line alone"
echo "ok: train draws its bar on the terminal, ends its line, and stdout is the summary alone"

on_tty load "$WORK/tiny.csv" --db "dbname=$db" --table tiny || fail "load failed"
! grep -q "load train \[" "$WORK/tty" || fail "a small load drew a progress bar: $(cat -v "$WORK/tty" | tail -c 200)"
echo "ok: a small load draws no bar"
