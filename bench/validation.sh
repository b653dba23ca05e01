#!/usr/bin/env bash
# The validation of a caller who may read the table (docs/performance.md,
# "The validation"): what its statements cost against a plain scan, the
# former shape (a statement of counts and row checks, then a second one for
# the labels) against the current one (one statement), measured round by
# round (interleaved), best of REPEAT, on one table `big` (x float8[DIM],
# y boolean, k int with three values):
#   scan                 SELECT sum(cardinality(x))
#   former/current, declared classes   label y, classes => {false,true}
#   former/current, classes from the data   label k, no classes
#     (the statements exactly as the row checks (src/pg/row_checks.cpp) wrote them before
#     and write them now, run by psql as the reader)
#   prepare_run          dptrain.training_prepare_run(..., 'amp', ...) in a
#                        REPEATABLE READ transaction: the whole validation
#                        of this build (inspect_training_data), and no copy
#                        (AMP reads the plain table in place)
#   dp_train validation  the DEBUG1 phase of one dp_train (algorithm none,
#                        1 epoch) per label kind, per round
#   bash bench/validation.sh [ROWS] [DIM] [REPEAT]    # default 1000000 54 3
set -euo pipefail
cd "$(dirname "$0")/.."
ROWS=${1:-1000000} DIM=${2:-54} REPEAT=${3:-3}
source bench/lib/speed_cluster.sh
speed_cluster "shared_buffers = 1GB" "jit = off" "max_parallel_workers_per_gather = 0"
psql -X -q -v ON_ERROR_STOP=1 <<SQL
CREATE EXTENSION dptrain;
$(big_table_sql "$ROWS" "$DIM")
CREATE TABLE big_k AS SELECT id, x, y, (id % 3)::int AS k FROM big;
DROP TABLE big;
ALTER TABLE big_k RENAME TO big;
VACUUM ANALYZE big;
SQL
python3 - "$ROWS" "$DIM" "$REPEAT" <<'PY'
import re, subprocess, sys
rows, dim, repeat = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])

def server_s(sql):
    # the statements' own time (psql's \timing, summed), without connecting
    p = subprocess.run(["psql", "-X", "-At", "-v", "ON_ERROR_STOP=1"], input="\\timing on\n" + sql,
                       capture_output=True, text=True, check=True)
    return sum(float(t) for t in re.findall(r"Time: ([0-9.]+) ms", p.stdout)) / 1000

def phase(sql):
    p = subprocess.run(["psql", "-X", "-At", "-v", "ON_ERROR_STOP=1", "-c", "SET client_min_messages = debug1",
                        "-c", sql], capture_output=True, text=True, check=True)
    return float(re.search(r"phase validation: ([0-9.]+) s", p.stderr).group(1))

FROM = "public.big"
def checks(x, y, numeric_label, former=True):
    # before: NaN looked for in the text of every number label; now only
    # float and numeric labels are compared with NaN (k is an int: none)
    nan = f"count(*) FILTER (WHERE {y}::text = 'NaN')::int8" if numeric_label and former else "0::int8"
    return (f"count(*)::int8 AS n, min(cardinality({x}))::int8 AS dmin, max(cardinality({x}))::int8 AS dmax, "
            f"count(*) FILTER (WHERE {x} IS NULL)::int8 AS null_x, count(*) FILTER (WHERE {y} IS NULL)::int8 AS null_y, "
            f"count(*) FILTER (WHERE array_ndims({x}) > 1)::int8 AS multi_dim, {nan} AS nan_y, 0::int8 AS out_of_range")
declared = "'{false,true}'::text[]"
shapes = {
    # before: the row checks, then the labels against the declared classes
    "former, declared classes": f"SELECT {checks('x', 'y', False)} FROM {FROM};\n"
        f"SELECT count(*) FILTER (WHERE array_position({declared}, y::text) IS NULL)::int8 FROM {FROM};\n",
    # now: a boolean label compared as a value with the declared classes' values
    "current, declared classes": f"SELECT {checks('x', 'y', False, False)}, count(*) FILTER (WHERE "
        f"NOT coalesce(y = ANY('{{false,true}}'::bool[]), false))::int8, NULL::text[] FROM {FROM};\n",
    # before: the row checks, then SELECT DISTINCT for the classes
    "former, classes from the data": f"SELECT {checks('x', 'k', True)} FROM {FROM};\n"
        f"SELECT k::text FROM (SELECT DISTINCT k FROM {FROM} ORDER BY 1 LIMIT 1001) c;\n",
    "current, classes from the data": f"WITH g AS MATERIALIZED (SELECT k AS c, {checks('x', 'k', True, False)} FROM {FROM} "
        "GROUP BY 1) SELECT sum(n)::int8, min(dmin)::int8, max(dmax)::int8, sum(null_x)::int8, sum(null_y)::int8, "
        "sum(multi_dim)::int8, sum(nan_y)::int8, sum(out_of_range)::int8, 0::int8, (SELECT array_agg(c::text ORDER BY c) "
        "FROM (SELECT c FROM g ORDER BY c LIMIT 1001) l) FROM g;\n",
    "prepare_run, declared classes": "BEGIN ISOLATION LEVEL REPEATABLE READ;\nSELECT rows FROM "
        "dptrain.training_prepare_run('big', 'y', 'x', 'amp', ARRAY['false', 'true']);\nCOMMIT;\n",
    "prepare_run, classes from the data": "BEGIN ISOLATION LEVEL REPEATABLE READ;\nSELECT rows FROM "
        "dptrain.training_prepare_run('big', 'k', 'x', 'amp', NULL);\nCOMMIT;\n",
}
trains = {
    "dp_train validation, declared classes": "SELECT count(*) FROM dp_train('big', 'y', 'x', algorithm => 'none', "
        "epochs => 1, classes => ARRAY['false', 'true'])",
    "dp_train validation, classes from the data": "SELECT count(*) FROM dp_train('big', 'k', 'x', algorithm => 'none', "
        "epochs => 1)",
}
scan_sql = "SELECT sum(cardinality(x)) FROM big;\n"
best = {k: float("inf") for k in ["scan", *shapes, *trains]}
loads = []
for r in range(repeat):
    loads.append(open("/proc/loadavg").read().split()[0])
    best["scan"] = min(best["scan"], server_s(scan_sql))
    for k, sql in shapes.items():
        best[k] = min(best[k], server_s(sql))
    for k, sql in trains.items():
        best[k] = min(best[k], phase(sql))
scan = best["scan"]
print(f"== {rows} x {dim}, best of {repeat}, load average at each round {' '.join(loads)}; scan = {scan:.3f} s")
for k, v in best.items():
    print(f"{k:<44} {v:7.3f} s {v / scan:6.2f} x scan")
PY
