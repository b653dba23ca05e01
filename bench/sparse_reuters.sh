#!/usr/bin/env bash
# Reuters money-fx dense (float8[]) vs sparse (dptrain.sparsevec), measured
# in one run on one throwaway cluster (docs/sparse.md §5):
#   * table size (pg_total_relation_size, TOAST included) of the train table;
#   * seconds per SGD epoch through dp_train: (t(E2 epochs) - t(E1 epochs)) /
#     (E2 - E1), so the one-off prepare/copy cancels out; for non-private SGD
#     with b = 1 and lambda > 0 (the scaled-weights O(nnz) step) and for
#     bolt-on with its defaults (epsilon only: the batch size from n, d, eps);
#   * test accuracy of bolt-on (epsilon 1, pure, defaults) both ways, mean of
#     RUNS seeded runs (seed => r: reproducible measurements, not releases).
#   bash bench/sparse_reuters.sh [RUNS]     (default 5)
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-5}
E1=1 E2=${E2:-4}
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
import subprocess, sys, time, statistics
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
print(f"== seconds per epoch: (t({e2} epochs) - t({e1} epoch)) / {e2 - e1}, best of 2")
for label, args in configs.items():
    per = {}
    for kind in ("dense", "sparse"):
        best = {}
        for epochs in (e1, e2):
            best[epochs] = min(timed(f"SELECT 1 FROM dp_train('reuters_{kind}', 'y', 'x', {args}, "
                                     f"epochs => {epochs}, seed => 1)")[0] for _ in range(2))
        per[kind] = (best[e2] - best[e1]) / (e2 - e1)
        print(f"  {label:24s} {kind:6s} {per[kind]:8.3f} s/epoch (t1 {best[e1]:.2f} s, t{e2} {best[e2]:.2f} s)")
    print(f"  {label:24s} dense / sparse = {per['dense'] / per['sparse']:.1f}x")

print(f"== bolt-on test accuracy (epsilon 1, pure, defaults), mean of {runs} seeded runs")
for kind in ("dense", "sparse"):
    acc, secs = [], []
    for r in range(1, runs + 1):
        t, out = timed(f"SELECT accuracy FROM dp_evaluate((SELECT model_id FROM dp_train('reuters_{kind}', 'y', 'x', "
                       f"epsilon => 1, seed => {r})), 'reuters_{kind}_test', 'y', 'x')")
        acc.append(100 * float(out))
        secs.append(t)
    sd = statistics.stdev(acc) if len(acc) > 1 else 0.0
    print(f"  {kind:6s} accuracy {statistics.mean(acc):.2f}% (sd {sd:.2f}), {statistics.mean(secs):.2f} s per train+evaluate")
print("  majority rate:", sql("SELECT round(100 * avg((NOT y)::int), 2) FROM reuters_dense_test"), "%")
PY
