#!/usr/bin/env bash
# A role that may train on a table but not read it (a budget, EXECUTE on
# dp_train/dp_tune), logged in as itself, asks PostgreSQL and Citus to print
# every statement to its client: debug_print_parse/_rewritten/_plan at LOG,
# Citus's DEBUG lines and citus.log_remote_commands, all settable by any role.
# Every pass carries the training state as its parameter, inlined into the
# shard queries and planned as a constant: between two epochs of SGD the model
# before any noise (measured before the fix: the analyst's dp_tune showed
# "issuing ... '{..., 1.177..., 0.354..., ...}'" the noiseless weights after
# epoch 1). For such a client the passes run with all of it off
# (src/pg/pass_messages.h), and so does dp_tune's count of the parts, which
# carries the split key kappa (without which the part sizes a refusal names
# depend on n alone; docs/tuning.md section 5):
#  * its dp_train / dp_tune (holdout and liu_talwar) on a distributed table, a local table read in place
#    (AMP) and a copied local table print one plan (its own statement's), no
#    remote command and no distributed statement;
#  * its settings are its own again after the run;
#  * positive controls: the owner, logged in as itself (it reads the table),
#    sees its runs' inner plans and remote commands with the same settings.
set -euo pipefail
source "$(dirname "$0")/lib/cluster.sh"

owner=hide_owner_$$ analyst=hide_analyst_$$
for stmt in "CREATE ROLE $owner LOGIN" "CREATE ROLE $analyst LOGIN" "GRANT CREATE ON SCHEMA public TO $owner"; do
  sql "$stmt" >/dev/null
done
points pts_plain 1201
sql "CREATE TABLE pts (LIKE pts_plain)" >/dev/null
sql "SELECT create_distributed_table('pts', 'id', shard_count => 4)" >/dev/null
for stmt in "INSERT INTO pts SELECT * FROM pts_plain" "ALTER TABLE pts ADD PRIMARY KEY (id)" \
            "ALTER TABLE pts OWNER TO $owner" "ALTER TABLE pts_plain OWNER TO $owner"; do
  sql "$stmt" >/dev/null
done

