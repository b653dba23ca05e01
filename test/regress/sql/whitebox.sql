-- White-box private SGD: SCS13 and BST14 with per-batch noise inside the
-- epoch aggregate (docs/whitebox.md). No weights are printed (they are
-- noise); what is checked: the planned noise scales, that the noise is
-- there and reproducible with a seed, the epoch query of sampled batches,
-- and the error paths.
CREATE TABLE wb AS
SELECT i AS id,
       ARRAY[sin(i * 0.7), cos(i * 1.3), 0.25]::float8[] AS x,
       (sin(i * 0.7) + 0.5 * cos(i * 1.3) > 0) AS y
FROM generate_series(1, 1000) i;

-- SCS13, epsilon-DP, convex: L2-Laplace noise of scale Delta k / eps = 2 * 3 / 1 = 6.
SELECT algorithm, epsilon, delta, details->'privacy'->>'noise' AS noise,
       details->'privacy'->'noise_scale' AS scale, details->'privacy'->'sensitivity' AS sensitivity,
       details->'privacy'->'updates' AS updates, details->'hyperparameters'->>'schedule' AS schedule,
       details->>'randomness' AS randomness
FROM dp_train('wb', 'y', 'x', intercept => false, algorithm => 'scs13', epsilon => 1, epochs => 3, batch_size => 10,
              name => 'wb_scs13_pure', seed => 7);

-- SCS13, (epsilon, delta)-DP, strongly convex: Gaussian, per pass (1/3, 1e-6/3),
-- analytic calibration: sigma = 24.9424574019; projection onto R = 1/lambda.
SELECT algorithm, delta, details->'privacy'->>'noise' AS noise, round((details->'privacy'->>'sigma')::numeric, 6) AS sigma,
       details->'privacy'->>'calibration' AS calibration, details->'hyperparameters'->>'schedule' AS schedule,
       details->'hyperparameters'->'radius' AS radius
FROM dp_train('wb', 'y', 'x', intercept => false, algorithm => 'scs13', epsilon => 1, delta => 1e-6, epochs => 3, batch_size => 10,
              lambda => 0.01, name => 'wb_scs13_gauss', seed => 7);
-- ... with the RDP accountant over the passes (less noise for the same guarantee)
SELECT round((details->'privacy'->>'sigma')::numeric, 4) AS sigma, details->'privacy'->>'composition' AS composition
FROM dp_train('wb', 'y', 'x', intercept => false, algorithm => 'scs13', epsilon => 1, delta => 1e-6, epochs => 3, batch_size => 10,
              lambda => 0.01, options => '{"accountant": "rdp"}', seed => 7);

-- BST14, strongly convex: T = 3 * 100 updates, eps_1 from advanced composition,
-- exact amplification (q = 0.01), analytic Gaussian: sigma = 12.5697933713.
SELECT algorithm, epsilon, delta, details->'privacy'->'updates' AS updates,
       round((details->'privacy'->>'epsilon_step')::numeric, 9) AS eps_step,
       round((details->'privacy'->>'epsilon_0')::numeric, 9) AS eps_0,
       round((details->'privacy'->>'sigma')::numeric, 6) AS sigma,
       details->'privacy'->>'sampling' AS sampling, details->'hyperparameters'->>'schedule' AS schedule
FROM dp_train('wb', 'y', 'x', intercept => false, algorithm => 'bst14', epsilon => 1, delta => 1e-6, epochs => 3, batch_size => 10,
              lambda => 0.01, name => 'wb_bst14_sc', seed => 7);
-- BST14, convex: projection onto the given radius, eta_t = 2R / (G sqrt t);
-- the hand-computed BST14 reconstruction (linear amplification, classic Gaussian)
SELECT details->'hyperparameters'->>'schedule' AS schedule, details->'hyperparameters'->'radius' AS radius,
       details->'privacy'->>'amplification' AS amplification, details->'privacy'->>'calibration' AS calibration,
       round((details->'privacy'->>'sigma')::numeric, 6) AS sigma
