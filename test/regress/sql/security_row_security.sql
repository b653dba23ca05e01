-- Attack (hostile review, 2026-11-27): row-level security, security_invoker views and
-- schemas for a run without read access. Such a run reads the source with
-- its owner's rights (docs/governance.md, "Identities"), to whom the
-- policies of other roles do not apply. On a table with row security that
-- trained on (and counted in n) every row -- also the rows the caller's own
-- policy hides from it: a tenant that may SELECT the label but not the
-- features (column privileges) named the features it cannot read, its run
-- read as the owner, and the model's n told it how many rows its policy
-- hides (a count no DP release covers). A security_invoker view read as its
-- owner applied the owner's rights to its tables instead of the caller's;
-- and a relation in a schema the caller may not use was trained on by OID.
-- Now each is refused (42501) before anything is charged; readers read with
-- their own rights, their policies applied, as before.
SET client_min_messages = warning;
\set SHOW_CONTEXT never
\getenv abs_srcdir PG_ABS_SRCDIR
\set try_sql :abs_srcdir '/sql/include/try.sql'
\i :try_sql

CREATE ROLE regress_rs_owner;
CREATE ROLE regress_rs_tenant;    -- SELECT on the label only, under a policy
CREATE ROLE regress_rs_analyst;   -- a budget, no SELECT
CREATE ROLE regress_rs_bypass BYPASSRLS;
CREATE SCHEMA rs AUTHORIZATION regress_rs_owner;
CREATE SCHEMA rs_closed AUTHORIZATION regress_rs_owner;
GRANT USAGE ON SCHEMA rs TO regress_rs_tenant, regress_rs_analyst, regress_rs_bypass;
SET ROLE regress_rs_owner;
CREATE TABLE rs.visits AS
SELECT i AS id, ARRAY[sin(i), cos(i)]::float8[] AS x, ARRAY[cos(i)]::float8[] AS x2, (sin(i) > 0) AS y,
       CASE WHEN i % 4 = 0 THEN 'regress_rs_tenant' ELSE 'someone_else' END::name AS tenant
FROM generate_series(1, 400) i;
ALTER TABLE rs.visits ENABLE ROW LEVEL SECURITY;
CREATE POLICY own_rows ON rs.visits FOR SELECT USING (tenant = current_user);
GRANT SELECT (y, x2) ON rs.visits TO regress_rs_tenant;
SELECT dp_grant_budget('rs.visits', r, epsilon => 10)
FROM unnest(ARRAY['regress_rs_tenant', 'regress_rs_analyst', 'regress_rs_bypass']) r;
RESET ROLE;

-- 1. The tenant is a reader of (y, x2): its run reads with its own rights,
--    and its policy shows it 100 rows.
SET ROLE regress_rs_tenant;
SELECT count(*) AS rows_tenant_sees FROM rs.visits;
SELECT details #> '{data,rows}' AS n_reader FROM dp_train('rs.visits', 'y', 'x2', algorithm => 'bolton',
       epsilon => 1, batch_size => 10, epochs => 1);
-- Naming features it cannot read made it a role without read access, read as
-- the owner: it got a model of 400 rows, 300 of which its policy hides.
SELECT * FROM pg_temp.try($$SELECT dp_train('rs.visits', 'y', 'x', algorithm => 'bolton', epsilon => 1,
       batch_size => 10, epochs => 1)$$);
SELECT * FROM pg_temp.try($$SELECT dp_tune('rs.visits', 'y', 'x', algorithm => 'bolton', epsilon => 1,
       lambdas => '{0.01}', epochs => '{1}', batch_sizes => '{10}')$$);
-- 2. A role with a budget and no SELECT at all: refused too (its policy, if
--    any, would not apply read as the owner).
SET ROLE regress_rs_analyst;
SELECT * FROM pg_temp.try($$SELECT dp_train('rs.visits', 'y', 'x', algorithm => 'bolton', epsilon => 1,
       batch_size => 10, epochs => 1)$$);
RESET ROLE;
-- ... also when the owner is subject to its own policies (FORCE): they are
-- the owner's, not the caller's.
ALTER TABLE rs.visits FORCE ROW LEVEL SECURITY;
SET ROLE regress_rs_analyst;
SELECT code, message FROM pg_temp.try($$SELECT dp_train('rs.visits', 'y', 'x', algorithm => 'bolton',
       epsilon => 1, batch_size => 10, epochs => 1)$$);
RESET ROLE;
ALTER TABLE rs.visits NO FORCE ROW LEVEL SECURITY;
-- Nothing was charged by the refusals.
SELECT role, spent_epsilon FROM dptrain.budgets WHERE source = 'rs.visits'::regclass ORDER BY role::text;

-- 3. A role that bypasses row security reads every row whoever reads them:
--    it trains (read as the owner, 400 rows).
SET ROLE regress_rs_bypass;
SELECT details #> '{data,rows}' AS n_bypass FROM dp_train('rs.visits', 'y', 'x', algorithm => 'bolton',
       epsilon => 1, batch_size => 10, epochs => 1);
RESET ROLE;

