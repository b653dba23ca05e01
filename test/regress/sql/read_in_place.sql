-- Reading in place (docs/performance.md, "Reading in place"; src/pg/local_source.h):
-- a run whose passes are exact sums (amp, optimum, pfw, dpagd) on a plain
-- table its caller may read makes no shuffled copy; its passes read the
-- table under one snapshot, in parallel when PostgreSQL chooses to. Every
-- other case keeps a copy, without the shuffle for these order-free runs
-- (shuffle_copy.sql). The model is the one the copy would give (the sums are
-- compensated, so only their rounding may differ).
CREATE TABLE ip_rows AS
SELECT i AS id,
       ARRAY[sin(i * 0.7), cos(i * 1.3), 0.25, sin(i * 0.11)]::float8[] AS x,
       (sin(i * 0.7) + 0.5 * cos(i * 1.3) + 0.3 * sin(i * 2.9) > 0) AS y,
       CASE WHEN sin(i * 0.7) > 0.3 THEN 'a' WHEN cos(i * 1.3) > 0 THEN 'b' ELSE 'c' END AS label
FROM generate_series(1, 3000) i;
-- The same rows behind a view: read through a copy.
CREATE VIEW ip_view AS SELECT * FROM ip_rows;
SET client_min_messages = warning;

-- The largest difference between two stored models' weights.
CREATE FUNCTION pg_temp.weight_gap(a text, b text) RETURNS float8 LANGUAGE sql AS $$
  SELECT max(abs(p.w - q.w)) FROM
    (SELECT w, o FROM dptrain.models m, unnest(m.weights) WITH ORDINALITY u(w, o) WHERE m.name = a) p
    JOIN (SELECT w, o FROM dptrain.models m, unnest(m.weights) WITH ORDINALITY u(w, o) WHERE m.name = b) q
    USING (o)
$$;
CREATE FUNCTION pg_temp.read_of(model text) RETURNS text LANGUAGE sql AS $$
  SELECT coalesce(details->'data'->>'read', 'shuffled copy') FROM dptrain.models WHERE name = model
$$;

-- ---- 1. every run of exact sums reads in place, and equals the copy's model -----
SELECT a.algorithm, a.intercept,
       pg_temp.read_of(a.algorithm || a.intercept || '_table') AS table_read,
       pg_temp.read_of(a.algorithm || a.intercept || '_view') AS view_read,
       pg_temp.weight_gap(a.algorithm || a.intercept || '_table', a.algorithm || a.intercept || '_view') < 1e-9
         AS same_model
FROM (VALUES ('amp', false), ('amp', true), ('optimum', false), ('pfw', false), ('dpagd', false)) a(algorithm, intercept),
     LATERAL (SELECT count(*) FROM dp_train('ip_rows', 'y', 'x', algorithm => a.algorithm, intercept => a.intercept,
                                            radius => CASE WHEN a.algorithm = 'pfw' THEN 10 END,
                                            lambda => CASE WHEN a.algorithm = 'optimum' THEN 1e-3 END,
                                            epsilon => CASE WHEN a.algorithm = 'optimum' THEN NULL ELSE 1 END,
                                            delta => CASE WHEN a.algorithm = 'optimum' THEN NULL ELSE 1e-6 END,
                                            seed => 3, classes => ARRAY['false', 'true'],
                                            name => a.algorithm || a.intercept || '_table')) t,
     LATERAL (SELECT count(*) FROM dp_train('ip_view', 'y', 'x', algorithm => a.algorithm, intercept => a.intercept,
                                            radius => CASE WHEN a.algorithm = 'pfw' THEN 10 END,
                                            lambda => CASE WHEN a.algorithm = 'optimum' THEN 1e-3 END,
                                            epsilon => CASE WHEN a.algorithm = 'optimum' THEN NULL ELSE 1 END,
                                            delta => CASE WHEN a.algorithm = 'optimum' THEN NULL ELSE 1e-6 END,
                                            seed => 3, classes => ARRAY['false', 'true'],
                                            name => a.algorithm || a.intercept || '_view')) v
ORDER BY 1, 2;

