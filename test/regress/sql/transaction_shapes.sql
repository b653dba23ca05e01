-- dp_train and dp_tune in the transaction and statement shapes a user (or
-- an attacker) may wrap them in: a private run is charged in a transaction
-- of its own (src/pg/charge_worker.cpp), so whatever the shape, every run
-- that starts is charged, each call once, and a refusal known before the
-- charge comes before it. (ROLLBACK, savepoints, exception blocks and a
-- statement failing after the row was sent: security_oracle.sql, section 3;
-- a hot standby and PREPARE TRANSACTION: test/tap/005_standby_prepared.pl.)
\getenv abs_srcdir PG_ABS_SRCDIR
\set try_sql :abs_srcdir '/sql/include/try.sql'
\i :try_sql
CREATE TABLE ts AS
SELECT i AS id, ARRAY[sin(i * 0.7), 0.5 * cos(i * 1.3)]::float8[] AS x, sin(i * 0.7) > 0 AS y
FROM generate_series(1, 300) i;
CREATE ROLE regress_ts_analyst;   -- a budget, no read access
SET client_min_messages = warning;
SELECT dp_grant_budget('ts', 'regress_ts_analyst', epsilon => 10, delta => 1e-5);
SELECT dp_set_table_budget('ts', epsilon => 20, delta => 1e-5);
CREATE VIEW ts_spent AS
SELECT count(*) AS runs, count(m.id) AS models, coalesce(sum(l.epsilon), 0) AS epsilon
FROM dptrain.ledger l LEFT JOIN dptrain.models m ON m.id = l.model_id
WHERE l.source::regclass = 'ts'::regclass;

-- ---- 1. a transaction that cannot write: refused before the charge ------------
-- (Before: charged, then failed creating its temp table or storing its model:
-- 25006 "cannot execute CREATE TABLE in a read-only transaction", paid.)
SET ROLE regress_ts_analyst;
BEGIN READ ONLY;
SELECT * FROM pg_temp.try($$SELECT dp_train('ts', 'y', 'x', algorithm => 'bolton', epsilon => 1, epochs => 1,
                          classes => ARRAY['false', 'true'])$$);
SELECT * FROM pg_temp.try($$SELECT dp_tune('ts', 'y', 'x', epsilon => 1, lambdas => '{0.001}', epochs => '{1}',
                          classes => ARRAY['false', 'true'])$$);
COMMIT;
SET default_transaction_read_only = on;
SELECT code, message FROM pg_temp.try($$SELECT dp_train('ts', 'y', 'x', algorithm => 'bolton', epsilon => 1,
                                      epochs => 1, classes => ARRAY['false', 'true'])$$);
RESET default_transaction_read_only;
SELECT * FROM dp_budget_remaining('ts');
RESET ROLE;
-- the controller's store_model (a reader; charged to the cap) likewise
BEGIN READ ONLY;
SELECT code, message FROM pg_temp.try($$SELECT dptrain.store_model(jsonb_build_object('format', 'dptrain-model',
  'version', 1, 'algorithm', 'bolton', 'loss', 'logistic', 'huber_h', 0.1, 'feature_bound', 1.0,
  'classes', ARRAY['false', 'true'], 'weights', jsonb_build_array(jsonb_build_array(0.5, -0.5)),
  'epsilon', 1, 'delta', 0, 'seeded', false, 'details', jsonb_build_object('data', jsonb_build_object('source', 'public.ts'))))$$);
COMMIT;
SELECT * FROM dp_table_budget_remaining('ts');
SELECT * FROM ts_spent;
-- a PARALLEL SAFE wrapper, forced into a parallel worker: refused there
-- (before: a reader's run was charged, then failed on its temp table; a run
-- without read access failed in the worker unseen and the query hung)
CREATE FUNCTION public.ts_wrapper() RETURNS bigint LANGUAGE plpgsql PARALLEL SAFE AS $$
BEGIN
  RETURN (SELECT model_id FROM dp_train('ts', 'y', 'x', algorithm => 'bolton', epsilon => 1, epochs => 1,
                                        classes => ARRAY['false', 'true']));
