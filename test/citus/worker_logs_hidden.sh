#!/usr/bin/env bash
# What the workers and Citus's counters keep of the passes of a role that may
# train on a distributed table but not read it (a budget, logged in as
# itself); docs/governance.md, "Hostile review of 2026-11-28, distributed
# paths". Two channels, each closed for such a caller
# (src/pg/distributed_source.cpp, begin_distributed_passes;
# src/pg/pass_messages.cpp, stop_statement_statistics):
#  * the workers' server logs: citus.propagate_set_commands = 'local' is any
#    role's setting, so `BEGIN; SET LOCAL citus.propagate_set_commands =
#    'local'; SET LOCAL debug_print_plan = on; SELECT dp_train(...)` sent
#    debug_print_plan = on into every worker transaction, and each worker
#    logged the plan of every shard query of the passes with the training
#    state (the noiseless model between epochs, a float8[]: ":consttype
#    1022") as a constant, dp_tune's split key kappa too (measured before the
#    fix: 12 float8[] constants in worker 1's log for 2 epochs). The
#    coordinator kept these off already
#    (test/citus/pass_inputs_hidden.sh);
#  * citus_stat_counters (PUBLIC may read it) with the operator's
#    citus.enable_stat_counters = on: query_execution_multi_shard grew by one
#    per pass, the number of passes, which AMP's optimizer chooses from the
#    data (measured before the fix: 6 vs 7 for two AMP runs at epsilon 0.3
#    on tables differing in one row; 3 vs 5 for bolt-on with 1 and 3 epochs).
# Positive controls: the owner (who reads the table) with the same settings
# gets the plans and the counts.
set -euo pipefail
source "$(dirname "$0")/lib/cluster.sh"

owner=wlog_owner_$$ analyst=wlog_analyst_$$
for stmt in "CREATE ROLE $owner LOGIN" "CREATE ROLE $analyst LOGIN" "GRANT CREATE ON SCHEMA public TO $owner" \
            "ALTER SYSTEM SET citus.enable_stat_counters = on" "SELECT pg_reload_conf()"; do
  sql "$stmt" >/dev/null
done
pgtmp_at_exit "citus_sql coordinator 'ALTER SYSTEM RESET citus.enable_stat_counters' >/dev/null; citus_sql coordinator 'SELECT pg_reload_conf()' >/dev/null"
points pts_plain 1201
sql "CREATE TABLE pts (LIKE pts_plain)" >/dev/null
sql "SELECT create_distributed_table('pts', 'id', shard_count => 4)" >/dev/null
for stmt in "INSERT INTO pts SELECT * FROM pts_plain" "ALTER TABLE pts ADD PRIMARY KEY (id)" "ALTER TABLE pts OWNER TO $owner"; do
  sql "$stmt" >/dev/null
done
citus_psql coordinator -At -c "SET ROLE $owner" -c "SELECT dp_grant_budget('pts', '$analyst', 100, 1e-3)" >/dev/null

login() {  # login ROLE -c ...: statements in one session of ROLE itself
  psql -X -q -At -v ON_ERROR_STOP=1 -h "$(citus_node_dir coordinator)" -p "${CITUS_PORT[coordinator]}" \
    -U "$1" -d "$CITUS_DB" "${@:2}"
}
bolton() { echo "SELECT model_id > 0 FROM dp_train('pts', 'y', 'x', epsilon => 1, epochs => $1, batch_size => 50, learning_rate => 0.2)"; }
tune="SELECT model_id > 0 FROM dp_tune('pts', 'y', 'x', epsilon => 1, lambdas => '{0}', epochs => '{2}', batch_sizes => '{50}', learning_rate => 0.2)"

# 1. citus_stat_counters: the multi-shard statements of one run, read before
# and after it in the same session (its own counters are live there).
multi_shard="SELECT query_execution_multi_shard FROM citus_stat_counters WHERE name = current_database()"
statements_of() {  # statements_of ROLE EPOCHS
  login "$1" -c "$multi_shard" -c "$(bolton "$2")" -c "$multi_shard" 2>/dev/null | tr '\n' ' ' |
    awk '$2 != "t" { print "failed"; exit } { print $3 - $1 }'
}
a1=$(statements_of "$analyst" 1) a3=$(statements_of "$analyst" 3)
o1=$(statements_of "$owner" 1) o3=$(statements_of "$owner" 3)
[ "$o1" != failed ] && [ "$o3" -gt "$o1" ] || fail "the owner's runs of 1 and 3 epochs counted $o1 and $o3 multi-shard statements (the counters are off?)"
[ "$a1" != failed ] && [ "$a1" = "$a3" ] ||
  fail "citus_stat_counters counted the analyst's passes: $a1 multi-shard statements for 1 epoch, $a3 for 3"
echo "ok: citus_stat_counters: the analyst's runs of 1 and 3 epochs count $a1 and $a3 statements (the owner's: $o1 and $o3)"

# 2. The workers' logs under a propagated debug_print_plan.
logs=("$(citus_node_dir worker1)/server.log" "$(citus_node_dir worker2)/server.log")
log_sizes() { for f in "${logs[@]}"; do wc -c <"$f"; done | tr '\n' ' '; }
since() {  # since "SIZES" PATTERN: lines matching PATTERN written to the workers' logs since SIZES
  local sizes=($1) total=0 i
  for i in 0 1; do
    total=$((total + $(tail -c +$((sizes[i] + 1)) "${logs[i]}" | grep -c "$2" || true)))
  done
  echo "$total"
}
for call in "$(bolton 2)" "$tune"; do
  for role in "$analyst" "$owner"; do
    sizes=$(log_sizes)
    login "$role" -c "BEGIN" -c "SET LOCAL citus.propagate_set_commands = 'local'" -c "SET LOCAL debug_print_plan = on" \
      -c "$call" -c "COMMIT" >/dev/null 2>&1 || fail "the run of $role failed: $call"
    plans=$(since "$sizes" 'LOG:  plan:') states=$(since "$sizes" ':consttype 1022 ')
    [ "$plans" -gt 0 ] || fail "no worker logged a plan of $role's run (the SET was not propagated): $call"
    if [ "$role" = "$owner" ]; then
      [ "$states" -gt 0 ] || fail "the owner's run logged no float8[] constant on the workers: $call"
      echo "ok: the owner's ${call:21:40}... logged $plans plans, $states float8[] constants on the workers"
    else
      [ "$states" = 0 ] || fail "the workers logged $states float8[] constants (the state, kappa) of the analyst's run: $call"
      echo "ok: the analyst's ${call:21:40}... logged $plans plans on the workers (its counts), no state"
    fi
  done
done
echo "worker_logs_hidden: all ok"
