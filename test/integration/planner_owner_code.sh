#!/usr/bin/env bash
# Code the planner runs (docs/governance.md): planning a statement over a
# table const-simplifies its indexes' partial predicates, which runs an
# IMMUTABLE function of the table's owner as the role that plans. The passes
# of a run read in place must therefore run with the reader's rights, never
# the extension owner's (src/pg/training_run.h, pass_role). Here a table's
# owner -- not a superuser -- trains AMP on its own table, read in place, and
# creates a partial index calling its own function while the run waits for
# its charge (after its inspection, before its first pass: the passes' plans
# are the first to load the new index). The function says who ran it; it must
# never be the extension owner.
set -euo pipefail
: "${DPTRAIN_CLI:?}"
source "$(dirname "$0")/lib/scratch_db.sh"
scratch_db planner_owner_code
fail() { echo "FAIL: $*" >&2; exit 1; }
q() { psql -X -At -d "$db" "$@"; }
owner=reg_po_owner_$$
extension_owner=$(q -c "SELECT extowner::regrole FROM pg_extension WHERE extname = 'dptrain'")
q -q -c "CREATE ROLE $owner LOGIN; GRANT CREATE ON DATABASE \"$db\" TO $owner" 
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"; dropdb --if-exists --force "$db" >/dev/null 2>&1 || true; psql -X -q -d postgres -c "DROP ROLE IF EXISTS $owner" >/dev/null 2>&1 || true' EXIT
as_owner() { PGUSER=$owner psql -X -At -d "$db" "$@"; }
as_owner -q -c "CREATE SCHEMA po;
  CREATE TABLE po.pts AS SELECT i AS id, ARRAY[sin(i * 0.7), cos(i * 1.3), 0.25]::float8[] AS x,
                                (sin(i * 0.7) + 0.5 * cos(i * 1.3) > 0) AS y FROM generate_series(1, 400) i;
  -- A temp object left in the training session would shadow its later
  -- unqualified names: the passes over the source must refuse it (a
  -- security-restricted operation, as every other read of the source).
  CREATE FUNCTION po.leave() RETURNS void LANGUAGE plpgsql VOLATILE AS
    \$\$ BEGIN CREATE TEMP TABLE IF NOT EXISTS po_left_behind (i int); END \$\$;
  CREATE FUNCTION po.who(int) RETURNS int LANGUAGE plpgsql IMMUTABLE AS
    \$\$ BEGIN RAISE WARNING 'owner code ran as %', current_user;
      BEGIN PERFORM po.leave(); RAISE WARNING 'owner code left a temp table';
      EXCEPTION WHEN insufficient_privilege THEN RAISE WARNING 'owner code restricted: %', SQLERRM; END;
      RETURN \$1; END \$\$;"

# Positive control: AMP on this table is read in place.
id=$(as_owner -c "SELECT model_id FROM dp_train('po.pts', 'y', 'x', algorithm => 'amp', epsilon => 1, delta => 1e-6)")
[ "$(q -c "SELECT details->'data'->>'read' FROM dptrain.models WHERE id = $id")" = 'in place, one snapshot, no copy' ] ||
  fail "AMP on po.pts is not read in place"

# The run waits for its charge while another session holds the source's charge lock.
fifo=$WORK/fifo out=$WORK/out
mkfifo "$fifo"
q <"$fifo" >/dev/null 2>&1 &
holder=$!
exec 7>"$fifo"
echo "BEGIN; SELECT dptrain.lock_source('po.pts'); SELECT 'locked_$$';" >&7
wait_until() {  # wait_until SQL WHAT: polls until SQL returns t (at most ~60 s)
  for _ in $(seq 600); do [ "$(q -c "$1")" = t ] && return 0; sleep 0.1; done
  fail "timed out waiting until $2"
}
wait_until "SELECT EXISTS (SELECT FROM pg_stat_activity WHERE state = 'idle in transaction'
              AND query LIKE '%locked_$$%' AND query NOT LIKE '%pg_stat_activity%')" "the charge lock is held"
as_owner -c "SELECT model_id FROM dp_train('po.pts', 'y', 'x', algorithm => 'amp', epsilon => 1, delta => 1e-6)" \
  >"$out" 2>&1 &
runner=$!
wait_until "SELECT EXISTS (SELECT FROM pg_stat_activity WHERE backend_type = 'dptrain charge'
              AND datname = current_database() AND wait_event_type = 'Lock' AND wait_event IN ('transactionid', 'tuple'))" \
  "the run waits for its charge"
as_owner -q -c "CREATE INDEX pts_partial ON po.pts (id) WHERE id > po.who(0)" 2>/dev/null
echo "COMMIT;" >&7
exec 7>&-
wait "$holder" || true
wait "$runner" || true
rm -f "$fifo"
result=$(cat "$out"); rm -f "$out"
grep -Eq '^[0-9]+$' <<<"$result" || fail "the run failed: $result"
! grep -q "owner code ran as $extension_owner" <<<"$result" ||
  fail "the planner ran the table owner's function as the extension owner ($extension_owner): $result"
grep -q "owner code ran as $owner" <<<"$result" ||
  fail "the passes' planning did not load the new index (the test shows nothing): $result"
! grep -q "owner code left a temp table" <<<"$result" ||
  fail "the passes over the source ran the owner's code outside a security-restricted operation: $result"
grep -q "owner code restricted: cannot create temporary table within security-restricted operation" <<<"$result" ||
  fail "the owner's code did not report the restriction: $result"
echo "ok: an index created during an in-place run: its owner's function ran as $owner, never as $extension_owner, restricted"
echo "planner_owner_code: all ok"
