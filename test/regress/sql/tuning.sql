-- Private hyperparameter tuning (dp_tune, Bolt-on Algorithm 3): the split,
-- the candidates' privacy for their part size, the chosen model and its
-- record, determinism with a seed, and the error paths.
--
-- The table is separable with a margin (first feature >= 0.5 in absolute
-- value, second at most 0.3), so every candidate classifies the held-out part
-- perfectly: all scores tie and the choice depends only on the seeded draw of
-- the exponential mechanism, not on the last bits of floating-point SGD.
CREATE TABLE tune_sep AS
SELECT i AS id,
       ARRAY[(CASE WHEN sin(i * 0.7) >= 0 THEN 1 ELSE -1 END) * (0.5 + 0.5 * abs(cos(i * 0.3))),
             0.3 * cos(i * 1.3)]::float8[] AS x,
       sin(i * 0.7) >= 0 AS y
FROM generate_series(1, 2000) i;

-- The tuning record of a model, flattened.
CREATE FUNCTION tune_record(details jsonb) RETURNS TABLE (
    notion text, epsilon float8, delta float8, candidate_epsilon float8, selection text, score_sensitivity int,
    held_out_rows int, grid jsonb, candidates int, parts int, part_rows jsonb, training_rows int, rows int)
LANGUAGE sql AS $$
  SELECT details->'privacy'->>'notion', (details->'privacy'->>'epsilon')::float8,
         (details->'privacy'->>'delta')::float8, (details->'privacy'->>'candidate_epsilon')::float8,
         details->'privacy'->'selection'->>'mechanism',
         (details->'privacy'->'selection'->>'score_sensitivity')::int,
         (details->'privacy'->'selection'->>'held_out_rows')::int,
         details->'tuning'->'grid', (details->'tuning'->>'candidates')::int, (details->'tuning'->>'parts')::int,
         details->'tuning'->'part_rows', (details->'data'->>'training_rows')::int, (details->'data'->>'rows')::int
$$;

-- 1. A small grid (2 x 2 = 4 candidates, 5 parts of 400 rows), pure epsilon-DP.
--    The per-epoch NOTICEs are all a tuning run reports: which candidate, which epoch.
SELECT name, algorithm, epsilon, delta, lambda, epochs, batch_size, candidates, classes,
       array_length(weights, 1) AS d
FROM dp_tune('tune_sep', 'y', 'x', intercept => false, epsilon => 10, lambdas => '{0, 0.01}', epochs => '{1, 2}',
             classes => ARRAY['false', 'true'], name => 'tune_small', seed => 1);
SET client_min_messages = warning;
SELECT r.* FROM dptrain.models m, tune_record(m.details) r WHERE m.name = 'tune_small';
-- The stored model is the one returned, its (epsilon, delta) is the total, and
-- the chosen candidate's hyperparameters are consistent everywhere.
SELECT m.epsilon, m.delta, m.algorithm, m.seeded,
       m.details->'tuning'->'chosen' AS chosen,
       (m.details->'hyperparameters'->>'lambda')::float8 = t.lambda AND
       (m.details->'hyperparameters'->>'epochs')::int = t.epochs AND
       (m.details->'hyperparameters'->>'batch_size')::int = t.batch_size AS consistent,
       m.weights = t.weights AS same_weights
FROM dptrain.models m,
     dp_tune('tune_sep', 'y', 'x', intercept => false, epsilon => 10, lambdas => '{0, 0.01}', epochs => '{1, 2}',
             classes => ARRAY['false', 'true'], name => 'tune_small_again', seed => 1) t
WHERE m.name = 'tune_small';
-- The same seed gives the same model.
SELECT a.weights = b.weights AS reproducible
FROM dptrain.models a, dptrain.models b WHERE a.name = 'tune_small' AND b.name = 'tune_small_again';
SELECT (dp_evaluate('tune_small', 'tune_sep', 'y', 'x')).accuracy = 1 AS perfect;

