# shellcheck shell=bash
# Common start of the distributed tests (source after `set -euo pipefail`):
# exits 77 (skipped) when Citus is not installed, otherwise starts a
# coordinator and two workers (scripts/lib/citus_cluster.sh) and defines
#   sql "statement"          one query on the coordinator, unaligned tuples
#   on NODE "statement"      the same on coordinator | worker1 | worker2
#   fail "message"           report and exit 1
#   CITUS_TEST_TMP           a scratch directory, removed on exit
#   points TABLE ROWS        TABLE (id bigint, x float8[3], y boolean) of nearly separable points
#   distributed_copy SRC DST SHARDS
#                            DST: a copy of SRC hash-distributed by id over SHARDS shards

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
cd "$REPO"
# shellcheck source=../../../scripts/lib/citus_cluster.sh
source scripts/lib/citus_cluster.sh
if ! citus_available; then
  echo "SKIP: Citus is not installed (bash scripts/install-citus.sh)"
  exit 77
fi
citus_cluster_start
# Scratch files of the test (fifos, captured output): removed on exit, also
# when a check fails half-way.
CITUS_TEST_TMP=$(mktemp -d)
pgtmp_at_exit "rm -rf '$CITUS_TEST_TMP'"

sql() { citus_sql coordinator "$1"; }
on() { citus_sql "$1" "$2"; }
fail() { echo "FAIL: $*" >&2; exit 1; }

points() {
  sql "CREATE TABLE $1 AS
       SELECT i::bigint AS id, ARRAY[sin(i * 0.7), cos(i * 1.3), 0.25]::float8[] AS x,
              (sin(i * 0.7) + 0.5 * cos(i * 1.3) > 0) AS y
       FROM generate_series(1, $2) i" >/dev/null
}

distributed_copy() {
  sql "CREATE TABLE $2 (LIKE $1)" >/dev/null
  sql "SET citus.shard_count = $3; SELECT create_distributed_table('$2', 'id')" >/dev/null
  sql "INSERT INTO $2 SELECT * FROM $1" >/dev/null
}
