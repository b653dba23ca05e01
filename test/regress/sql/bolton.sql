-- Bolt-on differential privacy (algorithm => 'bolton') through SQL: the four
-- scenarios of the paper (convex / strongly convex x eps-DP / (eps,delta)-DP),
-- one-vs-all, averaging, the privacy record of every model, and the error
-- paths. Numbers are rounded so the output is stable; accuracies are shown as
-- booleans against loose bounds (the noise is seeded, but the bounds should
-- not depend on the last bits of floating-point SGD).
CREATE TABLE bolton_sep AS
SELECT i AS id,
       ARRAY[sin(i * 0.7), cos(i * 1.3), 0.25]::float8[] AS x,
       (sin(i * 0.7) + 0.5 * cos(i * 1.3) > 0) AS y
FROM generate_series(1, 2000) i;

-- The privacy block of a model, rounded.
CREATE FUNCTION bolton_privacy(details jsonb) RETURNS TABLE (
    notion text, convexity text, sensitivity numeric, released text, noise text, scale numeric,
    calibration text, models int, per_model_epsilon numeric, per_model_delta numeric, adjacency text,
    n_public boolean, fixed_epochs boolean)
LANGUAGE sql AS $$
  SELECT details->'privacy'->>'notion', details->'privacy'->>'convexity',
         round((details->'privacy'->>'sensitivity')::numeric, 8),
         details->'privacy'->>'released_iterate',
         details->'privacy'->'noise'->>'distribution',
         round(coalesce(details->'privacy'->'noise'->>'sigma', details->'privacy'->'noise'->>'gamma_scale')::numeric, 8),
         details->'privacy'->'noise'->>'calibration',
         (details->'privacy'->>'models')::int,
         round((details->'privacy'->>'per_model_epsilon')::numeric, 8),
         round((details->'privacy'->>'per_model_delta')::numeric, 12),
         split_part(details->'privacy'->>'adjacency', ':', 1),
         (details->'privacy'->>'n_public')::boolean,
         (details->'privacy'->>'epochs_fixed_in_advance')::boolean
$$;

-- 1. Convex, pure epsilon-DP (Algorithm 1): eta = 1/sqrt(2000) = 0.0223607,
--    Delta = 2 k L eta / b = 2 * 5 * 1 * 0.0223607 / 50 = 0.00447214,
--    L2-Laplace with Gamma scale Delta/eps = 0.00447214 / 5 = 0.000894427.
SELECT name, algorithm, epsilon, delta, array_length(weights, 1) AS d,
       details->'hyperparameters'->>'schedule' AS schedule,
       round((details->'hyperparameters'->>'learning_rate')::numeric, 7) AS learning_rate,
       details->'hyperparameters'->>'radius' AS radius, details->>'randomness' AS randomness
FROM dp_train('bolton_sep', 'y', 'x', intercept => false, algorithm => 'bolton', epsilon => 5, epochs => 5, batch_size => 50,
              classes => ARRAY['false', 'true'], name => 'bolton_convex_eps', seed => 1);
SELECT p.* FROM dptrain.models m, bolton_privacy(m.details) p WHERE m.name = 'bolton_convex_eps';
-- (the per-epoch NOTICEs above are all a run reports; hide them from here on)
SET client_min_messages = warning;

-- 2. Convex, (epsilon, delta)-DP: Gaussian noise, analytic calibration by default.
SELECT name, epsilon, delta
FROM dp_train('bolton_sep', 'y', 'x', intercept => false, algorithm => 'bolton', epsilon => 5, delta => 1e-7, epochs => 5,
              batch_size => 50, classes => ARRAY['false', 'true'], name => 'bolton_convex_epsdelta', seed => 2);
