-- Private Frank-Wolfe (algorithm => 'pfw', docs/pfw.md): one gradient pass
-- per iteration with per-coordinate clipping inside the pass, report-noisy-min
-- over the 2d corners of the L1 ball. No weights are printed (they depend on
-- the noise); what is checked: the plan recorded in the model, that the
-- model stays in the L1 ball and learns, seeded reproducibility, that the
-- prepared table is never rewritten, and the errors (before any data is read).
CREATE TABLE fw AS
SELECT i AS id,
       ARRAY[sin(i * 0.7), cos(i * 1.3), 0.25, 0.1 * sin(i * 0.3)]::float8[] AS x,
       (2 * sin(i * 0.7) - cos(i * 1.3) > 0) AS y
FROM generate_series(1, 2000) i;

-- T = 20 iterations, c = 5, L = 0.5: 20 selections; eps_0 is the root of
-- sqrt(40 ln(1e7)) e + 20 e (e^e - 1) = 1, i.e. 25.3914 e + 20 e (e^e - 1) = 1:
-- eps_0 = 0.0382111; Laplace scale 4 L c / (n eps_0) = 10 / (2000 eps_0) = 0.130852.
-- Progress: one NOTICE per iteration.
SELECT algorithm, epsilon, delta, details->'privacy'->'selections' AS selections,
       round((details->'privacy'->>'epsilon_step')::numeric, 8) AS eps_step,
       round((details->'privacy'->>'laplace_scale')::numeric, 8) AS laplace_scale,
       details->'privacy'->>'adjacency' AS adjacency,
       details->'hyperparameters'->'l1_radius' AS c, details->'hyperparameters'->'coordinate_bound' AS l,
       details->'hyperparameters'->'iterations' AS t, details->>'randomness' AS randomness
FROM dp_train('fw', 'y', 'x', algorithm => 'pfw', epsilon => 1, delta => 1e-7, epochs => 20, radius => 5,
              options => '{"coordinate_bound": 0.5}', name => 'fw_a', seed => 3);

SET client_min_messages = warning;

-- options.row_bound: rows are scaled to that L2 norm instead of 1 before the coordinate
-- clipping (rows of norm > 1 kept whole, as the AMP paper's own Adult rows); the noise
-- still follows min(L, row bound) = 0.5: the same Laplace scale 0.130852 as above. The
-- model's feature bound is the row bound (dp_evaluate's loss scales rows to it, as training did).
SELECT details->'hyperparameters'->'row_bound' AS row_bound,
       details->'hyperparameters'->'feature_bound' AS feature_bound,
       round((details->'privacy'->>'laplace_scale')::numeric, 6) AS laplace_scale
FROM dp_train('fw', 'y', 'x', algorithm => 'pfw', epsilon => 1, delta => 1e-7, epochs => 20, radius => 5,
              options => '{"coordinate_bound": 0.5, "row_bound": 4}', seed => 3);

