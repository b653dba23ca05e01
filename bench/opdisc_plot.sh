#!/bin/bash
# bench/opdisc_plot.sh: the accuracy-vs-epsilon plot of docs/opdisc.md §8 (the paper's Figure 1a
# on our data) from the measured table docs/opdisc/adult_a17.csv (bench/opdisc_adult, 15 runs per
# epsilon). Writes docs/opdisc/adult_a17.png. Cheap: gnuplot only, nothing is measured here.
set -euo pipefail
cd "$(dirname "$0")/../docs/opdisc"
gnuplot <<'GP'
set datafile separator ','
set terminal pngcairo size 800,560 noenhanced
set output 'adult_a17.png'
set title 'Balanced Adult, d = 17 (a17), delta = 1/n^2, 15 runs per epsilon (mean, error bars: sd)'
set xlabel 'epsilon'
set ylabel 'training accuracy'
set logscale x
set xtics ('0.1' 0.1, '0.3' 0.3, '1' 1, '3' 3)
set xrange [0.07:4.5]
set yrange [0.5:0.82]
set key bottom right
set grid
plot 'adult_a17.csv' using 1:2:3 with yerrorlines pt 7 title 'OPDisc (0/1 loss, exact MIP)', \
     'adult_a17.csv' using 1:4 with linespoints pt 5 title 'bolt-on logistic, best lambda (tuned non-privately)', \
     'adult_a17.csv' using 1:5:6 with yerrorlines pt 9 title 'DP-SGD logistic, public defaults', \
     0.7924 with lines dt 2 lc rgb 'gray40' title 'non-private 0/1 optimum on the grid (0.7924)'
GP
echo "wrote docs/opdisc/adult_a17.png"
