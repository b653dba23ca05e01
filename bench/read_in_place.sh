#!/usr/bin/env bash
# Reading in place (issue 18, items 2 and 4; docs/performance.md, "Reading in
# place"): dp_train with AMP on a plain table its caller may read, whose passes
# then read the table itself under one snapshot (no shuffled copy), with no
# parallel worker and with 2, against the same call over a view of the table
# (which takes the shuffled copy, as every run did before), and against a
# plain scan of the table, all measured in this run, round by round
# (interleaved), best of REPEAT. The number of L-BFGS passes of an unseeded
# run depends on its noise, so the figure to compare is the time per pass
# (from the backend's DEBUG1 phase lines) besides the wall time.
#   bash bench/read_in_place.sh [ROWS] [DIM] [REPEAT]    # default 1000000 54 3
# A throwaway cluster (shared_buffers 1GB, jit off); ~10 minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
ROWS=${1:-1000000} DIM=${2:-54} REPEAT=${3:-3}
source bench/lib/speed_cluster.sh
speed_cluster "shared_buffers = 1GB" "max_worker_processes = 8" "max_parallel_workers = 4" "jit = off"
psql -X -q -v ON_ERROR_STOP=1 <<SQL
CREATE EXTENSION dptrain;
$(big_table_sql "$ROWS" "$DIM")
CREATE VIEW big_view AS SELECT * FROM big;
SQL
python3 - "$ROWS" "$DIM" "$REPEAT" <<'PY'
import re, subprocess, sys, time
sys.path.insert(0, "bench/lib")
from bench_ratio import emit  # the summary lines of make bench (issue 18)
rows, dim, repeat = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])

def psql(sql):
    t = time.perf_counter()
    p = subprocess.run(["psql", "-X", "-At", "-v", "ON_ERROR_STOP=1", "-c", sql], capture_output=True, text=True)
    wall = time.perf_counter() - t
    if p.returncode != 0:
        sys.exit(f"read_in_place: psql failed on {sql}:\n{p.stderr}")
    return p.stdout.strip().splitlines()[-1] if p.stdout.strip() else "", p.stderr, wall

def train(source, workers):
    sql = (f"SET client_min_messages = debug1; SET max_parallel_workers_per_gather = {workers}; "
           f"SELECT details->'data'->>'read' FROM dp_train('{source}', 'y', 'x', algorithm => 'amp', "
           f"epsilon => 1, delta => {1.0 / rows ** 2!r}, classes => ARRAY['false', 'true'])")
    out, err, wall = psql(sql)
    m = re.search(r"phase passes gradient/loss: ([0-9.]+) s \((\d+) statements\)", err)
    shuffle = re.search(r"phase shuffle: ([0-9.]+) s", err)
    return {"wall": wall, "passes": float(m.group(1)), "n": int(m.group(2)),
            "shuffle": float(shuffle.group(1)) if shuffle else 0.0, "read": out or "shuffled copy"}

variants = [("view: shuffled copy, passes over the temp table", "big_view", 0),
            ("table in place, no worker", "big", 0),
            ("table in place, 2 workers", "big", 2)]
best = {}
scans = []
for r in range(repeat):
    scans.append(psql("SET max_parallel_workers_per_gather = 0; SELECT sum(cardinality(x)) FROM big")[2])
    for name, source, workers in variants:
        res = train(source, workers)
        res["per_pass"] = res["passes"] / res["n"]
        if name not in best or res["per_pass"] < best[name]["per_pass"]:
            best[name] = res
scan = min(scans)
load = open("/proc/loadavg").read().split()[0]
print(f"== {rows} x {dim}, AMP eps = 1, delta = 1/n^2; scan (sum(cardinality(x)), no worker) = {scan:.3f} s; "
      f"best of {repeat}; load average {load}")
print(f"{'variant':<50} {'wall s':>8} {'x scan':>8} {'copy s':>7} {'passes':>6} {'s/pass':>7} {'pass x scan':>11}")
base = best[variants[0][0]]
for name, _, _ in variants:
    b = best[name]
    print(f"{name:<50} {b['wall']:8.2f} {b['wall'] / scan:8.2f} {b['shuffle']:7.2f} {b['n']:6d} "
          f"{b['per_pass']:7.3f} {b['per_pass'] / scan:11.2f}")
for name, _, _ in variants[1:]:
    print(f"{name}: {base['per_pass'] / best[name]['per_pass']:.2f}x faster per pass than the copy; "
          f"read = {best[name]['read']}")
serial, parallel = best[variants[1][0]], best[variants[2][0]]
emit("4", "bench/read_in_place.sh", f"{rows}x{dim}: AMP pass in place, no worker / 2 workers (speed-up per pass)",
     serial["per_pass"] / parallel["per_pass"], "",
     f"no worker {serial['per_pass']:.3f} s per pass; scan {scan:.3f} s (best of {repeat})")
emit("4", "bench/read_in_place.sh", f"{rows}x{dim}: AMP call, shuffled copy / in place with 2 workers (speed-up, wall)",
     base["wall"] / parallel["wall"], "", f"over the copy {base['wall']:.2f} s wall; scan {scan:.3f} s")
PY
