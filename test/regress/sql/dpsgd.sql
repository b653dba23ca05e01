-- The DP-SGD family (docs/dpsgd.md): Poisson lots drawn from the run's key,
-- per-example clipping, Gaussian noise on every lot's sum, RDP accounting.
-- No weights are printed (they are noise); what is checked: the defaults with
-- only epsilon and delta, the privacy record, the number of queries, seeds,
-- that the models learn, and the error paths.
\getenv abs_srcdir PG_ABS_SRCDIR
\set try_sql :abs_srcdir '/sql/include/try.sql'
\i :try_sql
CREATE TABLE ds AS
SELECT i AS id,
       ARRAY[sin(i * 0.7), cos(i * 1.3), 0.25]::float8[] AS x,
       (sin(i * 0.7) + 0.5 * cos(i * 1.3) > 0) AS y,
       (i % 3)::text AS c3
FROM generate_series(1, 1000) i;

-- Only epsilon and delta: L = batch_size = 50 (q = 0.05), T = epochs * ceil(n / L)
-- = 10 * 20 = 200 lots, C = 1, alpha = 0.5; sigma the smallest noise multiplier
-- with RDP-epsilon <= 1 at delta = 1e-5 (improved conversion, add/remove-one).
SELECT algorithm, epsilon <= 1 AND epsilon > 0.999 AS epsilon_reached, delta,
       details->'privacy'->>'accountant' AS accountant, details->'privacy'->'q' AS q,
       details->'privacy'->'steps' AS steps, details->'privacy'->'clip_norm' AS clip_norm,
       round((details->'privacy'->>'noise_multiplier')::numeric, 4) AS sigma,
       details->'privacy'->'accounted' AS accounted, details->'privacy'->>'adjacency' AS adjacency,
       details->'privacy'->>'conversion' AS conversion,
       details->'hyperparameters'->'learning_rate' AS learning_rate,
       details->'hyperparameters'->'expected_lot' AS lot, details->'queries' AS queries,
       details->>'randomness' AS randomness
FROM dp_train('ds', 'y', 'x', algorithm => 'dpsgd', epsilon => 1, delta => 1e-5, name => 'ds_dpsgd', seed => 7);
-- the same epsilon from the accountant's SQL function at the recorded (q, sigma, T, delta)
SELECT abs(dptrain.rdp_epsilon((details->'privacy'->>'q')::float8,
                                             (details->'privacy'->>'noise_multiplier')::float8,
                                             (details->'privacy'->>'steps')::int8, delta) - epsilon) < 1e-9 * epsilon
       AS recomputed
FROM dptrain.models WHERE name = 'ds_dpsgd';

-- Every member of the family, with its defaults.
SELECT t.algorithm, (details->'privacy'->>'steps')::int AS steps,
       round((details->'hyperparameters'->>'learning_rate')::numeric, 6) AS learning_rate,
       details->'hyperparameters'->>'learning_rate_rule' AS rule,
       details->'hyperparameters'->'momentum' AS momentum,
       details->'adadp' IS NOT NULL AS adadp_counts
FROM unnest(ARRAY['dpsgd', 'psgd', 'dpmomentum', 'dpadam', 'dpadamwosm', 'adadp']) a,
     LATERAL dp_train('ds', 'y', 'x', algorithm => a, epsilon => 1, delta => 1e-5, epochs => 3, seed => 7) t;

-- Many lots per query: 200 lots in queries of 30 lots are ceil(200 / 30) = 7 queries;
-- the pass size does not change the model.
SELECT a.details->'queries' AS queries_of_30, b.details->'queries' AS queries_default,
       a.weights = b.weights AS same_model
FROM dp_train('ds', 'y', 'x', algorithm => 'dpadam', epsilon => 1, delta => 1e-5, seed => 3,
              options => '{"lots_per_query": 30}') a,
     dp_train('ds', 'y', 'x', algorithm => 'dpadam', epsilon => 1, delta => 1e-5, seed => 3) b;

-- Seeds reproduce a run; another seed draws other lots and noise.
SELECT a.weights = b.weights AS same_seed_same_model, a.weights <> c.weights AS other_seed_other_model
FROM dp_train('ds', 'y', 'x', algorithm => 'dpsgd', epsilon => 1, delta => 1e-5, seed => 11) a,
     dp_train('ds', 'y', 'x', algorithm => 'dpsgd', epsilon => 1, delta => 1e-5, seed => 11) b,
     dp_train('ds', 'y', 'x', algorithm => 'dpsgd', epsilon => 1, delta => 1e-5, seed => 12) c;

-- The models learn (the rule is linear; epsilon = 4 on 1000 rows).
SELECT dp_train.algorithm, e.accuracy > 0.8 AS learns
FROM unnest(ARRAY['dpsgd', 'dpadam']) a,
     LATERAL dp_train('ds', 'y', 'x', algorithm => a, epsilon => 4, delta => 1e-5, epochs => 20,
                      name => 'ds_learn_' || a, seed => 5) dp_train,
     LATERAL dp_evaluate('ds_learn_' || a, 'ds', 'y', 'x') e;

-- Three classes: three one-vs-all models clipped jointly (one Gaussian mechanism).
SELECT array_dims(weights) AS dims, details->'privacy'->>'models' AS models, classes
FROM dp_train('ds', 'c3', 'x', algorithm => 'dpmomentum', epsilon => 1, delta => 1e-5, epochs => 2, seed => 7);

