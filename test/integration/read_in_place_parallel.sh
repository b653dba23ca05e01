#!/usr/bin/env bash
# Reading in place with parallel workers (docs/performance.md, "Reading in
# place"; src/pg/local_source.h): an AMP run on a plain table its caller may
# read runs its gradient passes over the table itself, and PostgreSQL runs
# them with parallel workers (auto_explain shows the workers launched under
# dptrain.gradient_sum); the model equals the one of the same seeded run
# without workers (compensated sums: equal to rounding).
set -euo pipefail
source "$(dirname "$0")/lib/scratch_db.sh"
scratch_db read_in_place
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"; dropdb --if-exists --force "$db" >/dev/null 2>&1 || true' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

psql -Xq -v ON_ERROR_STOP=1 -d "$db" -c "
  CREATE TABLE big AS
  SELECT i AS id, ARRAY[sin(i * 0.7), cos(i * 1.3), 0.3, sin(i * 0.11)]::float8[] AS x,
         (sin(i * 0.7) + 0.5 * cos(i * 1.3) + 0.3 * sin(i * 2.9) > 0) AS y
  FROM generate_series(1, 200000) i"
psql -Xq -v ON_ERROR_STOP=1 -d "$db" -c "VACUUM ANALYZE big"

train() {  # $1 = workers, $2 = model name; prints the auto_explain plans on stderr
  psql -X -q -At -v ON_ERROR_STOP=1 -d "$db" <<SQL
LOAD 'auto_explain';
SET auto_explain.log_min_duration = 0;
SET auto_explain.log_nested_statements = on;
SET auto_explain.log_analyze = on;
SET client_min_messages = log;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET max_parallel_workers_per_gather = $1;
SELECT details->'data'->>'read' FROM dp_train('big', 'y', 'x', algorithm => 'amp', epsilon => 1, delta => 1e-8,
                                              seed => 5, classes => ARRAY['false', 'true'], name => '$2');
SQL
}

read=$(train 2 parallel 2>"$WORK/par.log")
grep -q 'Query Text: SELECT dptrain.gradient_sum' "$WORK/par.log" || fail "no gradient pass in the plans"
launched=$(grep -A8 'Query Text: SELECT dptrain.gradient_sum' "$WORK/par.log" |
           sed -n 's/.*Workers Launched: \([0-9]*\).*/\1/p' | sort -n | tail -1)
[ "${launched:-0}" -ge 1 ] || fail "no gradient pass ran with a parallel worker (Workers Launched: ${launched:-none})"
[ "$read" = "in place, one snapshot, no copy" ] || fail "the run did not read in place: $read"
[ -z "$(grep -E 'FROM pg_temp\.dptrain_shuffled' "$WORK/par.log")" ] || fail "a pass read a shuffled copy"

train 0 sequential 2>"$WORK/seq.log" >/dev/null
if grep -A8 'Query Text: SELECT dptrain.gradient_sum' "$WORK/seq.log" | grep 'Workers Launched: [1-9]' >/dev/null; then
  fail "max_parallel_workers_per_gather = 0 still launched workers"
fi
gap=$(psql -X -At -d "$db" -c "
  SELECT max(abs(p.w - q.w)) < 1e-9 FROM
    (SELECT w, o FROM dptrain.models m, unnest(m.weights) WITH ORDINALITY u(w, o) WHERE m.name = 'parallel') p
    JOIN (SELECT w, o FROM dptrain.models m, unnest(m.weights) WITH ORDINALITY u(w, o) WHERE m.name = 'sequential') q
    USING (o)")
[ "$gap" = t ] || fail "the parallel and the sequential run released different models"
echo "read_in_place_parallel: ok (up to $launched workers per gradient pass; same model as without workers)"
