-- Attack (issue 15, item 2): models across row-level security. Two tenants
-- may SELECT the same table, but a row security policy shows each only its
-- own rows. A model that is not private is a noiseless function of the rows
-- its creator saw, so it must stay with its creator (and the table's owner,
-- who sees every row): tenant B must neither see nor use tenant A's
-- noiseless model. A private model (epsilon, no seed, classes declared) is
-- differentially private in every row it was trained on, so roles that may
-- read the table see it too -- but only where every reader sees the same
-- rows (a table without row security): a model carries its exact n, so
-- tenant B would read how many rows A's policy shows A (hostile review
-- 2026-11-27; docs/governance.md).
SET client_min_messages = warning;
\set SHOW_CONTEXT never
\getenv abs_srcdir PG_ABS_SRCDIR
\set try_sql :abs_srcdir '/sql/include/try.sql'
\i :try_sql
-- (model ids vary from run to run: shown as N)
CREATE FUNCTION pg_temp.try_model(sql text) RETURNS TABLE (code text, message text) LANGUAGE sql AS
  $$ SELECT t.code, regexp_replace(t.message, '\m[0-9]+\M', 'N', 'g') FROM pg_temp.try(sql) t $$;

CREATE ROLE regress_landlord;
CREATE ROLE regress_tenant_a;
CREATE ROLE regress_tenant_b;
GRANT CREATE ON SCHEMA public TO regress_landlord;
SET ROLE regress_landlord;
CREATE TABLE public.rls_rows AS
SELECT i AS id, ARRAY[sin(i), cos(i)]::float8[] AS x, (sin(i) + 0.2 * cos(i) > 0) AS y,
       CASE WHEN i % 2 = 0 THEN 'regress_tenant_a' ELSE 'regress_tenant_b' END::name AS tenant
FROM generate_series(1, 400) i;
ALTER TABLE public.rls_rows ENABLE ROW LEVEL SECURITY;
CREATE POLICY own_rows ON public.rls_rows FOR SELECT USING (tenant = current_user);
GRANT SELECT ON public.rls_rows TO regress_tenant_a, regress_tenant_b;
RESET ROLE;

-- Tenant A trains on what it sees: a noiseless model, a seeded one (noise
-- anyone can subtract) and a private one.
SET ROLE regress_tenant_a;
SELECT count(*) AS rows_a_sees FROM public.rls_rows;
SELECT model_id AS noiseless_id FROM dp_train('public.rls_rows', 'y', 'x', algorithm => 'none',
       name => 'a_noiseless', batch_size => 10, epochs => 2) \gset
SELECT model_id AS seeded_id FROM dp_train('public.rls_rows', 'y', 'x', algorithm => 'bolton', epsilon => 1,
       name => 'a_seeded', seed => 4, batch_size => 10, epochs => 2) \gset
SELECT model_id AS private_id FROM dp_train('public.rls_rows', 'y', 'x', algorithm => 'bolton', epsilon => 1,
       name => 'a_private', batch_size => 10, epochs => 2) \gset
SELECT name, algorithm FROM dptrain.models ORDER BY name;

-- Tenant B sees none of them (the private one would tell it n = 200, the
-- number of rows its policy hides), and can use none.
SET ROLE regress_tenant_b;
SELECT count(*) AS rows_b_sees FROM public.rls_rows;
SELECT name, created_by FROM dptrain.models ORDER BY name;
SELECT * FROM pg_temp.try_model(format('SELECT dp_predict(%s, ''{0.5, 0.5}'')', :noiseless_id));
SELECT * FROM pg_temp.try_model(format('SELECT dp_predict(%L, ''{0.5, 0.5}'')', :'noiseless_id'));
SELECT * FROM pg_temp.try_model(format('SELECT dp_evaluate(%s, ''public.rls_rows'', ''y'', ''x'')', :seeded_id));
-- the same as for a model that does not exist
SELECT * FROM pg_temp.try_model('SELECT dp_predict(999999999, ''{0.5, 0.5}'')');
SELECT * FROM pg_temp.try_model(format('SELECT dp_predict(%s, ''{0.5, 0.5}'')', :private_id));
SELECT count(*) AS private_models_b_sees FROM dptrain.models WHERE details #> '{data,rows}' IS NOT NULL;