END $$;
GRANT EXECUTE ON FUNCTION public.ts_wrapper() TO regress_ts_analyst;
SET force_parallel_mode = on;
SELECT code, message FROM pg_temp.try('SELECT public.ts_wrapper()');
SET ROLE regress_ts_analyst;
SELECT code, message FROM pg_temp.try('SELECT public.ts_wrapper()');
RESET ROLE;
RESET force_parallel_mode;
DROP FUNCTION public.ts_wrapper();
-- and a read-only transaction may still use a model (dp_predict, dp_evaluate):
SELECT model_id AS m FROM dp_train('ts', 'y', 'x', algorithm => 'bolton', epsilon => 1, epochs => 1) \gset
BEGIN READ ONLY;
SELECT dp_predict(:m, ARRAY[0.5, 0.5]) IS NOT NULL AS predicts, n FROM dp_evaluate(:m, 'ts', 'y', 'x');
COMMIT;

-- ---- 2. every call is one run, charged once --------------------------------------
SET ROLE regress_ts_analyst;
-- once per outer row of a LATERAL join
SELECT e, m.epsilon FROM generate_series(1, 3) e,
       LATERAL dp_train('ts', 'y', 'x', algorithm => 'bolton', epsilon => 0.1 * e, epochs => 1,
                        classes => ARRAY['false', 'true']) m;
-- (dp_train(...)).* is refused when planned: PostgreSQL expands it into one
-- call per column, eight runs (eight charges, eight models) for one row
-- mixing their columns. (Before: charged 8 x 0.5 here.) One call per row
-- in the select list stays one run per row.
SELECT * FROM pg_temp.try($$SELECT (dp_train('ts', 'y', 'x', algorithm => 'bolton', epsilon => 0.5, epochs => 1,
                          classes => ARRAY['false', 'true'])).*$$);
SELECT code, message FROM pg_temp.try($$SELECT (dp_tune('ts', 'y', 'x', epsilon => 0.5, lambdas => '{0.001}',
                                      epochs => '{1}', classes => ARRAY['false', 'true'])).*$$);
-- ... in a VALUES list too, a range table entry of its own (before: not
-- refused, 8 runs of 0.5 here)
SELECT code, message FROM pg_temp.try($$SELECT count(*) FROM (VALUES ((dp_train('ts', 'y', 'x', algorithm => 'bolton',
                                      epsilon => 0.5, epochs => 1, classes => ARRAY['false', 'true'])).*)) v$$);
SELECT (dp_train('ts', 'y', 'x', algorithm => 'bolton', epsilon => 0.05, epochs => 1,
                 classes => ARRAY['false', 'true'])).epsilon
FROM generate_series(1, 2);
-- inside EXPLAIN ANALYZE (nothing shown, but run, stored and charged)
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT * FROM dp_train('ts', 'y', 'x', algorithm => 'bolton', epsilon => 0.5, epochs => 1, classes => ARRAY['false', 'true']);
-- a prepared statement executed twice
PREPARE twice AS SELECT epsilon FROM dp_train('ts', 'y', 'x', algorithm => 'bolton', epsilon => 0.5, epochs => 1,
                                               classes => ARRAY['false', 'true']);
EXECUTE twice;
EXECUTE twice;
DEALLOCATE twice;
-- a cursor closed before its first fetch never ran
BEGIN;
DECLARE c CURSOR FOR SELECT * FROM dp_train('ts', 'y', 'x', algorithm => 'bolton', epsilon => 0.5, epochs => 1,
                                            classes => ARRAY['false', 'true']);
CLOSE c;
COMMIT;
-- SERIALIZABLE: refused before anything is read, nothing charged (its
-- predicate locks would show what the owner's code visited:
-- security_serializable.sql); REPEATABLE READ: charged like any other
BEGIN ISOLATION LEVEL SERIALIZABLE;
SELECT code, message FROM pg_temp.try($$SELECT dp_train('ts', 'y', 'x', algorithm => 'bolton', epsilon => 0.5,
                                      epochs => 1, classes => ARRAY['false', 'true'])$$);
COMMIT;
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT epsilon FROM dp_train('ts', 'y', 'x', algorithm => 'bolton', epsilon => 0.5, epochs => 1,
                             classes => ARRAY['false', 'true']);
COMMIT;
-- 0.1 + 0.2 + 0.3 + 0.05 + 0.05 + 0.5 + 0.5 + 0.5 + 0.5 = 2.7 of 10
SELECT * FROM dp_budget_remaining('ts');
RESET ROLE;
SELECT * FROM ts_spent;

DELETE FROM dptrain.models WHERE source_table = 'ts'::regclass;
DELETE FROM dptrain.ledger WHERE source = 'ts'::regclass;
DROP VIEW ts_spent;
DROP TABLE ts;
DROP ROLE regress_ts_analyst;