-- One-vs-all (three classes) and sparse rows read in place too.
SELECT count(*) FROM dp_train('ip_rows', 'label', 'x', algorithm => 'amp', epsilon => 1, delta => 1e-6, seed => 4,
                              classes => ARRAY['a', 'b', 'c'], name => 'multi_table');
SELECT count(*) FROM dp_train('ip_view', 'label', 'x', algorithm => 'amp', epsilon => 1, delta => 1e-6, seed => 4,
                              classes => ARRAY['a', 'b', 'c'], name => 'multi_view');
CREATE TABLE ip_sparse AS SELECT id, x::dptrain.sparsevec AS x, y FROM ip_rows;
SELECT count(*) FROM dp_train('ip_sparse', 'y', 'x', algorithm => 'amp', epsilon => 1, delta => 1e-6, seed => 3,
                              intercept => true, classes => ARRAY['false', 'true'], name => 'sparse_table');
SELECT pg_temp.read_of('multi_table') AS multi, pg_temp.weight_gap('multi_table', 'multi_view') < 1e-9 AS multi_same,
       pg_temp.read_of('sparse_table') AS sparse,
       pg_temp.weight_gap('sparse_table', 'amptrue_view') < 1e-9 AS sparse_same_as_dense_copy;

-- ---- 2. in parallel: PostgreSQL is made to plan the passes with workers ------
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
SELECT count(*) FROM dp_train('ip_rows', 'y', 'x', algorithm => 'amp', intercept => false, epsilon => 1, delta => 1e-6,
                              seed => 3, classes => ARRAY['false', 'true'], name => 'amp_parallel');
SELECT count(*) FROM dp_train('ip_rows', 'y', 'x', algorithm => 'dpagd', epsilon => 1, delta => 1e-6,
                              seed => 3, classes => ARRAY['false', 'true'], name => 'dpagd_parallel');
-- Every pass saw every row once (the run checks the count) and the sums agree.
SELECT pg_temp.read_of('amp_parallel') AS read,
       pg_temp.weight_gap('amp_parallel', 'ampfalse_view') < 1e-9 AS amp_same,
       pg_temp.weight_gap('dpagd_parallel', 'dpagdfalse_view') < 1e-9 AS dpagd_same;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
RESET parallel_leader_participation;

-- ---- 3. everything else keeps a copy (shuffled if the order matters) ----------
-- Epoch algorithms need the random order.
SELECT count(*) FROM dp_train('ip_rows', 'y', 'x', algorithm => 'bolton', epsilon => 1, seed => 3,
                              classes => ARRAY['false', 'true'], name => 'bolton_table');
-- Row security and inheritance children: reading them could run policies or
-- a child's code, so the rows are copied with the reader's rights.
CREATE TABLE ip_rls AS SELECT * FROM ip_rows;
ALTER TABLE ip_rls ENABLE ROW LEVEL SECURITY;
SELECT count(*) FROM dp_train('ip_rls', 'y', 'x', algorithm => 'amp', epsilon => 1, delta => 1e-6, seed => 3,
                              classes => ARRAY['false', 'true'], name => 'amp_rls');
CREATE TABLE ip_parent AS SELECT * FROM ip_rows WHERE id <= 1500;
CREATE TABLE ip_child () INHERITS (ip_parent);
INSERT INTO ip_child SELECT * FROM ip_rows WHERE id > 1500;
SELECT count(*) FROM dp_train('ip_parent', 'y', 'x', algorithm => 'amp', epsilon => 1, delta => 1e-6, seed => 3,
                              intercept => false, classes => ARRAY['false', 'true'], name => 'amp_inherited');
-- Features from ordinary columns are encoded in the copy.
CREATE TABLE ip_columns AS SELECT id, x[1] AS a, x[2] AS b, y FROM ip_rows;
SELECT count(*) FROM dp_train('ip_columns', 'y', features => ARRAY['a', 'b'], bounds => '{"a": [-1, 1], "b": [-1, 1]}',
                              algorithm => 'amp', epsilon => 1, delta => 1e-6, seed => 3, name => 'amp_columns');
SELECT name, pg_temp.read_of(name) AS read
FROM (VALUES ('bolton_table'), ('amp_rls'), ('amp_inherited'), ('amp_columns')) m(name) ORDER BY 1;
-- The inherited table's rows (parent and child) are all read by the copy.
SELECT pg_temp.weight_gap('amp_inherited', 'ampfalse_view') < 1e-9 AS inherited_same;

