# shellcheck shell=bash
# Helpers of the CLI integration tests (source after `set -euo pipefail`).
#
#   scratch_db NAME        creates database dptrain_NAME_<pid> with the extension,
#                          dropped on exit; sets db
#   separable_points ROWS  the table pts (id, x float8[3], y boolean) of
#                          nearly separable points, in $db
#   field EXPR             a Python expression over the JSON object j on stdin

scratch_db() {
  db=dptrain_$1_$$
  createdb "$db"
  trap 'dropdb --if-exists --force "$db" >/dev/null 2>&1 || true' EXIT
  psql -Xq -v ON_ERROR_STOP=1 -d "$db" -c "CREATE EXTENSION dptrain"
}

separable_points() {
  psql -Xq -v ON_ERROR_STOP=1 -d "$db" -c "
    CREATE TABLE pts AS
    SELECT i AS id, ARRAY[sin(i * 0.7), cos(i * 1.3), 0.25]::float8[] AS x,
           (sin(i * 0.7) + 0.5 * cos(i * 1.3) > 0) AS y
    FROM generate_series(1, $1) i"
}

field() { python3 -c "import json,sys; j=json.load(sys.stdin); print($1)"; }
