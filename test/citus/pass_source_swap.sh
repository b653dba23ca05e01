#!/usr/bin/env bash
# The passes of a run read in place name their source as schema.table, and
# PostgreSQL resolves that name again on every pass, as dp_train's owner
# (the extension owner), while the run holds a lock on the table but not on
# its schema. A schema owner who renames the schema during the run and puts
# an impostor (a view calling a function of theirs) at the old name must get
# an error, not their function run with the extension owner's rights
# (src/pg/statement_checks.h; docs/distributed.md
# section 9.6). Checked for both sources read in place:
#  * a Citus hash-distributed table (bolt-on: pushed-down SGD epochs);
#  * a plain local table (AMP: gradient sums read in place).
# The swap is made deterministic, without sleeps: a second session holds the
# advisory lock that serializes the charges on the source (dptrain.lock_source),
# so the run stops in its charge -- after it inspected the table, before its
# first pass -- until the swap is committed.
set -euo pipefail
source "$(dirname "$0")/lib/cluster.sh"

sql "CREATE ROLE reg_mallory_$$ LOGIN; GRANT CREATE ON DATABASE \"$(sql 'SELECT current_database()')\" TO reg_mallory_$$" >/dev/null
# Evidence of an impostor's code run by a pass: who ran it.
sql "CREATE TABLE public.spied (who name); GRANT INSERT ON public.spied TO PUBLIC" >/dev/null

charge_lock() {  # the key of dptrain.lock_source for TABLE
  sql "SELECT (x'4450546D'::bigint << 32) + '$1'::regclass::oid::bigint"
}

# wait_until "query" "what": polls the coordinator until the query returns t
# (the isolation tester's way of waiting for a blocked session), at most ~60 s.
wait_until() {
  local i
  for i in $(seq 600); do
    [ "$(sql "$1")" = t ] && return 0
    sleep 0.1
  done
  fail "timed out waiting until $2"
}

# swap_during_run SCHEMA TABLE ARGS: dp_train on SCHEMA.TABLE, with the schema
# renamed and an impostor view created by reg_mallory_$$ (the schema's owner)
# while the run waits for its charge. Prints the run's output.
swap_during_run() {
  local schema=$1 table=$2 args=$3 key fifo out holder runner
  key=$(charge_lock "$schema.$table")
  out=$(mktemp) fifo=$(mktemp -u)
  mkfifo "$fifo"
  # Session 1 holds the charge lock of the source in an open transaction.
  citus_psql coordinator -At <"$fifo" >/dev/null 2>&1 &
  holder=$!
  exec 7>"$fifo"
  echo "BEGIN; SELECT pg_advisory_xact_lock($key);" >&7
  wait_until "SELECT EXISTS (SELECT FROM pg_locks WHERE locktype = 'advisory' AND granted
                AND ((classid::bigint << 32) | objid::bigint) = $key)" "the charge lock is held"
  # Session 2: the run, stopped in its charge.
  citus_psql coordinator -At -v VERBOSITY=verbose -c "SELECT model_id FROM dp_train('$schema.$table', 'y', 'x', $args)" \
    >"$out" 2>&1 &
  runner=$!
  wait_until "SELECT EXISTS (SELECT FROM pg_stat_activity WHERE backend_type = 'dptrain charge' AND datname = current_database()
                AND wait_event_type = 'Lock' AND wait_event = 'advisory')" "the run waits for its charge"
  # Session 3: the schema owner swaps the source.
  citus_psql coordinator -At -c "SET ROLE reg_mallory_$$" -c "SET lock_timeout = '60s'" -c "ALTER SCHEMA $schema RENAME TO ${schema}_real" \
    -c "CREATE SCHEMA $schema" \
    -c "CREATE FUNCTION $schema.spy() RETURNS boolean LANGUAGE plpgsql AS
          \$\$ BEGIN RAISE WARNING 'spy ran as %', current_user;
             INSERT INTO public.spied VALUES (current_user); RETURN true; END \$\$" \
    -c "CREATE VIEW $schema.$table AS SELECT 1::bigint AS id, ARRAY[0.5, 0.5, 0.25]::float8[] AS x, $schema.spy() AS y" \
    >/dev/null 2>&1
  echo "COMMIT;" >&7
  exec 7>&-
  wait "$holder" || true
  wait "$runner" || true
  rm -f "$fifo"
  cat "$out"
  rm -f "$out"
}

check_refused() {  # check_refused WHAT OUTPUT
  ! echo "$2" | grep -q "spy ran" || fail "$1: the impostor's function ran: $2"
  echo "$2" | grep -q "55000" && echo "$2" | grep -q "now finds another object" ||
    fail "$1: the swapped source was not refused: $2"
  local spied
  spied=$(sql "SELECT coalesce(string_agg(who::text, ','), '') FROM public.spied")
  [ -z "$spied" ] || fail "$1: the impostor's function ran as: $spied"
}

# --- a distributed table ---------------------------------------------------------
sql "CREATE SCHEMA dist AUTHORIZATION reg_mallory_$$" >/dev/null
points dist_src 400
distributed_copy dist_src dist.pts 4
sql "ALTER TABLE dist.pts ADD PRIMARY KEY (id)" >/dev/null
# Positive control: the run itself works and is charged (so it waits for the lock below).
id=$(sql "SELECT model_id FROM dp_train('dist.pts', 'y', 'x', algorithm => 'bolton', epsilon => 1, epochs => 1)")
[[ "$id" =~ ^[0-9]+$ ]] || fail "dp_train on dist.pts failed: $id"
out=$(swap_during_run dist pts "algorithm => 'bolton', epsilon => 1, epochs => 1")
check_refused "distributed bolt-on" "$out"
[ "$(sql "SELECT count(*) FROM pg_namespace WHERE nspname = 'dist_real'")" = 1 ] ||
  fail "the schema was not renamed during the run: the test did not swap anything"
echo "ok: a distributed table's schema renamed and replaced during the run: refused (55000), no impostor code ran"

# --- a plain local table read in place --------------------------------------------
sql "CREATE SCHEMA loc AUTHORIZATION reg_mallory_$$" >/dev/null
points loc.pts 400
id=$(sql "SELECT model_id FROM dp_train('loc.pts', 'y', 'x', algorithm => 'amp', epsilon => 1, delta => 1e-6)")
[ "$(sql "SELECT details->'data'->>'read' FROM dptrain.models WHERE id = $id")" = 'in place, one snapshot, no copy' ] ||
  fail "AMP on loc.pts is not read in place: $(sql "SELECT details->'data' FROM dptrain.models WHERE id = $id")"
out=$(swap_during_run loc pts "algorithm => 'amp', epsilon => 1, delta => 1e-6")
check_refused "local AMP read in place" "$out"
echo "ok: a local table read in place, its schema renamed and replaced during the run: refused, no impostor code ran"

# The impostor itself works: read directly, it runs its function.
sql "SELECT count(*) FROM loc.pts" >/dev/null
[ "$(sql "SELECT count(*) FROM public.spied")" = 1 ] || fail "the impostor view does not run its function when read"
echo "pass_source_swap: all ok"
