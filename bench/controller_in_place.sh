#!/usr/bin/env bash
# The CLI's controller reading in place (issue 18, item 2; docs/performance.md,
# "Reading in place", the controller): `dptrain train --controller` with AMP
# on a plain table its role may read, whose passes then read the table under
# the transaction's one snapshot (REPEATABLE READ) through
# dptrain.training_in_place_pass, against the same call with those two
# functions renamed away -- the controller then falls back to
# dptrain.training_prepare (the shuffled copy), which is exactly what it did
# before this change (and still does against an older extension). Round by
# round (interleaved), best of REPEAT by wall time, with a plain scan; the
# wall time is the CLI's, from start to exit.
#   bash bench/controller_in_place.sh [ROWS] [DIM] [REPEAT]    # default 1000000 54 3
# A throwaway cluster (shared_buffers 1GB, jit off).
set -euo pipefail
cd "$(dirname "$0")/.."
ROWS=${1:-1000000} DIM=${2:-54} REPEAT=${3:-3}
source bench/lib/speed_cluster.sh
speed_cluster "shared_buffers = 1GB" "max_worker_processes = 8" "max_parallel_workers = 4" "jit = off"
psql -X -q -v ON_ERROR_STOP=1 <<SQL
CREATE EXTENSION dptrain;
$(big_table_sql "$ROWS" "$DIM")
SQL
python3 - "$ROWS" "$DIM" "$REPEAT" "$PWD/build/dptrain" <<'PY'
import json, subprocess, sys, time
rows, dim, repeat, cli = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]

def psql(sql):
    t = time.perf_counter()
    subprocess.run(["psql", "-X", "-At", "-q", "-v", "ON_ERROR_STOP=1", "-c", sql], check=True, capture_output=True)
    return time.perf_counter() - t

FUNCS = ["training_prepare_run(regclass, text, text, text, text[], bigint, float8, float8)",
         "training_in_place_pass(regclass, text, float8[])"]
def functions(present):
    for f in FUNCS:
        name = f.split("(")[0]
        src, dst = (name + "_hidden", name) if present else (name, name + "_hidden")
        psql(f"ALTER FUNCTION dptrain.{src}({f.split('(', 1)[1]} RENAME TO {dst}")

def train(workers):
    env_sql = f"-c max_parallel_workers_per_gather={workers}"
    t = time.perf_counter()
    p = subprocess.run([cli, "train", "--db", f"options='{env_sql}'", "--table", "big", "--algorithm", "amp",
                        "--epsilon", "1", "--delta", repr(1.0 / rows ** 2), "--classes", "false", "true",
                        "--controller", "--json"], capture_output=True, text=True)
    wall = time.perf_counter() - t
    if p.returncode != 0:
        sys.exit(f"controller_in_place: the CLI failed:\n{p.stderr}")
    out = json.loads(p.stdout)
    return {"wall": wall, "model_id": out["model_id"]}

def read_of(model_id):
    p = subprocess.run(["psql", "-X", "-At", "-c", f"SELECT coalesce(details->'data'->>'read', 'shuffled copy') "
                        f"FROM dptrain.models WHERE id = {model_id}"], capture_output=True, text=True, check=True)
    return p.stdout.strip()

variants = [("before: training_prepare (shuffled copy)", False, 0),
            ("after: in place, no worker", True, 0),
            ("after: in place, 2 workers", True, 2)]
best, scans = {}, []
present = True
for r in range(repeat):
    scans.append(psql("SET max_parallel_workers_per_gather = 0; SELECT sum(cardinality(x)) FROM big"))
    for name, with_functions, workers in variants:
        if with_functions != present:
            functions(with_functions)
            present = with_functions
        res = train(workers)
        if name not in best or res["wall"] < best[name]["wall"]:
            best[name] = res
if not present:
    functions(True)
scan = min(scans)
load = open("/proc/loadavg").read().split()[0]
print(f"== {rows} x {dim}, dptrain train --controller, AMP eps = 1, delta = 1/n^2, owner of the table; "
      f"scan (sum(cardinality(x)), no worker) = {scan:.3f} s; best of {repeat}; load average {load}")
print(f"{'variant':<42} {'wall s':>7} {'x scan':>7}  read")
base = best[variants[0][0]]["wall"]
for name, _, _ in variants:
    b = best[name]
    print(f"{name:<42} {b['wall']:7.2f} {b['wall'] / scan:7.2f}  {read_of(b['model_id'])}  ({base / b['wall']:.2f}x)")
PY
