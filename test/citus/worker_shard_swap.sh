#!/usr/bin/env bash
# Every read of a Citus table's shards is guarded on the workers, not only
# the passes (src/pg/shard_guard.h; docs/distributed.md section 9.6,
# docs/governance.md "Names resolved again"). A worker resolves a shard's
# name (schema.table_shardid) again for each statement; the owner of the
# table's schema may, on one worker only (SET citus.enable_ddl_propagation =
# off, open to every role), rename the schema, create one of the old name and
# put its own relation at the shards' names. Measured before the fix: a
# superuser's next dp_train ran the impostor view's function as the
# superuser on that worker during its very first statement (the count).
#
# Here, with the impostors in place before the call:
#  * a view at every shard name of worker 1 (with a tableoid column of its
#    own: a view may define one), calling the schema owner's function;
#  * a table at those names whose label is an enum with the owner's cast to
#    text, and a table with a row-security policy calling the function;
#  * code the worker's planner runs (an IMMUTABLE function with constant
#    arguments): in a view's definition, in a plain table's partial-index
#    predicate (the table belongs to the schema's owner, not the table's);
# a superuser's dp_train and dp_evaluate, a budget-only role's dp_train (read
# as the table's owner, not a superuser) and a reader's dp_encoding categories
# must fail with 55000 naming a shard, and the function must never run (its
# calls are recorded on the worker). With the charge-lock pause of
# pass_source_swap.sh, the view is also put in place after the counts and
# before the first pass: the passes' guard refuses it.
set -euo pipefail
source "$(dirname "$0")/lib/cluster.sh"

M=reg_schema_owner_$$ O=reg_table_owner_$$ A=reg_analyst_$$
db=$(sql 'SELECT current_database()')
sql "CREATE ROLE $M LOGIN; CREATE ROLE $O LOGIN; CREATE ROLE $A LOGIN" >/dev/null
sql "CREATE SCHEMA sw AUTHORIZATION $M; GRANT USAGE ON SCHEMA sw TO PUBLIC; GRANT CREATE ON SCHEMA sw TO $O" >/dev/null
for node in worker1 worker2; do
  # The schema owner may create schemas on the workers (to make the impostor's
  # schema); evidence of code run there: public.spied_w.
  citus_psql "$node" -At -c "SET citus.enable_ddl_propagation = off" -c "GRANT CREATE ON DATABASE \"$db\" TO $M" \
    -c "CREATE TABLE public.spied_w (who name, what text)" -c "GRANT INSERT ON public.spied_w TO PUBLIC" >/dev/null
done

# sw.pts (the superuser's) and sw.opts (a non-superuser owner's, with a
# budget for the analyst), both distributed over 4 shards by a unique id.
points sw_src 400
distributed_copy sw_src sw.pts 4
sql "ALTER TABLE sw.pts ADD PRIMARY KEY (id)" >/dev/null
sql "SET ROLE $O; CREATE TABLE sw.opts (id bigint, x float8[], y boolean)" >/dev/null
sql "SET citus.shard_count = 4; SELECT create_distributed_table('sw.opts', 'id')" >/dev/null
sql "INSERT INTO sw.opts SELECT * FROM sw_src; ALTER TABLE sw.opts ADD PRIMARY KEY (id)" >/dev/null
sql "ALTER TABLE sw.opts OWNER TO $O" >/dev/null
sql "SET ROLE $O; SELECT dp_grant_budget('sw.opts', '$A', epsilon => 10, delta => 1e-5)" >/dev/null
sql "GRANT SELECT ON sw.pts TO $A" >/dev/null

train() { sql "SELECT model_id FROM dp_train($1, algorithm => 'bolton', epsilon => 1, epochs => 1)"; }
# Positive controls: every call works on the untouched shards.
m_pts=$(train "'sw.pts', 'y', 'x'")
[[ "$m_pts" =~ ^[0-9]+$ ]] || fail "dp_train on sw.pts failed: $m_pts"
m=$(citus_psql coordinator -At -c "SET ROLE $A" -c "SELECT model_id FROM dp_train('sw.opts', 'y', 'x', algorithm => 'bolton', epsilon => 1, epochs => 1)")
[[ "$m" =~ ^[0-9]+$ ]] || fail "the analyst's dp_train on sw.opts failed: $m"
[ "$(sql "SELECT details->'data'->'distribution'->'shard_rows' = to_jsonb(ARRAY(SELECT result::int8 FROM run_command_on_shards('sw.pts', 'SELECT count(*) FROM %s') ORDER BY shardid)) FROM dptrain.models WHERE id = $m_pts")" = t ] ||
  fail "the shard row counts differ from run_command_on_shards's: $(sql "SELECT details->'data'->'distribution' FROM dptrain.models WHERE id = $m_pts")"
