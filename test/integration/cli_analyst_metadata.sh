#!/usr/bin/env bash
# What the CLI shows a role with a budget and no SELECT (docs/governance.md, "What a model's
# metadata says"): `dptrain train` (server mode) and `dptrain tune` print their summary and the
# public progress only, and the stored model (`dptrain models --json`, `dptrain export`) has no
# `seconds` (the time of the passes: AMP's data-dependent number of them); an owner's has.
# Env: DPTRAIN_CLI, PGHOST/PGPORT/PGUSER of a live throwaway cluster.
set -euo pipefail
: "${DPTRAIN_CLI:?set DPTRAIN_CLI to the dptrain binary}"
DB=dptrain_meta_$$
OWNER=meta_owner_$$
ANALYST=meta_analyst_$$
WORK=$(mktemp -d)
cleanup() {
  dropdb --if-exists --force "$DB" >/dev/null 2>&1 || true
  psql -X -q -d postgres -c "DROP ROLE IF EXISTS $OWNER, $ANALYST" >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
ok() { echo "ok: $*"; }

createdb "$DB"
psql -X -q -v ON_ERROR_STOP=1 -d "$DB" >/dev/null <<SQL
CREATE EXTENSION dptrain;
CREATE ROLE $OWNER LOGIN;
CREATE ROLE $ANALYST LOGIN;
GRANT CREATE ON SCHEMA public TO $OWNER;
SET ROLE $OWNER;
CREATE TABLE public.ward AS
  SELECT i AS id, ARRAY[sin(i), cos(i)]::float8[] AS x, (sin(i) + 0.3 * cos(3 * i) > 0) AS y
  FROM generate_series(1, 500) i;
SELECT dp_grant_budget('public.ward', '$ANALYST', 100, 1e-3);
SQL

as_analyst=(--db "dbname=$DB user=$ANALYST")
"$DPTRAIN_CLI" train "${as_analyst[@]}" --table public.ward --label y --algorithm amp --epsilon 1 --delta 1e-6 \
  --name meta_amp >"$WORK/out" 2>"$WORK/err" || fail "train: $(cat "$WORK/err")"
grep -q "training inside the server" "$WORK/err" || fail "train did not run in the server: $(cat "$WORK/err")"
# AMP's per-pass progress is data-dependent: nothing of it for the analyst
if grep -Eq "optimizer pass|reached the gradient" "$WORK/err" "$WORK/out"; then
  fail "the analyst saw AMP's passes: $(cat "$WORK/err")"
fi
grep -q "model [0-9]* (meta_amp): amp" "$WORK/out" || fail "train summary: $(cat "$WORK/out")"
ok "dptrain train as the analyst: its summary, no pass progress"
cat "$WORK/err" "$WORK/out" >"$WORK/analyst_train.txt"

"$DPTRAIN_CLI" tune "${as_analyst[@]}" --table public.ward --label y --epsilon 5 --lambdas 0.01 --epochs 1,2 \
  --batch-sizes 10 --name meta_tuned >"$WORK/out" 2>"$WORK/err" || fail "tune: $(cat "$WORK/err")"
ok "dptrain tune as the analyst"

"$DPTRAIN_CLI" models "${as_analyst[@]}" --json >"$WORK/models.json" || fail "models"
python3 - "$WORK/models.json" <<'PY' || fail "models --json: $(cat "$WORK/models.json")"
import json, sys
rows = json.load(open(sys.argv[1]))
names = sorted(r.get("name") for r in rows)
assert names == ["meta_amp", "meta_tuned"], names
# the row's columns only (public parameters, the creator, the call's time): no details
for r in rows:
    assert set(r) == {"id", "name", "algorithm", "loss", "epsilon", "delta", "private", "seeded", "source",
                      "created_by", "created_at"}, r
PY
for m in meta_amp meta_tuned; do
  "$DPTRAIN_CLI" export "${as_analyst[@]}" --model "$m" --out "$WORK/$m.json" || fail "export $m"
  python3 -c "import json,sys; d=json.load(open(sys.argv[1]))['details']; assert 'seconds' not in d, d.keys()" \
    "$WORK/$m.json" || fail "export $m has seconds"
done
ok "dptrain models --json lists columns only; dptrain export: no seconds in the analyst's models"

"$DPTRAIN_CLI" train --db "dbname=$DB user=$OWNER" --table public.ward --label y --algorithm amp --epsilon 1 \
  --delta 1e-6 --name owner_amp >/dev/null 2>"$WORK/err" || fail "owner train: $(cat "$WORK/err")"
"$DPTRAIN_CLI" export --db "dbname=$DB user=$OWNER" --model owner_amp --out "$WORK/owner.json" || fail "owner export"
python3 -c "import json,sys; assert 'seconds' in json.load(open(sys.argv[1]))['details']" "$WORK/owner.json" \
  || fail "the owner's model has no seconds"
ok "the owner's model keeps its seconds"
echo "--- what the analyst saw:"; cat "$WORK/analyst_train.txt"