FROM dp_train('wb', 'y', 'x', intercept => false, algorithm => 'bst14', epsilon => 1, delta => 1e-6, epochs => 3, batch_size => 10,
              radius => 2, options => '{"amplification": "linear", "gaussian_calibration": "classic"}',
              name => 'wb_bst14_convex', seed => 7);

-- The models are usable, flagged as seeded, and a seed reproduces a run exactly.
SELECT name, algorithm, seeded FROM dptrain.models WHERE name LIKE 'wb_%' ORDER BY name;
SELECT accuracy BETWEEN 0 AND 1 AS ok, n FROM dp_evaluate('wb_bst14_sc', 'wb', 'y', 'x');
SELECT a.weights = b.weights AS same_seed_same_model
FROM dp_train('wb', 'y', 'x', intercept => false, algorithm => 'bst14', epsilon => 1, delta => 1e-6, epochs => 2, batch_size => 10,
              lambda => 0.01, seed => 11) a,
     dp_train('wb', 'y', 'x', intercept => false, algorithm => 'bst14', epsilon => 1, delta => 1e-6, epochs => 2, batch_size => 10,
              lambda => 0.01, seed => 11) b;
SELECT a.weights <> b.weights AS other_seed_other_noise
FROM dp_train('wb', 'y', 'x', intercept => false, algorithm => 'scs13', epsilon => 1, epochs => 2, batch_size => 10, seed => 11) a,
     dp_train('wb', 'y', 'x', intercept => false, algorithm => 'scs13', epsilon => 1, epochs => 2, batch_size => 10, seed => 12) b;
-- the noise is really inside: same permutation and steps without noise give another model
SELECT p.weights <> n.weights AS noise_was_added
FROM dp_train('wb', 'y', 'x', intercept => false, algorithm => 'scs13', epsilon => 1, epochs => 2, batch_size => 10, seed => 11) p,
     dp_train('wb', 'y', 'x', intercept => false, algorithm => 'none', epochs => 2, batch_size => 10, schedule => 'inverse_sqrt',
              learning_rate => 1, seed => 11) n;

-- A sampled (BST14) epoch by hand, with the statement dp_train and `dptrain
-- train` run (src/core/training/epoch_query.cpp).
BEGIN;
SELECT shuffled AS wb_table FROM dptrain.training_prepare('wb', 'y', 'x', seed => 1) \gset
CREATE TEMP TABLE wb_state AS
SELECT dptrain.sgd_state_with_noise(dptrain.sgd_state(3, 10, 0.5), 'gaussian', 2.0, sampled => true, seed => 5) AS s;
SELECT dptrain.sgd_state_info(s)->'noise' AS noise, dptrain.sgd_state_info(s)->'sampled_batch' AS batch FROM wb_state;
-- 100 batches of 10 distinct rows in 1..1000
SELECT count(*) AS batches, min(n) AS min_rows, max(n) AS max_rows, bool_and(distinct_rows = n) AS distinct_rows,
       min(lo) >= 1 AND max(hi) <= 1000 AS in_range
FROM (SELECT batch, count(*) AS n, count(DISTINCT "row") AS distinct_rows, min("row") AS lo, max("row") AS hi
      FROM wb_state, dptrain.sample_batches(s, 1000) GROUP BY batch) b;
-- sampled_rows streams exactly those rows, batch after batch, from the prepared table
SELECT count(*) AS rows,
       bool_and(r.batch = b.batch AND r.x = t.x AND r.y = t.y) AS same_rows_in_order
FROM (SELECT (r).*, row_number() OVER () AS k
      FROM (SELECT dptrain.sampled_rows(s, :'wb_table'::regclass, 1000) AS r FROM wb_state) q) r
