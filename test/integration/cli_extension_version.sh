#!/usr/bin/env bash
# Against a database whose dptrain extension is older than the CLI's SQL
# (0.1, still installable from extension/frozen/), or missing, every command
# names the cause and the fix (controller/lib/extension.cpp). Before, they
# failed deep inside: `function dptrain.training_prepare(...) does not
# exist`, `function public.dp_train(source => regclass, ...) does not
# exist`, `column m.private does not exist`; and train on a database without
# the extension said `relation "pts" does not exist`.
# Env: DPTRAIN_CLI, PGHOST/PGPORT/PGUSER of a live throwaway cluster.
set -euo pipefail
: "${DPTRAIN_CLI:?set DPTRAIN_CLI to the dptrain binary}"
old=dptrain_extold_$$ none=dptrain_extnone_$$
trap 'dropdb --if-exists --force "$old" >/dev/null 2>&1; dropdb --if-exists --force "$none" >/dev/null 2>&1 || true' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
createdb "$old"
createdb "$none"
psql -Xq -v ON_ERROR_STOP=1 -d "$old" -c "CREATE EXTENSION dptrain VERSION '0.1'"
for d in "$old" "$none"; do
  psql -Xq -v ON_ERROR_STOP=1 -d "$d" -c "CREATE TABLE pts AS SELECT i AS id, ARRAY[sin(i), cos(i)]::float8[] AS x,
    (sin(i) > 0) AS y FROM generate_series(1, 400) i"
done

# refused DB EXPECTED ARGS...: exit status 1, EXPECTED on the first line of stderr.
refused() {
  local d=$1 expected=$2; shift 2
  local err rc=0
  err=$("$DPTRAIN_CLI" "$@" --db "dbname=$d" 2>&1 >/dev/null) || rc=$?
  [ "$rc" = 1 ] || fail "exit status $rc for: $* ($err)"
  [ "$(head -1 <<<"$err")" = "$expected" ] || fail "for: $* on $d
expected: $expected
got:      $err"
}

too_old="dptrain: error: the dptrain extension in this database is version 0.1; this dptrain needs 0.2 or later (SQLSTATE 55000)"
refused "$old" "$too_old" train --table pts --label y --epsilon 1
refused "$old" "$too_old" train --table pts --label y --epsilon 1 --server
refused "$old" "$too_old" tune --table pts --label y --epsilon 1
refused "$old" "$too_old" models
refused "$old" "$too_old" export --model 1
refused "$old" "$too_old" eval --model 1 --table pts --label y
refused "$old" "$too_old" predict --model 1 --features 0.5,0.5
refused "$old" "$too_old" budget show --table pts
err=$("$DPTRAIN_CLI" models --db "dbname=$old" 2>&1 >/dev/null || true)
grep -q "^HINT:  Update it in place: ALTER EXTENSION dptrain UPDATE;" <<<"$err" || fail "no hint to update: $err"
echo "ok: every command against extension 0.1 says it is too old and how to update"

missing="dptrain: error: the dptrain extension is not installed in this database (SQLSTATE 42704)"
refused "$none" "$missing" train --table pts --label y --epsilon 1
refused "$none" "$missing" tune --table pts --label y --epsilon 1
echo "ok: train and tune without the extension say it is not installed"
