#!/usr/bin/env bash
# Memory (issue 18, item 6): does a run's backend memory stay flat in the row
# count? For every algorithm, one dp_train call in a fresh session on a
# synthetic table of each size, and the backend's peak *private* memory
# while it runs:
#   peak_anon_mb  max of RssAnon in /proc/<backend>/status, sampled every
#                 20 ms during the call (the backend's own memory: palloc'd
#                 contexts, temp_buffers, the C++ core's heap), minus its
#                 value before the call (a fresh session's baseline)
#   hwm_mb        VmHWM at the end (peak resident set; includes the pages of
#                 shared_buffers the backend touched, so it grows with the
#                 table up to shared_buffers: reported, not the figure)
# "Flat" means peak_anon_mb at the largest size is close to the smallest
# size's; the script prints the ratio per algorithm.
#
#   bash bench/memory.sh                       # ROWS="100000 1000000" DIM=54
#   ROWS="20000 200000" ALGORITHMS="bolton bst14" bash bench/memory.sh
#
# A throwaway cluster (shared_buffers 256MB, the default temp_buffers and
# work_mem, jit off, no parallel workers). Results also go to
# bench/out/memory/memory.csv. About 10 minutes for the default sizes on
# 2 cores (the 1M-row AMP, DP-AGD and P-FW runs dominate).
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
DIM=${DIM:-54}
ROWS=${ROWS:-"100000 1000000"}
# opdisc is left out by default: its exact MIP oracle needs a few features, not 54
ALGORITHMS=${ALGORITHMS:-"bolton scs13 bst14 amp amp_tuned psgd pfw dpagd dpsgd"}

# dp_train arguments per algorithm (5 epochs where there are epochs; delta
# below 1/n for the (epsilon, delta) ones).
args_for() {
  local d="delta => 1e-13"
  case $1 in
    bolton) echo "algorithm => 'bolton', epsilon => 1, epochs => 5" ;;
    scs13) echo "algorithm => 'scs13', epsilon => 1, epochs => 5, batch_size => 10" ;;
    bst14) echo "algorithm => 'bst14', epsilon => 1, $d, lambda => 0.0001, epochs => 5, batch_size => 10" ;;
    amp) echo "algorithm => 'amp', epsilon => 1, $d" ;;  # hyperparameter-free AMP
    amp_tuned) echo "algorithm => 'amp', epsilon => 1, $d, lambda => 0.001" ;;
    psgd) echo "algorithm => 'psgd', epsilon => 1, $d, epochs => 5" ;;
    pfw) echo "algorithm => 'pfw', epsilon => 1, $d, radius => 10" ;;
    # few, large budget splits: fewer iterations (their number does not change the memory)
    dpagd) echo "algorithm => 'dpagd', epsilon => 1, $d, options => '{\"splits\": 5}'" ;;
    dpsgd) echo "algorithm => 'dpsgd', epsilon => 1, $d, epochs => 5" ;;
    opdisc) echo "algorithm => 'opdisc', epsilon => 1, $d" ;;
    *) echo "unknown algorithm $1" >&2; return 1 ;;
  esac
}

make -s -j2 >/dev/null
source bench/lib/bench_ratio.sh
source scripts/lib/pgtmp.sh
pgtmp_init
pgtmp_private_install
pgtmp_start bench "jit = off" "max_parallel_workers_per_gather = 0"
psql -X -q -v ON_ERROR_STOP=1 -c "CREATE EXTENSION dptrain"
OUT=$REPO/bench/out/memory
mkdir -p "$OUT"
CSV=$OUT/memory.csv
echo "rows,dim,algorithm,seconds,peak_anon_mb,hwm_mb,status" >"$CSV"

kb() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status" 2>/dev/null || true; }