-- options.selection = 'exponential': the exponential mechanism (eps_0-bounded-range, so
-- eps_0^2/8-zCDP) composed in zCDP. rho = the root of CKS(rho, 1e-7) = 1 (40-digit mpmath):
-- 0.0201871; eps_0 = sqrt(8 rho / 20) = 0.0898602 (2.35x the Laplace run's 0.0382111);
-- probabilities as exp(-score / (2 Delta / eps_0)), Delta = 2 L c / n = 0.0025: 0.0556420.
SELECT details->'privacy'->>'selection' AS selection,
       round((details->'privacy'->>'rho')::numeric, 7) AS rho,
       round((details->'privacy'->>'epsilon_step')::numeric, 7) AS eps_step,
       round((details->'privacy'->>'exponential_scale')::numeric, 7) AS exponential_scale,
       details->'privacy' ? 'laplace_scale' AS has_laplace_scale, epsilon, delta
FROM dp_train('fw', 'y', 'x', algorithm => 'pfw', epsilon => 1, delta => 1e-7, epochs => 20, radius => 5,
              options => '{"coordinate_bound": 0.5, "selection": "exponential"}', name => 'fw_em', seed => 3);
SELECT (SELECT sum(abs(w)) FROM unnest(weights) w) <= 5 + 1e-9 AS in_l1_ball FROM dptrain.models WHERE name = 'fw_em';
SELECT accuracy > 0.8 AS learns FROM dp_evaluate('fw_em', 'fw', 'y', 'x');

-- In the L1 ball, better than the majority class (50.3%), flagged as seeded.
SELECT (SELECT sum(abs(w)) FROM unnest(weights) w) <= 5 + 1e-9 AS in_l1_ball, seeded
FROM dptrain.models WHERE name = 'fw_a';
SELECT accuracy > 0.8 AS learns, n FROM dp_evaluate('fw_a', 'fw', 'y', 'x');

-- A seed reproduces a run exactly; another seed draws other noise.
SELECT a.weights = b.weights AS same_seed_same_model
FROM dp_train('fw', 'y', 'x', algorithm => 'pfw', epsilon => 0.5, delta => 1e-7, epochs => 10, radius => 2, seed => 11) a,
     dp_train('fw', 'y', 'x', algorithm => 'pfw', epsilon => 0.5, delta => 1e-7, epochs => 10, radius => 2, seed => 11) b;
SELECT a.weights <> b.weights AS other_seed_other_noise
FROM dp_train('fw', 'y', 'x', algorithm => 'pfw', epsilon => 0.5, delta => 1e-7, epochs => 10, radius => 2, seed => 11) a,
     dp_train('fw', 'y', 'x', algorithm => 'pfw', epsilon => 0.5, delta => 1e-7, epochs => 10, radius => 2, seed => 12) b;

-- One-vs-all: K = 3 models, K T selections.
CREATE TABLE fw_three AS SELECT x, (ARRAY['a', 'b', 'c'])[1 + id % 3] AS label FROM fw;
SELECT array_dims(weights) AS dims, details->'privacy'->'selections' AS selections
FROM dp_train('fw_three', 'label', 'x', algorithm => 'pfw', epsilon => 1, delta => 1e-7, epochs => 4, radius => 1,
              loss => 'huber_svm', classes => ARRAY['a', 'b', 'c'], seed => 2);

-- The table is never rewritten: clipping happens inside the pass.
SELECT count(*) AS rows, max((SELECT max(abs(v)) FROM unnest(x) v)) > 0.5 AS unclipped FROM fw;

-- Errors, all before any row is read and before the budget is charged.
SELECT count(*) AS charges FROM dptrain.ledger \gset
SELECT * FROM dp_train('fw', 'y', 'x', algorithm => 'pfw', epsilon => 1, delta => 1e-7);
SELECT * FROM dp_train('fw', 'y', 'x', algorithm => 'pfw', epsilon => 1, delta => 0, radius => 1);
SELECT * FROM dp_train('fw', 'y', 'x', algorithm => 'pfw', epsilon => 1, radius => 1);
SELECT * FROM dp_train('fw', 'y', 'x', algorithm => 'pfw', delta => 1e-7, radius => 1);
SELECT * FROM dp_train('fw', 'y', 'x', algorithm => 'pfw', epsilon => 1, delta => 1e-7, radius => -1);
SELECT * FROM dp_train('fw', 'y', 'x', algorithm => 'pfw', epsilon => 1, delta => 1e-7, radius => 1, epochs => 0);
SELECT * FROM dp_train('fw', 'y', 'x', algorithm => 'pfw', epsilon => 1, delta => 1e-7, radius => 1,
                       options => '{"coordinate_bound": 0}');
SELECT * FROM dp_train('fw', 'y', 'x', algorithm => 'pfw', epsilon => 1, delta => 1e-7, radius => 1,
                       learning_rate => 0.1);
SELECT * FROM dp_train('fw', 'y', 'x', algorithm => 'pfw', epsilon => 1, delta => 1e-7, radius => 1,
                       options => '{"splits": 60}');
SELECT * FROM dp_train('fw', 'y', 'x', algorithm => 'pfw', epsilon => 1, delta => 1e-7, radius => 1,
                       options => '{"row_bound": 4}', intercept => true);
SELECT * FROM dp_train('fw', 'y', 'x', algorithm => 'pfw', epsilon => 1, delta => 1e-7, radius => 1,
                       options => '{"row_bound": -1}');
SELECT * FROM dp_train('fw', 'y', 'x', algorithm => 'pfw', epsilon => 1, delta => 1e-7, radius => 1,
                       options => '{"selection": "gumbel"}');
-- A radius near the double range: refused with a hint (the scores'
-- sensitivity 2 L c / n overflowed: "the score sensitivity must be positive
-- and finite, got inf", no hint), and one whose noise cannot be drawn.
SELECT * FROM dp_train('fw', 'y', 'x', algorithm => 'pfw', epsilon => 1, delta => 1e-7, radius => 1e308);
SELECT * FROM dp_train('fw', 'y', 'x', algorithm => 'pfw', epsilon => 1, delta => 1e-7, radius => 1e307, epochs => 1000);
SELECT count(*) = :charges AS not_charged FROM dptrain.ledger;
SELECT count(*) AS models FROM dptrain.models WHERE algorithm = 'pfw' AND source IN ('public.fw', 'public.fw_three');

-- Leave no model or ledger row behind: other files read the whole ledger.
DELETE FROM dptrain.ledger WHERE source_name IN ('public.fw', 'public.fw_three');
DELETE FROM dptrain.models WHERE source IN ('public.fw', 'public.fw_three');
-- Drop what this file created: it runs again in the same database.
DROP TABLE fw, fw_three;
