#!/usr/bin/env bash
# `dptrain export --out FILE` never leaves a partial or corrupt file, and
# says when it could not write (controller/lib/output_file.h). Before, it
# streamed into std::ofstream and never checked the close: on a full device
# it printed "written", exited 0 and left a truncated file in place of the
# previous one; and it wrote through a symbolic link planted at FILE. The
# document on standard output (`> model.json`) is checked as well.
# Env: DPTRAIN_CLI, PGHOST/PGPORT/PGUSER of a live throwaway cluster.
set -euo pipefail
: "${DPTRAIN_CLI:?set DPTRAIN_CLI to the dptrain binary}"
source "$(dirname "$0")/lib/scratch_db.sh"
scratch_db exportfile
WORK=$(mktemp -d)
MNT=
cleanup() {
  [ -n "$MNT" ] && umount "$MNT" 2>/dev/null
  rm -rf "$WORK"
  dropdb --if-exists --force "$db" >/dev/null 2>&1 || true
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; cat "$WORK/err" >&2 2>/dev/null || true; exit 1; }
separable_points 200
id=$("$DPTRAIN_CLI" train --db "dbname=$db" --table pts --label y --algorithm none --json 2>/dev/null | field 'j["model_id"]')
export_to() { "$DPTRAIN_CLI" export --db "dbname=$db" --model "$id" --out "$1" 2>"$WORK/err"; }

# A device that is always full: the error of the write is reported.
status=0
export_to /dev/full || status=$?
[ "$status" = 1 ] || fail "/dev/full: exit status $status, expected 1"
grep -q "^dptrain: error: cannot write /dev/full: .*No space left on device" "$WORK/err" || fail "/dev/full: no clear error"
grep -q "written" "$WORK/err" && fail "/dev/full: the CLI said it wrote the file"
echo "ok: a full device is an error (exit 1), not \"written\""

# Standard output on a full device (`dptrain export > model.json` on a full
# disk): exit status 1 and a message, not 0 (the unchecked std::cout).
status=0
"$DPTRAIN_CLI" export --db "dbname=$db" --model "$id" >/dev/full 2>"$WORK/err" || status=$?
[ "$status" = 1 ] || fail "stdout on /dev/full: exit status $status, expected 1"
grep -q "^dptrain: error: could not write to standard output (No space left on device)" "$WORK/err" \
  || fail "stdout on /dev/full: no clear error"
echo "ok: export to a full standard output is an error (exit 1)"

# A file system that fills up (a small tmpfs; needs root): the previous
# file stays whole, and no temporary file is left behind.
if [ "$(id -u)" = 0 ] && MNT=$(mktemp -d) && mount -t tmpfs -o size=64k tmpfs "$MNT" 2>/dev/null; then
  echo previous >"$MNT/model.json"
  dd if=/dev/zero of="$MNT/filler" bs=4k 2>/dev/null || true  # until the file system is full
  status=0
  export_to "$MNT/model.json" || status=$?
  [ "$status" = 1 ] || fail "full tmpfs: exit status $status, expected 1"
  grep -q "No space left on device" "$WORK/err" || fail "full tmpfs: no clear error"
  [ "$(cat "$MNT/model.json")" = previous ] || fail "full tmpfs: the previous file was damaged"
  [ "$(find "$MNT" -name '.model.json.*' | wc -l)" = 0 ] || fail "full tmpfs: a temporary file was left behind"
  echo "ok: on a full file system the previous file stays whole and no temporary file is left"
else
  MNT=
  echo "skipped: full file system (needs root and a tmpfs mount)"
fi

# A symbolic link at the output path is replaced, not written through.
echo "not yours" >"$WORK/target"
ln -s "$WORK/target" "$WORK/link.json"
export_to "$WORK/link.json" || fail "export over a symbolic link failed"
[ "$(cat "$WORK/target")" = "not yours" ] || fail "the export wrote through a symbolic link"
[ -f "$WORK/link.json" ] && [ ! -L "$WORK/link.json" ] || fail "the link was not replaced by the file"
[ "$(field 'j["id"]' <"$WORK/link.json")" = "$id" ] || fail "the exported file is not the model"
echo "ok: a symbolic link at --out is replaced by the file; its target is untouched"

