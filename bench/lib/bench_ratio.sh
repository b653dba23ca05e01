# shellcheck shell=bash
# One BENCH-RATIO line for make bench's summary (format: bench/lib/bench_ratio.py):
#   bench_ratio ITEM BENCH WHAT RATIO TARGET BASELINE   (TARGET "<= 6", ">= 1.5" or "")
bench_ratio() {
  printf 'BENCH-RATIO\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" "$6"
}
