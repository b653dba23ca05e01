#!/usr/bin/env bash
# `make bench`: every benchmark in bench/, each in its own throwaway cluster.
# They print ratios against a baseline measured in the same run; none of
# them is a test. BENCH_FULL=1 runs the long versions.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
make -s -j"$(nproc)" || exit 1
quick=--quick
[ -n "${BENCH_FULL:-}" ] && quick=
status=0
run() { echo; echo "=== $*"; "$@" || status=1; }
run bash bench/epoch_vs_scan.sh
[ -f bench/bolton_overhead.sh ] && run bash bench/bolton_overhead.sh
run bash bench/runtime.sh $quick
# issue 18, item 5: the per-batch noise and what a faster keystream would gain
run build/bench/noise_speed
[ -x build/bench/keystream_speed ] && run build/bench/keystream_speed
# AMP's Hessian passes: the gradient state's block of rows vs the per-row rank-one update
run build/bench/hessian_block
# issue 18: a whole dp_train by phase vs scans and the Python path; the shuffle alone; sparse rows
run bash bench/end_to_end.sh
if [ -n "${BENCH_FULL:-}" ]; then run bash bench/shuffle.sh; else run bash bench/shuffle.sh 1000000 54 3; fi
if [ -n "${BENCH_FULL:-}" ]; then run bash bench/read_in_place.sh 1000000 54 3; else run bash bench/read_in_place.sh 1000000 54 1; fi
# issue 18, item 6: each algorithm's peak backend memory at two table sizes (flat in n?)
run bash bench/memory.sh
if [ -n "${BENCH_FULL:-}" ]; then run bash bench/sparse_reuters.sh; else run bash bench/sparse_reuters.sh 2; fi
data=${DPTRAIN_DATA:-../shared/data}
if bash scripts/install-citus.sh | tail -1 | grep -q available; then
  if [ -n "${BENCH_FULL:-}" ]; then run bash bench/distributed.sh; else run env ROWS=20000 REPEAT=1 bash bench/distributed.sh; fi
fi
if [ -n "${BENCH_FULL:-}" ]; then run bash bench/security_overhead.sh; else run bash bench/security_overhead.sh 50000 3; fi
if [ -n "${BENCH_FULL:-}" ]; then
  run build/bench/distributed_convergence --data "$data"
  run build/bench/privacy_audit
  run env FASHION=1 bash bench/bolton_accuracy.sh
  run bash bench/whitebox_accuracy.sh
else
  run build/bench/distributed_convergence --data "$data" --shards 1,32 --epochs 1,10 --seeds 2 --draws 5
  run build/bench/privacy_audit --runs 5000 --calibration-runs 1000
  run env RUNS=2 EPSILONS='{0.1,1}' MNIST_RUNS=1 MNIST_EPSILONS='{1,10}' bash bench/bolton_accuracy.sh
  run env RUNS=2 EPSILONS='{0.1,1}' MNIST_RUNS=1 MNIST_EPSILONS='{1,10}' PRIVATE_TUNING=0 bash bench/whitebox_accuracy.sh
fi
exit $status
