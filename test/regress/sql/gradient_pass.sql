-- The gradient/loss aggregate of the engine's GradientLoss pass
-- (dptrain.gradient_sum): its sums against the same sums computed in plain
-- SQL, its parallel plan (exact sums: the combine function adds, so the
-- result with parallel workers equals the one without), and its errors.
CREATE TABLE g AS
SELECT i AS id, ARRAY[sin(i * 0.37), cos(i * 0.91), 0.5]::float8[] AS x, (sin(i * 0.37) > cos(i * 0.91))::int::float8 AS y
FROM generate_series(1, 4000) i;
ANALYZE g;

-- 1. Logistic loss and gradient sums at w = (0.3, -0.2, 0.1), rows clipped to
--    norm 1 (the default feature bound), labels 0/1 -> -1/+1, against SQL:
--    z = y' <w, x/max(1, ||x||)>, loss ln(1 + e^-z), gradient -y' x / (1 + e^z).
WITH c AS (
  SELECT x, CASE WHEN y = 1 THEN 1.0 ELSE -1.0 END AS yy,
         greatest(1.0, sqrt(x[1]^2 + x[2]^2 + x[3]^2)) AS s FROM g),
z AS (SELECT x, yy, s, yy * (0.3 * x[1] - 0.2 * x[2] + 0.1 * x[3]) / s AS z FROM c),
expected AS (
  SELECT count(*) AS rows, sum(ln(1 + exp(-z))) AS loss,
         ARRAY[sum(-yy * x[1] / s / (1 + exp(z))), sum(-yy * x[2] / s / (1 + exp(z))),
               sum(-yy * x[3] / s / (1 + exp(z)))] AS gradient FROM z),
got AS (SELECT (dptrain.gradient_result(dptrain.gradient_sum(x, y, dptrain.gradient_request('{0.3,-0.2,0.1}')))).* FROM g)
SELECT got.rows = expected.rows AS same_rows,
       abs(got.loss[1] - expected.loss) < 1e-9 AS same_loss,
       abs(got.gradient[1] - expected.gradient[1]) < 1e-9 AND abs(got.gradient[2] - expected.gradient[2]) < 1e-9
         AND abs(got.gradient[3] - expected.gradient[3]) < 1e-9 AS same_gradient
FROM got, expected;

-- 2. Three one-vs-all models (K x d points), Huber loss: the row count is
--    shared, every model has its own loss and gradient.
SELECT rows, array_length(loss, 1) AS models, array_dims(gradient) AS gradient_dims
FROM (SELECT (dptrain.gradient_result(dptrain.gradient_sum(x, (id % 3)::float8,
        dptrain.gradient_request('{{0.1,0,0},{0,0.1,0},{0,0,0.1}}', 'huber_svm')))).* FROM g) r;

-- 3. Parallel safe: under forced parallelism the aggregate runs as partial
--    aggregates in workers combined by addition, and gives the same sums as
--    one sequential scan (compensated sums: equal to rounding).
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF)
SELECT dptrain.gradient_sum(x, y, dptrain.gradient_request('{0.3,-0.2,0.1}', hessian => true)) FROM g;
CREATE TABLE parallel_result AS
SELECT (dptrain.gradient_result(dptrain.gradient_sum(x, y, dptrain.gradient_request('{0.3,-0.2,0.1}')))).* FROM g;
SET max_parallel_workers_per_gather = 0;
EXPLAIN (COSTS OFF)
SELECT dptrain.gradient_sum(x, y, dptrain.gradient_request('{0.3,-0.2,0.1}')) FROM g;
SELECT p.rows = s.rows AS same_rows,
       abs(p.loss[1] - s.loss[1]) <= 1e-12 * abs(s.loss[1]) AS same_loss,
       abs(p.gradient[1] - s.gradient[1]) <= 1e-12 * abs(s.gradient[1])
         AND abs(p.gradient[2] - s.gradient[2]) <= 1e-12 * abs(s.gradient[2]) AS same_gradient
FROM parallel_result p,
     (SELECT (dptrain.gradient_result(dptrain.gradient_sum(x, y, dptrain.gradient_request('{0.3,-0.2,0.1}')))).* FROM g) s;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;

-- 4. Errors: a ragged row, NULL features, a request built by hand.
SELECT dptrain.gradient_sum(x, y, dptrain.gradient_request('{0,0}')) FROM g;
SELECT dptrain.gradient_sum(NULL::float8[], 1, dptrain.gradient_request('{0,0,0}'));
SELECT dptrain.gradient_sum(x, y, '{1,2,3}'::float8[]) FROM g;
SELECT dptrain.gradient_request('{0,"NaN"}');

-- 5. The aggregate returns noiseless sums, open to PUBLIC (the passes run
-- with the reader's rights: src/pg/training_run.h, pass_role): a role gets
-- the sums of rows it may select itself, and nothing from a table it may not.
CREATE ROLE regress_gradient_reader;
CREATE ROLE regress_gradient_nobody;
GRANT SELECT ON g TO regress_gradient_reader;
SET ROLE regress_gradient_reader;
SELECT array_length(dptrain.gradient_sum(x, y, dptrain.gradient_request('{0,0,0}')), 1) AS state_length FROM g;
SET ROLE regress_gradient_nobody;
SELECT dptrain.gradient_sum(x, y, dptrain.gradient_request('{0,0,0}')) FROM g;
RESET ROLE;
DROP TABLE g, parallel_result;
DROP ROLE regress_gradient_reader, regress_gradient_nobody;
