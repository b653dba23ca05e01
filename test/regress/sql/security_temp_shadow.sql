-- Attack: a role that may train but not read runs its own code as the
-- table's owner through its temporary schema (docs/governance.md, "The
-- caller's temporary schema"). The copy of a run without read access reads
-- the source with the owner's rights, in the caller's session. The owner's
-- view filters through a function that pins its own schema
-- (SET search_path = ts_clinic, a common hardening) and names its table
-- `consents` unqualified: PostgreSQL then looks in pg_temp *first*. The
-- analyst creates a temporary view `consents` calling a temporary function
-- and lets the owner read it: without the check, the function ran as the
-- owner, read every diagnosis and showed them in a WARNING. A run without
-- read access is now refused (55000, uncharged) while the session's
-- temporary schema holds a relation or type whose owner lacks the reader's
-- privileges; a superuser's temporary objects (this test's) do not count.
SET client_min_messages = warning;
\set SHOW_CONTEXT never
CREATE ROLE regress_ts_owner;
CREATE ROLE regress_ts_analyst;
CREATE SEQUENCE public.ts_calls;
GRANT USAGE ON SEQUENCE public.ts_calls TO PUBLIC;
CREATE SCHEMA ts_clinic AUTHORIZATION regress_ts_owner;
SET ROLE regress_ts_owner;
CREATE TABLE ts_clinic.visits AS
SELECT i AS id, ARRAY[sin(i), cos(i)]::float8[] AS x, (sin(i) > 0) AS y, 'secret-' || i AS diagnosis
FROM generate_series(1, 40) i;
CREATE TABLE ts_clinic.consents AS SELECT i AS id FROM generate_series(1, 40) i;
CREATE FUNCTION ts_clinic.consented(p int) RETURNS boolean LANGUAGE plpgsql STABLE
SET search_path = ts_clinic AS $$ BEGIN RETURN EXISTS (SELECT 1 FROM consents c WHERE c.id = p); END $$;
CREATE VIEW ts_clinic.training_rows AS SELECT x, y FROM ts_clinic.visits v WHERE ts_clinic.consented(v.id);
GRANT USAGE ON SCHEMA ts_clinic TO regress_ts_analyst;
SELECT dp_grant_budget('ts_clinic.training_rows', 'regress_ts_analyst', 10, 0);
RESET ROLE;
-- a superuser's temporary table in the session is no threat (it may read anything)
CREATE TEMP TABLE ts_superusers_own (v int);

SET ROLE regress_ts_analyst;
SELECT count(*) FROM ts_clinic.visits;  -- no read access
CREATE FUNCTION pg_temp.ts_steal() RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  PERFORM nextval('public.ts_calls');
  RAISE WARNING 'stolen as %: %', current_user,
    (SELECT string_agg(diagnosis, ', ' ORDER BY id) FROM (SELECT id, diagnosis FROM ts_clinic.visits LIMIT 3) d);
  RETURN true;
END $$;
CREATE TEMP VIEW consents AS SELECT i AS id FROM generate_series(1, 40) i WHERE pg_temp.ts_steal();
GRANT SELECT ON pg_temp.consents TO regress_ts_owner;
-- 1. refused before it reads (and before the charge): the impostor never runs
SELECT model_id > 0 AS trained FROM dp_train('ts_clinic.training_rows', 'y', 'x', algorithm => 'bolton',
       epsilon => 1, epochs => 1, batch_size => 5);
SELECT * FROM dp_budget_remaining('ts_clinic.training_rows');
-- 2. a temporary type counts too (types are looked up in pg_temp as well)
DROP VIEW pg_temp.consents;
CREATE TYPE pg_temp.ts_mood AS ENUM ('calm');
SELECT model_id > 0 AS trained FROM dp_train('ts_clinic.training_rows', 'y', 'x', algorithm => 'bolton',
       epsilon => 1, epochs => 1, batch_size => 5);
-- 3. without them the run goes on, reading the owner's own consents
DROP TYPE pg_temp.ts_mood;
SELECT model_id > 0 AS trained FROM dp_train('ts_clinic.training_rows', 'y', 'x', algorithm => 'bolton',
       epsilon => 1, epochs => 1, batch_size => 5);
SELECT * FROM dp_budget_remaining('ts_clinic.training_rows');
RESET ROLE;
SELECT last_value, is_called FROM public.ts_calls;  -- the analyst's function never ran

DROP FUNCTION pg_temp.ts_steal();
DROP TABLE ts_superusers_own;
DELETE FROM dptrain.ledger WHERE role = 'regress_ts_analyst'::regrole;
DELETE FROM dptrain.models WHERE created_by = 'regress_ts_analyst';
DROP SCHEMA ts_clinic CASCADE;
DROP SEQUENCE public.ts_calls;
DROP ROLE regress_ts_owner, regress_ts_analyst;