# measure TABLE ALGO: one fresh session; prints "seconds peak_anon_mb hwm_mb status".
measure() {
  local table=$1 algo=$2 pidfile=$PGTMP_DIR/pid.$$ donefile=$PGTMP_DIR/done.$$
  rm -f "$pidfile" "$donefile"
  local a; a=$(args_for "$algo")
  psql -X -q -At -v ON_ERROR_STOP=1 >"$PGTMP_DIR/psql.out" 2>&1 <<SQL &
SELECT pg_backend_pid() \gset
\setenv DPTRAIN_BACKEND :pg_backend_pid
\! echo \$DPTRAIN_BACKEND > $pidfile
SELECT pg_sleep(0.2);
\timing on
SELECT count(*) FROM dp_train('$table', 'y', 'x', $a, classes => ARRAY['false', 'true']);
SQL
  local psql_pid=$! pid="" base=0 peak=0 hwm=0 v
  while [ -z "$pid" ] && kill -0 $psql_pid 2>/dev/null; do pid=$(cat "$pidfile" 2>/dev/null || true); sleep 0.01; done
  [ -n "$pid" ] && base=$(kb "$pid" RssAnon)
  while kill -0 $psql_pid 2>/dev/null; do
    v=$(kb "$pid" RssAnon); [ -n "$v" ] && [ "$v" -gt "$peak" ] && peak=$v
    v=$(kb "$pid" VmHWM); [ -n "$v" ] && hwm=$v
    sleep 0.02
  done
  local status=ok
  wait $psql_pid || status=failed
  local secs; secs=$(sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' "$PGTMP_DIR/psql.out" | tail -1)
  [ "$status" = ok ] || { echo "  $algo failed:" >&2; tail -3 "$PGTMP_DIR/psql.out" >&2; }
  awk -v s="${secs:-0}" -v p="$peak" -v b="${base:-0}" -v h="$hwm" -v st="$status" \
    'BEGIN { printf "%.2f %.1f %.1f %s\n", s / 1000, (p - b) / 1024, h / 1024, st }'
}

declare -A PEAK STATUS
for rows in $ROWS; do
  table=mem_${rows}_${DIM}
  echo "== $rows rows x $DIM: creating $table..."
  psql -X -q -v ON_ERROR_STOP=1 <<SQL
CREATE TABLE $table AS SELECT i AS id, x, ((x[1] + x[2] - x[3] > 0) <> (random() < 0.1)) AS y FROM (
  SELECT i, ARRAY(SELECT (2 * random() - 1) / sqrt($DIM / 3.0) FROM generate_series(1, $DIM + 0 * i)) AS x
  FROM generate_series(1, $rows) i) s;
VACUUM ANALYZE $table;
SQL
  echo "   $(psql -X -At -c "SELECT pg_size_pretty(pg_total_relation_size('$table'))")"
  printf "  %-10s %9s %14s %9s\n" algorithm seconds peak_anon_MB hwm_MB
  for algo in $ALGORITHMS; do
    read -r secs peak hwm status < <(measure "$table" "$algo")
    printf "  %-10s %9s %14s %9s %s\n" "$algo" "$secs" "$peak" "$hwm" "$([ "$status" = ok ] || echo FAILED)"
    echo "$rows,$DIM,$algo,$secs,$peak,$hwm,$status" >>"$CSV"
    PEAK[$algo,$rows]=$peak
    STATUS[$algo,$rows]=$status
  done
done

first=${ROWS%% *}; last=${ROWS##* }
if [ "$first" != "$last" ]; then
  echo
  echo "peak private memory, $last rows vs $first rows (1.0 = flat in n):"
  for algo in $ALGORITHMS; do
    awk -v a="$algo" -v s="${PEAK[$algo,$first]}" -v l="${PEAK[$algo,$last]}" \
      'BEGIN { printf "  %-10s %7.1f MB -> %7.1f MB   %5.2fx\n", a, s, l, (s > 0 ? l / s : 0) }'
  done
  # make bench's summary (issue 18, item 6: flat in n; the issue gives no number)
  for algo in $ALGORITHMS; do
    [ "${STATUS[$algo,$first]}${STATUS[$algo,$last]}" = okok ] || continue
    bench_ratio 6 bench/memory.sh "$algo: peak private memory, $last rows / $first rows (x $DIM)" \
      "$(awk -v s="${PEAK[$algo,$first]}" -v l="${PEAK[$algo,$last]}" 'BEGIN { printf "%.3f", (s > 0 ? l / s : 0) }')" \
      "" "$first rows: ${PEAK[$algo,$first]} MB"
  done
fi
echo "results in $CSV"
