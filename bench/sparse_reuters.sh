#!/usr/bin/env bash
# Reuters money-fx dense (float8[]) vs sparse (dptrain.sparsevec), measured
# in one run on one throwaway cluster (docs/sparse.md §5):
#   * table size (pg_total_relation_size, TOAST included) of the train table;
#   * seconds per SGD epoch through dp_train, from the server's own phase
#     timings (DEBUG1: the epoch statements apart from the copy); for non-private SGD
#     with b = 1 and lambda > 0 (the scaled-weights O(nnz) step) and for
#     bolt-on with its defaults (epsilon only: the batch size from n, d, eps);
#   * test accuracy both ways: bolt-on with its defaults at epsilon 1 and 10
#     (pure), mean of RUNS seeded runs (seed => r: reproducible measurements,
#     not releases), and non-private SGD for reference.
#   bash bench/sparse_reuters.sh [RUNS]     (default 5)
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-5}
E1=1 E2=${E2:-5}
DATA=${DPTRAIN_DATA:-$(cd .. && pwd)/shared/data}
make -s -j2 >/dev/null
source scripts/lib/pgtmp.sh
pgtmp_init
pgtmp_private_install
pgtmp_start bench "shared_buffers = 512MB" "temp_buffers = 512MB" "jit = off"
psql -X -q -c "CREATE EXTENSION dptrain"

R=$DATA/reuters_moneyfx
echo "== load"
build/dptrain load --table reuters_dense --test-file "$R/reuters.tst.gz" "$R/reuters.trn.gz"
build/dptrain load --table reuters_sparse --sparse --test-file "$R/reuters.tst.gz" "$R/reuters.trn.gz"
psql -X -q -c "VACUUM ANALYZE"

python3 - "$RUNS" "$E1" "$E2" <<'PY'
import re, subprocess, sys, time, statistics
runs, e1, e2 = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])

def sql(q):
    return subprocess.run(["psql", "-X", "-At", "-v", "ON_ERROR_STOP=1", "-c", q],
                          check=True, capture_output=True, text=True).stdout.strip()

def timed(q):
    t = time.perf_counter()
    out = sql(q)
    return time.perf_counter() - t, out

print("== table size (train, bytes incl. TOAST and the primary key)")
size = {}
for kind in ("dense", "sparse"):
    size[kind] = int(sql(f"SELECT pg_total_relation_size('reuters_{kind}')"))
    print(f"  {kind:6s} {size[kind]:>12,d} bytes ({size[kind] / 2**20:.1f} MiB)")
print(f"  dense / sparse = {size['dense'] / size['sparse']:.1f}x")
print("  mean nnz per row:", sql("SELECT round(avg(dptrain.sparsevec_nnz(x)), 1) FROM reuters_sparse"))

configs = {
    "sgd b=1 lambda=1e-4": "algorithm => 'none', batch_size => 1, lambda => 1e-4, learning_rate => 0.5",
    "bolton defaults (eps 1)": "epsilon => 1",
}
# The server's own phase timings (DEBUG1 "dptrain: phase ...": the copy
# ("shuffle") and the epoch statements ("passes sgd epoch"), timed inside
# dp_train), so the per-epoch time is not a difference of noisy wall times.
def phases(q):
    p = subprocess.run(["psql", "-X", "-At", "-v", "ON_ERROR_STOP=1", "-c",
                        "SET client_min_messages = debug1; " + q], check=True, capture_output=True, text=True)
    out = {}
    for m in re.finditer(r"dptrain: phase ([a-z /]+): ([0-9.]+) s(?: \((\d+) statements\))?", p.stderr):
        out[m.group(1)] = (float(m.group(2)), int(m.group(3) or 0))
    return out

print(f"== seconds per epoch (the epoch statements of one dp_train of {e2} epochs, server-timed; median of 3),")
print("   the copy (shuffle phase) and the whole call")
for label, args in configs.items():
    per = {}
    for kind in ("dense", "sparse"):
        runs3 = []
        for _ in range(3):
            t = time.perf_counter()
            ph = phases(f"SELECT 1 FROM dp_train('reuters_{kind}', 'y', 'x', {args}, epochs => {e2}, seed => 1)")
            wall = time.perf_counter() - t
            sec, n = ph["passes sgd epoch"]
            runs3.append((sec / n, ph.get("shuffle", (0, 0))[0], wall))
        runs3.sort()
        per[kind], copy, wall = runs3[1]
        print(f"  {label:24s} {kind:6s} {per[kind]:8.4f} s/epoch, copy {copy:6.2f} s, whole call {wall:6.2f} s")
    print(f"  {label:24s} dense / sparse = {per['dense'] / per['sparse']:.1f}x per epoch")

print("== DP-SGD (the default with delta: Poisson lots, each sampled row densified), whole call, median of 3")
for kind in ("dense", "sparse"):
    walls = sorted(timed(f"SELECT 1 FROM dp_train('reuters_{kind}', 'y', 'x', epsilon => 1, delta => 1e-5, "
                         f"seed => 1)")[0] for _ in range(3))
    print(f"  dpsgd defaults           {kind:6s} {walls[1]:6.2f} s")

def accuracy(kind, args, seeds):
    acc, secs = [], []
    for r in seeds:
        t, out = timed(f"SELECT accuracy FROM dp_evaluate((SELECT model_id FROM dp_train('reuters_{kind}', 'y', 'x', "
                       f"{args}, seed => {r})), 'reuters_{kind}_test', 'y', 'x')")
        acc.append(100 * float(out))
        secs.append(t)
    sd = statistics.stdev(acc) if len(acc) > 1 else 0.0
    return statistics.mean(acc), sd, statistics.mean(secs)

runs_for = {
    "bolton eps 1 (defaults)": ("epsilon => 1", runs),
    "bolton eps 10 (defaults)": ("epsilon => 10", runs),
    "none (sgd b=1, 5 epochs)": ("algorithm => 'none', batch_size => 1, lambda => 1e-4, learning_rate => 0.5, epochs => 5", 1),
}
print(f"== test accuracy, dense vs sparse (mean of the seeded runs: seed => 1..n)")
for label, (args, n) in runs_for.items():
    for kind in ("dense", "sparse"):
        m, sd, t = accuracy(kind, args, range(1, n + 1))
        print(f"  {label:26s} {kind:6s} {m:6.2f}% (sd {sd:.2f}, {n} runs), {t:.2f} s per train+evaluate")
print("  majority rate:", sql("SELECT round(100 * avg((NOT y)::int), 2) FROM reuters_dense_test"), "%")
PY
