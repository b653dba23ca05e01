# shellcheck shell=bash
# A throwaway Citus cluster for the distributed tests and benchmarks: a
# coordinator and two workers, each a PostgreSQL 15 started by pgtmp.sh (as
# the unprivileged `postgres` user, in a temp directory, stopped on exit)
# with shared_preload_libraries = 'citus', from the private install that
# carries this build of dptrain (and Citus, when scripts/install-citus.sh
# installed it system-wide before the copy was made).
#
#   source scripts/lib/citus_cluster.sh
#   citus_available || exit 77           # Citus is not installed: skip
#   citus_cluster_start [DB]             # nodes (or those of $CITUS_CLUSTER_DIR) and
#                                        # a fresh database DB (citus + dptrain on every
#                                        # node, workers registered); PG* point at the
#                                        # coordinator
#   citus_sql NODE "statement"           # psql -At on coordinator | worker1 | worker2
#   citus_psql NODE [psql args...]       # psql on a node, errors fatal
#
#   citus_nodes_start                    # only the three servers (for a parent that
#                                        # shares them: export CITUS_CLUSTER_DIR=$PGTMP_DIR)
#
# Starting three servers takes a few seconds on an idle machine and more than
# a minute on a busy one, so scripts/run-tests.sh starts them once and every
# test gets its own database (Citus keeps its metadata per database; dropped
# on exit). Run alone, a test starts and stops its own nodes.
#
# Nodes talk over Unix sockets only (listen_addresses = ''): a node's name in
# pg_dist_node is its socket directory, which libpq takes for a host. Each
# node still has its own port number so that (name, port) pairs read clearly
# in the Citus catalog and logs; nothing listens on TCP, so no other user of
# the machine can reach these trust-authenticated servers.

# Sourced once: sourcing it again would forget the clusters a caller started.
# shellcheck source=pgtmp.sh
declare -F pgtmp_start >/dev/null || source "$(dirname "${BASH_SOURCE[0]}")/pgtmp.sh"

CITUS_NODES=(coordinator worker1 worker2)
declare -A CITUS_PORT=([coordinator]=55432 [worker1]=55433 [worker2]=55434)
CITUS_DB=${CITUS_DB:-dptrain}

# True when the PostgreSQL 15 of this machine has Citus.
citus_available() { [ -f "$(pg_config --pkglibdir)/citus.so" ]; }

citus_home() { echo "${CITUS_CLUSTER_DIR:-$PGTMP_DIR}"; }
citus_node_dir() { echo "$(citus_home)/$1"; }

citus_psql() {
  local node=$1; shift
  psql -X -q -v ON_ERROR_STOP=1 -h "$(citus_node_dir "$node")" -p "${CITUS_PORT[$node]}" -U postgres -d "$CITUS_DB" "$@"
}

citus_sql() {
  local node=$1; shift
  citus_psql "$node" -At -c "$1"
}

# The private install of pgtmp.sh, made once per process tree: a parent
# (scripts/run-tests.sh) exports PGTMP_BIN after pgtmp_private_install, and
# that copy is reused when it has both dptrain and Citus.
citus_private_install() {
  local lib
  lib=$(dirname "$PGTMP_BIN")/lib
  if [ "$PGTMP_BIN" != "$PGTMP_SYSTEM_BIN" ] && [ -f "$lib/dptrain.so" ] && [ -f "$lib/citus.so" ]; then
    return 0
  fi
  pgtmp_private_install
}

citus_nodes_start() {
  [ -n "${PGTMP_DIR:-}" ] || pgtmp_init
  citus_private_install
  local node dir
  for node in "${CITUS_NODES[@]}"; do
    dir=$PGTMP_DIR/$node
    # pg_ctl -w (in pgtmp_start) returns once the server accepts connections.
    pgtmp_start "$node" \
      "port = ${CITUS_PORT[$node]}" \
      "shared_preload_libraries = 'citus'" \
      "citus.local_hostname = '$dir'" \
      "max_prepared_transactions = 20" \
      "max_worker_processes = 16" || return 1
  done
}

# A database with citus and dptrain on every node, the workers registered in
# its Citus metadata.
citus_database_create() {
  CITUS_DB=$1
  local node
  for node in "${CITUS_NODES[@]}"; do
    "$PGTMP_BIN/createdb" -h "$(citus_node_dir "$node")" -p "${CITUS_PORT[$node]}" -U postgres "$CITUS_DB"
    citus_psql "$node" -c "CREATE EXTENSION citus" -c "CREATE EXTENSION dptrain"
  done
  citus_psql coordinator \
    -c "SELECT citus_set_coordinator_host('$(citus_node_dir coordinator)', ${CITUS_PORT[coordinator]})" \
    -c "SELECT citus_add_node('$(citus_node_dir worker1)', ${CITUS_PORT[worker1]})" \
    -c "SELECT citus_add_node('$(citus_node_dir worker2)', ${CITUS_PORT[worker2]})" >/dev/null
  local active
  active=$(citus_sql coordinator "SELECT count(*) FROM citus_get_active_worker_nodes()")
  [ "$active" = 2 ] || { echo "citus_cluster: $active active workers, expected 2" >&2; return 1; }
  export PGHOST PGPORT PGUSER PGDATABASE
  PGHOST=$(citus_node_dir coordinator) PGPORT=${CITUS_PORT[coordinator]} PGUSER=postgres PGDATABASE=$CITUS_DB
}

# Drops the database everywhere (the coordinator first: that closes its
# cached connections to the workers).
citus_database_drop() {
  local node
  for node in "${CITUS_NODES[@]}"; do
    psql -X -q -h "$(citus_node_dir "$node")" -p "${CITUS_PORT[$node]}" -U postgres -d postgres \
      -c "DROP DATABASE IF EXISTS \"$1\" WITH (FORCE)" >/dev/null 2>&1 || true
  done
}

# citus_cluster_start [DB]: the nodes of $CITUS_CLUSTER_DIR (a fresh database
# there, dropped on exit) or nodes of our own (stopped on exit).
citus_cluster_start() {
  local db=${1:-$CITUS_DB}
  if [ -n "${CITUS_CLUSTER_DIR:-}" ]; then
    db=${db}_$$
    pgtmp_at_exit "citus_database_drop '$db'"
  else
    citus_nodes_start || return 1
  fi
  citus_database_create "$db"
}
