-- OPDisc: objective perturbation for the 0/1 loss with an exact MIP oracle
-- (docs/opdisc.md). Checked: the plan and metadata (sigma by hand), the
-- grouping pass, that a seed reproduces a run, that the model fits
-- separable binary data at a large epsilon, and the refusals.
SET client_min_messages = warning;
-- OPDisc models other tests left in the database (counted below relative to it)
SELECT count(*) AS od_models_before FROM dptrain.models WHERE algorithm = 'opdisc' \gset
CREATE TABLE od AS
SELECT i AS id,
       ARRAY[i % 2, (i / 2) % 2, (i / 4) % 2, 1]::float8[] AS x,
       (i % 2 = 1) AS y
FROM generate_series(1, 400) i;

-- d = 4: B = 2, K = 4, D = 2, G = 1;
-- sigma = 7 G D^2 sqrt(ln(1/delta)) / (tau eps) = 7 * 4 * sqrt(ln 1e9) / 20
--       = 28 * 4.5522814 / 20 = 6.373194.
SELECT algorithm, epsilon, delta, details->'privacy'->'grid' AS grid,
       round((details->'privacy'->>'sigma')::numeric, 6) AS sigma,
       details->'privacy'->>'adjacency' AS adjacency, details->'privacy'->>'oracle' AS oracle,
       details->>'randomness' AS randomness, array_length(weights, 1) AS d
FROM dp_train('od', 'y', 'x', algorithm => 'opdisc', epsilon => 20, delta => 1e-9, name => 'od_a', seed => 5);

-- The weights are grid points (integers, ||k||^2 <= 4), a seed reproduces
-- the run, and the model separates the data (0 errors beat sigma = 6.4 on
-- 400 rows).
SELECT (SELECT weights FROM dptrain.models WHERE name = 'od_a') =
       (SELECT weights FROM dp_train('od', 'y', 'x', algorithm => 'opdisc', epsilon => 20, delta => 1e-9,
                                     name => 'od_b', seed => 5)) AS same_model;
SELECT bool_and(w = round(w)) AS integers, sum(w * w) <= 4 AS in_ball
FROM dptrain.models, unnest(weights) w WHERE name = 'od_a';
SELECT accuracy, n FROM dp_evaluate('od_a', 'od', 'y', 'x');

-- Options: a wider grid, tau (the classifier does not depend on it; sigma
-- = 7 K sqrt(ln 1/delta) / eps with K = 9: 7 * 9 * 4.5522814 / 20 = 14.339686).
SELECT details->'privacy'->'grid' AS grid, round((details->'privacy'->>'sigma')::numeric, 6) AS sigma,
       details->'privacy'->'radius_D' AS radius
FROM dp_train('od', 'y', 'x', algorithm => 'opdisc', epsilon => 20, delta => 1e-9, seed => 5,
              options => '{"bound": 3, "norm_squared": 9, "tau": 0.5, "time_limit": 60}');

-- Features other than 0/1 are binarized at 1/2 (a fixed function of each
-- row); a reader is told how many rows changed.
CREATE TABLE od_real AS SELECT id, ARRAY[x[1] * 0.9, x[2] * 0.3, x[3], x[4]]::float8[] AS x, y FROM od;
SET client_min_messages = notice;
SELECT count(*) FROM dp_train('od_real', 'y', 'x', algorithm => 'opdisc', epsilon => 20, delta => 1e-9, seed => 5,
                              options => '{"time_limit": 60}') m WHERE m.algorithm = 'opdisc';
