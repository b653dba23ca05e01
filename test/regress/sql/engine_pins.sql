-- Bit-identical models across engine changes: every seeded run below prints
-- an md5 of its weights as text (float8 output is exact: the shortest string
-- that reads back to the same double), so any change of a single bit in any
-- weight of any algorithm shows up here. The hashes were recorded with the
-- first engine (one epoch loop per driver) before it was replaced by run
-- objects that ask for passes; they must not change when the engine does.
CREATE TABLE pins AS
SELECT i AS id,
       ARRAY[sin(i * 0.7), cos(i * 1.3), 0.25, sin(i * 0.11)]::float8[] AS x,
       (sin(i * 0.7) + 0.5 * cos(i * 1.3) > 0) AS y,
       CASE WHEN sin(i * 0.7) > 0.3 THEN 'a' WHEN cos(i * 1.3) > 0 THEN 'b' ELSE 'c' END AS label
FROM generate_series(1, 1500) i;
SET client_min_messages = warning;

CREATE FUNCTION pin(m dptrain.trained_model) RETURNS TABLE (algorithm text, weights_md5 text)
LANGUAGE sql AS $$ SELECT m.algorithm, md5(m.weights::text) $$;

SELECT 'none' AS run, p.* FROM pin(dp_train('pins', 'y', 'x', algorithm => 'none', epochs => 3, batch_size => 10,
                                            seed => 1, classes => ARRAY['false', 'true'], intercept => false)) p
UNION ALL
SELECT 'none, 3 classes, averaging, reshuffle', p.*
FROM pin(dp_train('pins', 'label', 'x', algorithm => 'none', epochs => 3, batch_size => 7, averaging => true,
                  reshuffle => true, seed => 2, classes => ARRAY['a', 'b', 'c'], intercept => false)) p
UNION ALL
SELECT 'bolton convex eps', p.*
FROM pin(dp_train('pins', 'y', 'x', algorithm => 'bolton', epsilon => 1, epochs => 4, batch_size => 20,
                  learning_rate => 0.5, seed => 3, classes => ARRAY['false', 'true'], intercept => false)) p
UNION ALL
SELECT 'bolton strongly convex eps-delta, averaging, reshuffle', p.*
FROM pin(dp_train('pins', 'y', 'x', algorithm => 'bolton', epsilon => 1, delta => 1e-6, lambda => 0.01,
                  epochs => 3, batch_size => 16, averaging => true, reshuffle => true, seed => 4,
                  classes => ARRAY['false', 'true'], intercept => false)) p
UNION ALL
SELECT 'bolton one-vs-all joint', p.*
FROM pin(dp_train('pins', 'label', 'x', algorithm => 'bolton', epsilon => 2, delta => 1e-6, epochs => 2,
                  batch_size => 25, learning_rate => 0.3, seed => 5, classes => ARRAY['a', 'b', 'c'], intercept => false,
                  options => '{"multiclass_noise": "joint"}')) p
UNION ALL
SELECT 'bolton tolerance', p.*
FROM pin(dp_train('pins', 'y', 'x', algorithm => 'bolton', epsilon => 1, lambda => 0.01, epochs => 20,
                  batch_size => 10, seed => 6, classes => ARRAY['false', 'true'], intercept => false,
                  options => '{"tolerance": 0.2}')) p
UNION ALL
SELECT 'scs13 eps', p.*
FROM pin(dp_train('pins', 'y', 'x', algorithm => 'scs13', epsilon => 1, epochs => 2, batch_size => 10, seed => 7,
                  classes => ARRAY['false', 'true'], intercept => false)) p
UNION ALL
SELECT 'scs13 eps-delta strongly convex, 3 classes', p.*
FROM pin(dp_train('pins', 'label', 'x', algorithm => 'scs13', epsilon => 2, delta => 1e-6, lambda => 0.01,
                  epochs => 2, batch_size => 10, seed => 8, classes => ARRAY['a', 'b', 'c'], intercept => false)) p
UNION ALL
SELECT 'bst14', p.*
FROM pin(dp_train('pins', 'y', 'x', algorithm => 'bst14', epsilon => 1, delta => 1e-6, epochs => 2,
                  batch_size => 10, radius => 5, seed => 9, classes => ARRAY['false', 'true'], intercept => false)) p;

-- Private tuning (Bolt-on Algorithm 3): the chosen candidate's weights.
-- (Re-pinned when candidate seeds became tuning::candidate_seed(seed, i)
-- instead of seed + 1 + i: an intended change of every seeded search.)
SELECT md5(weights::text) AS tuned_md5, lambda, epochs, batch_size
FROM dp_tune('pins', 'y', 'x', epsilon => 2, lambdas => '{0, 0.01}', epochs => '{1, 2}', batch_sizes => '{10}',
             seed => 10, classes => ARRAY['false', 'true'], intercept => false);

-- DP-SGD family (pinned when its pass became one call, dptrain.lots_pass:
-- recorded with the streamed lot_rows -> dpsgd_lots query before it)
SELECT 'dpsgd' AS run, p.*
FROM pin(dp_train('pins', 'y', 'x', algorithm => 'dpsgd', epsilon => 1, delta => 1e-6, epochs => 2, seed => 11,
                  classes => ARRAY['false', 'true'], intercept => false)) p
UNION ALL
SELECT 'dpadam, 3 classes', p.*
FROM pin(dp_train('pins', 'label', 'x', algorithm => 'dpadam', epsilon => 2, delta => 1e-6, epochs => 2,
                  batch_size => 50, seed => 12, classes => ARRAY['a', 'b', 'c'], intercept => false)) p
UNION ALL
SELECT 'psgd', p.*
FROM pin(dp_train('pins', 'y', 'x', algorithm => 'psgd', epsilon => 1, delta => 1e-6, radius => 2, lambda => 0.001,
                  epochs => 2, seed => 13, classes => ARRAY['false', 'true'], intercept => false)) p
UNION ALL
SELECT 'adadp', p.*
FROM pin(dp_train('pins', 'y', 'x', algorithm => 'adadp', epsilon => 1, delta => 1e-6, epochs => 2, seed => 14,
                  classes => ARRAY['false', 'true'], intercept => false)) p;

-- Leave no model or ledger row behind: other files read the whole ledger.
DELETE FROM dptrain.ledger WHERE source_name = 'public.pins';
DELETE FROM dptrain.models WHERE source = 'public.pins';
-- Drop what this file created: it runs again in the same database.
DROP FUNCTION pin(dptrain.trained_model);
DROP TABLE pins;
