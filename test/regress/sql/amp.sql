-- algorithm => 'amp' (Approximate Minima Perturbation, Iyengar et al. 2019,
-- Algorithm 1; docs/amp.md) and algorithm => 'optimum' end to end: the
-- engine's gradient passes, the plan's constants in the metadata, seeded
-- reproducibility, and the refusals.
CREATE TABLE amp_rows AS
SELECT i AS id,
       ARRAY[sin(i * 0.7), cos(i * 1.3), 0.25, sin(i * 0.11)]::float8[] AS x,
       (sin(i * 0.7) + 0.5 * cos(i * 1.3) + 0.3 * sin(i * 2.9) > 0) AS y,
       CASE WHEN sin(i * 0.7) > 0.3 THEN 'a' WHEN cos(i * 1.3) > 0 THEN 'b' ELSE 'c' END AS label
FROM generate_series(1, 2000) i;
SET client_min_messages = warning;

-- Hyperparameter-free AMP (no option): n = 2000, d = 4 (low-dimensional),
-- eps = 1, delta = 1e-7. By hand (Sec. V-A, Alg. 1 steps 1-3, 6):
--   f = 0.01: eps2 = 0.01, delta2 = 1e-9, eps1 = 0.99, delta1 = 9.9e-8
--   f1 = 0.887 + 0.019 * 0.99^-0.373 = 0.9060714, eps3 = f1 * eps1 = 0.8970106
--   Lambda = 2 * 1 / (eps1 - eps3) = 2 / 0.0929894 = 21.50784
--   sigma1 = (2/2000)(1 + sqrt(2 ln(1/9.9e-8))) / 0.8970106 = 0.007446358
--   gamma = 1/2000^2 = 2.5e-7
--   sigma2 = (2 * 2000 * 2.5e-7 / Lambda)(1 + sqrt(2 ln(1e9))) / 0.01 = 0.03458227
CREATE TABLE hf AS
SELECT * FROM dp_train('amp_rows', 'y', 'x', intercept => false, algorithm => 'amp', epsilon => 1, delta => 1e-7, seed => 1,
                       name => 'amp_hf', classes => ARRAY['false', 'true']);
SELECT algorithm, epsilon, delta, array_length(weights, 1) AS d,
       details->'privacy'->>'variant' AS variant,
       details->'privacy'->>'f1_rule' AS f1_rule,
       round((details->'privacy'->>'f')::numeric, 6) AS f,
       round((details->'privacy'->>'f1')::numeric, 7) AS f1,
       round((details->'privacy'->>'eps3')::numeric, 7) AS eps3,
       round((details->'privacy'->>'regularization')::numeric, 5) AS lambda_big,
       round((details->'privacy'->'objective_noise'->>'sigma')::numeric, 9) AS sigma1,
       (details->'privacy'->>'gamma')::float8 = 1.0 / (2000.0 * 2000.0) AS gamma_is_one_over_n2,
       round((details->'privacy'->'output_noise'->>'sigma')::numeric, 8) AS sigma2,
       details->'optimizer'->>'method' AS method,
       details->>'randomness' AS randomness
FROM hf;
-- The released model predicts well at this epsilon (n = 2000).
SELECT accuracy > 0.8 AS accurate FROM dp_evaluate('amp_hf', 'amp_rows', 'y', 'x');

-- The same seed gives the same model; another seed other noise.
SELECT (SELECT weights FROM hf) = weights AS same_seed_same_model
FROM dp_train('amp_rows', 'y', 'x', intercept => false, algorithm => 'amp', epsilon => 1, delta => 1e-7, seed => 1,
              classes => ARRAY['false', 'true']);
SELECT (SELECT weights FROM hf) <> weights AS other_seed_other_model
FROM dp_train('amp_rows', 'y', 'x', intercept => false, algorithm => 'amp', epsilon => 1, delta => 1e-7, seed => 2,
              classes => ARRAY['false', 'true']);

-- Tuned AMP through options; lambda adds n * lambda to Lambda.
-- By hand: f = 0.1, f1 = 0.9: eps1 = 0.9, eps3 = 0.81, Lambda = 2 / 0.09 + 2000 * 0.001 = 24.22222.
SELECT details->'privacy'->>'variant' AS variant,
       round((details->'privacy'->>'regularization')::numeric, 5) AS lambda_big,
       (details->'privacy'->>'gamma')::float8 AS gamma,
       details->'hyperparameters'->'options' AS options
FROM dp_train('amp_rows', 'y', 'x', intercept => false, algorithm => 'amp', epsilon => 1, delta => 1e-7, lambda => 0.001, seed => 3,
              classes => ARRAY['false', 'true'], options => '{"f": 0.1, "f1": 0.9, "gamma": 1e-6}');

-- One-vs-all: K = 3 models, each with epsilon/3 and delta/3.
SELECT array_length(weights, 1) AS k, array_length(weights, 2) AS d,
       round((details->'privacy'->>'per_model_epsilon')::numeric, 6) AS model_epsilon,
       (details->'privacy'->>'per_model_delta')::float8 AS model_delta
FROM dp_train('amp_rows', 'label', 'x', intercept => false, algorithm => 'amp', epsilon => 3, delta => 3e-7, seed => 4,
              classes => ARRAY['a', 'b', 'c']);

-- Huber SVM is outside Theorem 1 (discontinuous Hessian): a warning and the metadata say so.
SELECT details->'privacy'->>'theorem_covers_loss' AS covered,
       round((details->'privacy'->>'smoothness')::numeric, 3) AS beta
