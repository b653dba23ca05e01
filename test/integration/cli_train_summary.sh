#!/usr/bin/env bash
# The line `dptrain train` prints for a person states the model's privacy
# exactly enough to read it: it printed epsilon and delta with
# std::to_string (six decimals), so a delta of 1e-8 read "delta = 0.000000"
# -- as if the model were pure epsilon-DP. Also checked: the summary is the
# only line on stdout, and stderr, not a terminal, carries no progress bar
# (no carriage return, no escape code).
# Env: DPTRAIN_CLI, PGHOST/PGPORT/PGUSER of a live throwaway cluster.
set -euo pipefail
: "${DPTRAIN_CLI:?set DPTRAIN_CLI to the dptrain binary}"
source "$(dirname "$0")/lib/scratch_db.sh"
scratch_db trainsummary
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"; dropdb --if-exists --force "$db" >/dev/null 2>&1 || true' EXIT
fail() { echo "FAIL: $*" >&2; cat "$WORK/out" "$WORK/err" >&2 || true; exit 1; }
separable_points 400

for mode in --controller --server; do
  "$DPTRAIN_CLI" train --db "dbname=$db" --table pts --label y --algorithm dpsgd --epsilon 0.5 --delta 1e-8 \
    --epochs 1 "$mode" >"$WORK/out" 2>"$WORK/err" || fail "$mode: the run failed"
  [ "$(wc -l <"$WORK/out")" = 1 ] || fail "$mode: stdout is not one line"
  grep -q "epsilon = 0.5, delta = 1e-08" "$WORK/out" || fail "$mode: the summary misstates epsilon or delta"
  ! grep -q $'[\r\033]' "$WORK/err" || fail "$mode: a progress bar or escape code on a stderr that is not a terminal"
  echo "ok: $mode: $(cut -d, -f4- "$WORK/out")"
done
