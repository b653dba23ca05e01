#!/usr/bin/env bash
# `make demo`: sets up a fresh machine, installs dptrain into PostgreSQL 15,
# starts a throwaway cluster (as the unprivileged postgres user, in a temp
# directory, stopped on exit), loads UCI Adult from ../shared/data with the
# official train/test split, trains a non-private baseline and two
# differentially private models, and prints their test accuracy.
set -euo pipefail
cd "$(dirname "$0")/.."
DATA=${DPTRAIN_DATA:-$PWD/../shared/data}

bash scripts/install-deps.sh
export CMAKE_TARGETS="dptrain_core dptrain"   # the demo needs neither the tests nor the benches
make -s -j"$(nproc)"
make -s install >/dev/null          # the extension into PostgreSQL 15, the CLI into /usr/local/bin
DPTRAIN=/usr/local/bin/dptrain

source scripts/lib/pgtmp.sh
pgtmp_init
pgtmp_start demo
createdb demo
export PGDATABASE=demo
DB="dbname=demo"
psql -Xq -c "CREATE EXTENSION dptrain"

echo
echo "== 1. Load UCI Adult (official split, rows with '?' dropped, one-hot + min-max, rows scaled to norm 1)"
# Public preprocessing (the documented category lists and public ranges,
# scripts/lib/adult_public.sh): the models below are private end to end.
source "$(dirname "$0")/lib/adult_public.sh"
"$DPTRAIN" load --db "$DB" --table adult "${ADULT_LOAD_ARGS[@]}" \
  --test-file "$DATA/adult/adult.test.gz" "$DATA/adult/adult.data.gz"

echo
echo "== 2. Non-private baseline, driven by the CLI (one aggregate query per epoch over libpq)"
"$DPTRAIN" train --db "$DB" --table adult --algorithm none --epochs 10 --batch-size 10 \
  --learning-rate 8 --averaging --name adult_baseline
"$DPTRAIN" eval --db "$DB" --model adult_baseline --table adult_test

echo
echo "== 3. Differentially private models, in one line of SQL each"
psql -X -v ON_ERROR_STOP=1 <<'SQL'
\set QUIET on
SET client_min_messages = warning;
-- With only epsilon (pure epsilon-DP), or epsilon and delta, dptrain picks the algorithm and its
-- hyperparameters from public inputs (docs/defaults.md; a NOTICE says which)
SELECT model_id, algorithm, round(epsilon::numeric, 6) AS epsilon, to_char(delta, '9.99EEEE') AS delta
FROM dp_train('adult', 'y', 'x', epsilon => 1, name => 'adult_default_pure');
SELECT model_id, algorithm, round(epsilon::numeric, 6) AS epsilon, to_char(delta, '9.99EEEE') AS delta
FROM dp_train('adult', 'y', 'x', epsilon => 1, delta => 1.0 / (SELECT count(*) FROM adult)^2,
              name => 'adult_default_delta');
-- Bolt-on by hand: (epsilon, delta) = (1, 1/n^2), convex logistic regression, 5 epochs
SELECT model_id, algorithm, epsilon, to_char(delta, '9.99EEEE') AS delta,
       details->'privacy'->>'sensitivity' AS sensitivity
FROM dp_train('adult', 'y', 'x', algorithm => 'bolton', epsilon => 1,
              delta => 1.0 / (SELECT count(*) FROM adult)^2,
              epochs => 5, learning_rate => 0.2, name => 'adult_eps_1');
-- (epsilon, delta) = (0.1, 1/n^2): a smaller step keeps the sensitivity 2 k L eta / b small; at
-- epsilon = 0.1 the bias term costs more noise (its row bound is sqrt(2)) than it earns: none here,
-- as in the papers
SELECT model_id, algorithm, epsilon, to_char(delta, '9.99EEEE') AS delta,
       details->'privacy'->>'sensitivity' AS sensitivity
FROM dp_train('adult', 'y', 'x', algorithm => 'bolton', epsilon => 0.1,
              delta => 1.0 / (SELECT count(*) FROM adult)^2,
              epochs => 5, learning_rate => 0.05, intercept => false, name => 'adult_eps_0.1');
-- Hyperparameter-free AMP (Iyengar et al. 2019): epsilon and delta only, nothing to tune
SELECT model_id, algorithm, epsilon, to_char(delta, '9.99EEEE') AS delta,
       details->'privacy'->>'variant' AS variant
FROM dp_train('adult', 'y', 'x', algorithm => 'amp', epsilon => 0.1,
              delta => 1.0 / (SELECT count(*) FROM adult)^2, intercept => false, name => 'adult_amp_0.1');
\echo
\echo Test accuracy on the 15,060 rows of adult_test:
SELECT m.name AS model, m.algorithm, m.private, round(m.epsilon::numeric, 6) AS epsilon, to_char(m.delta, '9.99EEEE') AS delta, round(e.accuracy::numeric, 4) AS test_accuracy,
       round(e.roc_auc::numeric, 4) AS roc_auc, round(e.majority_rate::numeric, 4) AS majority_rate
FROM dptrain.models m, LATERAL dp_evaluate(m.name, 'adult_test', 'y', 'x') e
ORDER BY m.id;
SQL