-- 2. The candidate's own privacy record is computed for its part (m_i = 400),
--    not for the table (n = 2000): lambda = 0.01 (R = 100, L = 2, beta = 1.01),
--    b = 50, U = 8 updates per epoch, k = 2, every step 1/beta (T = 16 < 101):
--    Lemma 8 Delta = min(2kL/(b beta), 2L/(gamma b U)) = min(8/50.5, 4/4) = 0.15841584;
--    lambda = 0, eta = min(1/sqrt(400), 2/beta) = 0.05: Corollary 1
--    Delta = 2kL eta/b = 2*2*1*0.05/50 = 0.004 (k = 2) or 0.002 (k = 1).
SELECT (details->'tuning'->'chosen'->>'lambda')::float8 AS lambda,
       (details->'tuning'->'chosen'->>'epochs')::int AS epochs,
       round((details->'privacy'->'candidate'->>'sensitivity')::numeric, 8) AS sensitivity,
       details->'privacy'->'candidate'->>'convexity' AS convexity,
       details->'privacy'->'candidate'->>'epsilon' AS candidate_epsilon
FROM dp_tune('tune_sep', 'y', 'x', intercept => false, epsilon => 10, lambdas => '{0.01}', epochs => '{2}',
             classes => ARRAY['false', 'true'], seed => 2)
UNION ALL
SELECT (details->'tuning'->'chosen'->>'lambda')::float8, (details->'tuning'->'chosen'->>'epochs')::int,
       round((details->'privacy'->'candidate'->>'sensitivity')::numeric, 8),
       details->'privacy'->'candidate'->>'convexity', details->'privacy'->'candidate'->>'epsilon'
FROM dp_tune('tune_sep', 'y', 'x', intercept => false, epsilon => 10, lambdas => '{0}', epochs => '{2}',
             classes => ARRAY['false', 'true'], seed => 3);
-- (one candidate: 2 parts of 1000 rows, so eta = 1/sqrt(1000) and Delta = 4/sqrt(1000)/50 = 0.00252982.)

-- 3. (epsilon, delta)-DP with the default grid (lambda {1e-4, 1e-3, 1e-2} x
--    epochs {1, 5, 10}, b = 50: 9 candidates, 10 parts of 200 rows), one-vs-all
--    over three classes, and what the metadata holds (no held-out scores).
CREATE TABLE tune_three AS
SELECT i, x, CASE WHEN x[1] > 0 AND x[2] > 0 THEN 'a' WHEN x[1] > 0 THEN 'b' ELSE 'c' END AS label
FROM (SELECT i, ARRAY[0.7 * cos(i * 2.399), 0.7 * sin(i * 2.399), 0.2]::float8[] AS x
      FROM generate_series(1, 2000) i) s;
SELECT name, epsilon, delta, candidates, classes, array_length(weights, 1) AS k, array_length(weights, 2) AS d,
       details->'privacy'->'candidate'->>'models' AS models,
       details->'privacy'->'candidate'->>'per_model_epsilon' AS per_model_epsilon
FROM dp_tune('tune_three', 'label', 'x', intercept => false, epsilon => 30, delta => 1e-8, classes => ARRAY['a', 'b', 'c'],
             name => 'tune_ova', seed => 4);
SELECT r.* FROM dptrain.models m, tune_record(m.details) r WHERE m.name = 'tune_ova';
SELECT (dp_evaluate('tune_ova', 'tune_three', 'label', 'x')).accuracy > 0.8 AS accurate;
SELECT jsonb_object_keys(details) AS key FROM dptrain.models WHERE name = 'tune_ova' ORDER BY 1;
SELECT jsonb_object_keys(details->'tuning') AS key FROM dptrain.models WHERE name = 'tune_ova' ORDER BY 1;
SELECT jsonb_path_query_array(details, 'strict $.**.errors') = '[]' AND
       jsonb_path_query_array(details, 'strict $.**.scores') = '[]' AS no_scores
