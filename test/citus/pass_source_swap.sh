#!/usr/bin/env bash
# The passes of a run read in place name their source as schema.table, and
# PostgreSQL resolves that name again on every pass, as dp_train's owner
# (the extension owner), while the run holds a lock on the table but not on
# its schema; on a Citus table each worker resolves the shard's name again
# too, with no lock held between passes. Whoever can put another object at
# such a name during the run (a schema's owner; on the workers, the table's
# owner, who owns the shards) must get an error, not their function run with
# the extension owner's rights (src/pg/statement_checks.h on the coordinator,
# src/pg/shard_guard.h on the workers; docs/distributed.md section 9.6):
#  * a distributed table's schema renamed, an impostor table at the old name
#    whose label type casts through the owner's function;
#  * on the workers, every shard's label changed to such a type; one shard
#    replaced by a view calling the owner's function;
#  * a plain local table read in place (AMP) distributed by its owner, a
#    shard replaced by a view (src/pg/citus_read_barrier.h);
#  * a plain local table read in place (AMP), its schema renamed, a view at
#    the old name.
# The swap is made deterministic, without sleeps: a second session holds the
# advisory lock that serializes the charges on the source (dptrain.lock_source),
# so the run stops in its charge -- after it inspected the table and checked
# its shards, before its first pass -- until the swap is committed.
set -euo pipefail
source "$(dirname "$0")/lib/cluster.sh"
source "$(dirname "$0")/lib/paused_charge.sh"

sql "CREATE ROLE reg_mallory_$$ LOGIN; GRANT CREATE ON DATABASE \"$(sql 'SELECT current_database()')\" TO reg_mallory_$$" >/dev/null
# Evidence of an impostor's code run by a pass: who ran it.
sql "CREATE TABLE public.spied (who name); GRANT INSERT ON public.spied TO PUBLIC" >/dev/null

# paused_run TABLE ARGS SWAP: dp_train on TABLE, stopped in its charge while
# the shell function SWAP runs (lib/paused_charge.sh).
paused_run() { paused_call "$1" "SELECT model_id FROM dp_train('$1', 'y', 'x', $2)" "$3"; }

# The schema's owner renames the schema $SWAP_SCHEMA and puts a view calling
# its function at the old name of $SWAP_TABLE.
swap_schema() {
  local schema=$SWAP_SCHEMA table=$SWAP_TABLE
  citus_psql coordinator -At -c "SET ROLE reg_mallory_$$" -c "SET lock_timeout = '60s'" -c "ALTER SCHEMA $schema RENAME TO ${schema}_real" \
    -c "CREATE SCHEMA $schema" \
    -c "CREATE FUNCTION $schema.spy() RETURNS boolean LANGUAGE plpgsql AS
          \$\$ BEGIN RAISE WARNING 'spy ran as %', current_user;
             INSERT INTO public.spied VALUES (current_user); RETURN true; END \$\$" \
    -c "$(impostor "$schema" "$table")"
}
# The impostor: a view calling spy(), or (SWAP_IMPOSTOR=table) a table whose
# label has a type whose cast to text is spy's.
impostor() {
  if [ "${SWAP_IMPOSTOR:-view}" = view ]; then
    echo "CREATE VIEW $1.$2 AS SELECT 1::bigint AS id, ARRAY[0.5, 0.5, 0.25]::float8[] AS x, $1.spy() AS y"
  else
    echo "CREATE TYPE $1.lbl AS ENUM ('false', 'true');
          CREATE FUNCTION $1.spy_cast($1.lbl) RETURNS text LANGUAGE sql AS \$\$ SELECT CASE WHEN $1.spy() THEN 'true' END \$\$;
          CREATE CAST ($1.lbl AS text) WITH FUNCTION $1.spy_cast($1.lbl);
          CREATE TABLE $1.$2 AS SELECT 1::bigint AS id, ARRAY[0.5, 0.5, 0.25]::float8[] AS x, 'true'::$1.lbl AS y"
  fi
}
swap_during_run() { SWAP_SCHEMA=$1 SWAP_TABLE=$2 paused_run "$1.$2" "$3" swap_schema; }

