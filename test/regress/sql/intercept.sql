-- The intercept (docs/intercept.md): on by default, rows (x scaled to norm
-- <= R, b = R) with R = 1, every algorithm planned for the bound sqrt(2);
-- dp_predict, dp_predict_proba and dp_evaluate apply it; intercept => false
-- gives the model through the origin; opdisc refuses it.
SET client_min_messages = warning;
-- Labels with an offset: y = (x1 > 0.3). Through the origin a linear rule
-- cannot separate them; with a bias it can.
CREATE TABLE ic AS
SELECT i AS id, ARRAY[sin(i * 0.7), cos(i * 1.3)]::float8[] AS x, sin(i * 0.7) > 0.3 AS y
FROM generate_series(1, 1000) i;

-- 1. The rows a run trains on: (clip_1(x), 1).
SELECT dptrain.intercept_row(ARRAY[3, 4]::float8[], 2, 2) AS clipped_then_b,
       dptrain.intercept_row(ARRAY[0.3, -0.4]::float8[], 1, 1) AS within_the_bound;
-- its bound and constant are checked (NaN, infinite, zero or negative: 22023)
\getenv abs_srcdir PG_ABS_SRCDIR
\set try_sql :abs_srcdir '/sql/include/try.sql'
\i :try_sql
SELECT r.code, r.message FROM unnest(ARRAY['NaN', 'Infinity', '0', '-1']::float8[]) v,
  LATERAL (SELECT * FROM pg_temp.try(format('SELECT dptrain.intercept_row(ARRAY[1, 2]::float8[], %L::float8, 1)', v))
           UNION ALL
           SELECT * FROM pg_temp.try(format('SELECT dptrain.intercept_row(ARRAY[1, 2]::float8[], 1, %L::float8)', v))) r;
BEGIN;
SELECT shuffled AS ic_table, dim FROM dptrain.training_prepare('ic', 'y', 'x', feature_bound => 1, intercept => 1) \gset
SELECT :dim AS d, min(cardinality(x)) AS stored_len, bool_and(x[3] = 1) AS b_is_1,
       max(sqrt(x[1] * x[1] + x[2] * x[2])) <= 1 + 1e-12 AS clipped
FROM :ic_table;
ROLLBACK;

-- 2. Non-private: the default model has d + 1 weights and the intercept in its
-- metadata, and beats the model through the origin.
SELECT array_length(weights, 1) AS weights, details->'hyperparameters'->'intercept' AS intercept,
       details->'hyperparameters'->'intercept_feature' AS b,
       details->'hyperparameters'->'feature_bound' AS feature_bound,
       round((details->'hyperparameters'->>'augmented_feature_bound')::numeric, 6) AS augmented_bound,
       details->'data'->'dim' AS data_dim
FROM dp_train('ic', 'y', 'x', algorithm => 'none', epochs => 10, batch_size => 10, learning_rate => 1,
              name => 'ic_bias', seed => 1);
SELECT array_length(weights, 1) AS weights, details->'hyperparameters'->'intercept' AS intercept
FROM dp_train('ic', 'y', 'x', algorithm => 'none', epochs => 10, batch_size => 10, learning_rate => 1,
              name => 'ic_origin', seed => 1, intercept => false);
SELECT (dp_evaluate('ic_bias', 'ic', 'y', 'x')).accuracy > 0.97 AS with_bias_fits,
       (dp_evaluate('ic_bias', 'ic', 'y', 'x')).accuracy
       > (dp_evaluate('ic_origin', 'ic', 'y', 'x')).accuracy + 0.05 AS better_than_through_origin;

-- 3. dp_predict and dp_predict_proba score w.(clip_1(x), 1); evaluate agrees.
WITH w AS (SELECT weights FROM dptrain.models WHERE name = 'ic_bias'),
     s AS (SELECT x, y, least(1, 1 / sqrt(x[1] * x[1] + x[2] * x[2])) * (x[1] * w.weights[1] + x[2] * w.weights[2])
                        + w.weights[3] AS score FROM ic, w)
SELECT bool_and((dp_predict('ic_bias', x) = 'true') = (score >= 0)) AS predict_uses_bias,
       bool_and(abs((dp_predict_proba('ic_bias', x))[2] - 1 / (1 + exp(-score))) < 1e-12) AS proba_uses_bias,
       abs(avg(((score >= 0) = y)::int) - (dp_evaluate('ic_bias', 'ic', 'y', 'x')).accuracy) < 1e-12 AS evaluate_agrees
FROM s;
-- the bias is the model's: a row of d + 1 values is refused
SELECT dp_predict('ic_bias', ARRAY[0.5, 0.5, 1]);

-- 4. The privacy bound uses sqrt(R^2 + b^2) = sqrt(2): convex bolt-on,
-- Delta = 2 k L eta / b = 2 * 2 * sqrt(2) * 0.1 / 10 = 0.0565685.
SELECT round((details->'privacy'->>'sensitivity')::numeric, 7) AS sensitivity,
       round((2 * 2 * sqrt(2) * 0.1 / 10)::numeric, 7) AS by_hand
FROM dp_train('ic', 'y', 'x', algorithm => 'bolton', epsilon => 1, epochs => 2, batch_size => 10,
              learning_rate => 0.1, seed => 2);
-- ... without intercept L = 1: 0.04.
SELECT round((details->'privacy'->>'sensitivity')::numeric, 7) AS sensitivity_without
FROM dp_train('ic', 'y', 'x', algorithm => 'bolton', epsilon => 1, epochs => 2, batch_size => 10,
              learning_rate => 0.1, seed => 2, intercept => false);

-- 5. OPDisc binarizes its features: no intercept by default, refused if asked.
CREATE TABLE ic_bin AS SELECT id, ARRAY[(x[1] > 0)::int, (x[2] > 0)::int]::float8[] AS x, y FROM ic;
SELECT array_length(weights, 1) AS opdisc_weights
FROM dp_train('ic_bin', 'y', 'x', algorithm => 'opdisc', epsilon => 20, delta => 1e-9, seed => 3);
SELECT FROM dp_train('ic_bin', 'y', 'x', algorithm => 'opdisc', epsilon => 20, delta => 1e-9, intercept => true);

-- Leave the ledger and the models as found (ledger.sql and opdisc.sql read all of them).
DELETE FROM dptrain.ledger WHERE source_name IN ('public.ic', 'public.ic_bin');
DELETE FROM dptrain.models WHERE source IN ('public.ic', 'public.ic_bin');
DROP TABLE ic, ic_bin;