SELECT p.* FROM dptrain.models m, bolton_privacy(m.details) p WHERE m.name = 'bolton_convex_epsdelta';
-- ... and the paper's classic constant: sigma = Delta sqrt(2 ln(1.25/delta)) / eps
--     = 0.00447214 * 5.71683 / 0.5 = 0.0511331 (needs eps < 1).
SELECT name, epsilon, delta
FROM dp_train('bolton_sep', 'y', 'x', intercept => false, algorithm => 'bolton', epsilon => 0.5, delta => 1e-7, epochs => 5,
              batch_size => 50, classes => ARRAY['false', 'true'], name => 'bolton_convex_classic', seed => 3,
              options => '{"gaussian_calibration": "classic"}');
SELECT p.* FROM dptrain.models m, bolton_privacy(m.details) p WHERE m.name = 'bolton_convex_classic';

-- 3. Strongly convex, pure epsilon-DP (Algorithm 2): lambda = 0.01, R = 1/lambda = 100,
--    L = 1 + lambda R = 2, Delta = 2L/(gamma m) = 4/(0.01 * 2000) = 0.2, NOT divided by b.
SELECT name, epsilon, delta, details->'hyperparameters'->>'schedule' AS schedule,
       details->'hyperparameters'->>'radius' AS radius
FROM dp_train('bolton_sep', 'y', 'x', intercept => false, algorithm => 'bolton', epsilon => 5, lambda => 0.01, epochs => 10,
              batch_size => 50, classes => ARRAY['false', 'true'], name => 'bolton_sc_eps', seed => 4);
SELECT p.* FROM dptrain.models m, bolton_privacy(m.details) p WHERE m.name = 'bolton_sc_eps';

-- 4. Strongly convex, (epsilon, delta)-DP.
SELECT name, epsilon, delta
FROM dp_train('bolton_sep', 'y', 'x', intercept => false, algorithm => 'bolton', epsilon => 5, delta => 1e-7, lambda => 0.01,
              epochs => 10, batch_size => 50, classes => ARRAY['false', 'true'], name => 'bolton_sc_epsdelta',
              seed => 5);
SELECT p.* FROM dptrain.models m, bolton_privacy(m.details) p WHERE m.name = 'bolton_sc_epsdelta';

-- The four models are useful at epsilon = 5 (the noiseless model is ~98% accurate).
SELECT name, (dp_evaluate(name, 'bolton_sep', 'y', 'x')).accuracy > 0.9 AS accurate
FROM dptrain.models WHERE name IN ('bolton_convex_eps', 'bolton_convex_epsdelta', 'bolton_sc_eps', 'bolton_sc_epsdelta')
ORDER BY name;
-- and tiny epsilon drowns the model in noise: E||v|| = d Delta/eps = 3 * 0.2/1e-4 = 6000.
SELECT name FROM dp_train('bolton_sep', 'y', 'x', intercept => false, algorithm => 'bolton', epsilon => 1e-4, lambda => 0.01,
                          epochs => 2, classes => ARRAY['false', 'true'], name => 'bolton_sc_tiny_eps', seed => 6);
SELECT accuracy < 0.9 AS noisy FROM dp_evaluate('bolton_sc_tiny_eps', 'bolton_sep', 'y', 'x');

-- Model averaging (Lemma 10): the uniform average of all iterates. Strongly
-- convex: early iterates can be more sensitive than the last one (iterate t
-- of epoch c: Delta_t <= c (2L/b) min(1/beta, 1/(gamma t))), so the average
-- gets its own bound (1/T) sum_t Delta_t (docs/bolton.md): here 0.198628,
-- next to the last iterate's 0.2 (with more updates per epoch it is larger).
SELECT name, epsilon
FROM dp_train('bolton_sep', 'y', 'x', intercept => false, algorithm => 'bolton', epsilon => 5, lambda => 0.01, epochs => 10,
              batch_size => 50, averaging => true, classes => ARRAY['false', 'true'], name => 'bolton_sc_avg',
              seed => 7);
SELECT p.* FROM dptrain.models m, bolton_privacy(m.details) p WHERE m.name = 'bolton_sc_avg';

