#!/usr/bin/env bash
# The ledger row of each CLI path equals the charge computed by hand, and the
# model records that row (docs/accounting.md, "Adjacency"; the SQL paths:
# test/regress/sql/ledger_charges.sql). The ledger's relation is replace-one:
# an add/remove-one run (DP-SGD) at (eps, delta) is charged
# (2 eps, (1 + e^eps) delta) (group privacy for two rows, Vadhan 2017,
# Lemma 2.2) and its model keeps that charge in details.privacy.charged; a
# replace-one run (bolton) is charged its own (eps, delta), which its model
# claims.
#   dptrain train --server   dp_train: charged the request before any row is read
#   dptrain train            the controller: charged the stored model's (eps, delta)
#   dptrain tune             Liu-Talwar (dp_tune in the server): the total, once;
#                            holdout in the controller (bolton): the model's
set -euo pipefail
CLI=${DPTRAIN_CLI:?DPTRAIN_CLI must point to the dptrain binary}
source "$(dirname "$0")/lib/scratch_db.sh"
scratch_db ledger_charges_cli
separable_points 600
fail() { echo "ledger_charges_cli: $*" >&2; exit 1; }
model_id() { python3 -c 'import json,sys; print(json.loads(sys.stdin.read())["model_id"])'; }
common=(--db "dbname=$db" --table pts --label y --features x --classes false,true --json)

# charged_as ID EPS DELTA WHERE: the ledger row of model ID is (EPS, DELTA),
# SQL expressions over the model m: at least that (to 1e-14, the rounding of
# the model's float8 epsilon in EPS) and at most 1e-13 above it (the ledger
# rounds a charge UP to 15 significant digits, a converted delta after a
# margin of ~1e-14 for its floating-point error: ledger_charge.h); and WHERE
# ("own" or "charged") the model records exactly that row.
charged_as() {
  local r
  r=$(psql -X -At -F ' ' -d "$db" -c "
    SELECT count(*) = 1 AND bool_and(l.epsilon BETWEEN ($2)::numeric * (1 - 1e-14) AND ($2)::numeric * (1 + 1e-13)
                                 AND l.delta BETWEEN ($3)::numeric * (1 - 1e-14) AND ($3)::numeric * (1 + 1e-13)
           AND CASE '$4'
                 WHEN 'own' THEN m.details->'privacy'->'charged' IS NULL
                                 AND abs(l.epsilon - m.epsilon::numeric) <= 1e-14 * l.epsilon
                                 AND abs(l.delta - m.delta::numeric) <= 1e-14 * l.delta
                 ELSE m.details->'privacy'->'charged'->>'adjacency' = 'replace-one'
                      AND abs(l.epsilon - (m.details->'privacy'->'charged'->>'epsilon')::numeric) <= 1e-14 * l.epsilon
                      AND abs(l.delta - (m.details->'privacy'->'charged'->>'delta')::numeric) <= 1e-14 * l.delta
               END),
           min(l.epsilon), min(l.delta), 'model', min(m.epsilon), min(m.delta)
    FROM dptrain.ledger l JOIN dptrain.models m ON m.id = l.model_id WHERE l.model_id = $1")
  [ "${r%% *}" = t ] || fail "model $1: expected the ledger row ($2, $3) recorded as $4, got: ${r#* }"
  echo "    ledger of model $1: ${r#* }"
}

# 1. dptrain train --server, DP-SGD at (0.5, 1e-6): dp_train charges the
#    request, (2 * 0.5, (1 + e^0.5) 1e-6) = (1, (1 + 1.6487212707001282) 1e-6)
#    = (1, 2.6487212707001282e-6); the model keeps the accountant's eps <= 0.5.
id=$("$CLI" train "${common[@]}" --server --algorithm dpsgd --epsilon 0.5 --delta 1e-6 --epochs 1 2>/dev/null | model_id)
charged_as "$id" 1 2.6487212707001282e-6 charged
[ "$(psql -X -At -d "$db" -c "SELECT epsilon <= 0.5 AND delta = 1e-6 FROM dptrain.models WHERE id = $id")" = t ] \
  || fail "the --server model claims more than its request"
echo "ok: dptrain train --server (dpsgd): charged (1, 2.6487212707e-6)"

# 2. dptrain train (the controller), same request: store_model charges the
#    model's own (eps_m, delta) converted, (2 eps_m, (1 + e^eps_m) 1e-6), with
#    eps_m the accountant's epsilon of the calibrated noise (<= 0.5, so the
#    charge is <= the --server one).
id=$("$CLI" train "${common[@]}" --controller --algorithm dpsgd --epsilon 0.5 --delta 1e-6 --epochs 1 2>/dev/null | model_id)
charged_as "$id" "2 * m.epsilon" "(1 + exp(m.epsilon::numeric)) * 1e-6" charged
[ "$(psql -X -At -d "$db" -c "SELECT epsilon <= 0.5 AND epsilon > 0.49 AND delta = 1e-6 FROM dptrain.models WHERE id = $id")" = t ] \
  || fail "the controller's model is not the accountant's (eps <= 0.5, 1e-6)"
echo "ok: dptrain train (controller, dpsgd): charged (2 eps_m, (1 + e^eps_m) delta) of its model"

# 3. dptrain tune --method liu_talwar (dp_tune in the server), DP-SGD at the
#    total (0.4, 1e-6): charged once (0.8, (1 + e^0.4) 1e-6)
#    = (0.8, (1 + 1.4918246976412703) 1e-6) = (0.8, 2.4918246976412703e-6);
#    the model claims the total (0.4, 1e-6).
id=$("$CLI" tune "${common[@]}" --algorithm dpsgd --epsilon 0.4 --delta 1e-6 --method liu_talwar \
       --grid '{"learning_rate": [0.1, 0.5], "epochs": [1]}' 2>/dev/null | model_id)
charged_as "$id" 0.8 2.4918246976412703e-6 charged
[ "$(psql -X -At -d "$db" -c "SELECT epsilon = 0.4 AND delta = 1e-6 FROM dptrain.models WHERE id = $id")" = t ] \
  || fail "the Liu-Talwar model does not claim the total (0.4, 1e-6)"
echo "ok: dptrain tune --method liu_talwar (dpsgd): charged (0.8, 2.4918246976e-6) once"

# 4. dptrain tune, holdout in the controller, bolton (replace-one) at
#    (0.6, 1e-7): charged (0.6, 1e-7), the model's own.
id=$("$CLI" tune "${common[@]}" --controller --epsilon 0.6 --delta 1e-7 --lambdas 0,0.01 --epochs 1,2 2>/dev/null | model_id)
charged_as "$id" 0.6 1e-7 own
echo "ok: dptrain tune (controller, bolton): charged (0.6, 1e-7), the model's own"

[ "$(psql -X -At -d "$db" -c "SELECT count(*) FROM dptrain.ledger")" = 4 ] || fail "expected exactly one ledger row per run"
echo "ledger_charges_cli: all ok"