check_refused() {  # check_refused WHAT OUTPUT
  ! grep -q "(the change failed)" <<<"$2" || fail "$1: the swap itself failed: $2"
  ! grep -q "spy ran" <<<"$2" || fail "$1: the impostor's function ran: $2"
  grep -q "55000" <<<"$2" && grep -q "now finds another object" <<<"$2" ||
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
out=$(SWAP_IMPOSTOR=table swap_during_run dist pts "algorithm => 'bolton', epsilon => 1, epochs => 1")
check_refused "distributed bolt-on" "$out"
[ "$(sql "SELECT count(*) FROM pg_namespace WHERE nspname = 'dist_real'")" = 1 ] ||
  fail "the schema was not renamed during the run: the test did not swap anything"
echo "ok: a distributed table's schema renamed and replaced by a table with a cast of its owner's during the run: refused (55000), no impostor code ran"

# --- the workers: a shard changed after the check, before the first pass ----------
# The shards belong to the table's owner, who may change them on the workers
# (run_command_on_shards, citus.enable_manual_changes_to_shards; done here on
# the workers directly, under SET ROLE). Evidence of code run on a worker:
# public.spied_w there.
for node in worker1 worker2; do
  citus_psql "$node" -At -c "SET citus.enable_ddl_propagation = off" -c "CREATE TABLE public.spied_w (who name)" \
    -c "GRANT INSERT ON public.spied_w TO PUBLIC" -c "CREATE SCHEMA mw AUTHORIZATION reg_mallory_$$" >/dev/null
done
spied_on_workers() {
  echo "$(on worker1 "SELECT coalesce(string_agg(who::text, ','), '') FROM public.spied_w")$(on worker2 "SELECT coalesce(string_agg(who::text, ','), '') FROM public.spied_w")"
}
check_worker_refused() {  # check_worker_refused WHAT OUTPUT MESSAGE: the guard refused a worker's swap
  ! grep -q "(the change failed)" <<<"$2" || fail "$1: the swap itself failed: $2"
  local spied
  spied=$(spied_on_workers)
  [ -z "$spied" ] || fail "$1: the owner's function ran on a worker as: $spied ($2)"
  grep -q "55000" <<<"$2" && grep -q "$3" <<<"$2" || fail "$1 during the run: not refused: $2"
}
as_mallory_on() {  # as_mallory_on NODE "statements": on a worker, with the table owner's rights only
  citus_psql "$1" -At -c "SET ROLE reg_mallory_$$" -c "SET citus.enable_ddl_propagation = off" \
    -c "SET citus.enable_manual_changes_to_shards = on" -c "$2"
}
shards_on() {  # shards_on TABLE NODE: the shard names of TABLE on worker NODE
  sql "SELECT shard_name FROM citus_shards WHERE table_name = '$1'::regclass AND nodeport = ${CITUS_PORT[$2]} ORDER BY shardid"
}
sql "CREATE SCHEMA ws AUTHORIZATION reg_mallory_$$" >/dev/null
for t in ws.pts1 ws.pts2; do
  points ws_src 400
  distributed_copy ws_src $t 4
  sql "DROP TABLE ws_src" >/dev/null
  sql "ALTER TABLE $t ADD PRIMARY KEY (id)" >/dev/null
  sql "ALTER TABLE $t OWNER TO reg_mallory_$$" >/dev/null
done
id=$(sql "SELECT model_id FROM dp_train('ws.pts1', 'y', 'x', algorithm => 'bolton', epsilon => 1, epochs => 1)")
[[ "$id" =~ ^[0-9]+$ ]] || fail "dp_train on ws.pts1 failed: $id"

# 1. Every shard's label becomes an enum whose cast to text is the owner's function.
swap_types() {
  local node shard
  for node in worker1 worker2; do
    as_mallory_on "$node" "CREATE TYPE mw.lbl AS ENUM ('false', 'true');
      CREATE FUNCTION mw.spy_cast(mw.lbl) RETURNS text LANGUAGE plpgsql AS
        \$\$ BEGIN INSERT INTO public.spied_w VALUES (current_user);
                 RETURN CASE WHEN \$1 = 'true' THEN 'true' ELSE 'false' END; END \$\$;
      CREATE CAST (mw.lbl AS text) WITH FUNCTION mw.spy_cast(mw.lbl)" || return 1
    for shard in $(shards_on ws.pts1 "$node"); do
      as_mallory_on "$node" "ALTER TABLE $shard ALTER COLUMN y TYPE mw.lbl USING y::text::mw.lbl" || return 1
    done
  done
}
out=$(paused_run ws.pts1 "algorithm => 'bolton', epsilon => 1, epochs => 1" swap_types)
check_worker_refused "shards whose label type was changed" "$out" "not the plain table the run checked"
echo "ok: shards whose label type was changed on the workers during the run: refused (55000), no owner's cast ran"

# spy_view_at SHARD FUNCTION: on worker 1, as the owner, the shard moved
# aside and a view at its name whose label calls mw.FUNCTION, which records
# the role it runs as in public.spied_w.
spy_view_at() {
  [ -n "$1" ] || return 1
  as_mallory_on worker1 "CREATE FUNCTION mw.$2() RETURNS boolean LANGUAGE plpgsql AS
      \$\$ BEGIN INSERT INTO public.spied_w VALUES (current_user); RETURN true; END \$\$;
    ALTER TABLE $1 RENAME TO ${1#*.}_moved;
    CREATE VIEW $1 AS SELECT id, x, mw.$2() AS y FROM ${1}_moved"
}

# 2. One shard is replaced by a view calling the owner's function.
swap_view() {
  local shard
  shard=$(shards_on ws.pts2 worker1 | head -1)
  spy_view_at "$shard" spy_view
}
out=$(paused_run ws.pts2 "algorithm => 'amp', epsilon => 1, delta => 1e-6" swap_view)
check_worker_refused "a shard replaced by a view" "$out" "which is a view"
echo "ok: a shard replaced by a view on its worker during the run: refused, no owner's code ran"

# --- a plain local table read in place --------------------------------------------
sql "CREATE SCHEMA loc AUTHORIZATION reg_mallory_$$" >/dev/null
points loc.pts 400
id=$(sql "SELECT model_id FROM dp_train('loc.pts', 'y', 'x', algorithm => 'amp', epsilon => 1, delta => 1e-6)")
[ "$(sql "SELECT details->'data'->>'read' FROM dptrain.models WHERE id = $id")" = 'in place, one snapshot, no copy' ] ||
  fail "AMP on loc.pts is not read in place: $(sql "SELECT details->'data' FROM dptrain.models WHERE id = $id")"
out=$(swap_during_run loc pts "algorithm => 'amp', epsilon => 1, delta => 1e-6")
check_refused "local AMP read in place" "$out"
echo "ok: a local table read in place, its schema renamed and replaced during the run: refused, no impostor code ran"

# --- a local table distributed by its owner during the run ----------------------------
# The passes of a run read in place were written for a local table: no
# guard. Its owner may distribute it meanwhile (create_distributed_table
# takes no lock the run's conflicts with) and, owning the new shards, put a
# view at one of their names on a worker. Measured before
# src/pg/citus_read_barrier.h refused unguarded statements on a Citus table:
# the superuser's AMP passes read the shards, the view's function ran as the
# superuser on worker1.
sql "CREATE SCHEMA dl AUTHORIZATION reg_mallory_$$" >/dev/null
points dl.pts 400
sql "ALTER TABLE dl.pts ADD PRIMARY KEY (id); ALTER TABLE dl.pts OWNER TO reg_mallory_$$" >/dev/null
distribute_and_swap() {
  citus_psql coordinator -At -c "SET ROLE reg_mallory_$$" -c "SET lock_timeout = '60s'" \
    -c "SELECT create_distributed_table('dl.pts', 'id', shard_count => 2)" || return 1
  local shard
  shard=$(shards_on dl.pts worker1 | head -1)
  spy_view_at "$shard" spy_dist
}
out=$(paused_run dl.pts "algorithm => 'amp', epsilon => 1, delta => 1e-6" distribute_and_swap)
! grep -q "(the change failed)" <<<"$out" || fail "distributing dl.pts during the run failed: $out"
[ "$(sql "SELECT count(*) FROM pg_dist_partition WHERE logicalrelid = 'dl.pts'::regclass")" = 1 ] ||
  fail "dl.pts was not distributed during the run"
[ -z "$(spied_on_workers)" ] || fail "a local table distributed during the run: the view's function ran as: $(spied_on_workers)"
grep -q "0A000" <<<"$out" && grep -q 'became a Citus table during the run' <<<"$out" ||
  fail "a local table distributed during the run: not refused: $out"
echo "ok: a local table read in place, distributed by its owner during the run (a shard replaced by a view): refused (0A000), no owner's code ran"

# The impostor itself works: read directly, it runs its function.
sql "SELECT count(*) FROM loc.pts" >/dev/null
[ "$(sql "SELECT count(*) FROM public.spied")" = 1 ] || fail "the impostor view does not run its function when read"
echo "pass_source_swap: all ok"
