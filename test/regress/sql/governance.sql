-- Training without read access, and what nobody but the data's readers may
-- see or run. An analyst role with no SELECT on a table can train on it
-- only with a budget from the owner, only privately, and sees only its own
-- models; the data, the shuffled temp table, the epoch aggregate and the
-- internal functions stay out of its reach.
SET client_min_messages = warning;
\set SHOW_CONTEXT never
\getenv abs_srcdir PG_ABS_SRCDIR
\set try_sql :abs_srcdir '/sql/include/try.sql'
\i :try_sql

-- ---- what PUBLIC may do ------------------------------------------------------
-- Every function of the extension a role without any grant may execute, and
-- every table of it it may read (through row security). Anything new here
-- must not expose data or a noiseless model.
CREATE ROLE regress_nobody;
SELECT p.oid::regprocedure AS public_function
FROM pg_depend d JOIN pg_proc p ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid
WHERE d.refclassid = 'pg_extension'::regclass
  AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'dptrain')
  AND has_function_privilege('regress_nobody', p.oid, 'EXECUTE')
ORDER BY p.oid::regprocedure::text;
SELECT c.oid::regclass AS public_table, has_table_privilege('regress_nobody', c.oid, 'SELECT') AS "select",
       has_table_privilege('regress_nobody', c.oid, 'INSERT, UPDATE, DELETE, TRUNCATE') AS write,
       c.relrowsecurity AS row_security
FROM pg_depend d JOIN pg_class c ON d.classid = 'pg_class'::regclass AND d.objid = c.oid
WHERE d.refclassid = 'pg_extension'::regclass
  AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'dptrain') AND c.relkind IN ('r', 'S')
ORDER BY c.oid::regclass::text;
-- The only write on models: a role renames its own (the name column only,
-- row security); it deletes them through dp_drop_model, not with a DELETE
-- privilege, which would let it LOCK the table (model_lifecycle.sql).
SELECT a.attname AS model_column_public_may_update
FROM pg_attribute a WHERE a.attrelid = 'dptrain.models'::regclass AND a.attnum > 0 AND NOT a.attisdropped
  AND has_column_privilege('regress_nobody', 'dptrain.models'::regclass, a.attnum, 'UPDATE');
SELECT has_table_privilege('regress_nobody', 'dptrain.models', 'INSERT') AS insert_models,
       has_table_privilege('regress_nobody', 'dptrain.models', 'DELETE') AS delete_models;
-- Privacy limits are not settings a user could change.
SELECT count(*) AS dptrain_settings FROM pg_settings WHERE name LIKE 'dptrain.%';

-- ---- the cast -----------------------------------------------------------------
CREATE ROLE regress_owner;
CREATE ROLE regress_analyst;
CREATE ROLE regress_reader;
CREATE ROLE regress_team;
GRANT regress_team TO regress_analyst;
GRANT CREATE ON SCHEMA public TO regress_owner, regress_analyst;
SET ROLE regress_owner;
CREATE TABLE patients AS SELECT i AS id, ARRAY[sin(i), cos(i)]::float8[] AS x, (sin(i) > 0) AS sick,
       CASE i % 3 WHEN 0 THEN 'flu' WHEN 1 THEN 'cold' ELSE 'covid' END AS diagnosis
FROM generate_series(1, 60) i;
GRANT SELECT ON patients TO regress_reader;
-- The owner trains a non-private model (it may read the data).
SELECT name, algorithm, epsilon FROM dp_train('patients', 'sick', 'x', algorithm => 'none', batch_size => 10,
                                              name => 'owner_noiseless', seed => 1);
RESET ROLE;

-- ---- an analyst without SELECT and without a budget ----------------------
SET ROLE regress_analyst;
\x on
SELECT * FROM pg_temp.try($$SELECT * FROM patients$$);
SELECT * FROM pg_temp.try($$SELECT dp_train('patients', 'sick', 'x', algorithm => 'bolton', epsilon => 0.1)$$);
-- the controller's internals are not executable
SELECT * FROM pg_temp.try($$SELECT dptrain.training_prepare('patients', 'sick', 'x')$$);
SELECT * FROM pg_temp.try($$SELECT dptrain.sgd_epoch(x, sick, NULL) FROM patients$$);
SELECT * FROM pg_temp.try($$SELECT dptrain.store_model('{}')$$);
SELECT * FROM pg_temp.try($$SELECT dptrain.training_drop('pg_temp.dptrain_shuffled_1')$$);
SELECT * FROM pg_temp.try($$SELECT dptrain.ledger_reserve('patients', 'x', 'regress_analyst', 'regress_analyst', true, 'bolton', 0.1, 0)$$);
SELECT * FROM pg_temp.try($$SELECT dptrain.ledger_log('patients', 'x', 'regress_analyst', true, 1, 'none', NULL, NULL, false)$$);
SELECT * FROM pg_temp.try($$SELECT dptrain.ledger_set_cap('patients', 100, 0, 'regress_analyst')$$);
SELECT * FROM pg_temp.try($$SELECT dptrain.ledger_grant('patients', 'regress_analyst', 100, 0, 'regress_analyst')$$);
-- nor are the catalogs writable
SELECT * FROM pg_temp.try($$INSERT INTO dptrain.budgets (source, role, epsilon, delta, granted_by) VALUES ('patients', 'regress_analyst', 100, 0, 'regress_analyst')$$);
SELECT * FROM pg_temp.try($$UPDATE dptrain.models SET epsilon = 0.1$$);
SELECT * FROM pg_temp.try($$DELETE FROM dptrain.ledger$$);
\x off
-- The owner's noiseless model is invisible, so it cannot be queried either.
SELECT count(*) AS models_visible FROM dptrain.models;
\x on
SELECT * FROM pg_temp.try($$SELECT dp_predict('owner_noiseless', ARRAY[0.5, 0.5])$$);
\x off
RESET ROLE;