-- A role that may train but not read the table: a copy (without shuffle: AMP
-- does not depend on the order), which replaces the rows it could not use by
-- the public row without telling it.
CREATE ROLE regress_ip_analyst;
GRANT CREATE ON SCHEMA public TO regress_ip_analyst;
SELECT dp_grant_budget('ip_rows', 'regress_ip_analyst', 5.0, 1e-5);
SET ROLE regress_ip_analyst;
SELECT count(*) FROM dp_train('ip_rows', 'y', 'x', algorithm => 'amp', epsilon => 1, delta => 1e-6,
                              classes => ARRAY['false', 'true'], name => 'amp_analyst');
SELECT details->'data'->>'read' AS analyst_read FROM dptrain.models WHERE name = 'amp_analyst';
RESET ROLE;

DELETE FROM dptrain.models WHERE created_by = 'regress_ip_analyst';
DELETE FROM dptrain.budgets WHERE role::text = 'regress_ip_analyst';
DELETE FROM dptrain.ledger WHERE role::text = 'regress_ip_analyst';
REVOKE CREATE ON SCHEMA public FROM regress_ip_analyst;
DROP ROLE regress_ip_analyst;

-- ---- 4. the controller's functions: dptrain train reads as dp_train does -------
-- (src/pg/controller_in_place.cpp) In a REPEATABLE READ transaction an
-- order-free run of exact sums on a plain table it may read is read in place.
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT read, shuffled IS NULL AS no_copy, source_sql, source_oid = 'ip_rows'::regclass AS same_relation, rows, dim,
       x_expr IS NOT NULL AND y_expr IS NOT NULL AS has_row_expressions
FROM dptrain.training_prepare_run('ip_rows', 'y', 'x', 'amp', ARRAY['false', 'true']);
SELECT dptrain.training_in_place_pass('ip_rows', 'SELECT ARRAY[count(*)]::float8[] FROM ONLY public.ip_rows', '{}');
COMMIT;
-- A pass must read that relation ONLY and nothing else (its name is resolved
-- again when the pass is parsed): another relation, or the table with its
-- children, is refused; and only under one snapshot (REPEATABLE READ).
\set VERBOSITY terse
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT dptrain.training_in_place_pass('ip_rows', 'SELECT ARRAY[count(*)]::float8[] FROM ONLY public.ip_view', '{}');
ROLLBACK;
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT dptrain.training_in_place_pass('ip_rows', 'SELECT ARRAY[count(*)]::float8[] FROM public.ip_rows', '{}');
ROLLBACK;
BEGIN;
SELECT dptrain.training_in_place_pass('ip_rows', 'SELECT ARRAY[count(*)]::float8[] FROM ONLY public.ip_rows', '{}');
ROLLBACK;
\set VERBOSITY default
-- Otherwise the copy dp_train would make for that algorithm.
BEGIN;
SELECT read, shuffled IS NOT NULL AS copied, source_sql IS NULL AS not_in_place
FROM dptrain.training_prepare_run('ip_rows', 'y', 'x', 'amp', ARRAY['false', 'true']);
COMMIT;
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT a.algorithm, a.source, r.read, r.shuffled IS NOT NULL AS copied
FROM (VALUES ('amp', 'ip_view'), ('opdisc', 'ip_rows'), ('bolton', 'ip_rows'), ('dpsgd', 'ip_view')) a(algorithm, source),
     LATERAL dptrain.training_prepare_run(a.source::regclass, 'y', 'x', a.algorithm, ARRAY['false', 'true']) r
ORDER BY 1, 2;
COMMIT;

-- Leave no model behind (other tests count the models of an algorithm).
DELETE FROM dptrain.models WHERE source LIKE 'public.ip\_%';
DROP VIEW ip_view;
DROP TABLE ip_rows, ip_sparse, ip_rls, ip_child, ip_parent, ip_columns;
SELECT count(*) AS models_left FROM dptrain.models WHERE source LIKE 'public.ip\_%';

-- Leave no model or ledger row behind: other files read the whole ledger.
DELETE FROM dptrain.ledger WHERE source_name LIKE 'public.ip\_%';
