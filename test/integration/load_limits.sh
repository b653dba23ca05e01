#!/usr/bin/env bash
# `dptrain load` and absurd dimensions (issue 15, item 4): a LIBSVM file
# with feature index 999999999, an IDX header promising 2^64 bytes and a
# scikit-learn header promising 10^9 features are refused with a clear error
# naming the limit, within a 2 GB address space (the loader used to allocate
# 18.5 GB); --max-features raises the limit.
# Env: DPTRAIN_CLI, PGHOST/PGPORT/PGUSER of a live throwaway cluster.
set -euo pipefail
: "${DPTRAIN_CLI:?set DPTRAIN_CLI to the dptrain binary}"
source "$(dirname "$0")/lib/scratch_db.sh"
scratch_db limits
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"; dropdb --if-exists --force "$db" >/dev/null 2>&1 || true' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# refused FILE PATTERN [args...]: the load fails with PATTERN in its error,
# in a 2 GB address space, and creates no table.
refused() {
  local file=$1 pattern=$2; shift 2
  if (ulimit -v 2000000; "$DPTRAIN_CLI" load --db "dbname=$db" --table t "$@" "$file") >"$WORK/out" 2>"$WORK/err"; then
    fail "loading $file succeeded"
  fi
  grep -Eq "$pattern" "$WORK/err" || fail "loading $file: expected /$pattern/, got: $(cat "$WORK/err")"
  [ "$(psql -X -At -d "$db" -c "SELECT to_regclass('t') IS NULL")" = t ] || fail "loading $file created a table"
  echo "ok: $(head -c 120 "$WORK/err")"
}

printf '1 3:0.5 999999999:1\n-1 2:1\n' >"$WORK/wide.svm"
refused "$WORK/wide.svm" "feature index 999999999 .* exceeds the limit of 1000000 features" --format libsvm
printf '\0\0\10\4\0\1\0\0\0\1\0\0\0\1\0\0\0\1\0\0' >"$WORK/wrap-images-idx3-ubyte"
printf '\0\0\10\1\0\1\0\0' >"$WORK/wrap-labels-idx1-ubyte"
refused "$WORK/wrap-images-idx3-ubyte" "declares more data than any file can hold"
printf '3,1000000000,a,b\n1,2,0\n' >"$WORK/sk.csv"
refused "$WORK/sk.csv" "header declares 1000000000 features, more than the limit of 1000000" --format sklearn

# The limit is a default, not a ceiling: a wider (sparse) file loads with --max-features.
printf '1 3:0.5 1200000:1\n-1 2:1\n' >"$WORK/wider.svm"
refused "$WORK/wider.svm" "exceeds the limit of 1000000 features" --format libsvm
"$DPTRAIN_CLI" load --db "dbname=$db" --table t --format libsvm --max-features 2000000 "$WORK/wider.svm" >/dev/null \
  || fail "--max-features 2000000 did not admit 1200000 features"
[ "$(psql -X -At -d "$db" -c "SELECT cardinality(x) FROM t LIMIT 1")" = 1200000 ] || fail "wrong dimension"
echo "ok: --max-features raises the limit"
