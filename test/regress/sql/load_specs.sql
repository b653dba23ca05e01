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
-- Row security on the table withholds the spec from every model, the owner's too: the
-- spec describes rows a policy hides from some readers. While the table has row security a
-- private model of it is shown to its creator and the owner only (security_model_visibility);
-- once row security is off, its readers see the model -- with the spec withheld (here the
-- tenant reads the superuser's model of ls_public: no file name, no labels).
GRANT SELECT ON ls_public TO regress_ls_tenant;
ALTER TABLE ls_public ENABLE ROW LEVEL SECURITY;
CREATE POLICY ls_even ON ls_public FOR SELECT USING (id % 2 = 0);
SELECT model_id AS owner_rls_model FROM dp_train('ls_public', 'y', 'x', algorithm => 'bolton', epsilon => 1,
       epochs => 1, classes => ARRAY['false', 'true']) \gset
SET ROLE regress_ls_tenant;
SELECT count(*) AS tenant_sees_under_row_security FROM dptrain.models WHERE id = :owner_rls_model;
RESET ROLE;
ALTER TABLE ls_public DISABLE ROW LEVEL SECURITY;
SET ROLE regress_ls_tenant;
SELECT private, details->'load_spec' AS load_spec FROM dptrain.models WHERE id = :owner_rls_model;
RESET ROLE;
DROP POLICY ls_even ON ls_public;
REVOKE SELECT ON ls_public FROM regress_ls_tenant;
-- The controller's path (dptrain.store_model) takes a role that may read any one column:
-- SELECT on id alone gets the withheld form; and a load_spec the caller wrote into the
-- model's JSON is dropped (ls_plain has no registered spec).
CREATE FUNCTION pg_temp.ls_model(source text, name text, load_spec jsonb) RETURNS jsonb LANGUAGE sql AS $$
  SELECT jsonb_build_object('format', 'dptrain-model', 'version', 1, 'name', name, 'algorithm', 'bolton',
    'loss', 'logistic', 'huber_h', 0.1, 'feature_bound', 1.0, 'classes', '["false", "true"]'::jsonb,
    'weights', '[[0.5, -0.5]]'::jsonb, 'epsilon', 1, 'delta', 0, 'seeded', false,
    'details', jsonb_build_object('data', jsonb_build_object('source', source), 'load_spec', load_spec))
$$;
CREATE ROLE regress_ls_controller;
GRANT EXECUTE ON FUNCTION dptrain.store_model(jsonb) TO regress_ls_controller;
GRANT SELECT (id) ON ls_loaded TO regress_ls_controller;
CREATE TABLE ls_plain AS SELECT * FROM ls_public;
GRANT SELECT ON ls_plain TO regress_ls_controller;
SET ROLE regress_ls_controller;
SELECT dptrain.store_model(pg_temp.ls_model('public.ls_loaded', 'ls_id_only', NULL)) AS id_only_model \gset
SELECT details->'load_spec' AS load_spec, private FROM dptrain.models WHERE id = :id_only_model;
SELECT dptrain.store_model(pg_temp.ls_model('public.ls_plain', 'ls_forged',
       '{"format": "csv", "numeric": {"age": {"min": 0, "max": 1, "bounds": "user"}}, "from_data": false}'))
       AS forged_model \gset
SELECT details ? 'load_spec' AS has_spec FROM dptrain.models WHERE id = :forged_model;
RESET ROLE;
DELETE FROM dptrain.models WHERE created_by = 'regress_ls_controller';
DROP TABLE ls_plain;
REVOKE SELECT (id) ON ls_loaded FROM regress_ls_controller;
REVOKE EXECUTE ON FUNCTION dptrain.store_model(jsonb) FROM regress_ls_controller;
DROP ROLE regress_ls_controller;

-- A view of a table loaded with data-derived bounds shows the same rows: its models are not
-- private either (through another view too); the spec stays withheld (it maps the table's
-- columns, not the view's). A view of a table with declared bounds stays private.
CREATE VIEW ls_view2 AS SELECT id, x, y FROM ls_view WHERE id > 0;
SELECT model_id AS view_model FROM dp_train('ls_view2', 'y', 'x', algorithm => 'bolton', epsilon => 1,
       epochs => 1, classes => ARRAY['false', 'true']) \gset
SELECT details->'load_spec' AS load_spec, private FROM dptrain.models WHERE id = :view_model;
CREATE VIEW ls_public_view AS SELECT * FROM ls_public;
SELECT model_id AS public_view_model FROM dp_train('ls_public_view', 'y', 'x', algorithm => 'bolton',
       epsilon => 1, epochs => 1, classes => ARRAY['false', 'true']) \gset
SELECT details ? 'load_spec' AS has_spec, private FROM dptrain.models WHERE id = :public_view_model;
DROP VIEW ls_view2, ls_public_view;

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

-- Leave no model or ledger row behind: other files read the whole ledger.
DELETE FROM dptrain.ledger WHERE source_name LIKE 'public.ls\_%';
DELETE FROM dptrain.models WHERE source LIKE 'public.ls\_%';
