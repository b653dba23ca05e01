#!/usr/bin/env bash
# `make bench`: the benchmarks README.md lists (not bench/compare.sh, nor the
# accuracy scripts the docs run alone), each in its own throwaway cluster.
# They print ratios against a baseline measured in the same run; none of
# them is a test. BENCH_FULL=1 runs the long versions.
#   BENCH_ONLY=issue18   only the benches of issue 18's items 1-6 (also
#                        `make bench-issue18`), in their quick form
#   BENCH_SMALL=1        the issue-18 benches at their smallest sizes: checks
#                        the harness and the summary, the numbers mean little
# The whole output goes to bench/out/bench-<UTC time>.log (bench-latest.log
# links to it), and the run ends with the table of issue 18's ratios read from
# the benches' BENCH-RATIO lines (bench/lib/target_summary.py) and each
# bench's wall time.
set -uo pipefail
cd "$(dirname "$0")/.."
case ${BENCH_ONLY:-} in
  "" | issue18) ;;
  *) echo "run-bench: BENCH_ONLY=${BENCH_ONLY} is not known (only: issue18)" >&2; exit 2 ;;
esac
if [ -n "${BENCH_FULL:-}" ] && [ -n "${BENCH_SMALL:-}" ]; then
  echo "run-bench: BENCH_FULL and BENCH_SMALL exclude each other" >&2; exit 2
fi
bash scripts/install-deps.sh
make -s -j"$(nproc)" || exit 1
mkdir -p bench/out
log=bench/out/bench-$(date -u +%Y%m%dT%H%M%SZ).log
ln -sfn "$(basename "$log")" bench/out/bench-latest.log

# run COMMAND...: one bench, its output, then its wall time and exit status as
# a BENCH-WALL line (bench/lib/bench_ratio.py).
run() {
  echo; echo "=== $*"
  local t0=$EPOCHREALTIME rc=0 cmd
  "$@" || rc=$?
  cmd=$(printf '%q ' "$@")
  printf 'BENCH-WALL\t%s\t%s\t%s\n' "${cmd% }" "$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')" $rc
  return $rc
}

# Issue 18, items 1-6 (docs/performance.md, "make bench: the targets in one table").
issue18() {
  local s=0
  if [ -n "${BENCH_SMALL:-}" ]; then
    run bash bench/epoch_vs_scan.sh --rows 100000 --repeat 3 || s=1
    run bash bench/runtime.sh --quick --overhead-only --out bench/out/runtime-small || s=1
    run build/bench/noise_speed --batches 20000 --repeat 2 || s=1
    [ -x build/bench/keystream_speed ] && { run build/bench/keystream_speed --megabytes 5 --rounds 2 || s=1; }
    run env ROWS="20000 100000" REPEAT=1 bash bench/end_to_end.sh || s=1
    run bash bench/shuffle.sh 100000 54 1 || s=1
    run bash bench/read_in_place.sh 100000 54 1 || s=1
    run env ROWS="20000 100000" bash bench/memory.sh || s=1
    return $s
  fi
  run bash bench/epoch_vs_scan.sh || s=1
  if [ -n "${BENCH_FULL:-}" ]; then
    run bash bench/runtime.sh || s=1
  elif [ -n "${BENCH_ONLY:-}" ]; then
    run bash bench/runtime.sh --quick --overhead-only || s=1
  else
    run bash bench/runtime.sh --quick || s=1
  fi
  # item 5: the per-batch noise and what a faster keystream would gain
  run build/bench/noise_speed || s=1
  [ -x build/bench/keystream_speed ] && { run build/bench/keystream_speed || s=1; }
  # a whole dp_train by phase vs scans and the Python path; the shuffle alone; reading in place
  run bash bench/end_to_end.sh || s=1
  if [ -n "${BENCH_FULL:-}" ]; then run bash bench/shuffle.sh || s=1; else run bash bench/shuffle.sh 1000000 54 3 || s=1; fi
  if [ -n "${BENCH_FULL:-}" ]; then
    run bash bench/read_in_place.sh 1000000 54 3 || s=1
  else
    run bash bench/read_in_place.sh 1000000 54 1 || s=1
  fi
  # item 6: each algorithm's peak backend memory at two table sizes (flat in n?)
  run bash bench/memory.sh || s=1
  return $s
}

# The other benches (not issue 18's items).
others() {
  local s=0
  [ -f bench/bolton_overhead.sh ] && { run bash bench/bolton_overhead.sh || s=1; }
  # AMP's Hessian passes: the gradient state's block of rows vs the per-row rank-one update
  run build/bench/hessian_block || s=1
  if [ -n "${BENCH_FULL:-}" ]; then run bash bench/sparse_reuters.sh || s=1; else run bash bench/sparse_reuters.sh 2 || s=1; fi
  local data=${DPTRAIN_DATA:-../shared/data}
  if bash scripts/install-citus.sh | tail -1 | grep -q available; then
    if [ -n "${BENCH_FULL:-}" ]; then
      run bash bench/distributed.sh || s=1
    else
      run env ROWS=20000 REPEAT=1 bash bench/distributed.sh || s=1
    fi
  fi
  if [ -n "${BENCH_FULL:-}" ]; then
    run bash bench/security_overhead.sh || s=1
  else
    run bash bench/security_overhead.sh 50000 3 || s=1
  fi
  if [ -n "${BENCH_FULL:-}" ]; then
    run build/bench/distributed_convergence --data "$data" || s=1
    run build/bench/privacy_audit || s=1
    run env FASHION=1 bash bench/bolton_accuracy.sh || s=1
    run bash bench/whitebox_accuracy.sh || s=1
  else
    run build/bench/distributed_convergence --data "$data" --shards 1,32 --epochs 1,10 --seeds 2 --draws 5 || s=1
    run build/bench/privacy_audit --runs 5000 --calibration-runs 1000 || s=1
    run env RUNS=2 EPSILONS='{0.1,1}' MNIST_RUNS=1 MNIST_EPSILONS='{1,10}' bash bench/bolton_accuracy.sh || s=1
    run env RUNS=2 EPSILONS='{0.1,1}' MNIST_RUNS=1 MNIST_EPSILONS='{1,10}' PRIVATE_TUNING=0 \
      bash bench/whitebox_accuracy.sh || s=1
  fi
  return $s
}

benches() {
  local s=0
  echo "make bench: $(date -u '+%F %T') UTC, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg);" \
       "BENCH_ONLY=${BENCH_ONLY:-} BENCH_FULL=${BENCH_FULL:-} BENCH_SMALL=${BENCH_SMALL:-}; commit $(git rev-parse --short HEAD 2>/dev/null)"
  issue18 || s=1
  if [ -z "${BENCH_ONLY:-}" ] && [ -z "${BENCH_SMALL:-}" ]; then others || s=1; fi
  return $s
}

benches 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
echo
summary=$(python3 bench/lib/target_summary.py "$log")
printf '%s\n' "$summary" | tee -a "$log"
echo "the whole output: $log"
exit $status
