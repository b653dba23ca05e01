# shellcheck shell=bash
# The tables the examples of README.md and docs/*.md name (source after
# `set -euo pipefail`; needs DPTRAIN_CLI, DPTRAIN_DATA and a cluster):
#
#   docs_fixture            creates database $fixture with the extension, adult
#                           and adult_test as `dptrain load` loads UCI Adult
#                           (every 10th row kept, for speed) and the tables of
#                           docs_fixture.sql; everything dropped on exit
#   docs_page_db PAGE       a fresh copy of $fixture for one page; sets db

docs_fixture() {
  fixture=dptrain_docs_fixture_$$
  docs_dbs=("$fixture")
  trap docs_fixture_cleanup EXIT
  createdb "$fixture"
  psql -Xq -v ON_ERROR_STOP=1 -d "$fixture" -c "CREATE EXTENSION dptrain"
  "$DPTRAIN_CLI" load --db "dbname=$fixture" --table adult --positive ">50K" --drop-missing \
    --test-file "$DPTRAIN_DATA/adult/adult.test.gz" "$DPTRAIN_DATA/adult/adult.data.gz" 2>/dev/null
  psql -Xq -v ON_ERROR_STOP=1 -d "$fixture" -f "$(dirname "${BASH_SOURCE[0]}")/docs_fixture.sql"
}

docs_page_db() {
  db=dptrain_docs_${1//[^a-zA-Z0-9]/_}_$$
  docs_dbs+=("$db")
  createdb -T "$fixture" "$db"
}

docs_fixture_cleanup() {
  local d
  for d in "${docs_dbs[@]}"; do dropdb --if-exists --force "$d" >/dev/null 2>&1 || true; done
  psql -Xq -d postgres -c "DROP ROLE IF EXISTS analyst" -c "DROP ROLE IF EXISTS trusted_role" >/dev/null 2>&1 || true
  [ -z "${WORK:-}" ] || rm -rf "$WORK"
}