FROM dptrain.models WHERE name = 'tune_ova';

-- 4. Privileges: dp_tune is for everyone, the split step of the CLI's controller is not.
CREATE ROLE tune_someone;
SELECT has_function_privilege('tune_someone', 'dp_tune(regclass, text, text, text, text, float8, float8, float8[], '
                              'int[], int[], float8, text, bigint, text[], text, float8, boolean, boolean, float8, jsonb, jsonb, text, float8, boolean)',
                              'EXECUTE') AS dp_tune,
       has_function_privilege('tune_someone', 'dptrain.training_split(text, int)', 'EXECUTE') AS training_split;
DROP ROLE tune_someone;

-- 5. The privacy budget (docs/governance.md): an analyst who may not read the
--    table tunes on a budget granted by its owner; a tuning run is charged its
--    total (epsilon, delta) once -- not once per candidate -- and refused
--    before any data is read when it would exceed the budget or is seeded.
CREATE ROLE tune_owner;
CREATE ROLE tune_analyst;
GRANT CREATE ON SCHEMA public TO tune_owner;
SET ROLE tune_owner;
CREATE TABLE tune_owned AS SELECT * FROM generate_series(1, 1000) i,
  LATERAL (SELECT ARRAY[sin(i * 0.7), cos(i * 1.3), 0.25]::float8[] AS x, sin(i * 0.7) + 0.5 * cos(i * 1.3) > 0 AS y) r;
SELECT dp_grant_budget('tune_owned', 'tune_analyst', 1.0, 1e-6);
SET ROLE tune_analyst;
SELECT model_id IS NOT NULL AS stored, epsilon, delta, candidates
FROM dp_tune('tune_owned', 'y', 'x', intercept => false, epsilon => 0.6, delta => 1e-7, lambdas => '{0, 0.01}', epochs => '{1, 2}');
SELECT * FROM dp_budget_remaining('tune_owned');
-- 0.5 more would exceed the 0.4 left; a seed (known noise) is never allowed under a budget
SELECT model_id FROM dp_tune('tune_owned', 'y', 'x', intercept => false, epsilon => 0.5, lambdas => '{0, 0.01}', epochs => '{1, 2}');
SELECT model_id FROM dp_tune('tune_owned', 'y', 'x', intercept => false, epsilon => 0.1, lambdas => '{0, 0.01}', epochs => '{1, 2}',
                             seed => 1);
SELECT * FROM dp_budget_remaining('tune_owned');
SELECT algorithm, epsilon, delta FROM dptrain.ledger WHERE role = 'tune_analyst'::regrole;
RESET ROLE;
DELETE FROM dptrain.ledger WHERE role = 'tune_analyst'::regrole;
DELETE FROM dptrain.models WHERE created_by IN ('tune_owner', 'tune_analyst');
DROP TABLE tune_owned;
REVOKE CREATE ON SCHEMA public FROM tune_owner;
DROP ROLE tune_owner, tune_analyst;

-- without batch_sizes, the default 50 is capped at a part's floor(n / parts) rows (public: n and the
-- grid's size): 300 rows, 9 candidates, parts of 30 rows train with batch 30 (refused before 2026-11-28,
-- as was every default dp_tune on fewer than 500 rows); a batch size given is kept, and checked
CREATE TABLE tune_small AS SELECT * FROM tune_sep WHERE id <= 300;
SELECT details->'hyperparameters'->'batch_size' AS batch_size, details->'tuning'->'grid'->'batch_sizes' AS grid
FROM dp_tune('tune_small', 'y', 'x', intercept => false, epsilon => 1, seed => 1, classes => ARRAY['false', 'true']);
SELECT model_id FROM dp_tune('tune_small', 'y', 'x', intercept => false, epsilon => 1, batch_sizes => '{31}',
                             classes => ARRAY['false', 'true']);