JOIN (SELECT b.*, row_number() OVER () AS k FROM wb_state, dptrain.sample_batches(s, 1000) b) b USING (k)
JOIN :wb_table t ON t.i = b.row;
PREPARE wb_epoch(float8[]) AS
SELECT dptrain.sgd_sampled_epoch((r).x, (r).y, (r).batch, $1::float8[])
FROM (SELECT dptrain.sampled_rows($1::float8[], :'wb_table'::regclass, 1000) AS r) s;
-- the rows stream from the set-returning function into the aggregate: no join, no sort, no parallelism
EXPLAIN (COSTS OFF) EXECUTE wb_epoch(NULL);
SELECT s AS wb_s FROM wb_state \gset
EXECUTE wb_epoch(:'wb_s') \gset
SELECT (i->>'rows')::int AS rows, (i->>'updates')::int AS updates, i->'sampled_batch' AS last_batch
FROM (SELECT dptrain.sgd_state_info(:'sgd_sampled_epoch') AS i) e;
-- dptrain.sampled_epoch, the statement dp_train runs, reads each chunk of the
-- epoch's rows in physical order but applies the same batches in the same
-- order: the very same state, whatever the chunk (1 row; 7 rows, so chunks
-- end inside batches; one batch; 4 MB)
SELECT c AS chunk_rows, dptrain.sampled_epoch(s, :'wb_table'::regclass, 1000, c) = :'sgd_sampled_epoch'::float8[]
       AS same_state
FROM wb_state, unnest(ARRAY[1, 7, 10, 0]) c;
-- also with b = 3 (334 batches of 1000 rows: the last one reaches past n, rows repeat across batches)
SELECT c AS chunk_rows,
       dptrain.sampled_epoch(s3, :'wb_table'::regclass, 1000, c)
       = (SELECT dptrain.sgd_sampled_epoch((r).x, (r).y, (r).batch, s3)
          FROM (SELECT dptrain.sampled_rows(s3, :'wb_table'::regclass, 1000) AS r) q) AS same_state
FROM (SELECT dptrain.sgd_state_with_noise(dptrain.sgd_state(3, 3, 0.5), 'gaussian', 2.0, sampled => true, seed => 6)
      AS s3) t, unnest(ARRAY[1, 2, 5, 0]) c;
-- the state survives a text round trip: same key, same noise, same model
SELECT (SELECT dptrain.sgd_epoch(x, y, s) FROM :wb_table)
     = (SELECT dptrain.sgd_epoch(x, y, s::text::float8[]) FROM :wb_table) AS round_trip
FROM (SELECT dptrain.sgd_state_with_noise(dptrain.sgd_state(3, 10, 0.5), 'l2_laplace', 3.0, seed => 5) AS s) n;
-- a sampled state refuses a permutation epoch, and batches must come whole and in order
SAVEPOINT a;
SELECT dptrain.sgd_epoch(x, y, s) FROM :wb_table, wb_state;
ROLLBACK TO a;
SELECT dptrain.sgd_sampled_epoch(x, y, 2, s) FROM :wb_table, wb_state;
ROLLBACK TO a;
SELECT dptrain.sgd_sampled_epoch(x, y, (n + 4) / 5, s)
FROM (SELECT x, y, row_number() OVER () AS n FROM :wb_table) r, wb_state;
ROLLBACK TO a;
SELECT dptrain.sgd_sampled_epoch(x, y, (n + 9) / 10, s)
FROM (SELECT x, y, row_number() OVER () AS n FROM :wb_table LIMIT 15) r, wb_state;
ROLLBACK TO a;
-- sampled_rows only reads prepared training tables, and checks their row numbers
SELECT count(*) FROM (SELECT dptrain.sampled_rows(s, 'wb'::regclass, 1000) FROM wb_state) q;
ROLLBACK TO a;
DELETE FROM :wb_table WHERE i = 17;
SELECT count(*) FROM (SELECT dptrain.sampled_rows(s, :'wb_table'::regclass, 1000) FROM wb_state) q;
ROLLBACK TO a;
-- sampled_epoch refuses the same (a permutation state; another table; a changed table)
SELECT dptrain.sampled_epoch(dptrain.sgd_state(3, 10), :'wb_table'::regclass, 1000);
ROLLBACK TO a;
SELECT dptrain.sampled_epoch(s, 'wb'::regclass, 1000) FROM wb_state;
ROLLBACK TO a;
DELETE FROM :wb_table WHERE i = 17;
SELECT dptrain.sampled_epoch(s, :'wb_table'::regclass, 1000) FROM wb_state;
ROLLBACK TO a;
ROLLBACK;

