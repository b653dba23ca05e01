#!/usr/bin/env bash
# `dptrain train --algorithm amp | optimum`: the CLI's controller (over libpq)
# and dp_train (inside the backend) run the same run object and the same
# gradient-pass SQL, so with the same seed (same b1 and b2) they release the
# same model: bit for bit over the same copy, to rounding when they read the
# table in place or in its own order (lib/three_drivers.sh); both read it the
# same way (in place for a plain table, a copy without shuffle for a view). Also: the CLI refuses AMP
# without delta before touching the server, and a run that does not reach
# gamma releases nothing.
set -euo pipefail
CLI=${DPTRAIN_CLI:?DPTRAIN_CLI must point to the dptrain binary}
source "$(dirname "$0")/lib/scratch_db.sh"
scratch_db amp_cli  # a database with the extension, dropped on exit
DB=$db
psql -X -q -v ON_ERROR_STOP=1 -d "$DB" <<'SQL'
CREATE TABLE pts AS
SELECT i AS id, ARRAY[sin(i * 0.37), cos(i * 0.91), 0.5, sin(i * 0.05)]::float8[] AS x,
       (sin(i * 0.37) + 0.3 * sin(i * 2.1) > cos(i * 0.91)) AS y,
       (i % 3)::text AS k
FROM generate_series(1, 900) i;
SQL

source "$(dirname "$0")/lib/three_drivers.sh"

three_drivers "hyperparameter-free AMP" pts y --algorithm amp --epsilon 1 --delta 1e-6 \
  -- "algorithm => 'amp', epsilon => 1, delta => 1e-6"
three_drivers "tuned AMP, huber, lbfgs" pts y --algorithm amp --epsilon 0.5 --delta 1e-6 --loss huber_svm --lambda 0.001 \
  --options '{"f": 0.05, "f1": 0.9, "optimizer": "lbfgs"}' \
  -- "algorithm => 'amp', epsilon => 0.5, delta => 1e-6, loss => 'huber_svm', lambda => 0.001,
      options => '{\"f\": 0.05, \"f1\": 0.9, \"optimizer\": \"lbfgs\"}'"
three_drivers "the optimum" pts y --algorithm optimum --lambda 0.001 -- "algorithm => 'optimum', lambda => 0.001"
# --intercept is intercept => true: AMP has none by default (docs/intercept.md).
three_drivers "AMP with --intercept" pts y --algorithm amp --epsilon 1 --delta 1e-6 --intercept \
  -- "algorithm => 'amp', epsilon => 1, delta => 1e-6, intercept => true"
with_bias=$(psql -X -At -d "$DB" -c "SELECT count(*) FILTER (WHERE (details->'hyperparameters'->>'intercept')::boolean
    AND array_length(weights, 1) = 5) || '/' || count(*) FROM dptrain.models WHERE algorithm = 'amp'
    AND details->'hyperparameters' ? 'intercept'")
[ "${with_bias%%/*}" = 3 ] || { echo "--intercept: $with_bias AMP models with a bias weight, expected 3" >&2; exit 1; }
if out=$("$CLI" train --db "dbname=$DB" --table pts --label y --algorithm amp --epsilon 1 --delta 1e-6 --intercept --no-intercept 2>&1); then
  echo "--intercept --no-intercept was accepted" >&2; exit 1
fi
grep -q "excludes" <<<"$out" || { echo "--intercept --no-intercept: $out" >&2; exit 1; }
echo "ok: --intercept gives AMP a bias term in every driver; with --no-intercept it is refused"
# A view is never read in place: the controller, like dp_train, copies it
# without shuffle (AMP does not depend on the order of the rows).
psql -X -q -d "$DB" -c "CREATE VIEW pts_view AS SELECT * FROM pts"
three_drivers "AMP over a view" pts_view y --algorithm amp --epsilon 1 --delta 1e-6 \
  -- "algorithm => 'amp', epsilon => 1, delta => 1e-6"

