#!/usr/bin/env bash
# Sparse rows through the CLI (docs/sparse.md): `dptrain load --sparse` of a
# LIBSVM file stores dptrain.sparsevec rows equal to the dense load's; the
# controller (`dptrain train`, epochs over libpq) and the server (--server)
# release the dense table's model from the sparse table for the same seed
# (bolt-on's epochs, DP-SGD's Poisson lots).
set -euo pipefail
: "${DPTRAIN_CLI:?}"
source "$(dirname "$0")/lib/scratch_db.sh"
scratch_db sparse_cli
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"; dropdb --if-exists --force "$db" >/dev/null 2>&1 || true' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# 200 rows of dimension 30, 3 non-zeros each, labels +-1 from the first features.
python3 - "$WORK/rows.svm" <<'PY'
import math, sys
with open(sys.argv[1], "w") as f:
    for i in range(1, 201):
        idx = sorted({1 + i % 5, 6 + i % 7, 14 + (i * 13) % 17})
        vals = [math.sin(i * j * 0.37) for j in idx]
        label = 1 if vals[0] + 0.3 * math.cos(i) > 0 else -1
        f.write(f"{label} " + " ".join(f"{j}:{v:.6f}" for j, v in zip(idx, vals)) + "\n")
PY
"$DPTRAIN_CLI" load --db "dbname=$db" --table dense --format libsvm --dims 30 --positive 1 "$WORK/rows.svm" >/dev/null
out=$("$DPTRAIN_CLI" load --db "dbname=$db" --table sparse --sparse --format libsvm --dims 30 --positive 1 --json \
      "$WORK/rows.svm")
[ "$(echo "$out" | field "j['sparse']")" = True ] || fail "--json does not say sparse: $out"
check=$(psql -X -At -d "$db" -c "
  SELECT format_type(a.atttypid, a.atttypmod), bool_and(s.x::float8[] = d.x), max(dptrain.sparsevec_nnz(s.x)),
         bool_and(s.y = d.y), count(*)
  FROM sparse s JOIN dense d USING (id), pg_attribute a
  WHERE a.attrelid = 'sparse'::regclass AND a.attname = 'x' GROUP BY 1")
[ "$check" = "dptrain.sparsevec|t|3|t|200" ] || fail "sparse load differs from the dense one: $check"
echo "ok: load --sparse stores the dense load's rows ($check)"

train() {
  "$DPTRAIN_CLI" train --db "dbname=$db" --label y --features x --algorithm "${ALGORITHM:-bolton}" --epsilon 1 --epochs 2 \
    --batch-size 10 --seed 3 --json "$@" | field "j['model_id']"
}
for mode in "" "--server"; do
  # shellcheck disable=SC2086
  d=$(train --table dense $mode)
  # shellcheck disable=SC2086
  s=$(train --table sparse $mode)
  diff=$(psql -X -At -d "$db" -c "
    SELECT max(abs(a - b)) < 1e-12 FROM dptrain.models md, dptrain.models ms, unnest(md.weights, ms.weights) u(a, b)
    WHERE md.id = $d AND ms.id = $s")
  [ "$diff" = t ] || fail "sparse and dense models differ (${mode:-controller})"
  echo "ok: the same bolt-on model from the sparse table (${mode:-controller})"
done

# DP-SGD (Poisson lots: each sampled row densified) gives the dense model too.
for mode in "" "--server"; do
  # shellcheck disable=SC2086
  d=$(ALGORITHM=dpsgd train --table dense --delta 1e-5 $mode)
  # shellcheck disable=SC2086
  s=$(ALGORITHM=dpsgd train --table sparse --delta 1e-5 $mode)
  diff=$(psql -X -At -d "$db" -c "
    SELECT max(abs(a - b)) < 1e-12 FROM dptrain.models md, dptrain.models ms, unnest(md.weights, ms.weights) u(a, b)
    WHERE md.id = $d AND ms.id = $s")
  [ "$diff" = t ] || fail "sparse and dense dpsgd models differ (${mode:-controller})"
  echo "ok: the same dpsgd model from the sparse table (${mode:-controller})"
done

# A trusted role (not a superuser) drives the epochs of the sparse table from
# the controller: the pass aggregates are open to PUBLIC (docs/governance.md),
# the sparse sgd_epoch too (it was left revoked: "permission denied for
# aggregate sgd_epoch" mid-run, no hint).
TRUSTED=sparse_cli_trusted_$$
psql -X -q -v ON_ERROR_STOP=1 -d "$db" >/dev/null <<SQL
CREATE ROLE $TRUSTED LOGIN;
GRANT SELECT ON sparse TO $TRUSTED;
GRANT EXECUTE ON FUNCTION dptrain.training_prepare(regclass, text, text, text[], bigint, float8, float8),
  dptrain.training_drop(text), dptrain.store_model(jsonb) TO $TRUSTED;
SQL
t=$("$DPTRAIN_CLI" train --db "dbname=$db user=$TRUSTED" --table sparse --label y --features x --algorithm none \
    --epochs 1 --batch-size 10 --seed 3 --controller --json | field "j['model_id']") ||
  fail "a trusted role's controller run on the sparse table failed"
psql -X -q -d "$db" -c "DELETE FROM dptrain.models WHERE created_by = '$TRUSTED'" \
  -c "DELETE FROM dptrain.ledger WHERE role::text = '$TRUSTED'" -c "DROP OWNED BY $TRUSTED" -c "DROP ROLE $TRUSTED"
echo "ok: a trusted role's controller run on the sparse table (model $t)"

# The sparse table's load spec travels with its model: `dptrain eval --file`
# reads the LIBSVM file into sparse rows and prints dp_evaluate's numbers.
e=$("$DPTRAIN_CLI" eval --db "dbname=$db" --model "$s" --file "$WORK/rows.svm" --json)
sql=$(psql -X -At -d "$db" -c "SELECT row_to_json(e) FROM dp_evaluate($s, 'sparse', 'y', 'x') e")
python3 -c "
import json, sys
a, b = json.loads(sys.argv[1]), json.loads(sys.argv[2])
assert a['n'] == b['n'] == 200 and a['accuracy'] == b['accuracy'] and a['roc_auc'] == b['roc_auc'], (a, b)" "$e" "$sql" ||
  fail "eval --file on the sparse table's model differs from dp_evaluate: $e vs $sql"
[ "$(psql -X -At -d "$db" -c "SELECT details->'load_spec'->>'features_type' FROM dptrain.models WHERE id = $s")" = sparsevec ] ||
  fail "the sparse model's load spec does not say sparsevec"
echo "ok: eval --file on the LIBSVM file = dp_evaluate on the sparse table"