-- an explicit batch_sizes => '{50}' is given, not the default: checked, not capped (until 2026-11-28 the
-- SQL default was the literal '{50}', so an explicit {50} silently trained with 30); NULL is the default
SELECT model_id FROM dp_tune('tune_small', 'y', 'x', intercept => false, epsilon => 1, batch_sizes => '{50}',
                             classes => ARRAY['false', 'true']);
SELECT details->'hyperparameters'->'batch_size' AS batch_size
FROM dp_tune('tune_small', 'y', 'x', intercept => false, epsilon => 1, seed => 1, batch_sizes => NULL,
             classes => ARRAY['false', 'true']);
-- and with grid, batch_sizes => '{50}' is a list given beside it (it was taken for the default)
SELECT model_id FROM dp_tune('tune_small', 'y', 'x', intercept => false, epsilon => 1, batch_sizes => '{50}',
                             grid => '{"epochs": [1]}', classes => ARRAY['false', 'true']);
-- so are lambdas and epochs equal to their defaults (until 2026-11-28 the literal defaults of the SQL
-- signature: a given '{1,5,10}' was taken for left out beside grid); => NULL is the default list
SELECT model_id FROM dp_tune('tune_small', 'y', 'x', intercept => false, epsilon => 1, lambdas => '{0.0001,0.001,0.01}',
                             grid => '{"epochs": [1]}', classes => ARRAY['false', 'true']);
SELECT model_id FROM dp_tune('tune_small', 'y', 'x', intercept => false, epsilon => 1, epochs => '{1,5,10}',
                             grid => '{"lambda": [0.01]}', classes => ARRAY['false', 'true']);
SELECT details->'tuning'->'grid' AS grid, candidates
FROM dp_tune('tune_small', 'y', 'x', intercept => false, epsilon => 1, seed => 1, lambdas => NULL, epochs => NULL,
             classes => ARRAY['false', 'true']);
SELECT details->'tuning'->'grid' AS grid, candidates
FROM dp_tune('tune_small', 'y', 'x', intercept => false, epsilon => 1, seed => 1, lambdas => NULL, epochs => NULL,
             grid => '{"lambda": [0.01], "epochs": [2]}', classes => ARRAY['false', 'true']);