FROM dp_train('amp_rows', 'y', 'x', intercept => false, algorithm => 'amp', loss => 'huber_svm', epsilon => 1, delta => 1e-7, seed => 5,
              classes => ARRAY['false', 'true']);

-- Refusals: each before any row is read.
\set VERBOSITY terse
SELECT 1 FROM dp_train('amp_rows', 'y', 'x', intercept => false, algorithm => 'amp', epsilon => 1, seed => 1);
SELECT 1 FROM dp_train('amp_rows', 'y', 'x', intercept => false, algorithm => 'amp', epsilon => 1, delta => 0, seed => 1);
SELECT 1 FROM dp_train('amp_rows', 'y', 'x', intercept => false, algorithm => 'amp', delta => 1e-7, seed => 1);
SELECT 1 FROM dp_train('amp_rows', 'y', 'x', intercept => false, algorithm => 'amp', epsilon => 1, delta => 1e-7, seed => 1,
                       options => '{"f1": 1.5}');
SELECT 1 FROM dp_train('amp_rows', 'y', 'x', intercept => false, algorithm => 'amp', epsilon => 1, delta => 1e-7, seed => 1,
                       options => '{"step": 1}');
SELECT 1 FROM dp_train('amp_rows', 'y', 'x', intercept => false, algorithm => 'amp', epsilon => 1, delta => 1e-7, seed => 1,
                       learning_rate => 0.1);
-- Not reaching gamma within the evaluation budget: an error, no model stored.
SELECT count(*) AS amp_models FROM dptrain.models WHERE algorithm = 'amp' \gset
SELECT 1 FROM dp_train('amp_rows', 'y', 'x', intercept => false, algorithm => 'amp', epsilon => 1, delta => 1e-7, seed => 1,
                       classes => ARRAY['false', 'true'], options => '{"max_evaluations": 1}');
SELECT count(*) = :amp_models AS no_model_stored FROM dptrain.models WHERE algorithm = 'amp';
-- A refused call is not charged (no seed: it would be charged if it got that far).
SELECT count(*) AS charges FROM dptrain.ledger \gset
SELECT 1 FROM dp_train('amp_rows', 'y', 'x', intercept => false, algorithm => 'amp', epsilon => 1, classes => ARRAY['false', 'true']);
SELECT count(*) = :charges AS not_charged FROM dptrain.ledger;
\set VERBOSITY default

-- The non-private optimum: deterministic, no budget, ||grad F|| <= tolerance.
SELECT algorithm, epsilon, delta, details->'privacy'->>'private' AS private,
       (details->'optimizer'->>'gradient_tolerance')::float8 AS tolerance
FROM dp_train('amp_rows', 'y', 'x', intercept => false, algorithm => 'optimum', lambda => 0.0005, name => 'amp_opt',
              classes => ARRAY['false', 'true']);
SELECT accuracy > 0.8 AS accurate FROM dp_evaluate('amp_opt', 'amp_rows', 'y', 'x');
SELECT 1 FROM dp_train('amp_rows', 'y', 'x', intercept => false, algorithm => 'optimum', epsilon => 1, classes => ARRAY['false', 'true']);

-- A role that may train on a privacy budget but not read the table: AMP
-- runs, the per-pass progress (its count depends on the data) is not shown,
-- a failure says nothing data-dependent and is charged, and the noiseless
-- optimum is refused.
CREATE ROLE regress_amp_analyst;
SELECT 1 AS granted FROM dp_grant_budget('amp_rows', 'regress_amp_analyst', epsilon => 3, delta => 1e-6);
SET ROLE regress_amp_analyst;
SET client_min_messages = notice;
\set SHOW_CONTEXT never
SELECT algorithm, epsilon, delta, details->>'randomness' AS randomness
FROM dp_train('amp_rows', 'y', 'x', intercept => false, algorithm => 'amp', epsilon => 1, delta => 1e-7,
              classes => ARRAY['false', 'true']);
SELECT 1 FROM dp_train('amp_rows', 'y', 'x', intercept => false, algorithm => 'amp', epsilon => 1, delta => 1e-7,
                       classes => ARRAY['false', 'true'], options => '{"max_evaluations": 1}');
SELECT round(epsilon::numeric, 6) AS epsilon_left FROM dp_budget_remaining('amp_rows');
SELECT 1 FROM dp_train('amp_rows', 'y', 'x', intercept => false, algorithm => 'optimum', lambda => 0.001,
                       classes => ARRAY['false', 'true']);
SET client_min_messages = warning;
\set SHOW_CONTEXT errors
RESET ROLE;
DELETE FROM dptrain.ledger WHERE session_role = 'regress_amp_analyst' OR role::text = 'regress_amp_analyst';
DELETE FROM dptrain.models WHERE created_by = 'regress_amp_analyst';
SELECT dp_revoke_budget('amp_rows', 'regress_amp_analyst');
DROP ROLE regress_amp_analyst;
-- Leave the ledger as found (test/regress/sql/ledger.sql reads all of it).
DELETE FROM dptrain.ledger WHERE source_name = 'public.amp_rows';

-- Leave no model or ledger row behind: other files read the whole ledger.
DELETE FROM dptrain.models WHERE source = 'public.amp_rows';
-- Drop what this file created: it runs again in the same database.
DROP TABLE amp_rows, hf;