-- Schedules of Corollaries 2 and 3 (convex): exact finite sums.
SELECT details->'hyperparameters'->>'schedule' AS schedule,
       round((details->'privacy'->>'sensitivity')::numeric, 8) AS sensitivity
FROM dp_train('bolton_sep', 'y', 'x', intercept => false, algorithm => 'bolton', epsilon => 1, schedule => 'decreasing',
              classes => ARRAY['false', 'true'], seed => 8)
UNION ALL
SELECT details->'hyperparameters'->>'schedule',
       round((details->'privacy'->>'sensitivity')::numeric, 8)
FROM dp_train('bolton_sep', 'y', 'x', intercept => false, algorithm => 'bolton', epsilon => 1, schedule => 'sqrt',
              classes => ARRAY['false', 'true'], seed => 9);

-- One-vs-all over 3 classes: each model gets epsilon/3 (basic composition).
CREATE TABLE bolton_three AS
SELECT i AS id, ARRAY[cos(i * 0.37), sin(i * 0.37), 0.25]::float8[] AS x,
       (ARRAY['a', 'b', 'c'])[1 + floor(((i * 0.37) - 2 * pi() * floor(i * 0.37 / (2 * pi()))) / (2 * pi() / 3))::int] AS label
FROM generate_series(1, 1500) i;
SELECT name, epsilon, delta, classes, array_length(weights, 1) AS k, array_length(weights, 2) AS d
FROM dp_train('bolton_three', 'label', 'x', intercept => false, algorithm => 'bolton', epsilon => 30, delta => 1e-8, epochs => 5,
              classes => ARRAY['a', 'b', 'c'], name => 'bolton_ova', seed => 10);