# A directory: a clear error, nothing written into it.
status=0
export_to "$WORK" || status=$?
[ "$status" = 1 ] && grep -q "^dptrain: error: cannot write $WORK: .*Is a directory" "$WORK/err" \
  || fail "a directory as --out: status $status"
[ "$(find "$WORK" -name '.*' -newer "$WORK/target" | wc -l)" = 0 ] || fail "a temporary file was left in the directory"
echo "ok: a directory as --out is refused"

# The names of the CLI's own descriptors are written to the descriptor
# (output_file.h): /dev/fd/N (what process substitution passes),
# /proc/self/fd/N, /dev/stdout. They were symbolic links to rename over: no
# temporary file can be made in /dev/fd or /proc/self/fd, nor in /dev but by
# root -- who replaced the link /dev/stdout with a regular file holding the
# model, exit 0, nothing on stdout. /dev/stdout is checked as an
# unprivileged user only (never by root on this machine's /dev).
export_to /dev/fd/3 3>"$WORK/fd3.json" || fail "--out /dev/fd/3 failed"
[ "$(field 'j["id"]' <"$WORK/fd3.json")" = "$id" ] || fail "--out /dev/fd/3: the descriptor did not get the model"
export_to /proc/self/fd/1 >"$WORK/fd1.json" || fail "--out /proc/self/fd/1 failed"
[ "$(field 'j["id"]' <"$WORK/fd1.json")" = "$id" ] || fail "--out /proc/self/fd/1: stdout did not get the model"
status=0
export_to /dev/fd/9 9>&- || status=$?
[ "$status" = 1 ] && grep -q "^dptrain: error: cannot write /dev/fd/9: write: Bad file descriptor" "$WORK/err" \
  || fail "--out /dev/fd/9 (closed): status $status"
echo "ok: --out /dev/fd/N and /proc/self/fd/N write to the descriptor (a closed one is an error)"
if runuser -u postgres -- test -x "$DPTRAIN_CLI"; then
  runuser -u postgres -- "$DPTRAIN_CLI" export --db "dbname=$db" --model "$id" --out /dev/stdout \
    >"$WORK/stdout.json" 2>"$WORK/err" || fail "--out /dev/stdout failed"
  [ "$(field 'j["id"]' <"$WORK/stdout.json")" = "$id" ] || fail "--out /dev/stdout: stdout did not get the model"
  echo "ok: --out /dev/stdout writes to standard output"
else
  echo "SKIP: --out /dev/stdout (the postgres OS user cannot run $DPTRAIN_CLI)"
fi

# The mode of a new file is 0666 less the umask (mkstemp's 0600 is not kept).
(umask 022 && export_to "$WORK/new.json") || fail "export to a new file failed"
[ "$(stat -c %a "$WORK/new.json")" = 644 ] || fail "a new file has mode $(stat -c %a "$WORK/new.json"), expected 644"
echo "ok: a new file gets the usual mode"

# A writable file in a directory its user may not write: no temporary file
# can be made next to it, so it is written in place (every error checked),
# not refused. Needs an unprivileged user (root writes every directory).
if runuser -u postgres -- test -x "$DPTRAIN_CLI"; then
  chmod 711 "$WORK"
  mkdir "$WORK/locked" && chmod 755 "$WORK/locked"
  echo '{"old": true}' >"$WORK/locked/model.json" && chown postgres "$WORK/locked/model.json"
  runuser -u postgres -- "$DPTRAIN_CLI" export --db "dbname=$db" --model "$id" --out "$WORK/locked/model.json" \
    2>"$WORK/err" || fail "a writable file in a locked directory was not written"
  [ "$(field 'j["id"]' <"$WORK/locked/model.json")" = "$id" ] || fail "the locked directory's file is not the model"
  [ "$(ls -A "$WORK/locked")" = model.json ] || fail "something else in the locked directory: $(ls -A "$WORK/locked")"
  echo "ok: a writable file in a directory its user may not write is written in place"
else
  echo "SKIP: a writable file in a locked directory (the postgres OS user cannot run $DPTRAIN_CLI)"
fi