echo "ok: dp_train on the distributed tables works (a superuser, a budget-only role); shard row counts as counted shard by shard"

shards_on() {  # shards_on TABLE NODE: the shard names (schema-less) of TABLE on NODE
  sql "SELECT shard_name FROM citus_shards WHERE table_name = '$1'::regclass AND nodeport = ${CITUS_PORT[$2]} ORDER BY shardid" |
    sed 's/^sw\.//'
}
W1_PTS=$(shards_on sw.pts worker1) W1_OPTS=$(shards_on sw.opts worker1)
[ -n "$W1_PTS" ] && [ -n "$W1_OPTS" ] || fail "no shards on worker1"

# swap KIND: on worker1 only, as the schema's owner: sw renamed to sw_real,
# a new sw with spy() and, at every shard name of worker1, an impostor of KIND.
swap() {
  local kind=$1 shard stmts=""
  # The schema's owner may not read the real shards: its impostors hold rows
  # of its own. The view shows a tableoid column, that of its plain table
  # sw.decoy (a guard that trusted tableoid would check the decoy).
  local rows="SELECT i::bigint AS id, ARRAY[0.5, -0.5, 0.25]::float8[] AS x, i % 2 = 0 AS y FROM generate_series(1, 50) i"
  stmts="CREATE TABLE sw.decoy AS $rows; GRANT SELECT ON sw.decoy TO PUBLIC;"
  for shard in $W1_PTS $W1_OPTS; do
    case $kind in
      view) stmts+="CREATE VIEW sw.$shard AS SELECT d.tableoid AS tableoid, d.id, d.x, (sw.spy() OR d.y) AS y
                     FROM sw.decoy d; GRANT SELECT ON sw.$shard TO PUBLIC;" ;;
      enum) stmts+="CREATE TABLE sw.$shard AS SELECT id, x, y::text::sw.lbl AS y FROM ($rows) r;
                    GRANT SELECT ON sw.$shard TO PUBLIC;" ;;
      policy) stmts+="CREATE TABLE sw.$shard AS $rows;
                      ALTER TABLE sw.$shard ENABLE ROW LEVEL SECURITY;
                      CREATE POLICY p ON sw.$shard USING (sw.spy());
                      GRANT SELECT ON sw.$shard TO PUBLIC;" ;;
      # Code the worker's planner runs (IMMUTABLE, constant arguments): in a
      # view's definition, in a plain table's partial-index predicate.
      immutable) stmts+="CREATE VIEW sw.$shard AS SELECT d.id, d.x, (d.y AND sw.imm(1) = 1) AS y FROM sw.decoy d;
                         GRANT SELECT ON sw.$shard TO PUBLIC;" ;;
      index) stmts+="CREATE TABLE sw.$shard AS $rows; CREATE INDEX ON sw.$shard (id) WHERE id > sw.imm(0);
                     GRANT SELECT ON sw.$shard TO PUBLIC;" ;;
    esac
  done
  citus_psql worker1 -At -c "SET ROLE $M" -c "SET citus.enable_ddl_propagation = off" \
    -c "ALTER SCHEMA sw RENAME TO sw_real" -c "CREATE SCHEMA sw" -c "GRANT USAGE ON SCHEMA sw TO PUBLIC" \
    -c "CREATE FUNCTION sw.spy() RETURNS boolean LANGUAGE plpgsql AS
          \$\$ BEGIN INSERT INTO public.spied_w VALUES (current_user, '$kind'); RETURN false; END \$\$" \
    -c "CREATE FUNCTION sw.imm(int) RETURNS int LANGUAGE plpgsql IMMUTABLE AS
          \$\$ BEGIN RAISE WARNING 'imm ran as %', current_user; RETURN \$1; END \$\$" \
    -c "CREATE TYPE sw.lbl AS ENUM ('false', 'true')" \
    -c "CREATE FUNCTION sw.lbl_text(sw.lbl) RETURNS text LANGUAGE plpgsql AS
          \$\$ BEGIN PERFORM sw.spy(); RETURN CASE WHEN \$1 = 'true' THEN 'true' ELSE 'false' END; END \$\$" \
    -c "CREATE CAST (sw.lbl AS text) WITH FUNCTION sw.lbl_text(sw.lbl)" \
    -c "$stmts" >/dev/null
}
unswap() {
  citus_psql worker1 -At -c "SET ROLE $M" -c "SET citus.enable_ddl_propagation = off" \
    -c "DROP SCHEMA sw CASCADE" -c "ALTER SCHEMA sw_real RENAME TO sw" >/dev/null 2>&1
}
spied() { on worker1 "SELECT coalesce(string_agg(who || ' (' || what || ')', ', '), '') FROM public.spied_w"; }

