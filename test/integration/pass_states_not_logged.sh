#!/usr/bin/env bash
# A role that may train on a table but not read it sets debug_print_parse /
# _rewritten / _plan (open to every role) and trains. Those print at LOG,
# which reaches the server log whatever the client's level (the default
# log_min_messages is WARNING, and LOG ranks above it there): before the fix
# every pass wrote its parse tree and plan there, the training state -- the
# noiseless model between two epochs, the optimizer's points -- as a constant
# of type float8[], byte by byte. Hiding the passes from the client
# (src/pg/pass_messages.h) did not keep them out of the log, which an analyst
# may read where logs are shipped to a shared tool. Now the passes of such a
# run have debug_print_* off too; the analyst's own statement is still
# printed (its settings work), and the owner, who reads the table, still
# gets its passes' trees in the log (positive control).
# Env: PGHOST/PGPORT/PGUSER of a live throwaway cluster and PGTMP_LOG, its
# server log (scripts/lib/pgtmp.sh exports it).
set -euo pipefail
: "${PGTMP_LOG:?set PGTMP_LOG to the server log of the cluster (scripts/lib/pgtmp.sh exports it)}"
source "$(dirname "$0")/lib/scratch_db.sh"
scratch_db pass_log
fail() { echo "FAIL: $*" >&2; exit 1; }
q() { psql -X -At -v ON_ERROR_STOP=1 -d "$db" "$@"; }
owner=reg_pl_owner_$$ analyst=reg_pl_analyst_$$
q -q -c "CREATE ROLE $owner LOGIN; CREATE ROLE $analyst LOGIN; GRANT CREATE ON DATABASE \"$db\" TO $owner"
trap 'dropdb --if-exists --force "$db" >/dev/null 2>&1 || true
      psql -X -q -d postgres -c "DROP ROLE IF EXISTS $owner, $analyst" >/dev/null 2>&1 || true' EXIT
PGUSER=$owner q -q -c "CREATE SCHEMA pl; GRANT USAGE ON SCHEMA pl TO $analyst;
  CREATE TABLE pl.pts AS SELECT i AS id, ARRAY[sin(i * 0.7), cos(i * 1.3), 0.25]::float8[] AS x,
                                (sin(i * 0.7) + 0.5 * cos(i * 1.3) > 0) AS y FROM generate_series(1, 300) i;
  SELECT dp_grant_budget('pl.pts', '$analyst', 10, 1e-5);" >/dev/null

# The passes run one of dptrain's aggregates: ":aggfnoid <oid>" in a printed tree.
aggs=$(q -c "SELECT string_agg(p.oid::text, '|') FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
             WHERE n.nspname = 'dptrain' AND p.prokind = 'a'")
[ -n "$aggs" ] || fail "no aggregate in schema dptrain"
# logged ROLE SQL: runs SQL in a session of ROLE with debug_print_* on; prints
# the server log's lines written meanwhile.
logged() {
  local from
  from=$(($(wc -l <"$PGTMP_LOG") + 1))
  PGUSER=$1 psql -X -q -At -v ON_ERROR_STOP=1 -d "$db" -c "SET debug_print_parse = on" \
    -c "SET debug_print_rewritten = on" -c "SET debug_print_plan = on" -c "$2" >/dev/null 2>&1 ||
    fail "the run of $1 failed: $2"
  # the server writes its log before the statement's result reaches the client
  tail -n +"$from" "$PGTMP_LOG"
}
pass_trees() { grep -Ec ":aggfnoid ($aggs)( |$)" <<<"$1" || true; }
top_plans() { grep -c "LOG:  plan:" <<<"$1" || true; }

runs=("SELECT model_id FROM dp_train('pl.pts', 'y', 'x', algorithm => 'bolton', epsilon => 1, epochs => 2, batch_size => 30)"
      "SELECT model_id FROM dp_train('pl.pts', 'y', 'x', algorithm => 'amp', epsilon => 1, delta => 1e-6)"
      "SELECT model_id FROM dp_tune('pl.pts', 'y', 'x', epsilon => 1, lambdas => '{0}', epochs => '{2}', batch_sizes => '{30}')")
for call in "${runs[@]}"; do
  log=$(logged "$analyst" "$call")
  [ "$(top_plans "$log")" -ge 1 ] || fail "the analyst's session logged no plan at all (the settings did not work): $call"
  [ "$(pass_trees "$log")" = 0 ] ||
    fail "the analyst's run wrote $(pass_trees "$log") parse trees or plans of its passes to the server log: $call"
  log=$(logged "$owner" "$call")
  [ "$(pass_trees "$log")" -ge 1 ] || fail "positive control: the owner's run logged no pass tree: $call"
done
echo "ok: an analyst's debug_print_* keeps its passes' training state out of the server log (bolton, amp, dp_tune)"
echo "pass_states_not_logged: all ok"
