-- ALTER EXTENSION dptrain UPDATE from 0.1: the first part of the script.
-- 0.2 reshaped most objects (reference types for relations and roles, table
-- caps, the engine's aggregates, ...), so the update keeps the user data of
-- 0.1 (models, budgets, ledger), drops every other object of 0.1 and creates
-- those of 0.2 exactly as CREATE EXTENSION does (the 0.2 install script
-- follows this part), then restores the data (the last part). The test
-- test/regress/sql/extension_update.sql checks that an updated database has
-- the very objects of a fresh install and keeps every row.

-- 0.1's event trigger would fire on the drops below.
DROP EVENT TRIGGER dptrain_forget_dropped_sources;

-- The user data, aside in the extension's schema (dropped again at the end).
CREATE TABLE @extschema@.dptrain_update_models AS SELECT * FROM dptrain.models;
CREATE TABLE @extschema@.dptrain_update_budgets AS
    SELECT source::oid AS source, role::oid AS role, epsilon, delta, spent_epsilon, spent_delta, composition,
           granted_by::oid AS granted_by, granted_at FROM dptrain.budgets;
CREATE TABLE @extschema@.dptrain_update_ledger AS
    SELECT id, source::oid AS source, source_name, role::oid AS role, session_role, model_id, algorithm, epsilon,
           delta, budgeted, composition, charged_at FROM dptrain.ledger;

-- Every function of 0.1 outside its schema (the API), then the schema with
-- everything else in it.
DO $$
DECLARE
    f regprocedure;
BEGIN
    FOR f IN SELECT p.oid::regprocedure FROM pg_catalog.pg_depend d JOIN pg_catalog.pg_proc p ON p.oid = d.objid
             WHERE d.classid = 'pg_catalog.pg_proc'::pg_catalog.regclass AND d.deptype = 'e'
               AND d.refobjid = (SELECT e.oid FROM pg_catalog.pg_extension e WHERE e.extname = 'dptrain')
               AND p.pronamespace <> 'dptrain'::pg_catalog.regnamespace
    LOOP
        EXECUTE pg_catalog.format('DROP FUNCTION %s', f);
    END LOOP;
END
$$;
DROP SCHEMA dptrain CASCADE;

-- ---- the 0.2 install script ---------------------------------------------------