# refused WHAT OUTPUT SHARDS: the call failed with 55000 naming one of SHARDS
# (a shard on worker1) and the impostor's function never ran.
refused() {
  local who
  who=$(spied)
  [ -z "$who" ] || fail "$1: the impostor's function ran on worker1 as: $who ($2)"
  ! grep -q "imm ran" <<<"$2" || fail "$1: the worker's planning ran the impostor's function: $2"
  grep -q "55000" <<<"$2" || fail "$1: not refused with 55000: $2"
  grep -q "not the plain table the run checked" <<<"$2" || fail "$1: not refused by the shard guard: $2"
  local shard named=no
  for shard in $3; do grep -q "sw\.$shard\b" <<<"$2" && named=yes; done
  [ "$named" = yes ] || fail "$1: the error does not name a shard of worker1: $2"
}
as() { citus_psql coordinator -At -v VERBOSITY=verbose -c "SET ROLE $1" -c "$2" 2>&1 || true; }
super() { citus_psql coordinator -At -v VERBOSITY=verbose -c "$1" 2>&1 || true; }

# (SWAP_KINDS: a subset, to look at one case)
for kind in ${SWAP_KINDS-view enum policy immutable index}; do
  swap "$kind"
  # The impostors work: read directly on worker1 as a role its policy
  # applies to, they run the function (the view and the policy, when read;
  # the cast, when cast).
  case $kind in
    view) on worker1 "SELECT count(*) FROM sw.$(echo "$W1_PTS" | head -1)" >/dev/null ;;
    enum) on worker1 "SELECT y::text FROM sw.$(echo "$W1_PTS" | head -1) LIMIT 1" >/dev/null ;;
    policy) citus_psql worker1 -At -c "SET ROLE $O" -c "SELECT count(*) FROM sw.$(echo "$W1_PTS" | head -1)" >/dev/null ;;
    immutable | index)
      direct=$(citus_psql worker1 -At -c "SELECT y FROM sw.$(echo "$W1_PTS" | head -1) WHERE id > 0" 2>&1)
      grep -q "imm ran as postgres" <<<"$direct" || fail "$kind: planning a read of the impostor does not run its function: $direct"
      on worker1 "INSERT INTO public.spied_w VALUES ('(planned)', '$kind')" ;;
  esac
  [ -n "$(spied)" ] || fail "$kind: the impostor does not run its function when read directly"
  on worker1 "TRUNCATE public.spied_w" >/dev/null

  out=$(super "SELECT model_id FROM dp_train('sw.pts', 'y', 'x', algorithm => 'bolton', epsilon => 1, epochs => 1)")
  [ "$kind" != view ] || echo "$out" | sed 's/^/  | /'
  refused "$kind: a superuser's dp_train" "$out" "$W1_PTS"
  out=$(super "SELECT accuracy FROM dp_evaluate($m_pts, 'sw.pts', 'y', 'x')")
  refused "$kind: a superuser's dp_evaluate" "$out" "$W1_PTS"
  out=$(as "$A" "SELECT model_id FROM dp_train('sw.opts', 'y', 'x', algorithm => 'bolton', epsilon => 1, epochs => 1)")
  # (without read access the error is the fixed one, unless it is a refusal
  # that says nothing about a row -- this one)
  refused "$kind: a budget-only role's dp_train (read as the table's owner)" "$out" "$W1_OPTS"
  out=$(as "$A" "SELECT dptrain.distinct_text_values('sw.pts', 'y', 10)")
  refused "$kind: a reader's categories (dp_encoding)" "$out" "$W1_PTS"
  out=$(as "$A" "SELECT model_id FROM dp_tune('sw.pts', 'y', 'x', epsilon => 1)")
  refused "$kind: a reader's dp_tune (in place: its first read, the count of n)" "$out" "$W1_PTS"
  unswap
  echo "ok: $kind impostors at worker1's shard names: dp_train (superuser, budget-only), dp_evaluate, categories, dp_tune refused (55000, naming the shard); the function never ran"