echo "--- a trusted role, unseeded: in place under REPEATABLE READ, charged once"
# The charge is reserved by the server's worker in a transaction of its own
# (src/pg/charge_worker.cpp), so the controller's REPEATABLE READ snapshot
# does not hide it: one ledger entry, naming the stored model.
TRUSTED=amp_cli_trusted_$$
psql -X -q -v ON_ERROR_STOP=1 -d "$DB" >/dev/null <<SQL
CREATE ROLE $TRUSTED LOGIN;
GRANT SELECT ON pts TO $TRUSTED;
GRANT EXECUTE ON FUNCTION dptrain.training_prepare(regclass, text, text, text[], bigint, float8, float8),
  dptrain.training_prepare_run(regclass, text, text, text, text[], bigint, float8, float8),
  dptrain.training_in_place_pass(regclass, text, float8[]), dptrain.training_drop(text),
  dptrain.store_model(jsonb) TO $TRUSTED;
SELECT dp_grant_budget('pts', '$TRUSTED', 2.0, 1e-5);
SQL
# The pass aggregates are open to PUBLIC (the passes run with the reader's
# rights: docs/governance.md, "Code the planner runs"); the controller's
# internals are what the trusted role is granted.
t=$("$CLI" train --db "dbname=$DB user=$TRUSTED" --table pts --algorithm amp --epsilon 1 --delta 1e-6 \
    --classes false true --controller --json | model_id)
r=$(psql -X -At -d "$DB" -c "SELECT count(*) || ' ' || bool_and(l.model_id = $t) || ' ' ||
    min(m.details->'data'->>'read') FROM dptrain.ledger l JOIN dptrain.models m ON m.id = $t
    WHERE l.role::text = '$TRUSTED'")
[ "$r" = "1 true in place, one snapshot, no copy" ] || { echo "trusted controller run: $r" >&2; exit 1; }
psql -X -q -d "$DB" -c "DELETE FROM dptrain.models WHERE created_by = '$TRUSTED'" \
  -c "DELETE FROM dptrain.budgets WHERE role::text = '$TRUSTED'" \
  -c "DELETE FROM dptrain.ledger WHERE role::text = '$TRUSTED'" -c "DROP OWNED BY $TRUSTED" -c "DROP ROLE $TRUSTED"

echo "--- one-vs-all AMP"
a=$("$CLI" train --db "dbname=$DB" --table pts --label k --json --seed 4 --algorithm amp --epsilon 3 --delta 3e-6 \
    --classes 0,1,2 | model_id)
c=$(psql -X -At -d "$DB" -c "SELECT model_id FROM dp_train('pts', 'k', 'x', algorithm => 'amp', epsilon => 3,
    delta => 3e-6, seed => 4, classes => ARRAY['0', '1', '2'])")
same_model_as_dp_train "$a" "$c"

echo "--- the CLI shows progress per optimizer pass (on a terminal: script(1) provides one)"
out=$(script -qec "$CLI train --db dbname=$DB --table pts --seed 5 --algorithm amp --epsilon 1 --delta 1e-6" /dev/null)
grep -q 'training \[.*\] 1/100' <<<"$out" || { echo "no progress per pass shown: $out" >&2; exit 1; }
grep -q 'training \[.*\] 2/100' <<<"$out" || { echo "no progress per pass shown: $out" >&2; exit 1; }

echo "--- errors exit non-zero with the core's message"
if err=$("$CLI" train --db "dbname=$DB" --table pts --algorithm amp --epsilon 1 2>&1); then
  echo "amp without delta succeeded" >&2; exit 1
fi
grep -q 'needs delta > 0' <<<"$err" || { echo "unexpected error: $err" >&2; exit 1; }
before=$(psql -X -At -d "$DB" -c "SELECT count(*) FROM dptrain.models")
if err=$("$CLI" train --db "dbname=$DB" --table pts --seed 1 --algorithm amp --epsilon 1 --delta 1e-6 \
    --options '{"max_evaluations": 1}' 2>&1); then
  echo "amp with one evaluation succeeded" >&2; exit 1
fi
grep -q 'nothing is released' <<<"$err" || { echo "unexpected error: $err" >&2; exit 1; }
after=$(psql -X -At -d "$DB" -c "SELECT count(*) FROM dptrain.models")
[ "$before" = "$after" ] || { echo "a failed AMP run stored a model" >&2; exit 1; }
echo "amp CLI: ok"
