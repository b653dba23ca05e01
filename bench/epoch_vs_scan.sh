#!/usr/bin/env bash
# One training epoch vs a plain aggregate scan of the same float8[] column
# (issue 18, item 3: target <= 1.2), in a throwaway cluster with this build installed.
#   bash bench/epoch_vs_scan.sh [--rows N] [--dim D] [--repeat R] [--batch-sizes 1,10]
# (defaults 500000 rows, 54 features, 7 repeats, b = 1, 10, 50).
# The shuffled training copy is a session temp table: temp_buffers is raised
# so that it stays in memory and both queries are measured on the CPU, not
# on reads from the OS page cache.
set -euo pipefail
cd "$(dirname "$0")/.."
make -s -j"$(nproc)" >/dev/null
source scripts/lib/pgtmp.sh
pgtmp_init
pgtmp_private_install
pgtmp_start bench "temp_buffers = 1GB" "shared_buffers = 512MB" "max_parallel_workers_per_gather = 0"
# The program refuses an option given twice: the script's defaults only where the caller gives none.
defaults=()
for opt in --rows:500000 --dim:54 --repeat:7; do
  case " $* " in *" ${opt%%:*} "*) ;; *) defaults+=("${opt%%:*}" "${opt#*:}") ;; esac
done
build/bench/epoch_vs_scan "${defaults[@]}" "$@"