done

# A schema of the workers' search_path in which a role may create (public:
# its database owner's; every role's where PUBLIC kept CREATE on it, as
# before PostgreSQL 15): the shard queries name pg_catalog's functions
# unqualified (cardinality(x)), and a better match there --
# public.cardinality(float8[]) beats pg_catalog.cardinality(anyarray) -- ran
# as the reader on the worker once the guard had passed (measured before the
# fix: as postgres, in a superuser's dp_train). Refused before planning now.
citus_psql worker1 -At -c "SET citus.enable_ddl_propagation = off" -c "GRANT CREATE ON SCHEMA public TO $M" >/dev/null
citus_psql worker1 -At -c "SET ROLE $M" -c "SET citus.enable_ddl_propagation = off" \
  -c "CREATE FUNCTION public.cardinality(float8[]) RETURNS int LANGUAGE plpgsql AS
        \$\$ BEGIN INSERT INTO public.spied_w VALUES (current_user, 'search_path'); RETURN pg_catalog.cardinality(\$1); END \$\$" >/dev/null
for who in super analyst; do
  if [ $who = super ]; then out=$(super "SELECT model_id FROM dp_train('sw.pts', 'y', 'x', algorithm => 'bolton', epsilon => 1, epochs => 1)")
  else out=$(as "$A" "SELECT model_id FROM dp_train('sw.opts', 'y', 'x', algorithm => 'bolton', epsilon => 1, epochs => 1)"); fi
  [ -z "$(spied)" ] || fail "$who: a function of the workers' search_path ran as: $(spied) ($out)"
  grep -q "55000" <<<"$out" && grep -q "calls function public.cardinality" <<<"$out" ||
    fail "$who: a function of the workers' search_path was not refused: $out"
done
citus_psql worker1 -At -c "SET citus.enable_ddl_propagation = off" -c "DROP FUNCTION public.cardinality(float8[])" \
  -c "REVOKE CREATE ON SCHEMA public FROM $M" >/dev/null
echo "ok: a better match for an unqualified function in the workers' search_path: refused (55000), it never ran"

# A table owner whose name needs quoting (the guard names the owner as an
# identifier: "Reg Owner" is not reg, nor invalid name syntax).
Q="Reg Owner $$"
sql "CREATE ROLE \"$Q\"; GRANT CREATE ON SCHEMA sw TO \"$Q\"" >/dev/null
sql "CREATE TABLE sw.qpts (LIKE sw_src); ALTER TABLE sw.qpts OWNER TO \"$Q\"" >/dev/null
sql "SET citus.shard_count = 4; SELECT create_distributed_table('sw.qpts', 'id')" >/dev/null
sql "INSERT INTO sw.qpts SELECT * FROM sw_src" >/dev/null
m=$(super "SELECT model_id FROM dp_train('sw.qpts', 'y', 'x', algorithm => 'bolton', epsilon => 1, epochs => 1)")
[[ "$(tail -1 <<<"$m")" =~ ^[0-9]+$ ]] || fail "dp_train on a table of a role whose name needs quoting failed: $m"
echo "ok: a distributed table of a role whose name needs quoting trains"

# The same view put in place after the counts, before the first pass (the
# run waits for its charge while a second session holds the charge lock).
fifo=$(mktemp -u -p "$CITUS_TEST_TMP") outf=$(mktemp -p "$CITUS_TEST_TMP")
mkfifo "$fifo"
citus_psql coordinator -At <"$fifo" >/dev/null 2>&1 &
holder=$!
exec 7>"$fifo"
echo "BEGIN; SELECT dptrain.lock_source('sw.pts'); SELECT 'locked_$$';" >&7
wait_until() {
  local i
  for i in $(seq 600); do [ "$(sql "$1")" = t ] && return 0; sleep 0.1; done
  fail "timed out waiting until $2"
}
wait_until "SELECT EXISTS (SELECT FROM pg_stat_activity WHERE state = 'idle in transaction'
              AND query LIKE '%locked_$$%' AND query NOT LIKE '%pg_stat_activity%')" "the charge lock is held"
