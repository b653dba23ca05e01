#!/usr/bin/env bash
# The scan cost of one DP-AGD iteration (issue 12: "one DP-AGD iteration costs
# <= 2.5 full-read scans of the table"): one iteration is one gradient pass
# (the clipped gradient at one point) plus one line-search pass (the clipped
# losses at all m + 1 = 21 candidate points), both the engine's GradientLoss
# pass, dptrain.gradient_sum (src/core/engine/gradient_state.h).
#
# On each table, in one throwaway cluster (jit off, no parallel workers, as
# dp_train reads), best of REPEAT runs each, times measured by the server
# (EXPLAIN ANALYZE's execution time; the phase lines for the run):
#   baselines  scan      SELECT sum(cardinality(x))   every tuple (the ratios are to this)
#              scan_all  SELECT count(*) WHERE x <> x every feature value: array_ne
#                                                compares all d elements (NOT x = x, which
#                                                the planner rewrites to x IS NOT NULL)
#   by hand    the two passes of an iteration as the run issues them
#              (SELECT dptrain.gradient_sum(x, y, request)), with requests of
#              DP-AGD's defaults (C_grad = C_obj = 1/2, 21 points, logistic)
#              built from dptrain.gradient_request's header (the line search
#              both as 21 explicit points and as a line, kLine, which is how
#              DP-AGD asks for it; one iteration counts the line): their seconds
#              and their sum, one iteration, as a ratio to scan and scan_all;
#              and the floor of any pass: the clipped loss at one point
#   in a run   dp_train(algorithm => 'dpagd') with client_min_messages =
#              debug1: the phase line "passes gradient/loss: s (N statements)"
#              (src/pg/phase_timing.h) gives the mean pass inside the run,
#              and 2 x that mean is the in-run iteration (the run reads its
#              own copy of the rows, made in the "shuffle" phase once per run;
#              splits = 10 keeps the run short, the passes are the same)
# Tables: UCI Adult as `make demo` loads it (30,162 rows, d = 104) and a
# synthetic table (ROWS x DIM, default 1,000,000 x 54, as bench/end_to_end.sh).
#
#   bash bench/dpagd_scan_cost.sh                       # Adult + 1M x 54 (~5 min on 2 cores)
#   ROWS=200000 DIM=54 REPEAT=3 bash bench/dpagd_scan_cost.sh
#
# Results: bench/out/dpagd_scan_cost/runs.csv.
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
ROWS=${ROWS:-1000000}
DIM=${DIM:-54}
REPEAT=${REPEAT:-3}
DATA=${DPTRAIN_DATA:-$PWD/../shared/data}
make -s -j2 >/dev/null
source scripts/lib/pgtmp.sh
pgtmp_init
pgtmp_private_install
pgtmp_start scancost "jit = off" "max_parallel_workers_per_gather = 0"
psql -X -q -v ON_ERROR_STOP=1 -c "CREATE EXTENSION dptrain"
build/dptrain load --db "dbname=postgres" --table adult --no-header --drop-missing --positive '>50K' \
  --test-file "$DATA/adult/adult.test.gz" "$DATA/adult/adult.data.gz" >/dev/null 2>&1
mkdir -p "$REPO/bench/out/dpagd_scan_cost"

python3 - "$REPEAT" "$REPO/bench/out/dpagd_scan_cost/runs.csv" "$ROWS" "$DIM" <<'PY'
import csv, json, re, subprocess, sys, time

repeat, out_csv, rows, dim = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4])

def psql(sql, debug=False):
    """Runs sql; returns (stdout, seconds, phases {name: (seconds, statements)})."""
    pre = "SET client_min_messages = debug1; " if debug else ""
    t = time.perf_counter()
    p = subprocess.run(["psql", "-X", "-At", "-v", "ON_ERROR_STOP=1", "-c", pre + sql],
                       capture_output=True, text=True)
    seconds = time.perf_counter() - t
    if p.returncode != 0:
        sys.exit(f"dpagd_scan_cost: psql failed on {sql[:300]}:\n{p.stderr}")
    phases = {}
    for m in re.finditer(r"dptrain: phase (.+?): ([0-9.]+) s(?: \((\d+) statements\))?", p.stderr):
        phases[m.group(1)] = (float(m.group(2)), int(m.group(3) or 0))
    lines = p.stdout.strip().splitlines()  # the last statement's result (not SET's tag)
    return (lines[-1] if lines else ""), seconds, phases