msgs=$(mktemp -p "$CITUS_TEST_TMP")
login() {  # login ROLE STATEMENT: one statement in a session of ROLE itself; its results on stdout,
           # every message to the client in $msgs
  psql -X -q -At -v VERBOSITY=verbose -h "$(citus_node_dir coordinator)" -p "${CITUS_PORT[coordinator]}" \
    -U "$1" -d "$CITUS_DB" -c "SET debug_print_parse = on" -c "SET debug_print_rewritten = on" \
    -c "SET debug_print_plan = on" -c "SET citus.log_remote_commands = on" -c "SET client_min_messages = debug5" \
    -c "$2" -c "SHOW client_min_messages" -c "SHOW citus.log_remote_commands" -c "SHOW debug_print_plan" 2>"$msgs"
}
# The passes are the statements that run one of dptrain's aggregates over the
# rows: in a printed parse tree or plan as ":aggfnoid <oid>", in Citus's lines
# by name.
aggs=$(sql "SELECT string_agg(p.oid::text, '|') FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
            WHERE n.nspname = 'dptrain' AND p.prokind = 'a'")
names=$(sql "SELECT string_agg(p.proname, '|') FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
             WHERE n.nspname = 'dptrain' AND p.prokind = 'a'")
[ -n "$aggs" ] || fail "no aggregate in schema dptrain"
pass_trees() { grep -Ec ":aggfnoid ($aggs)( |$)" <<<"$1" || true; }
pass_shard_statements() { grep -E "issuing|distributed statement:" <<<"$1" | grep -Ec "dptrain\.($names)\(" || true; }
# dp_tune's count of the parts carries kappa: dptrain.tuning_part in a tree
# (":funcid <oid>") or a shard statement.
split=$(sql "SELECT 'dptrain.tuning_part(bigint, float8[], int)'::regprocedure::oid")
split_statements() { grep -Ec ":funcid $split( |\$)|tuning_part\(" <<<"$1" || true; }
plans() { grep -c "^LOG:  00000: plan:" <<<"$1" || true; }

for t in pts pts_plain; do
  citus_psql coordinator -At -c "SET ROLE $owner" -c "SELECT dp_grant_budget('$t', '$analyst', 10, 1e-5)" >/dev/null
done

runs=("pts|SELECT model_id FROM dp_train('pts', 'y', 'x', epsilon => 1, epochs => 2, batch_size => 50, learning_rate => 0.2)"
      "pts|SELECT model_id FROM dp_tune('pts', 'y', 'x', epsilon => 1, lambdas => '{0}', epochs => '{2}', batch_sizes => '{50}', learning_rate => 0.2)"
      "pts|SELECT model_id FROM dp_tune('pts', 'y', 'x', method => 'liu_talwar', epsilon => 1, delta => 1e-6, grid => '{\"epochs\": [2], \"batch_size\": [50], \"learning_rate\": [0.2]}')"
      "pts|SELECT model_id FROM dp_train('pts', 'y', 'x', algorithm => 'amp', epsilon => 1, delta => 1e-6)"
      "pts_plain|SELECT model_id FROM dp_train('pts_plain', 'y', 'x', epsilon => 1, epochs => 2, batch_size => 50, learning_rate => 0.2)"
      "pts_plain|SELECT model_id FROM dp_train('pts_plain', 'y', 'x', algorithm => 'amp', epsilon => 1, delta => 1e-6)"
      "pts_plain|SELECT model_id FROM dp_tune('pts_plain', 'y', 'x', epsilon => 1, lambdas => '{0}', epochs => '{2}', batch_sizes => '{50}', learning_rate => 0.2)")
for r in "${runs[@]}"; do
  table=${r%%|*} call=${r#*|}
  res=$(login "$analyst" "$call") || fail "the analyst's run failed: $call: $(cat "$msgs")"
  out=$(cat "$msgs")
  head -1 <<<"$res" | grep -Eq '^[0-9]+$' || fail "no model for the analyst: $call: $res"
  [ "$(plans "$out")" -ge 1 ] || fail "the analyst's session printed no plan at all (the settings did not work): $call"
  [ "$(pass_trees "$out")" = 0 ] || fail "the analyst saw $(pass_trees "$out") parse trees or plans of passes: $call"
  [ "$(pass_shard_statements "$out")" = 0 ] ||
    fail "the analyst saw shard statements of passes: $call: $(grep -m2 'issuing' <<<"$out" | cut -c1-400)"
  [ "$(split_statements "$out")" = 0 ] || fail "the analyst saw the split key: $call: $(grep -m1 'tuning_part' <<<"$out" | cut -c1-300)"
  [ "$(tail -3 <<<"$res" | tr '\n' ' ')" = "debug5 on on " ] || fail "the analyst's settings after the run: $res"
  # Positive control: the owner reads the table, and sees what the same settings print.
  login "$owner" "$call" >/dev/null || fail "the owner's run failed: $call: $(cat "$msgs")"
  own=$(cat "$msgs")
  [ "$(pass_trees "$own")" -gt 0 ] || fail "the owner's run printed no pass: $call"
  if [[ "$table" = pts && "$call" == *dp_tune* && "$call" != *liu_talwar* ]]; then  # liu_talwar: no split
    [ "$(split_statements "$own")" -gt 0 ] || fail "the owner's dp_tune on the distributed table printed no split: $call"
  fi
  if [ "$table" = pts ]; then
    [ "$(pass_shard_statements "$own")" -gt 0 ] || fail "the owner's run on the distributed table printed no shard statement: $call"
  fi
  echo "ok: ${call:21:55}...: the analyst saw no pass (the owner: $(pass_trees "$own") trees/plans, $(pass_shard_statements "$own") shard statements)"
done

# In the analyst's transaction too: dp_tune's count of the parts (count_part_rows)
# raised client_min_messages and turned track_counts off until the
# transaction's end (show_pass_statements_again kept SET LOCALs: AtEOXact_GUC(true)
# hands them down), so the rest of the caller's transaction ran with them.
res=$(psql -X -q -At -h "$(citus_node_dir coordinator)" -p "${CITUS_PORT[coordinator]}" -U "$analyst" -d "$CITUS_DB" \
        -c "SET client_min_messages = debug1" -c "BEGIN" \
        -c "SELECT model_id > 0 FROM dp_tune('pts', 'y', 'x', epsilon => 1, lambdas => '{0}', epochs => '{2}', batch_sizes => '{50}', learning_rate => 0.2)" \
        -c "SHOW client_min_messages" -c "SHOW track_counts" -c "COMMIT" 2>/dev/null) || fail "the analyst's dp_tune in a transaction failed"
[ "$(tr '\n' ' ' <<<"$res")" = "t debug1 on " ] || fail "the analyst's settings after dp_tune, in its transaction: $res"
echo "ok: the analyst's settings are its own again after dp_tune, in the same transaction"
echo "pass_inputs_hidden: all ok"
