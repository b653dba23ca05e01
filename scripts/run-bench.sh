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
exit $status