-- The owner of the table sees (and may use) all of them.
SET ROLE regress_landlord;
SELECT name, created_by FROM dptrain.models ORDER BY name;
SELECT dp_predict(:noiseless_id, '{0.5, 0.5}') IN ('true', 'false') AS owner_uses_the_noiseless_model;

-- dp_predict keeps the model it read for the other calls of its call site,
-- and a PL/pgSQL function's call sites last the whole transaction: called
-- as tenant A (through A's SECURITY DEFINER function), then by tenant B in
-- the same transaction, it gave B A's noiseless model. It reads the model
-- again for another caller: B is refused as above.
RESET ROLE;
CREATE FUNCTION public.vis_predict(model bigint) RETURNS text LANGUAGE plpgsql AS
  $$ BEGIN RETURN dp_predict(model, '{0.5, 0.5}'); END $$;
CREATE FUNCTION public.vis_predict_as_a(model bigint) RETURNS text LANGUAGE plpgsql SECURITY DEFINER AS
  $$ BEGIN RETURN public.vis_predict(model); END $$;
ALTER FUNCTION public.vis_predict_as_a(bigint) OWNER TO regress_tenant_a;
SET ROLE regress_tenant_b;
BEGIN;
SELECT public.vis_predict_as_a(:noiseless_id) IN ('true', 'false') AS a_predicts_for_b;
SELECT * FROM pg_temp.try_model(format('SELECT public.vis_predict(%s)', :noiseless_id));
COMMIT;
RESET ROLE;
DROP FUNCTION public.vis_predict_as_a(bigint), public.vis_predict(bigint);
SET ROLE regress_landlord;

-- A role without SELECT on the table sees none of them.
RESET ROLE;
CREATE ROLE regress_outsider;
SET ROLE regress_outsider;
SELECT count(*) AS models_outsider_sees FROM dptrain.models;
RESET ROLE;

-- An analyst (a budget, no SELECT) would read as the owner, whom the policy
-- does not limit: on the table itself it is refused (security_row_security).
-- The owner grants it every row through a view of its own instead: n is the
-- total (400), and a tenant would subtract what it sees. Only the analyst
-- and the owner see that model.
CREATE ROLE regress_rls_analyst;
SET ROLE regress_landlord;
SELECT dp_grant_budget('public.rls_rows', 'regress_rls_analyst', epsilon => 1);
CREATE VIEW public.rls_rows_all AS SELECT x, y FROM public.rls_rows;
SELECT dp_grant_budget('public.rls_rows_all', 'regress_rls_analyst', epsilon => 1);
SET ROLE regress_rls_analyst;
SELECT code, message FROM pg_temp.try($$SELECT dp_train('public.rls_rows', 'y', 'x', algorithm => 'bolton',
       epsilon => 1, batch_size => 10, epochs => 2)$$);
SELECT details #> '{data,rows}' AS analyst_n FROM dp_train('public.rls_rows_all', 'y', 'x', algorithm => 'bolton',
       epsilon => 1, name => 'analyst_private', batch_size => 10, epochs => 2);
SET ROLE regress_tenant_b;
SELECT name FROM dptrain.models ORDER BY name;
SET ROLE regress_landlord;
SELECT name, details #> '{data,rows}' AS n FROM dptrain.models ORDER BY name;
DROP VIEW public.rls_rows_all;
RESET ROLE;

-- Where every reader sees every row (no row security), a private model is
-- shared with the readers as before; a view (it may filter on current_user
-- or read a table with a policy) is not, and row security enabled later
-- withdraws a table's private models from its readers.
SET ROLE regress_landlord;
CREATE TABLE public.open_rows AS SELECT id, x, y FROM public.rls_rows;
CREATE VIEW public.own_view AS SELECT id, x, y FROM public.rls_rows WHERE tenant = current_user;
GRANT SELECT ON public.open_rows, public.own_view TO regress_tenant_a, regress_tenant_b;
SET ROLE regress_tenant_a;
SELECT count(*) AS view_rows_a_sees FROM public.own_view;
SELECT model_id AS open_id FROM dp_train('public.open_rows', 'y', 'x', algorithm => 'bolton', epsilon => 1,
       name => 'o_open', batch_size => 10, epochs => 2) \gset