-- 6. Errors (and a failed call stores nothing).
CREATE TEMP TABLE tune_before AS SELECT count(*) AS n FROM dptrain.models;
-- epsilon is required, and the algorithm must be private and known
SELECT model_id FROM dp_tune('tune_sep', 'y', 'x', intercept => false, classes => ARRAY['false', 'true']);
SELECT model_id FROM dp_tune('tune_sep', 'y', 'x', intercept => false, algorithm => 'none', epsilon => 1, classes => ARRAY['false', 'true']);
-- optimum is not private either (shapes sweep, 2026-11-28: without epsilon it was told
-- "private tuning needs epsilon", and with epsilon "epsilon and delta must be NULL")
SELECT model_id FROM dp_tune('tune_sep', 'y', 'x', intercept => false, algorithm => 'optimum', classes => ARRAY['false', 'true']);
SELECT model_id FROM dp_tune('tune_sep', 'y', 'x', intercept => false, algorithm => 'optimum', method => 'liu_talwar', classes => ARRAY['false', 'true']);
-- an epsilon whose selection exponent overflows (1e307 * 200 held-out errors = inf): refused before the charge
SELECT model_id FROM dp_tune('tune_sep', 'y', 'x', intercept => false, epsilon => 1e307, classes => ARRAY['false', 'true']);
SELECT model_id FROM dp_tune('tune_sep', 'y', 'x', intercept => false, algorithm => 'boltonn', epsilon => 1, classes => ARRAY['false', 'true']);
-- bad grids
SELECT model_id FROM dp_tune('tune_sep', 'y', 'x', intercept => false, epsilon => 1, lambdas => '{}');
SELECT model_id FROM dp_tune('tune_sep', 'y', 'x', intercept => false, epsilon => 1, lambdas => '{0.1, -0.1}');
SELECT model_id FROM dp_tune('tune_sep', 'y', 'x', intercept => false, epsilon => 1, epochs => '{5, 5}');
SELECT model_id FROM dp_tune('tune_sep', 'y', 'x', intercept => false, epsilon => 1, epochs => '{0}');
SELECT model_id FROM dp_tune('tune_sep', 'y', 'x', intercept => false, epsilon => 1, epochs => '{1, NULL}');
SELECT model_id FROM dp_tune('tune_sep', 'y', 'x', intercept => false, epsilon => 1, epochs => '{{1, 2}}');
SELECT model_id FROM dp_tune('tune_sep', 'y', 'x', intercept => false, epsilon => 1, batch_sizes => '{0}');
SELECT model_id FROM dp_tune('tune_sep', 'y', 'x', intercept => false, epsilon => 1, lambdas => '{0.01, NULL}');
SELECT model_id FROM dp_tune('tune_sep', 'y', 'x', intercept => false, epsilon => 1, lambdas => '{{0.01}}');
-- grid => of method holdout: whole numbers (1.5 epochs and true were taken for 1), numbers
SELECT model_id FROM dp_tune('tune_sep', 'y', 'x', intercept => false, epsilon => 1, grid => '{"epochs": [1.5]}');
SELECT model_id FROM dp_tune('tune_sep', 'y', 'x', intercept => false, epsilon => 1, grid => '{"batch_size": [true]}');
SELECT model_id FROM dp_tune('tune_sep', 'y', 'x', intercept => false, epsilon => 1, grid => '{"lambda": ["0.1"]}');
SELECT model_id FROM dp_tune('tune_sep', 'y', 'x', intercept => false, epsilon => 1, lambdas => '{0,1,2,3,4,5,6,7,8,9,10}',
                             epochs => '{1,2,3,4,5,6,7,8,9,10}');
-- parts too small: 9 candidates -> 10 parts of 200 rows < b = 500; 5 rows < 10 parts
SELECT model_id FROM dp_tune('tune_sep', 'y', 'x', intercept => false, epsilon => 1, batch_sizes => '{500}',
                             classes => ARRAY['false', 'true']);
CREATE TABLE tune_tiny AS SELECT * FROM tune_sep WHERE id <= 5;
SELECT model_id FROM dp_tune('tune_tiny', 'y', 'x', intercept => false, epsilon => 1, batch_sizes => '{1}',
                             classes => ARRAY['false', 'true']);
-- a candidate whose plan fails is named (eta > 2/beta for lambda = 0)
SELECT model_id FROM dp_tune('tune_sep', 'y', 'x', intercept => false, epsilon => 1, lambdas => '{0}', learning_rate => 3,
                             classes => ARRAY['false', 'true']);
-- the algorithm's own checks still apply; no data-dependent number of epochs
SELECT model_id FROM dp_tune('tune_sep', 'y', 'x', intercept => false, epsilon => 1, options => '{"tolerances": 0.01}',
                             classes => ARRAY['false', 'true']);
SELECT model_id FROM dp_tune('tune_sep', 'y', 'x', intercept => false, epsilon => 1, options => '{"tolerance": 0.01}',
                             classes => ARRAY['false', 'true']);
SELECT model_id FROM dp_tune('tune_sep', 'y', 'x', intercept => false, epsilon => 1, delta => 1, classes => ARRAY['false', 'true']);
SELECT count(*) = (SELECT n FROM tune_before) AS nothing_stored FROM dptrain.models;

DROP FUNCTION tune_record(jsonb);
RESET client_min_messages;

-- Leave no model or ledger row behind: other files read the whole ledger.
DELETE FROM dptrain.ledger WHERE source_name LIKE 'public.tune\_%';
DELETE FROM dptrain.models WHERE source LIKE 'public.tune\_%';
-- Drop what this file created: it runs again in the same database.
DROP TABLE tune_sep, tune_three, tune_tiny, tune_small;