-- ---- with a budget ------------------------------------------------------------
SET ROLE regress_owner;
SELECT dp_grant_budget('patients', 'regress_analyst', 1.0, 1e-6);
SET ROLE regress_analyst;
SELECT * FROM dp_budget_remaining('patients');
\x on
-- never without privacy: algorithm none, no epsilon, or a seed (known noise)
SELECT * FROM pg_temp.try($$SELECT dp_train('patients', 'sick', 'x', algorithm => 'none')$$);
SELECT * FROM pg_temp.try($$SELECT dp_train('patients', 'sick', 'x', algorithm => 'bolton')$$);
SELECT * FROM pg_temp.try($$SELECT dp_train('patients', 'sick', 'x', algorithm => 'bolton', epsilon => 0.5, seed => 7)$$);
-- not more than the budget (checked before any data is read)
SELECT * FROM pg_temp.try($$SELECT dp_train('patients', 'sick', 'x', algorithm => 'bolton', epsilon => 2)$$);
SELECT * FROM pg_temp.try($$SELECT dp_train('patients', 'sick', 'x', algorithm => 'bolton', epsilon => 0.5, delta => 1e-5)$$);
-- the list of classes would come from the data: it must be declared
SELECT * FROM pg_temp.try($$SELECT dp_train('patients', 'diagnosis', 'x', algorithm => 'bolton', epsilon => 0.5)$$);
-- Within the budget the run is admitted and trains (bolt-on, epsilon 0.5).
SELECT * FROM pg_temp.try($$SELECT dp_train('patients', 'sick', 'x', algorithm => 'bolton', epsilon => 0.5)$$);
\x off
-- Only the admitted run was charged: the refused runs cost nothing.
SELECT * FROM dp_budget_remaining('patients');
SELECT count(*) AS ledger_rows FROM dptrain.ledger;
-- A budget is per role: the analyst's group has none until it gets one, and
-- SET ROLE to the group then trains on the group's budget.
SET ROLE regress_team;
\x on
SELECT * FROM pg_temp.try($$SELECT dp_train('patients', 'sick', 'x', algorithm => 'bolton', epsilon => 0.5)$$);
\x off
RESET ROLE;