SELECT p.* FROM dptrain.models m, bolton_privacy(m.details) p WHERE m.name = 'bolton_ova';
SELECT (dp_evaluate('bolton_ova', 'bolton_three', 'label', 'x')).accuracy > 0.8 AS accurate;
-- ... or, with options.multiclass_noise = 'joint', one Gaussian release of the
-- 3 x 3 matrix: sensitivity sqrt(3) Delta at the full (30, 1e-8), so a sigma
-- far below the per-model one (each model's share would be (10, 3.3e-9)).
SELECT name, epsilon, delta
FROM dp_train('bolton_three', 'label', 'x', intercept => false, algorithm => 'bolton', epsilon => 30, delta => 1e-8, epochs => 5,
              classes => ARRAY['a', 'b', 'c'], options => '{"multiclass_noise": "joint"}',
              name => 'bolton_ova_joint', seed => 10);
SELECT name, details->'privacy'->>'multiclass_noise' AS multiclass_noise,
       round((details->'privacy'->'noise'->>'sensitivity')::numeric
             / (details->'privacy'->>'sensitivity')::numeric, 6) AS sensitivity_factor,
       (details->'privacy'->'noise'->>'epsilon')::float8 AS noise_epsilon,
       round((details->'privacy'->'noise'->>'sigma')::numeric, 8) AS sigma
FROM dptrain.models WHERE name IN ('bolton_ova', 'bolton_ova_joint') ORDER BY name;
SELECT (dp_evaluate('bolton_ova_joint', 'bolton_three', 'label', 'x')).accuracy > 0.8 AS accurate;

-- delta >= 1/n is allowed but warned about.
SELECT name, delta FROM dp_train('bolton_sep', 'y', 'x', intercept => false, algorithm => 'bolton', epsilon => 1, delta => 0.001,
                                 epochs => 1, classes => ARRAY['false', 'true'], name => 'bolton_big_delta', seed => 11);

-- Nothing data-dependent in the metadata: no loss, no intermediate model.
SELECT jsonb_object_keys(details) AS key FROM dptrain.models WHERE name = 'bolton_convex_eps' ORDER BY 1;

-- Errors.
CREATE TEMP TABLE bolton_before AS SELECT count(*) AS n FROM dptrain.models;
-- epsilon is required
SELECT * FROM dp_train('bolton_sep', 'y', 'x', intercept => false, algorithm => 'bolton', classes => ARRAY['false', 'true']);
-- the convex bound needs eta <= 2/beta (logistic, ||x|| <= 1: beta = 1)
SELECT * FROM dp_train('bolton_sep', 'y', 'x', intercept => false, algorithm => 'bolton', epsilon => 1, learning_rate => 3,
                       classes => ARRAY['false', 'true']);
-- the strongly convex constant step needs eta <= 1/beta = 1/1.1
SELECT * FROM dp_train('bolton_sep', 'y', 'x', intercept => false, algorithm => 'bolton', epsilon => 1, lambda => 0.1,
                       learning_rate => 0.95, classes => ARRAY['false', 'true']);
-- schedules no Bolt-on lemma covers
SELECT * FROM dp_train('bolton_sep', 'y', 'x', intercept => false, algorithm => 'bolton', epsilon => 1, schedule => 'inverse_sqrt',
                       classes => ARRAY['false', 'true']);
SELECT * FROM dp_train('bolton_sep', 'y', 'x', intercept => false, algorithm => 'bolton', epsilon => 1, lambda => 0.1,
                       schedule => 'sqrt', classes => ARRAY['false', 'true']);
SELECT * FROM dp_train('bolton_sep', 'y', 'x', intercept => false, algorithm => 'bolton', epsilon => 1, schedule => 'strongly_convex',
                       classes => ARRAY['false', 'true']);
-- the classic Gaussian constant is only valid for epsilon < 1
SELECT * FROM dp_train('bolton_sep', 'y', 'x', intercept => false, algorithm => 'bolton', epsilon => 2, delta => 1e-7,
                       options => '{"gaussian_calibration": "classic"}', classes => ARRAY['false', 'true']);
-- ... per one-vs-all model
SELECT * FROM dp_train('bolton_three', 'label', 'x', intercept => false, algorithm => 'bolton', epsilon => 6, delta => 1e-8,
                       options => '{"gaussian_calibration": "classic"}', classes => ARRAY['a', 'b', 'c']);
-- options that do not apply
SELECT * FROM dp_train('bolton_sep', 'y', 'x', intercept => false, algorithm => 'bolton', epsilon => 1,
                       options => '{"gaussian_calibration": "analytic"}', classes => ARRAY['false', 'true']);
SELECT * FROM dp_train('bolton_sep', 'y', 'x', intercept => false, algorithm => 'bolton', epsilon => 1,
                       options => '{"tolerances": 0.01}', classes => ARRAY['false', 'true']);
-- a joint multiclass release is for Gaussian noise only
SELECT * FROM dp_train('bolton_three', 'label', 'x', intercept => false, algorithm => 'bolton', epsilon => 1,
                       options => '{"multiclass_noise": "joint"}', classes => ARRAY['a', 'b', 'c']);
-- bad privacy parameters
SELECT * FROM dp_train('bolton_sep', 'y', 'x', intercept => false, algorithm => 'bolton', epsilon => -1, classes => ARRAY['false', 'true']);
SELECT * FROM dp_train('bolton_sep', 'y', 'x', intercept => false, algorithm => 'bolton', epsilon => 1, delta => 1,
                       classes => ARRAY['false', 'true']);
-- failed calls store nothing
SELECT count(*) = (SELECT n FROM bolton_before) AS nothing_stored FROM dptrain.models;

DROP FUNCTION bolton_privacy(jsonb);
RESET client_min_messages;

-- Leave no model or ledger row behind: other files read the whole ledger.
DELETE FROM dptrain.ledger WHERE source_name LIKE 'public.bolton\_%';
DELETE FROM dptrain.models WHERE source LIKE 'public.bolton\_%';
-- Drop what this file created: it runs again in the same database.
DROP TABLE bolton_sep, bolton_three;
