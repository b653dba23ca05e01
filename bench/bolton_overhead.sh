#!/usr/bin/env bash
# Runs bench/bolton_overhead in a throwaway cluster with this build of the
# extension (scripts/lib/pgtmp.sh). Arguments are passed to the benchmark,
# e.g.  bash bench/bolton_overhead.sh --rows 400000 --repeat 9
# (temp_buffers is raised so that the shuffled copy of the table stays in
# memory: both runs of a pair do the same work, and less of it is I/O noise.)
set -euo pipefail
cd "$(dirname "$0")/.."
make -s -j2 >/dev/null
source scripts/lib/pgtmp.sh
pgtmp_init
pgtmp_private_install
pgtmp_start overhead "max_parallel_workers_per_gather = 0" "temp_buffers = 512MB"
pgtmp_as_user "$PGTMP_BIN/createdb" bench
echo "== bench/bolton_overhead ($(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg))"
build/bench/bolton_overhead --db "dbname=bench" "$@"
