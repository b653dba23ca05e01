#!/usr/bin/env bash
# What a seeded DP-AGD run moves and costs (docs/dpagd.md, "Cost"):
#   controller  `dptrain train --controller`: the bytes it sends and receives
#               over its connection (strace of sendto/recvfrom: each pass's
#               request out, its state back), its wall time, the passes
#   dp_train    the server's "passes gradient/loss" phase of the same run as
#               dp_train (the DEBUG1 phase line, src/pg/phase_timing.h), best of REPEAT
#   bits        the md5 of the released weights (shortest exact float8 text) of
#               every run, which a change of the requests must leave alone
# Runs: UCI Adult (d = 104), epsilon 0.1, delta 1e-8, seed 1 (the docs'
# tables: 337 iterations); Reuters money-fx as sparse rows (d = 8,315),
# epsilon 1, delta 1e-6, seed 1, splits 20 (docs/performance.md, "The
# controller's passes in binary"), controller only.
#
#   bash bench/dpagd_request_bytes.sh          # REPEAT=3 by default
set -euo pipefail
cd "$(dirname "$0")/.."
REPEAT=${REPEAT:-3}
DATA=${DPTRAIN_DATA:-$PWD/../shared/data}
source bench/lib/speed_cluster.sh
speed_cluster "jit = off" "max_parallel_workers_per_gather = 0"
psql -X -q -v ON_ERROR_STOP=1 -c "CREATE EXTENSION dptrain"
build/dptrain load --db "dbname=postgres" --table adult --no-header --drop-missing --positive '>50K' \
  --test-file "$DATA/adult/adult.test.gz" "$DATA/adult/adult.data.gz" >/dev/null 2>&1
R=$DATA/reuters_moneyfx
build/dptrain load --db "dbname=postgres" --table reuters --sparse \
  --test-file "$R/reuters.tst.gz" "$R/reuters.trn.gz" >/dev/null 2>&1

# controller TABLE TRAIN-ARGS...: one traced controller run.
controller() {
  local table=$1 trace
  shift
  trace=$(mktemp)
  local t0=$EPOCHREALTIME
  strace -f -e trace=sendto,recvfrom -o "$trace" \
    build/dptrain train --db "dbname=postgres" --table "$table" --controller "$@" --json >"$trace.json"
  python3 - "$trace" "$trace.json" "$table" "$t0" "$EPOCHREALTIME" <<'PY'
import json, re, sys
sent = received = 0
for line in open(sys.argv[1]):
    m = re.search(r"^\d+\s+(sendto|recvfrom)\(.*\)\s+=\s+(\d+)", line)
    if m:
        if m.group(1) == "sendto": sent += int(m.group(2))
        else: received += int(m.group(2))
p = json.load(open(sys.argv[2]))["details"]["privacy"]
passes = p["gradient_measurements"] + p["line_searches"]
print(f"{sys.argv[3]} controller: sent {sent} B, received {received} B, {float(sys.argv[5]) - float(sys.argv[4]):.2f} s "
      f"(traced); {p['iterations']} iterations, {p['gradient_measurements']} gradient passes, "
      f"{p['line_searches']} line searches ({(sent + received) / passes:.0f} B per pass)")
PY
  rm -f "$trace" "$trace.json"
}

controller adult --algorithm dpagd --epsilon 0.1 --delta 1e-8 --seed 1
for _ in $(seq "$REPEAT"); do
  controller reuters --algorithm dpagd --epsilon 1 --delta 1e-6 --seed 1 --options '{"splits": 20}'
done

best=""
for _ in $(seq "$REPEAT"); do
  s=$(psql -X -At -v ON_ERROR_STOP=1 -c "SET client_min_messages = debug1" \
        -c "SELECT model_id FROM dp_train('adult', 'y', 'x', algorithm => 'dpagd', epsilon => 0.1, delta => 1e-8, seed => 1)" 2>&1 \
      | sed -n 's/.*dptrain: phase passes gradient\/loss: \([0-9.]*\) s.*/\1/p')
  [ -n "$s" ] || { echo "no 'passes gradient/loss' phase line" >&2; exit 1; }
  best=$(python3 -c "import sys; print(min(float(v) for v in sys.argv[1:]))" $s $best)
done
echo "adult dp_train: passes gradient/loss ${best} s (best of $REPEAT)"
psql -X -At -v ON_ERROR_STOP=1 -c "SELECT source || ' weights md5 ' || string_agg(DISTINCT md5(weights::text), ', ')
  || ' (' || count(*) || ' runs)' FROM dptrain.models WHERE algorithm = 'dpagd' GROUP BY source ORDER BY source"