def executed(sql):
    """The server's execution time of sql (EXPLAIN ANALYZE without per-node
    timing): no client start-up or round trip, as the phase lines."""
    p = subprocess.run(["psql", "-X", "-At", "-v", "ON_ERROR_STOP=1", "-c",
                        "EXPLAIN (ANALYZE, TIMING OFF, COSTS OFF) " + sql], capture_output=True, text=True)
    m = re.search(r"Execution Time: ([0-9.]+) ms", p.stdout)
    if p.returncode != 0 or not m:
        sys.exit(f"dpagd_scan_cost: EXPLAIN ANALYZE failed on {sql[:300]}:\n{p.stderr}")
    return float(m.group(1)) / 1000

def best(sql):
    return min(executed(sql) for _ in range(repeat))

def best_or_none(sql):
    """best(sql), or None if this build refuses the request (an older build)."""
    p = subprocess.run(["psql", "-X", "-At", "-c", "EXPLAIN (ANALYZE, TIMING OFF, COSTS OFF) " + sql],
                       capture_output=True, text=True)
    return None if p.returncode != 0 else best(sql)

def make_synthetic(name):
    # As bench/end_to_end.sh: entries uniform on [-sqrt(3/d), sqrt(3/d)], a
    # linear label with 10% flipped.
    psql(f"""SELECT setseed(0.42);
      CREATE TABLE {name} AS SELECT i AS id, x, ((x[1] + x[2] - x[3] > 0) <> (random() < 0.1)) AS y FROM (
        SELECT i, ARRAY(SELECT (2 * random() - 1) / sqrt({dim} / 3.0) FROM generate_series(1, {dim} + 0 * i)) AS x
        FROM generate_series(1, {rows}) i) s""")
    psql(f"VACUUM ANALYZE {name}")

def request(d, points, want, clip_field, clip):
    """A gradient_sum request: the header of dptrain.gradient_request with P,
    the clip and the wanted sums set (gradient_state.h's layout), the points,
    then zero sums. A line request (kLine = 8) holds its first two points only."""
    header = json.loads(psql(f"SELECT array_to_json(dptrain.gradient_request(array_fill(0::float8, ARRAY[{d}])))")[0])[:16]
    header[4] = len(points)          # kPoints
    header[clip_field] = clip        # kGradientClip = 9 / kLossClip = 10
    header[11] = want                # kWant: 1 loss sums, 2 gradient
    values = header + [v for p in (points[:2] if want & 8 else points) for v in p]
    sums = 2 * len(points) + (2 * len(points) * d if want & 2 else 0)
    values += [0.0] * sums
    return "'{" + ",".join(repr(float(v)) for v in values) + "}'::float8[]"

rows_out = []
def record(table, what, seconds, scan, scan_all, detail=""):
    rows_out.append({"table": table, "what": what, "seconds": f"{seconds:.4f}",
                     "ratio_to_scan": f"{seconds / scan:.2f}", "ratio_to_scan_all": f"{seconds / scan_all:.2f}",
                     "detail": detail})
    print(f"  {what:<44} {seconds:8.4f} s  {seconds / scan:6.2f} x scan  {seconds / scan_all:6.2f} x scan_all  {detail}",
          flush=True)