-- White-box states are never combined: the sampled aggregate has no combine
-- function, and sgd_epoch's combine refuses two noisy partial states (here
-- one per partition, as a distributed engine would produce them).
SELECT aggcombinefn FROM pg_aggregate WHERE aggfnoid = 'dptrain.sgd_sampled_epoch'::regproc;
CREATE TABLE wb_parts (id int, x float8[], y boolean) PARTITION BY HASH (id);
CREATE TABLE wb_parts0 PARTITION OF wb_parts FOR VALUES WITH (MODULUS 2, REMAINDER 0);
CREATE TABLE wb_parts1 PARTITION OF wb_parts FOR VALUES WITH (MODULUS 2, REMAINDER 1);
INSERT INTO wb_parts SELECT id, x, y FROM wb;
SET max_parallel_workers_per_gather = 0;
SET enable_partitionwise_aggregate = on;
SELECT dptrain.sgd_state_info(dptrain.sgd_epoch(x, y, dptrain.sgd_state(3, 10, 1.0)))->'rows' AS noiseless_rows
FROM wb_parts;
SELECT dptrain.sgd_epoch(x, y, dptrain.sgd_state_with_noise(dptrain.sgd_state(3, 10, 1.0), 'gaussian', 1.0, seed => 1))
FROM wb_parts;
RESET enable_partitionwise_aggregate;
RESET max_parallel_workers_per_gather;

-- Error paths.
SELECT * FROM dp_train('wb', 'y', 'x', intercept => false, algorithm => 'bst14', epsilon => 1, delta => 0, lambda => 0.01);
SELECT * FROM dp_train('wb', 'y', 'x', intercept => false, algorithm => 'bst14', epsilon => 1, lambda => 0.01);
SELECT * FROM dp_train('wb', 'y', 'x', intercept => false, algorithm => 'bst14', epsilon => 1, delta => 1e-6);
SELECT * FROM dp_train('wb', 'y', 'x', intercept => false, algorithm => 'bst14', epsilon => 1, delta => 1e-6, lambda => 0.01,
                       reshuffle => true);
SELECT * FROM dp_train('wb', 'y', 'x', intercept => false, algorithm => 'scs13', delta => 1e-6);
SELECT * FROM dp_train('wb', 'y', 'x', intercept => false, algorithm => 'scs13', epsilon => 3, delta => 1e-6, epochs => 1,
                       options => '{"gaussian_calibration": "classic"}');
SELECT * FROM dp_train('wb', 'y', 'x', intercept => false, algorithm => 'scs13', epsilon => 1, options => '{"gaussian_calibration": "classic"}');
SELECT * FROM dp_train('wb', 'y', 'x', intercept => false, algorithm => 'scs13', epsilon => 1, options => '{"sigma": 1}');
-- a string option that is not a string (it had no hint)
SELECT * FROM dp_train('wb', 'y', 'x', intercept => false, algorithm => 'scs13', epsilon => 1, delta => 1e-6,
                       options => '{"accountant": 1}');
SELECT dptrain.sgd_state_with_noise(dptrain.sgd_state(3), 'laplace', 1);
-- a step so large that the weights overflow says so (it was "malformed dptrain training state",
-- "do not construct them by hand")
SELECT * FROM dp_train('wb', 'y', 'x', algorithm => 'scs13', epsilon => 1, seed => 1, learning_rate => 1e308);
-- nothing is left behind by the failed runs
SELECT count(*) AS models FROM dptrain.models WHERE name LIKE 'wb_%';

-- Leave no model or ledger row behind: other files read the whole ledger.
DELETE FROM dptrain.ledger WHERE source_name = 'public.wb';
DELETE FROM dptrain.models WHERE source = 'public.wb';
-- Drop what this file created: it runs again in the same database.
DROP TABLE wb, wb_parts;