SELECT model_id AS view_id FROM dp_train('public.own_view', 'y', 'x', algorithm => 'bolton', epsilon => 1,
       name => 'o_view', batch_size => 10, epochs => 2) \gset
SET ROLE regress_tenant_b;
SELECT name, details #> '{data,rows}' AS n FROM dptrain.models ORDER BY name;
SELECT dp_predict(:open_id, '{0.5, 0.5}') IN ('true', 'false') AS b_uses_the_open_model;
SELECT * FROM pg_temp.try_model(format('SELECT dp_predict(%s, ''{0.5, 0.5}'')', :view_id));
SET ROLE regress_landlord;
ALTER TABLE public.open_rows ENABLE ROW LEVEL SECURITY;
SET ROLE regress_tenant_b;
SELECT count(*) AS models_b_sees_after_rls FROM dptrain.models;
SET ROLE regress_tenant_a;
SELECT name FROM dptrain.models WHERE name IN ('o_open', 'o_view') ORDER BY name;
RESET ROLE;
DROP VIEW public.own_view;
DROP TABLE public.open_rows;

CREATE TABLE public.scratch_source AS SELECT id, x, y FROM public.rls_rows;
-- Once the table is dropped, its models stay with their creators only: a
-- later table that might reuse its OID gives its readers no view of them.
SELECT count(*) AS source_set FROM dptrain.models WHERE source_table::regclass = 'public.rls_rows'::regclass;
DROP TABLE public.rls_rows;
SELECT count(*) AS models_kept, count(*) FILTER (WHERE source_table::oid = 0) AS source_cleared
FROM dptrain.models WHERE name LIKE 'a\_%';
SET ROLE regress_tenant_b;
SELECT count(*) AS models_b_sees FROM dptrain.models;
SET ROLE regress_tenant_a;
SELECT name FROM dptrain.models ORDER BY name;
RESET ROLE;

-- A temporary table ends with its session (or ON COMMIT DROP, DISCARD TEMP)
-- without the sql_drop trigger above: a model or ledger row that kept its
-- OID would give a later table reusing that OID (its owner, its readers) a
-- view of the model -- here a noiseless one of rows copied from the table.
-- Nobody else reads a temporary table: its models and ledger rows name it
-- by its name only, the model stays with its creator.
GRANT SELECT ON public.scratch_source TO regress_tenant_a;
SET ROLE regress_tenant_a;
CREATE TEMP TABLE scratch AS SELECT * FROM public.scratch_source;
SELECT model_id AS temp_noiseless_id FROM dp_train('scratch', 'y', 'x', algorithm => 'none',
       name => 'a_temp_noiseless', batch_size => 10, epochs => 2) \gset
SELECT model_id AS temp_private_id FROM dp_train('scratch', 'y', 'x', algorithm => 'bolton', epsilon => 1,
       name => 'a_temp_private', batch_size => 10, epochs => 2) \gset
DISCARD TEMP;
RESET ROLE;
SELECT m.name, m.source_table::oid = 0 AS no_oid_kept, m.source ~ '^pg_temp_[0-9]+\.scratch$' AS named,
       l.source::oid = 0 AS ledger_no_oid_kept, l.source_name ~ '^pg_temp_[0-9]+\.scratch$' AS ledger_named
FROM dptrain.models m JOIN dptrain.ledger l ON l.model_id = m.id
WHERE m.id IN (:temp_noiseless_id, :temp_private_id) ORDER BY m.name;
SET ROLE regress_tenant_a;
SELECT name FROM dptrain.models WHERE name LIKE 'a\_temp%' ORDER BY name;
RESET ROLE;
DROP TABLE public.scratch_source;

DELETE FROM dptrain.ledger WHERE source_name IN ('public.rls_rows', 'public.scratch_source', 'public.open_rows',
                                               'public.own_view', 'public.rls_rows_all')
  OR source_name LIKE 'pg\_temp\_%.scratch';
DELETE FROM dptrain.models WHERE created_by IN ('regress_tenant_a', 'regress_tenant_b', 'regress_landlord',
                                                'regress_rls_analyst');
REVOKE CREATE ON SCHEMA public FROM regress_landlord;
DROP ROLE regress_landlord, regress_tenant_a, regress_tenant_b, regress_outsider, regress_rls_analyst;
