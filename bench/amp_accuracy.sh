#!/usr/bin/env bash
# Test accuracy of AMP through dp_train, in the database (the engine's
# gradient passes), for the table of docs/amp_experiments.md §0:
#   hyperparameter-free AMP (epsilon => 0.1, delta => 1/n^2, nothing else) on
#   the AMP paper's Adult split, the official Adult split (rows of norm 1, as
#   `make demo` loads it) and KDD Cup 99 10% (seeded split); tuned AMP
#   (f = 0.01, f1 = 0.9) on the paper split; the non-private optimum
#   (lambda = 1/n) on the official split.
# Rows come from bench/amp_prototype --dump (the same rows the in-memory
# prototype measured), loaded into a throwaway cluster with this build.
# Run r uses seed => r (reproducible measurements, not private releases).
#   bash bench/amp_accuracy.sh [RUNS] [KDD_RUNS]      (defaults 10 and 5)
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-10} KDD_RUNS=${2:-5}
DATA=${DPTRAIN_DATA:-$(cd .. && pwd)/shared/data}
make -s -j2 >/dev/null
source scripts/lib/pgtmp.sh
pgtmp_init
pgtmp_private_install
pgtmp_start bench "shared_buffers = 512MB" "temp_buffers = 512MB" "jit = off"
psql -X -q -c "CREATE EXTENSION dptrain"

# load NAME DATASET: NAME_train and NAME_test (y boolean, x float8[]).
load() {
  local name=$1 dataset=$2 prefix=$PGTMP_DIR/$1
  build/bench/amp_prototype --data "$DATA" --dataset "$dataset" --dump "$prefix" >/dev/null
  for part in train test; do
    python3 - "$prefix.$part.csv" "$prefix.$part.tsv" <<'PY'
import sys
with open(sys.argv[1]) as f, open(sys.argv[2], "w") as out:
    for line in f:
        label, *x = line.rstrip("\n").split(",")
        out.write(("t" if label == "1" else "f") + "\t{" + ",".join(x) + "}\n")
PY
    psql -X -q -v ON_ERROR_STOP=1 -c "CREATE TABLE ${name}_$part (y boolean, x float8[])" \
      -c "\\copy ${name}_$part FROM '$prefix.$part.tsv'"
  done
}

# measure LABEL NAME RUNS ARGS: mean and sd of the test accuracy of RUNS
# dp_train calls, the optimizer passes per run (NOTICEs) and the seconds.
measure() {
  local label=$1 name=$2 runs=$3 args=$4
  python3 - "$label" "$name" "$runs" "$args" <<'PY'
import statistics, subprocess, sys, time
label, name, runs, args = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
n = int(subprocess.run(["psql", "-X", "-At", "-c", f"SELECT count(*) FROM {name}_train"],
                       check=True, capture_output=True, text=True).stdout)
args = args.replace("N2", repr(1.0 / (n * n))).replace("INV_N", repr(1.0 / n))
acc, passes, secs = [], [], []
for r in range(1, runs + 1):
    sql = (f"SET client_min_messages = notice; SELECT accuracy FROM dp_evaluate((SELECT model_id FROM "
           f"dp_train('{name}_train', 'y', 'x', {args}, seed => {r})), '{name}_test', 'y', 'x')")
    t = time.perf_counter()
    p = subprocess.run(["psql", "-X", "-At", "-v", "ON_ERROR_STOP=1", "-c", sql],
                       check=True, capture_output=True, text=True)
    secs.append(time.perf_counter() - t)
    acc.append(100 * float(p.stdout.strip().splitlines()[-1]))
    passes.append(p.stderr.count("optimizer pass"))
sd = statistics.stdev(acc) if len(acc) > 1 else 0.0
print(f"| {label} | {runs} (seeds 1-{runs}) | {statistics.mean(acc):.2f}% ± {sd:.2f} | "
      f"{statistics.mean(passes):.1f} | {statistics.mean(secs):.1f} s |", flush=True)
PY
}

load adult_paper adult-paper
load adult_official adult-official
load kdd kdd
echo "| data | runs | test accuracy | passes per run | seconds per run |"
echo "|---|---|---|---|---|"
HF="algorithm => 'amp', epsilon => 0.1, delta => N2"
measure "Adult, paper split, H-F AMP" adult_paper "$RUNS" "$HF"
measure "Adult, official split, H-F AMP" adult_official "$RUNS" "$HF"
measure "KDD Cup 99 10%, seeded split, H-F AMP" kdd "$KDD_RUNS" "$HF"
measure "Adult, paper split, tuned AMP (f = 0.01, f1 = 0.9)" adult_paper "$RUNS" \
  "$HF, options => '{\"f\": 0.01, \"f1\": 0.9}'"
measure "Adult, official split, optimum (lambda = 1/n, not private)" adult_official 1 \
  "algorithm => 'optimum', lambda => INV_N"