SET client_min_messages = warning;
-- Prediction and evaluation read a row as training did: binarized at 1/2,
-- +1 iff w.x >= 0 (docs/opdisc.md §2; they used to score the raw values).
-- The release records the threshold; od_a's weights:
SELECT weights, details->'hyperparameters'->'binarize_threshold' AS binarize_threshold
FROM dptrain.models WHERE name = 'od_a';
-- Rows of values other than 0 and 1, with the raw rule (w.x on the values)
-- and the binarized one (w.1[x >= 1/2]) computed here in plain SQL next to
-- dp_predict. By hand with w = (1, 0, 0, -1): rows 1 and 2 score -0.3 and
-- -0.5 raw, but binarize to (1, 0, 0, 1), score 0, a tie: +1 (true). Row 3
-- scores 0.3 raw and 0 binarized, row 4 0 both ways: true. Rows 5-7 score
-- -1 binarized: false. The labels are the binarized rule's, so dp_evaluate
-- gives accuracy 1, AUC 1 (scores 0 for every true row, -1 for every false
-- one); the raw rule gave 5/7 (rows 1 and 2 wrong), and 0.5 on od_real.
CREATE TABLE od_mixed (id int, x float8[], y boolean);
INSERT INTO od_mixed VALUES
  (1, ARRAY[0.7, 0, 0, 1], true),
  (2, ARRAY[0.5, 0, 0, 1], true),
  (3, ARRAY[1.0, 0.3, 0.7, 0.7], true),
  (4, ARRAY[0.3, 0, 0, 0.3], true),
  (5, ARRAY[0.3, 0, 0, 1], false),
  (6, ARRAY[0.3, 0.7, 0.5, 1.0], false),
  (7, ARRAY[0, 0, 0, 0.5], false);
SELECT m.id, m.x, dp_predict('od_a', m.x) AS predicted,
       (SELECT sum(w * v) FROM unnest(o.weights, m.x) u(w, v)) >= 0 AS raw_rule,
       (SELECT sum(w * (v >= 0.5)::int) FROM unnest(o.weights, m.x) u(w, v)) >= 0 AS binarized_rule
FROM od_mixed m, dptrain.models o WHERE o.name = 'od_a' ORDER BY m.id;
SELECT dp_predict((SELECT id FROM dptrain.models WHERE name = 'od_a'), ARRAY[0.7, 0, 0, 1]) AS by_id;
SELECT accuracy, n, roc_auc, confusion FROM dp_evaluate('od_a', 'od_mixed', 'y', 'x');
-- od_real (x1 scaled by 0.9, x2 by 0.3) binarizes to the rows of od again.
SELECT accuracy, n FROM dp_evaluate('od_a', 'od_real', 'y', 'x');
-- A 0/1-loss classifier has no class probabilities (as a Huber SVM model).
\getenv abs_srcdir PG_ABS_SRCDIR
\set try_sql :abs_srcdir '/sql/include/try.sql'
\i :try_sql
SELECT * FROM pg_temp.try($$SELECT dp_predict_proba('od_a', ARRAY[0.7, 0, 0, 1])$$);
SELECT * FROM pg_temp.try($$SELECT dp_predict_proba((SELECT id FROM dptrain.models WHERE name = 'od_a'),
                                                    ARRAY[1, 0, 0, 1])$$);

-- ... but a reader's NULL element, NaN or infinity is an error, as for every
-- other algorithm (the pass used to binarize them: NULL to 0, NaN to 1).
CREATE TABLE od_nan AS SELECT * FROM od;
UPDATE od_nan SET x = ARRAY[1, 'NaN', 0, 1]::float8[] WHERE id = 7;
CREATE TABLE od_inf AS SELECT * FROM od;
UPDATE od_inf SET x = ARRAY[1, '-Infinity', 0, 1]::float8[] WHERE id = 7;
CREATE TABLE od_null AS SELECT * FROM od;
UPDATE od_null SET x = ARRAY[1, NULL, 0, 1] WHERE id = 7;
SELECT dp_train('od_nan', 'y', 'x', algorithm => 'opdisc', epsilon => 20, delta => 1e-9, seed => 5);
\echo :LAST_ERROR_SQLSTATE
SELECT dp_train('od_inf', 'y', 'x', algorithm => 'opdisc', epsilon => 20, delta => 1e-9, seed => 5);
\echo :LAST_ERROR_SQLSTATE
SELECT dp_train('od_null', 'y', 'x', algorithm => 'opdisc', epsilon => 20, delta => 1e-9, seed => 5);
\echo :LAST_ERROR_SQLSTATE

