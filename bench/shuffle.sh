#!/usr/bin/env bash
# The shuffle alone (issue 18, item 2), its candidates interleaved round by
# round so that the load of a shared machine hits them alike; the best of
# ROUNDS per candidate, as a ratio to the plain scan of the same rounds:
#   scan          SELECT sum(cardinality(x))
#   copy          INSERT into a temp table without any order (the floor of any copy)
#   random_sort   ... ORDER BY random()                  (the copy of seeded runs)
#   keyed_sort    ... ORDER BY dptrain.shuffle_key(i, K)  (the unseeded copy before
#                                                          the bucket shuffle)
#   bucket        dptrain.training_prepare unseeded: the bucket shuffle (its two
#                 passes, from its DEBUG1 line; the validation queries excluded)
#   bash bench/shuffle.sh [ROWS] [DIM] [ROUNDS]      # defaults 1000000 54 5
# A throwaway cluster as bench/end_to_end.sh's (shared_buffers 256MB, default
# work_mem and temp_buffers, jit off, no parallel workers).
set -euo pipefail
cd "$(dirname "$0")/.."
ROWS=${1:-1000000} DIM=${2:-54} ROUNDS=${3:-5}
make -s -j2 >/dev/null
source scripts/lib/pgtmp.sh
pgtmp_init
pgtmp_private_install
pgtmp_start bench "jit = off" "max_parallel_workers_per_gather = 0"
psql -X -q -v ON_ERROR_STOP=1 -o /dev/null <<SQL
CREATE EXTENSION dptrain;
SELECT setseed(0.42);
CREATE TABLE t AS SELECT i AS id,
  ARRAY(SELECT (2 * random() - 1) / sqrt($DIM / 3.0) FROM generate_series(1, $DIM + 0 * i)) AS x,
  random() < 0.5 AS y
FROM generate_series(1, $ROWS) i;
SQL
psql -X -q -c "VACUUM ANALYZE t"
python3 - "$ROUNDS" "${ROWS}x${DIM}" <<'PY'
import re, subprocess, sys, time
sys.path.insert(0, "bench/lib")
from bench_ratio import emit  # the summary lines of make bench (issue 18)
rounds, size = int(sys.argv[1]), sys.argv[2]
def run(sql):
    t = time.perf_counter()
    p = subprocess.run(["psql", "-X", "-At", "-v", "ON_ERROR_STOP=1", "-c", sql], capture_output=True, text=True)
    if p.returncode:
        sys.exit(p.stderr)
    return time.perf_counter() - t, p.stdout.strip(), p.stderr
key = run("SELECT dptrain.shuffle_epoch_key(dptrain.shuffle_run_key(NULL), 0)")[1]
copy = ("BEGIN; CREATE TEMP TABLE c (i int8 NOT NULL, x float8[], y float8) ON COMMIT DROP; "
        "INSERT INTO c SELECT i, x::float8[], (array_position('{false,true}'::text[], y::text) - 1)::float8 "
        "FROM (SELECT row_number() OVER () AS i, x, y FROM t %s) r; COMMIT")
def bucket():
    _, _, err = run("SET client_min_messages = debug1; BEGIN; "
                    "SELECT rows FROM dptrain.training_prepare('t', 'y', 'x', ARRAY['false', 'true'], NULL); COMMIT")
    m = re.search(r"in (\d+) buckets: pass 1 ([0-9.]+) s, pass 2 ([0-9.]+) s", err)
    return float(m.group(2)) + float(m.group(3))
cands = {
    "scan": lambda: run("SELECT sum(cardinality(x)) FROM t")[0],
    "copy": lambda: run(copy % "")[0],
    "random_sort": lambda: run(copy % "ORDER BY random()")[0],
    "keyed_sort": lambda: run(copy % f"ORDER BY dptrain.shuffle_key(row_number() OVER (), '{key}'::float8[])")[0],
    "bucket": bucket,
}
run("SELECT sum(cardinality(x)) FROM t")  # warm
times = {k: [] for k in cands}
for r in range(rounds):
    for k, f in cands.items():
        times[k].append(f())
    print(f"round {r + 1}: " + ", ".join(f"{k} {v[-1]:.3f}" for k, v in times.items()), flush=True)
scan = min(times["scan"])
print(f"best of {rounds} rounds (ratio to scan = {scan:.3f} s; to copy = {min(times['copy']):.3f} s):")
for k, v in times.items():
    print(f"  {k:<12} {min(v):7.3f} s  {min(v) / scan:6.2f} x scan  {min(v) / min(times['copy']):5.2f} x copy"
          f"   (median {sorted(v)[len(v) // 2]:.3f} s)")
base = f"scan {scan:.3f} s, copy {min(times['copy']):.3f} s (best of {rounds})"
emit("2", "bench/shuffle.sh", f"{size}: bucket shuffle / scan", min(times["bucket"]) / scan, "", base)
emit("2", "bench/shuffle.sh", f"{size}: bucket shuffle / unordered copy", min(times["bucket"]) / min(times["copy"]), "",
     base)
PY