-- P-SGD: the L2-ball projection; the paper's closed-form noise only seeded and
-- marked "not accounted", its epsilon the accountant's for that noise.
SELECT details->'hyperparameters'->'radius' AS radius, details->'privacy'->'accounted' AS accounted
FROM dp_train('ds', 'y', 'x', algorithm => 'psgd', epsilon => 1, delta => 1e-5, radius => 2, lambda => 0.001,
              epochs => 2, seed => 7);
SELECT details->'privacy'->'accounted' AS accounted, details->'privacy'->'claimed_epsilon' AS claimed,
       epsilon > 8 AS accountant_says_more, details->'warnings' IS NOT NULL AS warned
FROM dp_train('ds', 'y', 'x', algorithm => 'psgd', epsilon => 8, delta => 1e-6, batch_size => 10,
              options => '{"closed_form_noise": true, "steps": 100}', seed => 7);

-- The pass's functions are not for PUBLIC (the state holds the run's key).
SELECT p.oid::regprocedure AS function, has_function_privilege('public', p.oid, 'EXECUTE') AS public_may_run
FROM pg_proc p WHERE p.proname IN ('lot_rows', 'dpsgd_lots', 'dpsgd_lots_transition', 'dpsgd_lots_final')
ORDER BY 1;
SELECT aggcombinefn FROM pg_aggregate WHERE aggfnoid = 'dptrain.dpsgd_lots'::regproc;

-- Error paths (refused by the plan, before any row is copied: no model).
SELECT count(*) AS models_before FROM dptrain.models \gset
SELECT * FROM pg_temp.try($$SELECT dp_train('ds', 'y', 'x', algorithm => 'dpsgd', epsilon => 1)$$);
SELECT * FROM pg_temp.try($$SELECT dp_train('ds', 'y', 'x', algorithm => 'dpadam', delta => 1e-5)$$);
SELECT * FROM pg_temp.try($$SELECT dp_train('ds', 'y', 'x', algorithm => 'dpsgd', epsilon => 1e-4, delta => 1e-5)$$);
SELECT * FROM pg_temp.try($$SELECT dp_train('ds', 'y', 'x', algorithm => 'dpsgd', epsilon => 1, delta => 1e-5,
                                            averaging => true)$$);
SELECT * FROM pg_temp.try($$SELECT dp_train('ds', 'y', 'x', algorithm => 'dpsgd', epsilon => 1, delta => 1e-5,
                                            options => '{"clip": 1}')$$);
SELECT * FROM pg_temp.try($$SELECT dp_train('ds', 'y', 'x', algorithm => 'dpsgd', epsilon => 1, delta => 1e-5,
                                            options => '{"clip_norm": 0}')$$);
SELECT * FROM pg_temp.try($$SELECT dp_train('ds', 'y', 'x', algorithm => 'adadp', epsilon => 1, delta => 1e-5,
                                            options => '{"steps": 101}')$$);
SELECT * FROM pg_temp.try($$SELECT dp_train('ds', 'y', 'x', algorithm => 'dpadam', epsilon => 1, delta => 1e-5,
                                            schedule => 'inverse_sqrt')$$);
SELECT * FROM pg_temp.try($$SELECT dp_train('ds', 'y', 'x', algorithm => 'psgd', epsilon => 1, delta => 1e-5,
                                            lambda => 0.01)$$);
SELECT * FROM pg_temp.try($$SELECT dp_train('ds', 'y', 'x', algorithm => 'psgd', epsilon => 1, delta => 1e-5,
                                            options => '{"closed_form_noise": true}')$$);
-- another member's option (it was ignored: dpsgd with a momentum ran plain SGD)
SELECT * FROM pg_temp.try($$SELECT dp_train('ds', 'y', 'x', algorithm => 'dpsgd', epsilon => 1, delta => 1e-5,
                                            options => '{"momentum": 0.5}')$$);
-- P-SGD's closed-form noise is not dpsgd's option (false was accepted and ignored)
SELECT * FROM pg_temp.try($$SELECT dp_train('ds', 'y', 'x', algorithm => 'dpsgd', epsilon => 1, delta => 1e-5,
                                            options => '{"closed_form_noise": false}')$$);
SELECT * FROM pg_temp.try($$SELECT dp_train('ds', 'y', 'x', algorithm => 'dpsgd', epsilon => 1, delta => 1e-5,
                                            batch_size => 2000)$$);
-- dp_tune's Algorithm 3 is a replace-one argument: not for the add/remove-one family
-- (its default method is liu_talwar: tuning_liu_talwar.sql)
SELECT * FROM pg_temp.try($$SELECT dp_tune('ds', 'y', 'x', algorithm => 'dpsgd', epsilon => 1, delta => 1e-5,
                                           method => 'holdout')$$);
-- a run whose weights overflow (a step or lambda far too large) says so: it reported a
-- "malformed DP-SGD lot state" that "must come from dptrain itself"
SELECT * FROM pg_temp.try($$SELECT dp_train('ds', 'y', 'x', algorithm => 'dpsgd', epsilon => 1, delta => 1e-5,
                                            seed => 1, lambda => 1e300)$$);
SELECT * FROM pg_temp.try($$SELECT dp_train('ds', 'y', 'x', algorithm => 'dpadam', epsilon => 1, delta => 1e-5,
                                            seed => 1, learning_rate => 1e308)$$);
-- nothing is left behind by the failed runs
SELECT count(*) = :models_before AS no_new_models FROM dptrain.models;

-- Leave no model or ledger row behind: other files read the whole ledger.
DELETE FROM dptrain.ledger WHERE source_name = 'public.ds';
DELETE FROM dptrain.models WHERE source = 'public.ds';
-- Drop what this file created: it runs again in the same database.
DROP TABLE ds;
