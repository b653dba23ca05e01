#!/usr/bin/env bash
# What the security hardening of issue 15 costs, as ratios against a
# baseline measured in the same run (a throwaway cluster with this build):
#
#  1. dp_predict over ROWS rows: as shipped (search_path pinned in C around
#     the query that loads the model, once per query) vs the same C function
#     declared with a SET search_path clause (a GUC save and restore on every
#     row) -- why dp_predict has no SET clause.
#  2. A private dp_train run: charged in a background worker's transaction
#     (committed before the rows are read) vs the same run with a seed (not
#     charged, no worker) -- the price of a durable charge per run.
#  3. The copy of a run without read access (every row checked by
#     dptrain.usable_row, unusable ones replaced) vs a reader's copy, on the
#     same table: dp_train of one epoch by an analyst with a budget vs by the
#     owner, both private.
#
#   bash bench/security_overhead.sh [ROWS] [REPEAT]     (default 200000 rows, 5 repeats)
# Medians are printed; nothing is asserted.
set -euo pipefail
cd "$(dirname "$0")/.."
ROWS=${1:-200000}
REPEAT=${2:-5}
make -s -j2 >/dev/null
source scripts/lib/pgtmp.sh
pgtmp_init
pgtmp_private_install
pgtmp_start security "max_parallel_workers_per_gather = 0" "temp_buffers = 256MB"
pgtmp_as_user "$PGTMP_BIN/createdb" bench
q() { psql -X -q -At -v ON_ERROR_STOP=1 -d bench "$@"; }
q >/dev/null <<SQL
CREATE EXTENSION dptrain;
CREATE ROLE bench_analyst LOGIN;
CREATE TABLE t AS SELECT i AS id, ARRAY[sin(i), cos(i), sin(2 * i), cos(3 * i), 0.5]::float8[] AS x,
  (sin(i) + 0.2 * cos(i) > 0) AS y FROM generate_series(1, $ROWS) i;
SELECT dp_grant_budget('t', 'bench_analyst', 1e6, 0);
-- dp_predict's C function with a SET clause, for comparison
CREATE FUNCTION predict_with_set(bigint, float8[]) RETURNS text AS '\$libdir/dptrain', 'dptrain_dp_predict_id'
  LANGUAGE C STRICT STABLE SET search_path = pg_catalog, pg_temp;
SQL
MODEL=$(q -c "SELECT model_id FROM dp_train('t', 'y', 'x', algorithm => 'none', epochs => 1, batch_size => 100)" | tail -1)

# seconds of one statement (as ROLE, if given), via psql's \timing
seconds() {
  local sql=$1 role=${2:-postgres}
  psql -X -q -d bench -U "$role" -c '\timing on' -c "SET client_min_messages = warning" -c "$sql" 2>&1 \
    | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | tail -1 | awk '{ print $1 / 1000 }'
}
median() { sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
# pair NAME BASELINE_SQL [ROLE] VARIANT_SQL [ROLE]: interleaved repeats, medians and their ratio
pair() {
  local name=$1 base=$2 base_role=$3 variant=$4 variant_role=$5 b=() v=()
  for _ in $(seq 1 "$REPEAT"); do
    b+=("$(seconds "$base" "$base_role")")
    v+=("$(seconds "$variant" "$variant_role")")
  done
  local mb mv
  mb=$(printf '%s\n' "${b[@]}" | median)
  mv=$(printf '%s\n' "${v[@]}" | median)
  printf '%-58s baseline %8.3f s  variant %8.3f s  ratio %.2f\n' "$name" "$mb" "$mv" "$(awk -v a="$mv" -v b="$mb" 'BEGIN { print a / b }')"
}

echo "== bench/security_overhead: $ROWS rows, $REPEAT repeats ($(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg))"
pair "dp_predict per row: SET clause (variant) vs pinned in C" \
  "SELECT count(*) FILTER (WHERE dp_predict($MODEL::bigint, x) = 'true') FROM t" postgres \
  "SELECT count(*) FILTER (WHERE predict_with_set($MODEL, x) = 'true') FROM t" postgres
pair "private run: durable charge (variant) vs seeded, uncharged" \
  "SELECT model_id FROM dp_train('t', 'y', 'x', algorithm => 'bolton', epsilon => 1, epochs => 1, seed => 1)" postgres \
  "SELECT model_id FROM dp_train('t', 'y', 'x', algorithm => 'bolton', epsilon => 1, epochs => 1)" postgres
pair "run without read access (variant) vs the owner's run" \
  "SELECT model_id FROM dp_train('t', 'y', 'x', algorithm => 'bolton', epsilon => 1, epochs => 1)" postgres \
  "SELECT model_id FROM dp_train('t', 'y', 'x', algorithm => 'bolton', epsilon => 1, epochs => 1)" bench_analyst
# a tiny table: the charge's fixed cost dominates
q -c "CREATE TABLE tiny AS SELECT * FROM t LIMIT 100"
pair "tiny table (100 rows): durable charge (variant) vs seeded" \
  "SELECT model_id FROM dp_train('tiny', 'y', 'x', algorithm => 'bolton', epsilon => 1, epochs => 1, seed => 1)" postgres \
  "SELECT model_id FROM dp_train('tiny', 'y', 'x', algorithm => 'bolton', epsilon => 1, epochs => 1)" postgres
