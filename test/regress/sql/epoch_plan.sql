-- The epoch query plans dptrain relies on.
--
-- 1. dp_train and `dptrain train` run each epoch over a shuffled TEMP table.
--    Temp tables are never scanned by parallel workers, so even with
--    parallelism forced the epoch is one sequential pass in the stored
--    (random) order: the permutation SGD the bolt-on analysis covers.
-- 2. Over an ordinary table the aggregate is parallel safe: partial states
--    (per worker, per partition, or per distributed shard) are merged by the
--    combine function, count-weighted model averaging.
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;

CREATE TABLE pts AS
SELECT i AS id, ARRAY[sin(i * 0.37), cos(i * 0.91)]::float8[] AS x, (sin(i * 0.37) > cos(i * 0.91)) AS y
FROM generate_series(1, 3000) i;
ANALYZE pts;

-- (1) the shuffled temp table of a training run (it lives until the end of
-- the transaction): no Gather, one Seq Scan
BEGIN;
SELECT shuffled, rows, dim, classes FROM dptrain.training_prepare('pts', 'y', 'x', seed => 1);
EXPLAIN (COSTS OFF) SELECT dptrain.sgd_epoch(x, y, dptrain.sgd_state(2, 10, 1.0)) FROM pg_temp.dptrain_shuffled_1;
-- a sequential epoch makes exactly ceil(n / b) updates
SELECT dptrain.sgd_state_info(dptrain.sgd_epoch(x, y, dptrain.sgd_state(2, 10, 1.0)))->>'updates' AS updates
FROM pg_temp.dptrain_shuffled_1;
SELECT dptrain.training_drop('pg_temp.dptrain_shuffled_1');
COMMIT;

-- (2a) an ordinary table under forced parallelism: partial aggregates in the
-- workers, combine + final in the leader
EXPLAIN (COSTS OFF) SELECT dptrain.sgd_epoch(x, y, dptrain.sgd_state(2, 10, 1.0)) FROM pts;
SELECT (dptrain.sgd_state_info(dptrain.sgd_epoch(x, y, dptrain.sgd_state(2, 10, 1.0)))->>'rows')::int AS rows_seen
FROM pts;

-- (2b) a deterministic combine: partitionwise aggregation over two
-- partitions, one partial state each (what a distributed engine does per
-- shard); without workers so that each partition is one partial state
RESET max_parallel_workers_per_gather;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE parts (id int, x float8[], y boolean) PARTITION BY HASH (id);
CREATE TABLE parts0 PARTITION OF parts FOR VALUES WITH (MODULUS 2, REMAINDER 0);
CREATE TABLE parts1 PARTITION OF parts FOR VALUES WITH (MODULUS 2, REMAINDER 1);
INSERT INTO parts SELECT id, x, y FROM pts ORDER BY id;
ANALYZE parts;
SET enable_partitionwise_aggregate = on;
EXPLAIN (COSTS OFF) SELECT dptrain.sgd_epoch(x, y, dptrain.sgd_state(2, 10, 1.0)) FROM parts;
-- the combined state is the count-weighted average of the per-partition states
WITH whole AS (SELECT dptrain.sgd_epoch(x, y, dptrain.sgd_state(2, 10, 1.0)) s FROM parts),
     p0 AS (SELECT dptrain.sgd_epoch(x, y, dptrain.sgd_state(2, 10, 1.0)) s FROM parts0),
     p1 AS (SELECT dptrain.sgd_epoch(x, y, dptrain.sgd_state(2, 10, 1.0)) s FROM parts1),
     n AS (SELECT (SELECT count(*) FROM parts0)::float8 AS n0, (SELECT count(*) FROM parts1)::float8 AS n1)
SELECT (dptrain.sgd_state_info(whole.s)->>'rows')::int AS rows,
       (dptrain.sgd_state_info(whole.s)->>'updates')::int
         = greatest(ceil(n0 / 10), ceil(n1 / 10)) AS updates_are_per_partition,
       abs((dptrain.sgd_state_weights(whole.s))[1]
           - (n0 * (dptrain.sgd_state_weights(p0.s))[1] + n1 * (dptrain.sgd_state_weights(p1.s))[1]) / (n0 + n1)) < 1e-12
         AND abs((dptrain.sgd_state_weights(whole.s))[2]
           - (n0 * (dptrain.sgd_state_weights(p0.s))[2] + n1 * (dptrain.sgd_state_weights(p1.s))[2]) / (n0 + n1)) < 1e-12
         AS weighted_average
FROM whole, p0, p1, n;
RESET enable_partitionwise_aggregate;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
-- Drop what this file created: it runs again in the same database.
DROP TABLE pts, parts;