-- ---- whose rights read the data -------------------------------------------------
-- The owner's view calls a function that reports who runs it, whether it is
-- a security-restricted operation (no temp tables), and what it may do to the
-- shuffled temp table. For an analyst with a budget the data is read with the
-- owner's rights (never the extension owner's), and only the extension owner
-- may read the shuffled copy. (The view is read twice: for n and d before
-- the run is charged and the copy's temp table exists, then for the copy.)
-- It writes what it sees into a table of the owner's: its messages no
-- longer reach a caller without read access (security_oracle.sql, 5).
SET ROLE regress_owner;
CREATE TABLE spy_log (n serial, line text);
CREATE FUNCTION public.spy(x float8[]) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  shuffled regclass := (SELECT c.oid FROM pg_class c WHERE c.relname ~ '^dptrain_shuffled_[0-9]+$'
                        AND c.relnamespace = pg_my_temp_schema());
BEGIN
  IF x[1] = sin(1) THEN  -- once per query
    INSERT INTO public.spy_log (line) VALUES (format('spy runs as %s, temp table: %s', current_user,
      CASE WHEN shuffled IS NULL THEN 'not created yet'
           ELSE format('analyst may select: %s, owner may select: %s, owner may insert: %s',
                       has_table_privilege('regress_analyst', shuffled, 'SELECT'),
                       has_table_privilege('regress_owner', shuffled, 'SELECT'),
                       has_table_privilege('regress_owner', shuffled, 'INSERT')) END));
    BEGIN
      CREATE TEMP TABLE spy_stash (x float8[]);
      INSERT INTO public.spy_log (line) VALUES ('spy created a temp table');
    EXCEPTION WHEN insufficient_privilege THEN
      INSERT INTO public.spy_log (line) VALUES ('spy may not create a temp table: ' || SQLERRM);
    END;
  END IF;
  RETURN true;
END
$$;
CREATE VIEW patients_view AS SELECT id, x, sick FROM patients WHERE public.spy(x);
SELECT dp_grant_budget('patients_view', 'regress_analyst', 1.0, 0);
SET ROLE regress_analyst;
\x on
SELECT * FROM pg_temp.try($$SELECT dp_train('patients_view', 'sick', 'x', algorithm => 'bolton', epsilon => 0.5, batch_size => 10)$$);
\x off
RESET ROLE;
SELECT line FROM spy_log ORDER BY n;

-- A reader reads with its own rights; settings changed by code the source
-- runs are rolled back after each read (here: search_path, set by the
-- first row of every query and seen by the first row of the next one).
SET ROLE regress_owner;
CREATE TABLE path_log (who name, search_path text);
GRANT INSERT ON path_log TO regress_reader;
CREATE FUNCTION public.path_spy(x float8[]) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  IF x[1] = sin(1) THEN
    INSERT INTO public.path_log VALUES (current_user, current_setting('search_path'));
    PERFORM set_config('search_path', 'public, pg_catalog', true);
  END IF;
  RETURN true;
END
$$;
CREATE VIEW patients_logged AS SELECT id, x, sick FROM patients WHERE public.path_spy(x);
GRANT SELECT ON patients_logged TO regress_reader;
SET ROLE regress_reader;
SELECT name, algorithm FROM dp_train('patients_logged', 'sick', 'x', algorithm => 'none', batch_size => 10,
                                     name => 'reader_noiseless', seed => 2);
RESET ROLE;
SELECT who, search_path, count(*) FROM path_log GROUP BY 1, 2 ORDER BY 1, 2;
-- The control: two plain reads in one transaction, without dp_train in
-- between, and the second one does see what the first one set.
TRUNCATE path_log;
SET ROLE regress_reader;
BEGIN;
SELECT count(*) FROM patients_logged;
SELECT count(*) FROM patients_logged;
COMMIT;
RESET ROLE;
SELECT who, search_path, count(*) FROM path_log GROUP BY 1, 2 ORDER BY 1, 2;

-- ---- who calls: current_user at the call site -----------------------------------
-- A SECURITY DEFINER function acts for its owner: the analyst (who has a
-- budget) calling another role's wrapper trains as that role, which has
-- none, and is refused; the analyst's budget is not the wrapper's to spend.
CREATE ROLE regress_other;
GRANT CREATE ON SCHEMA public TO regress_other;
SET ROLE regress_other;
CREATE FUNCTION public.train_for_me() RETURNS bigint LANGUAGE sql SECURITY DEFINER AS
$$ SELECT model_id FROM dp_train('patients', 'sick', 'x', algorithm => 'bolton', epsilon => 0.5) $$;
SET ROLE regress_analyst;
\x on
SELECT * FROM pg_temp.try($$SELECT public.train_for_me()$$);
\x off
SELECT current_user;  -- and the switches are undone when dp_train fails

-- ---- who sees which model -------------------------------------------------------
-- creators see theirs, the owner of the table all of its models, readers its
-- private models only (security_model_visibility.sql), others none
RESET ROLE;
SELECT id AS owner_noiseless_id FROM dptrain.models WHERE name = 'owner_noiseless' \gset
SET ROLE regress_reader;
SELECT name, created_by, private FROM dptrain.models WHERE source LIKE 'public.patients%' ORDER BY name;
\x on
SELECT code, regexp_replace(message, '\m[0-9]+\M', 'N') AS message
FROM pg_temp.try(format('SELECT dp_predict(%s, ARRAY[0.5, 0.5])', :owner_noiseless_id));
\x off
SET ROLE regress_owner;
SELECT name, created_by, private FROM dptrain.models WHERE source LIKE 'public.patients%' ORDER BY name;
SET ROLE regress_analyst;
SELECT name, created_by FROM dptrain.models;
SELECT role, budgeted FROM dptrain.ledger;
RESET ROLE;

DROP VIEW patients_view, patients_logged;
DROP FUNCTION public.spy(float8[]), public.path_spy(float8[]), public.train_for_me();
DROP TABLE spy_log;
DROP TABLE patients, path_log;
DELETE FROM dptrain.ledger WHERE source_name LIKE 'public.patients%';
DELETE FROM dptrain.models WHERE created_by IN ('regress_owner', 'regress_reader', 'regress_analyst');
REVOKE CREATE ON SCHEMA public FROM regress_owner, regress_analyst, regress_other;
DROP ROLE regress_nobody, regress_owner, regress_analyst, regress_reader, regress_team, regress_other;
