-- The ledger composes under one neighbouring relation, replace-one
-- (docs/governance.md, "Basic composition"): a run stated under
-- add/remove-one (the DP-SGD family, DP-AGD) is charged its group-privacy
-- equivalent (2 epsilon, (1 + e^epsilon) delta), and Bolt-on's held-out
-- tuning, a replace-one argument, refuses those algorithms.
\getenv abs_srcdir PG_ABS_SRCDIR
\set try_sql :abs_srcdir '/sql/include/try.sql'
\i :try_sql
CREATE TABLE adj AS
SELECT i AS id, ARRAY[sin(i * 0.7), 0.5 * cos(i * 1.3)]::float8[] AS x, sin(i * 0.7) > 0 AS y
FROM generate_series(1, 600) i;
CREATE ROLE regress_adj_analyst;
GRANT SELECT ON adj TO regress_adj_analyst;
SET client_min_messages = warning;
SELECT dp_grant_budget('adj', 'regress_adj_analyst', epsilon => 3, delta => 1e-4);

SET ROLE regress_adj_analyst;
-- Bolt-on (replace-one) pays its own (1, 1e-6).
SELECT algorithm, epsilon, delta, details->'privacy' ? 'charged' AS records_a_charge
FROM dp_train('adj', 'y', 'x', algorithm => 'bolton', epsilon => 1, delta => 1e-6);
SELECT * FROM dp_budget_remaining('adj');
-- DP-SGD at (0.5, 1e-6), add/remove-one: charged (1, (1 + e^0.5) 1e-6) =
-- (1, 2.6487212707e-6); the model keeps its own guarantee (the accountant's
-- epsilon, just below 0.5) and records the charge.
SELECT algorithm, epsilon <= 0.5 AS within, delta, details->'privacy'->>'adjacency' AS adjacency,
       details->'privacy'->'charged'->>'adjacency' AS charged_under,
       (details->'privacy'->'charged'->>'epsilon')::float8 AS charged_epsilon,
       round((details->'privacy'->'charged'->>'delta')::numeric * 1e6, 10) AS charged_delta_e6
FROM dp_train('adj', 'y', 'x', algorithm => 'dpsgd', epsilon => 0.5, delta => 1e-6, epochs => 1);
-- 3 - 1 - 1 = 1 and 1e-4 - 1e-6 - 2.6487212707e-6 (numeric: 15 significant digits per charge)
SELECT * FROM dp_budget_remaining('adj');
SELECT algorithm, epsilon, round(delta * 1e6, 10) AS delta_e6 FROM dptrain.ledger
WHERE source = 'adj'::regclass ORDER BY id;
-- DP-SGD at 0.6 would fit the 1 left by its own epsilon, but costs 1.2: refused
-- before any row is read, nothing charged.
SELECT * FROM pg_temp.try($$SELECT dp_train('adj', 'y', 'x', algorithm => 'dpsgd', epsilon => 0.6, delta => 1e-6,
                                            epochs => 1)$$);
-- DP-AGD alike: (0.5, 1e-6) costs (1, 2.6487212707e-6), exactly what is left of epsilon.
SELECT algorithm, epsilon, (details->'privacy'->'charged'->>'epsilon')::float8 AS charged_epsilon
FROM dp_train('adj', 'y', 'x', algorithm => 'dpagd', epsilon => 0.5, delta => 1e-6, options => '{"splits": 10}');
SELECT * FROM dp_budget_remaining('adj');
RESET ROLE;
-- A seeded run (its owner, without a budget: allowed, not private) is charged
-- in the ledger like any other, and its model records that charge too (it
-- recorded none: the ledger charged what no model said).
CREATE TEMP TABLE seeded_run AS
SELECT * FROM dp_train('adj', 'y', 'x', algorithm => 'dpsgd', epsilon => 0.5, delta => 1e-6, epochs => 1, seed => 1);
SELECT l.algorithm, l.budgeted, (r.details->'privacy'->'charged'->>'epsilon')::numeric = l.epsilon AS same_epsilon,
       (r.details->'privacy'->'charged'->>'delta')::numeric = l.delta AS same_delta
FROM seeded_run r JOIN dptrain.ledger l ON l.model_id = r.model_id;

-- Held-out tuning (Bolt-on Algorithm 3) splits the rows by position: a
-- replace-one argument. DP-AGD is refused there before anything is charged,
-- and tuned by Liu-Talwar random stopping by default.
SELECT * FROM pg_temp.try($$SELECT dp_tune('adj', 'y', 'x', algorithm => 'dpagd', epsilon => 1, delta => 1e-6,
                                           method => 'holdout', lambdas => '{0.001}', epochs => '{1}')$$);
SELECT algorithm, details->'tuning'->>'method' AS method
FROM dp_tune('adj', 'y', 'x', algorithm => 'dpagd', epsilon => 1, delta => 1e-6,
             grid => '{"lambda": [0.001], "splits": [10]}');
SELECT count(*) AS charged_runs FROM dptrain.ledger WHERE source = 'adj'::regclass;

DELETE FROM dptrain.models WHERE source_table = 'adj'::regclass;
DELETE FROM dptrain.ledger WHERE source = 'adj'::regclass;
DROP TABLE adj;
DROP ROLE regress_adj_analyst;
