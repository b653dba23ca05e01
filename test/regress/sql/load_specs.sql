-- Load specs (docs/loading-data.md, docs/governance.md): the preprocessing
-- dptrain load registers beside a table it creates, copied into the models
-- trained on it; whole for a role that may read the table, withheld for one
-- that may not; bounds or categories read from the data make a model not
-- private. (test/integration/load_spec_cli.sh runs the loader itself.)
SET client_min_messages = notice;
\getenv abs_srcdir PG_ABS_SRCDIR
\set try_sql :abs_srcdir '/sql/include/try.sql'
\i :try_sql

-- A loaded table as dptrain load makes it: the spec registered in the
-- transaction that creates the table. Its from_data is recomputed by the
-- server (the loader's "false" is not believed: the bounds came from the data).
BEGIN;
CREATE TABLE ls_loaded (id bigint PRIMARY KEY, x float8[] NOT NULL, y boolean NOT NULL);
INSERT INTO ls_loaded
SELECT i, ARRAY[(i % 7) / 7.0, ((i * 3) % 5) / 5.0], i % 3 = 0 FROM generate_series(1, 300) i;
SELECT dptrain.register_load_spec('ls_loaded', '{"format": "csv", "classes": [">50K", "<=50K"], "positive": ">50K",
  "numeric": {"age": {"min": 17, "max": 90, "bounds": "training data"}},
  "categorical": {"sex": {"categories": ["Female", "Male"], "list": "user"}}, "from_data": false}');
COMMIT;
SELECT spec->'from_data' AS from_data, created_by = current_user AS by_owner
FROM dptrain.load_specs WHERE relation = 'ls_loaded'::regclass;
-- The same table with declared bounds only: public.
BEGIN;
CREATE TABLE ls_public (LIKE ls_loaded);
INSERT INTO ls_public SELECT * FROM ls_loaded;
SELECT dptrain.register_load_spec('ls_public', '{"format": "csv", "classes": [">50K", "<=50K"], "positive": ">50K",
  "numeric": {"age": {"min": 0, "max": 100, "bounds": "user"}}, "categorical": {}}');
COMMIT;

-- ---- 1. who may register what ---------------------------------------------------------------
CREATE ROLE regress_ls_analyst;
SET ROLE regress_ls_analyst;
\x on
-- not the owner; the registry is neither readable nor writable by PUBLIC
SELECT * FROM pg_temp.try($$SELECT dptrain.register_load_spec('ls_loaded', '{"format": "csv"}')$$);
SELECT * FROM pg_temp.try($$SELECT spec FROM dptrain.load_specs$$);
SELECT * FROM pg_temp.try($$INSERT INTO dptrain.load_specs VALUES ('ls_loaded', '{}', 'me')$$);
\x off
RESET ROLE;
\x on
-- an existing table (created in another transaction), a view, a temporary table, a malformed spec
SELECT * FROM pg_temp.try($$SELECT dptrain.register_load_spec('ls_loaded', '{"format": "csv"}')$$);
CREATE VIEW ls_view AS SELECT * FROM ls_loaded;
SELECT * FROM pg_temp.try($$SELECT dptrain.register_load_spec('ls_view', '{"format": "csv"}')$$);
SELECT * FROM pg_temp.try($$CREATE TEMP TABLE ls_tmp (x float8[]);
                            SELECT dptrain.register_load_spec('ls_tmp', '{"format": "csv"}')$$);
SELECT * FROM pg_temp.try($$CREATE TABLE ls_bad (x float8[]);
                            SELECT dptrain.register_load_spec('ls_bad', '{"numeric": 3}')$$);
\x off
SELECT count(*) AS registered FROM dptrain.load_specs;

-- ---- 2. the models --------------------------------------------------------------------------
-- The owner (a reader) gets the whole spec, a warning and a NOTICE; the model is not private.
SELECT model_id AS reader_model FROM dp_train('ls_loaded', 'y', 'x', algorithm => 'bolton', epsilon => 1,
       epochs => 1, classes => ARRAY['false', 'true']) \gset
SELECT details->'load_spec' = (SELECT spec FROM dptrain.load_specs WHERE relation = 'ls_loaded'::regclass) AS whole_spec,
       details->'load_spec'->'from_data' AS from_data, details->'warnings' AS warnings, private
FROM dptrain.models WHERE id = :reader_model;
-- Declared bounds: the model stays private.
SELECT model_id AS public_model FROM dp_train('ls_public', 'y', 'x', algorithm => 'bolton', epsilon => 1,
       epochs => 1, classes => ARRAY['false', 'true']) \gset
SELECT details->'load_spec'->'from_data' AS from_data, details ? 'warnings' AS warned, private
FROM dptrain.models WHERE id = :public_model;
-- An analyst (a budget, no SELECT) gets the withheld form: no label values, bounds or categories.
SELECT dp_grant_budget('ls_loaded', 'regress_ls_analyst', 5, 0);
SET ROLE regress_ls_analyst;
SELECT model_id AS analyst_model FROM dp_train('ls_loaded', 'y', 'x', algorithm => 'bolton', epsilon => 1,
       epochs => 1, classes => ARRAY['false', 'true']) \gset
SELECT details->'load_spec' AS load_spec, private FROM dptrain.models WHERE id = :analyst_model;
RESET ROLE;
SELECT dp_revoke_budget('ls_loaded', 'regress_ls_analyst');
-- A reader under row-level security sees some rows only: the withheld form too (the spec's
-- bounds and categories are facts of every row).
CREATE ROLE regress_ls_tenant;
GRANT SELECT ON ls_loaded TO regress_ls_tenant;
ALTER TABLE ls_loaded ENABLE ROW LEVEL SECURITY;
CREATE POLICY ls_even ON ls_loaded FOR SELECT USING (id % 2 = 0);
SET ROLE regress_ls_tenant;
SELECT model_id AS tenant_model FROM dp_train('ls_loaded', 'y', 'x', algorithm => 'bolton', epsilon => 1,
       epochs => 1, classes => ARRAY['false', 'true']) \gset
SELECT details->'load_spec' AS load_spec FROM dptrain.models WHERE id = :tenant_model;
RESET ROLE;
ALTER TABLE ls_loaded DISABLE ROW LEVEL SECURITY;

-- ---- 3. a dropped table forgets its spec; models keep their copy ------------------------------
DROP VIEW ls_view;
DROP TABLE ls_loaded;
SELECT count(*) AS registered FROM dptrain.load_specs;
SELECT details->'load_spec'->>'format' AS kept FROM dptrain.models WHERE id = :reader_model;
-- a table created again under the same name has no spec: its models carry none
CREATE TABLE ls_loaded AS SELECT * FROM ls_public;
SELECT details ? 'load_spec' AS has_spec
FROM dp_train('ls_loaded', 'y', 'x', algorithm => 'none', epochs => 1, seed => 1, classes => ARRAY['false', 'true']);
DROP TABLE ls_loaded, ls_public;
DELETE FROM dptrain.models WHERE created_by IN ('regress_ls_analyst', 'regress_ls_tenant');
DELETE FROM dptrain.budgets WHERE role::text = 'regress_ls_analyst';
DROP ROLE regress_ls_analyst, regress_ls_tenant;