-- 4. What the owner means by "every row": a view (it reads the table with
--    the view owner's rights). A security_invoker view reads its tables with
--    the rights of whoever reads it: refused, like the table.
SET ROLE regress_rs_owner;
CREATE VIEW rs.all_visits AS SELECT id, x, y FROM rs.visits;
CREATE VIEW rs.invoker_visits WITH (security_invoker = true) AS SELECT id, x, y FROM rs.visits;
SELECT dp_grant_budget('rs.all_visits', 'regress_rs_analyst', epsilon => 10);
SELECT dp_grant_budget('rs.invoker_visits', 'regress_rs_analyst', epsilon => 10);
SET ROLE regress_rs_analyst;
SELECT details #> '{data,rows}' AS n_owner_view FROM dp_train('rs.all_visits', 'y', 'x', algorithm => 'bolton',
       epsilon => 1, batch_size => 10, epochs => 1);
SELECT * FROM pg_temp.try($$SELECT dp_train('rs.invoker_visits', 'y', 'x', algorithm => 'bolton', epsilon => 1,
       batch_size => 10, epochs => 1)$$);
RESET ROLE;

-- 5. A relation in a schema the caller may not use: PostgreSQL lets nobody
--    use it; by OID (no name to look up) the run read it as the owner.
SET ROLE regress_rs_owner;
CREATE TABLE rs_closed.plain AS SELECT id, x, y FROM rs.visits;
SELECT dp_grant_budget('rs_closed.plain', 'regress_rs_analyst', epsilon => 10);
RESET ROLE;
SELECT 'rs_closed.plain'::regclass::oid AS closed_oid \gset
SET ROLE regress_rs_analyst;
SELECT * FROM pg_temp.try(format($$SELECT dp_train(%s::oid::regclass, 'y', 'x', algorithm => 'bolton',
       epsilon => 1, batch_size => 10, epochs => 1)$$, :closed_oid));
RESET ROLE;
GRANT USAGE ON SCHEMA rs_closed TO regress_rs_analyst;
SET ROLE regress_rs_analyst;
SELECT details #> '{data,rows}' AS n_with_usage FROM dp_train(:closed_oid::oid::regclass, 'y', 'x',
       algorithm => 'bolton', epsilon => 1, batch_size => 10, epochs => 1);
RESET ROLE;

-- 6. Partitions follow PostgreSQL: a grant on the parent
--    reads the partitions through it (their own row security does not apply
--    there), not a partition by itself; a budget on a partition is read as
--    that partition (the parent's policies do not apply to it).
SET ROLE regress_rs_owner;
CREATE TABLE rs.parts (id int, x float8[], y boolean) PARTITION BY RANGE (id);
CREATE TABLE rs.parts_low PARTITION OF rs.parts FOR VALUES FROM (0) TO (200);
CREATE TABLE rs.parts_high PARTITION OF rs.parts FOR VALUES FROM (200) TO (1000);
INSERT INTO rs.parts SELECT id, x, y FROM rs.visits;
ALTER TABLE rs.parts_high ENABLE ROW LEVEL SECURITY;
GRANT SELECT ON rs.parts TO regress_rs_tenant;
RESET ROLE;
SET ROLE regress_rs_tenant;
SELECT details #> '{data,rows}' AS n_parent FROM dp_train('rs.parts', 'y', 'x', algorithm => 'bolton',
       epsilon => 1, batch_size => 10, epochs => 1);
SELECT code, message FROM pg_temp.try($$SELECT dp_train('rs.parts_low', 'y', 'x', algorithm => 'bolton',
       epsilon => 1, batch_size => 10, epochs => 1)$$);
RESET ROLE;
SET ROLE regress_rs_owner;
ALTER TABLE rs.parts ENABLE ROW LEVEL SECURITY;
SELECT dp_grant_budget('rs.parts_low', 'regress_rs_analyst', epsilon => 10);
SET ROLE regress_rs_analyst;
SELECT details #> '{data,rows}' AS n_partition FROM dp_train('rs.parts_low', 'y', 'x', algorithm => 'bolton',
       epsilon => 1, batch_size => 10, epochs => 1);
SELECT code, message FROM pg_temp.try($$SELECT dp_train('rs.parts_high', 'y', 'x', algorithm => 'bolton',
       epsilon => 1, batch_size => 10, epochs => 1)$$);
RESET ROLE;

-- 7. System catalogs: nobody but a superuser reads pg_authid, and only its
--    owner (the bootstrap superuser) could grant a budget on it.
SET ROLE regress_rs_analyst;
SELECT code, message FROM pg_temp.try($$SELECT dp_train('pg_catalog.pg_authid', 'rolsuper', 'rolconnlimit',
       epsilon => 1)$$);
SELECT code, message FROM pg_temp.try($$SELECT dp_grant_budget('pg_catalog.pg_authid', 'regress_rs_analyst', 1)$$);
RESET ROLE;

DROP SCHEMA rs, rs_closed CASCADE;
DELETE FROM dptrain.ledger WHERE role::text LIKE 'regress_rs_%';
DELETE FROM dptrain.budgets WHERE role::text LIKE 'regress_rs_%';
DELETE FROM dptrain.models WHERE created_by LIKE 'regress_rs_%';
DROP ROLE regress_rs_owner, regress_rs_tenant, regress_rs_analyst, regress_rs_bypass;