super "SELECT model_id FROM dp_train('sw.pts', 'y', 'x', algorithm => 'bolton', epsilon => 1, epochs => 1)" >"$outf" &
runner=$!
wait_until "SELECT EXISTS (SELECT FROM pg_stat_activity WHERE backend_type = 'dptrain charge' AND datname = current_database()
              AND wait_event_type = 'Lock' AND wait_event IN ('transactionid', 'tuple'))" "the run waits for its charge"
swap view
echo "COMMIT;" >&7
exec 7>&-
wait "$holder" || true
wait "$runner" || true
rm -f "$fifo"
out=$(cat "$outf")
rm -f "$outf"
refused "view after the counts: the passes of a superuser's dp_train" "$out" "$W1_PTS"
unswap
echo "ok: the view put in place after the counts, before the first pass: the passes refused it (55000), the function never ran"
# The coordinator may hold shards too (a one-node cluster does): Citus runs
# their part of a statement in the coordinator's own backend (local
# execution), and the guard checks that part there. The table's owner
# replaces a local shard by a view (its manual changes to shards are open to it).
sql "SELECT citus_set_node_property('$(citus_node_dir coordinator)', ${CITUS_PORT[coordinator]}, 'shouldhaveshards', true)" >/dev/null
sql "SET ROLE $O; CREATE TABLE sw.local_pts (id bigint, x float8[], y boolean)" >/dev/null
sql "SET citus.shard_count = 6; SELECT create_distributed_table('sw.local_pts', 'id')" >/dev/null
sql "INSERT INTO sw.local_pts SELECT * FROM sw_src" >/dev/null
sql "ALTER TABLE sw.local_pts ADD PRIMARY KEY (id)" >/dev/null
local_shard=$(sql "SELECT shard_name FROM citus_shards WHERE table_name = 'sw.local_pts'::regclass
                   AND nodeport = ${CITUS_PORT[coordinator]} ORDER BY shardid LIMIT 1")
[ -n "$local_shard" ] || fail "no shard of sw.local_pts on the coordinator"
m=$(train "'sw.local_pts', 'y', 'x'")
[[ "$m" =~ ^[0-9]+$ ]] || fail "dp_train with shards on the coordinator failed: $m"
sql "CREATE TABLE public.spied_c (who name); GRANT INSERT ON public.spied_c TO PUBLIC" >/dev/null
citus_psql coordinator -At -c "SET ROLE $O" -c "SET citus.enable_ddl_propagation = off" \
  -c "SET citus.enable_manual_changes_to_shards = on" \
  -c "CREATE FUNCTION sw.spy_c() RETURNS boolean LANGUAGE plpgsql AS
        \$\$ BEGIN INSERT INTO public.spied_c VALUES (current_user); RETURN true; END \$\$" \
  -c "CREATE FUNCTION sw.imm_c(int) RETURNS int LANGUAGE plpgsql IMMUTABLE AS
        \$\$ BEGIN RAISE WARNING 'imm ran as %', current_user; RETURN \$1; END \$\$" \
  -c "ALTER TABLE $local_shard RENAME TO ${local_shard#sw.}_moved" \
  -c "CREATE VIEW $local_shard AS SELECT m.tableoid AS tableoid, m.id, m.x, (m.y AND sw.spy_c() AND sw.imm_c(1) = 1) AS y
        FROM ${local_shard}_moved m" >/dev/null
out=$(super "SELECT model_id FROM dp_train('sw.local_pts', 'y', 'x', algorithm => 'bolton', epsilon => 1, epochs => 1)")
[ "$(sql "SELECT count(*) FROM public.spied_c")" = 0 ] || fail "a view at a coordinator shard's name ran its function: $out"
# Citus plans a local shard query without its text (planner(query, NULL, ...)):
# planning it ran the view's IMMUTABLE function before the fix.
! grep -q "imm ran" <<<"$out" || fail "planning a local shard query ran the view's IMMUTABLE function: $out"
grep -q "55000" <<<"$out" && grep -q "$local_shard, which is a view" <<<"$out" ||
  fail "a view at a coordinator shard's name was not refused by the guard: $out"
echo "ok: a shard on the coordinator (local execution) replaced by a view: refused (55000), its function never ran"
echo "worker_shard_swap: all ok"