tables = [("adult", 30162, None)]
tables.append((f"synthetic_{rows}_{dim}", rows, dim))
for name, n, d in tables:
    if d is None:
        d = int(psql(f"SELECT cardinality(x) FROM {name} LIMIT 1")[0])
    else:
        print(f"== creating {name}...", flush=True)
        make_synthetic(name)
    size = psql(f"SELECT pg_size_pretty(pg_total_relation_size('{name}'))")[0]
    executed(f"SELECT sum(cardinality(x)) FROM {name}")  # warm the caches
    scan = best(f"SELECT sum(cardinality(x)) FROM {name}")
    scan_all = best(f"SELECT count(*) FROM {name} WHERE x <> x")
    print(f"== {name}: {n} rows x {d} ({size}); scan = {scan:.4f} s, scan_all = {scan_all:.4f} s", flush=True)
    record(name, "scan (sum(cardinality(x)))", scan, scan, scan_all)
    record(name, "scan_all (x <> x, every value)", scan_all, scan, scan_all)
    # Points like a run's: w, and w - alpha_j dir for alpha_j = j * 2/20.
    w = [0.5 * ((j * 7919) % 13 - 6) / 6 for j in range(d)]
    direction = [((j * 104729) % 11 - 5) / (5 * d ** 0.5) for j in range(d)]
    grad_req = request(d, [w], 2, 9, 0.5)
    line_points = [[wj - (j * 2 / 20) * dj for wj, dj in zip(w, direction)] for j in range(21)]
    line_req = request(d, line_points, 1, 10, 0.5)
    y = "y::int::float8"
    loss_req = request(d, [w], 1, 10, 0.5)
    t_floor = best(f"SELECT dptrain.gradient_sum(x, {y}, {loss_req}) IS NOT NULL FROM {name}")
    t_grad = best(f"SELECT dptrain.gradient_sum(x, {y}, {grad_req}) IS NOT NULL FROM {name}")
    t_line = best(f"SELECT dptrain.gradient_sum(x, {y}, {line_req}) IS NOT NULL FROM {name}")
    # The same 21 points as a line request (kLine = 8: 2 dot products per row), as DP-AGD asks
    # for them (src/core/algorithms/dpagd.cpp); None on a build without kLine.
    t_line2 = best_or_none(f"SELECT dptrain.gradient_sum(x, {y}, {request(d, line_points, 9, 10, 0.5)}) IS NOT NULL FROM {name}")
    record(name, "floor: clipped loss at 1 point", t_floor, scan, scan_all,
           "(the aggregate's least work per row: clip the row, 1 dot product, 1 loss)")
    record(name, "gradient pass (1 point, C_grad 1/2)", t_grad, scan, scan_all)
    record(name, "line-search pass (21 points, C_obj 1/2)", t_line, scan, scan_all)
    if t_line2 is not None:
        record(name, "line-search pass as a line (kLine)", t_line2, scan, scan_all, "(2 dot products per row)")
        t_line = t_line2
    record(name, "ONE ITERATION by hand (gradient + line search)", t_grad + t_line, scan, scan_all,
           "(target <= 2.5 x scan)")
    # The passes inside a run (its own copy of the rows).
    # Two statements: dp_train's own statement does not see the model it stores.
    def train():
        return psql(f"SELECT model_id FROM dp_train('{name}', 'y', 'x', algorithm => 'dpagd', epsilon => 1, "
                    f"delta => 1e-8, seed => 1, classes => ARRAY['false', 'true'], "
                    f"options => '{{\"splits\": 10}}')", debug=True)
    model, wall, phases = min((train() for _ in range(repeat)), key=lambda r: r[1])
    out = psql(f"SELECT details->'privacy' FROM dptrain.models WHERE id = {model}")[0]
    passes = phases.get("passes gradient/loss")
    if passes is None:
        sys.exit(f"dpagd_scan_cost: no 'passes gradient/loss' phase line; phases: {phases}")
    seconds, statements = passes
    priv = json.loads(out) if out else {}
    detail = (f"({statements} passes: {priv.get('gradient_measurements', '?')} gradient, "
              f"{priv.get('iterations', '?')} iterations, {priv.get('gradient_refinements', '?')} refinements)")
    record(name, "dp_train dpagd (wall, client)", wall, scan, scan_all)
    for phase, (s, k) in phases.items():
        record(name, f"  phase {phase}", s, scan, scan_all, f"({k} statements)" if k else "")
    record(name, "  mean pass in the run", seconds / statements, scan, scan_all, detail)
    record(name, "  ONE ITERATION in the run (2 mean passes)", 2 * seconds / statements, scan, scan_all,
           "(target <= 2.5 x scan)")
    if name.startswith("synthetic"):
        psql(f"DROP TABLE {name}")

with open(out_csv, "w", newline="") as f:
    wr = csv.DictWriter(f, fieldnames=["table", "what", "seconds", "ratio_to_scan", "ratio_to_scan_all", "detail"])
    wr.writeheader()
    wr.writerows(rows_out)
print(f"written: {out_csv}")
PY
