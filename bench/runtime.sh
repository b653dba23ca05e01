#!/usr/bin/env bash
# The runtime study of Bolt-on (Wu et al., SIGMOD'17, Figures 2 and 5) on
# dptrain: noiseless vs bolt-on vs SCS13 vs BST14, in a throwaway cluster.
#
#   bash bench/runtime.sh [--quick] [--overhead-only] [--out DIR] [--algorithms none,bolton,scs13,bst14]
#
# Writes DIR/{overhead,epochs,batch,scale}.csv and DIR/*.png (gnuplot) and
# prints the overhead ratios vs noiseless measured in the same run (the
# algorithms are interleaved epoch by epoch, see bench/runtime.cpp).
#   full:    500,000 x 54 rows, epochs 1..20, 3 repeats, scaling 50k..400k
#            rows with temp_buffers = 128MB (the larger tables do not fit);
#            about 15 minutes on 2 cores
#   --quick: 100,000 x 54 rows, epochs 1..5, 1 repeat, scaling 20k..160k rows
#            with temp_buffers = 32MB; 1-2 minutes
#   --overhead-only: only the overhead experiment (issue 18, item 5; what
#            `BENCH_ONLY=issue18 make bench` runs), no plots
# Training tables are session temp tables, so "in memory" means in the
# backend's temp_buffers (not shared_buffers); the larger tables are read
# through the OS page cache. Timings are wall clock as seen by the client.
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD

QUICK=0
OVERHEAD_ONLY=0
OUT=$REPO/bench/out/runtime
ALGORITHMS=none,bolton,scs13,bst14
while [ $# -gt 0 ]; do
  case $1 in
    --quick) QUICK=1 ;;
    --overhead-only) OVERHEAD_ONLY=1 ;;
    --out) OUT=$(realpath -m "$2"); shift ;;
    --algorithms) ALGORITHMS=$2; shift ;;
    *) echo "usage: $0 [--quick] [--overhead-only] [--out DIR] [--algorithms LIST]" >&2; exit 2 ;;
  esac
  shift
done

# The overhead, epochs and batch experiments run "in memory" as in the paper
# (the training table fits in temp_buffers); the scaling experiment uses a
# smaller temp_buffers so that its largest tables do not.
if [ $QUICK = 1 ]; then
  ROWS=100000 EPOCHS=5 REPEAT=1 SCALE_TEMP_BUFFERS=32MB SCALE=20000,40000,80000,160000
else
  ROWS=500000 EPOCHS=20 REPEAT=3 SCALE_TEMP_BUFFERS=128MB SCALE=50000,100000,200000,400000
fi
TEMP_BUFFERS=1GB

make -s -j2 >/dev/null
source scripts/lib/pgtmp.sh
pgtmp_init
pgtmp_private_install
pgtmp_start bench "work_mem = 64MB"
mkdir -p "$OUT"
[ "$(id -u)" -eq 0 ] && chown "$PGTMP_USER" "$OUT"

RUNTIME=$REPO/build/bench/runtime
run() { "$RUNTIME" --db "dbname=postgres" --dim 54 --algorithms "$ALGORITHMS" --out "$OUT" "$@"; }

echo "== overhead vs noiseless (same run, b = 1, 10, 50)"
run --temp-buffers $TEMP_BUFFERS --experiment overhead --rows $ROWS --epochs 3 --repeat $REPEAT --batch-sizes 1,10,50
[ $OVERHEAD_ONLY = 1 ] && exit 0
echo "== runtime vs epochs (b = 10)"
run --temp-buffers $TEMP_BUFFERS --experiment epochs --rows $ROWS --epochs $EPOCHS --repeat $REPEAT --batch-size 10
echo "== runtime vs batch size"
run --temp-buffers $TEMP_BUFFERS --experiment batch --rows $ROWS --epochs 2 --repeat $REPEAT --batch-sizes 1,10,50,500
echo "== scalability in the number of rows (b = 10, temp_buffers = $SCALE_TEMP_BUFFERS)"
run --temp-buffers $SCALE_TEMP_BUFFERS --experiment scale --scale-rows $SCALE --epochs 2 --repeat $REPEAT --batch-size 10

# Plots: one line per algorithm (the CSV columns after the first).
cd "$OUT"
gnuplot <<'GP'
set datafile separator ','
set terminal pngcairo size 800,560 noenhanced
set key top left
set grid
ncol(f) = system(sprintf("head -1 %s | tr ',' '\n' | grep -vc _ratio", f)) + 0
set output 'runtime_vs_epochs.png'
set title 'Runtime vs number of epochs (b = 10; Bolt-on Fig. 5a-c)'
set xlabel 'epochs'
set ylabel 'cumulative epoch time (s)'
n = ncol('epochs.csv')
plot for [i=2:n] 'epochs.csv' using 1:i with linespoints title columnheader(i)
set output 'runtime_vs_batch.png'
set title 'Runtime per epoch vs batch size (Bolt-on Fig. 5d-f)'
set xlabel 'batch size'
set ylabel 'seconds per epoch'
set logscale x
n = ncol('batch.csv')
plot for [i=2:n] 'batch.csv' using 1:i with linespoints title columnheader(i)
unset logscale x
set output 'scalability.png'
set title 'Runtime per epoch vs rows (b = 10; hollow: larger than temp_buffers; Bolt-on Fig. 2)'
set xlabel 'rows'
set ylabel 'seconds per epoch'
n = ncol('scale.csv')
plot for [i=4:n] 'scale.csv' using 1:i with linespoints pt 7 lc i title columnheader(i), \
     for [i=4:n] 'scale.csv' using 1:($3 == 0 ? column(i) : 1/0) with points pt 6 ps 2.5 lc i notitle
GP
echo
echo "results in $OUT:"
ls "$OUT"
echo
echo "overhead ratios vs noiseless (per-epoch time, same run):"
column -s, -t overhead.csv