-- Refusals, before anything is read or charged.
\set VERBOSITY default
SELECT dp_train('od', 'y', 'x', algorithm => 'opdisc', epsilon => 1, delta => 0);
SELECT dp_train('od', 'y', 'x', algorithm => 'opdisc', epsilon => 1);
SELECT dp_train('od', 'y', 'x', algorithm => 'opdisc', epsilon => 3, delta => 0.1);
SELECT dp_train('od', 'y', 'x', algorithm => 'opdisc', epsilon => 1, delta => 1e-9, lambda => 0.1);
SELECT dp_train('od', 'y', 'x', algorithm => 'opdisc', epsilon => 1, delta => 1e-9, options => '{"bound": 0}');
-- labels: exactly two classes
CREATE TABLE od3 AS SELECT id, x, (id % 3)::text AS y FROM od;
SELECT dp_train('od3', 'y', 'x', algorithm => 'opdisc', epsilon => 1, delta => 1e-9, classes => ARRAY['0', '1', '2']);
-- the exact oracle's limit on the dimension (a public fact)
CREATE TABLE od_wide AS SELECT id, array_fill(1::float8, ARRAY[31]) AS x, y FROM od;
SELECT dp_train('od_wide', 'y', 'x', algorithm => 'opdisc', epsilon => 1, delta => 1e-9);

-- dp_tune: OPDisc has no lambda, epochs or batch size. dp_tune with its
-- defaults (method holdout over lambdas x epochs) used to fail on "lambda does
-- not apply to opdisc", a lambda the caller never gave, after reading the
-- table; a grid over them is refused up front, and nothing is charged.
SELECT count(*) AS od_charges_before FROM dptrain.ledger WHERE source_name = 'public.od' \gset
SELECT model_id FROM dp_tune('od', 'y', 'x', algorithm => 'opdisc', epsilon => 1, delta => 1e-9);
\echo :LAST_ERROR_SQLSTATE
SELECT model_id FROM dp_tune('od', 'y', 'x', algorithm => 'opdisc', epsilon => 1, delta => 1e-9, lambdas => '{0}');
SELECT model_id FROM dp_tune('od', 'y', 'x', algorithm => 'opdisc', epsilon => 1, delta => 1e-9,
                             method => 'liu_talwar');
SELECT model_id FROM dp_tune('od', 'y', 'x', algorithm => 'opdisc', epsilon => 1, delta => 1e-9,
                             method => 'liu_talwar', grid => '{"epochs": [1, 5]}');
SELECT count(*) - :od_charges_before AS charged FROM dptrain.ledger WHERE source_name = 'public.od';

-- Nothing refused was stored: two named models and two unnamed ones.
SELECT count(*) - :od_models_before AS stored FROM dptrain.models WHERE algorithm = 'opdisc';

-- What the hint proposes: a grid of its own options (one model, the search's budget).
SELECT algorithm, epsilon, delta, details->'tuning'->>'method' AS method
FROM dp_tune('od', 'y', 'x', algorithm => 'opdisc', epsilon => 1, delta => 1e-9, method => 'liu_talwar',
             grid => '{"tau": [0.5, 1]}', seed => 3);

-- Leave no model or ledger row behind: other files read the whole ledger.
DELETE FROM dptrain.ledger WHERE source_name IN ('public.od', 'public.od_real');
DELETE FROM dptrain.models WHERE source IN ('public.od', 'public.od_real');
-- Drop what this file created: it runs again in the same database.
DROP TABLE od, od_real, od_mixed, od_nan, od_inf, od_null, od3, od_wide;
