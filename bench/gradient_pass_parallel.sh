#!/usr/bin/env bash
# The engine's GradientLoss pass (dptrain.gradient_sum, what AMP and the
# optimum run once per optimizer iteration) over a 1M-row table, with 2
# parallel workers against none (issue 10: target ratio <= 0.65). The
# aggregate's combine is an exact (compensated) sum, so the parallel plan is
# Gather over Partial Aggregates; the bench also checks that both plans give
# the same sums (to rounding of the compensated sums).
#   bash bench/gradient_pass_parallel.sh [ROWS] [DIM] [REPEAT]
# Defaults: 1,000,000 rows, d = 32, best of 5; the gradient + loss pass
# (L-BFGS's) and the pass with the Hessian (Newton's, d x d per row).
# A throwaway cluster with this build installed; a few minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
ROWS=${1:-1000000} DIM=${2:-32} REPEAT=${3:-5}
make -s -j2 >/dev/null
source scripts/lib/pgtmp.sh
pgtmp_init
pgtmp_private_install
pgtmp_start bench "shared_buffers = 512MB" "max_worker_processes = 8" "max_parallel_workers = 4" \
  "max_parallel_workers_per_gather = 2" "jit = off"
psql -X -q -v ON_ERROR_STOP=1 <<SQL
CREATE EXTENSION dptrain;
CREATE TABLE big AS
SELECT i AS id,
       (SELECT array_agg(sin(i * 0.001 * j + j)) FROM generate_series(1, $DIM) j)::float8[] AS x,
       (i % 3 = 0)::int::float8 AS y
FROM generate_series(1, $ROWS) i;
VACUUM ANALYZE big;
SQL
point="(SELECT array_agg(0.01 * j)::float8[] FROM generate_series(1, $DIM) j)"
python3 - "$REPEAT" "$point" <<'PY'
import subprocess, sys, time
sys.path.insert(0, "bench/lib")
from bench_ratio import emit  # the summary lines of make bench (issue 18)
repeat, point = int(sys.argv[1]), sys.argv[2]

def psql(sql):
    return subprocess.run(["psql", "-X", "-At", "-v", "ON_ERROR_STOP=1", "-c", sql],
                          check=True, capture_output=True, text=True).stdout.strip()

def timed(workers, hessian):
    q = (f"SET max_parallel_workers_per_gather = {workers}; "
         f"SELECT (dptrain.gradient_result(dptrain.gradient_sum(x, y, dptrain.gradient_request({point}, "
         f"hessian => {hessian})))).gradient[1:3] FROM big")
    plan = psql(f"SET max_parallel_workers_per_gather = {workers}; EXPLAIN (COSTS OFF) "
                f"SELECT dptrain.gradient_sum(x, y, dptrain.gradient_request({point})) FROM big")
    best, out = float("inf"), None
    for _ in range(repeat):
        t = time.perf_counter()
        out = psql(q).splitlines()[-1]  # after the SET's own output
        best = min(best, time.perf_counter() - t)
    return best, out, ("Gather" in plan)

for hessian in ("false", "true"):
    serial, a, _ = timed(0, hessian)
    parallel, b, gathered = timed(2, hessian)
    label = "gradient+loss" if hessian == "false" else "gradient+loss+Hessian"
    print(f"{label}: no workers {serial:.3f} s, 2 workers {parallel:.3f} s (parallel plan: {gathered}), "
          f"ratio {parallel / serial:.3f} (target <= 0.65)")
    print(f"  first gradient sums, serial {a} / parallel {b}")
    emit("4", "bench/gradient_pass_parallel.sh", f"{label} pass: 2 workers / none (issue 10's target)",
         parallel / serial, "<= 0.65", f"no workers {serial:.3f} s (best of {repeat})")
PY
