-- Attack (issue 15, item 7): budgets are per (table, role), so two analysts
-- with epsilon = 1 each spend epsilon = 2 on the same people. The owner of
-- a table can cap the total privacy loss of the table across all roles:
-- dp_set_table_budget. Every private run on a capped table -- by any role,
-- the owner included -- is charged to the cap and to the role's own budget
-- (if it has one) in one transaction, committed before the data is read;
-- a run that would exceed either is refused (DP001).
SET client_min_messages = warning;
\set SHOW_CONTEXT never
\getenv abs_srcdir PG_ABS_SRCDIR
\set try_sql :abs_srcdir '/sql/include/try.sql'
\i :try_sql

-- This file lists the whole ledger and counts every cap: it needs none at
-- its start. Every file removes what it stored (zz_leftovers.sql), so both
-- counts are 0 in any order; one that leaked shows here, where a bare DELETE
-- hid it from zz_leftovers (it runs after this file).
SELECT count(*) AS ledger_rows_left_before FROM dptrain.ledger;
SELECT count(*) AS caps_left_before FROM dptrain.table_budgets;

CREATE ROLE regress_curator;
CREATE ROLE regress_alice;
CREATE ROLE regress_bob;
CREATE ROLE regress_carol;   -- may read the table, has no budget
GRANT CREATE ON SCHEMA public TO regress_curator;
SET ROLE regress_curator;
CREATE TABLE public.people AS
SELECT i AS id, ARRAY[sin(i), cos(i)]::float8[] AS x, (sin(i) > 0) AS y FROM generate_series(1, 200) i;
GRANT SELECT ON public.people TO regress_carol;
SELECT dp_grant_budget('public.people', 'regress_alice', 1, 0);
SELECT dp_grant_budget('public.people', 'regress_bob', 1, 0);
-- history before the cap: the owner already released a private model
SELECT epsilon FROM dp_train('public.people', 'y', 'x', algorithm => 'bolton', epsilon => 0.25, batch_size => 10);
RESET ROLE;

-- ---- setting a cap ------------------------------------------------------------------
\x on
SET ROLE regress_alice;
SELECT * FROM pg_temp.try($$SELECT dp_set_table_budget('public.people', 10)$$);
SET ROLE regress_curator;
SELECT * FROM pg_temp.try($$SELECT dp_set_table_budget('public.people', 0)$$);
SELECT * FROM pg_temp.try($$SELECT dp_set_table_budget('public.people', 'NaN')$$);
SELECT * FROM pg_temp.try($$SELECT dp_set_table_budget('public.people', 1, 1)$$);
-- rounds to 1 in the ledger's numeric (15 significant digits): refused as above, not by the table's CHECK (23514)
SELECT * FROM pg_temp.try($$SELECT dp_set_table_budget('public.people', 1, 0.9999999999999999)$$);
SELECT * FROM pg_temp.try($$SELECT dp_set_table_budget('public.people', 1e-320)$$);
SELECT * FROM pg_temp.try($$SELECT dp_set_table_budget(NULL, 1)$$);
\x off
-- A cap of 1.5: what was released before counts (0.25 is already spent).
SELECT dp_set_table_budget('public.people', 1.5);
SELECT * FROM dp_table_budget_remaining('public.people');
SELECT source, epsilon, delta, spent_epsilon, spent_delta, set_by FROM dptrain.table_budgets;
RESET ROLE;

-- ---- two analysts share the cap ------------------------------------------------------
SET ROLE regress_alice;
SELECT epsilon FROM dp_train('public.people', 'y', 'x', algorithm => 'bolton', epsilon => 0.75, batch_size => 10);
SELECT * FROM dp_budget_remaining('public.people');
SELECT * FROM dp_table_budget_remaining('public.people');
SET ROLE regress_bob;
-- bob has epsilon 1 of his own, but only 0.5 is left on the table
\x on
SELECT * FROM pg_temp.try($$SELECT dp_train('public.people', 'y', 'x', algorithm => 'bolton', epsilon => 0.75)$$);
\x off
SELECT epsilon FROM dp_train('public.people', 'y', 'x', algorithm => 'bolton', epsilon => 0.5, batch_size => 10);
SELECT * FROM dp_budget_remaining('public.people');
SELECT * FROM dp_table_budget_remaining('public.people');
RESET ROLE;

-- ---- the cap binds readers and the owner too -------------------------------------------
SET ROLE regress_carol;
\x on
SELECT * FROM pg_temp.try($$SELECT dp_train('public.people', 'y', 'x', algorithm => 'bolton', epsilon => 0.1)$$);
\x off
-- a non-private run of a reader is not a release the cap can count (it could read the rows anyway)
SELECT algorithm FROM dp_train('public.people', 'y', 'x', algorithm => 'none', batch_size => 10);
SET ROLE regress_curator;
\x on
SELECT * FROM pg_temp.try($$SELECT dp_train('public.people', 'y', 'x', algorithm => 'bolton', epsilon => 0.1)$$);
\x off
-- raising the cap lets runs through again; spent stays spent
SELECT dp_set_table_budget('public.people', 2, 1e-6);
SELECT * FROM dp_table_budget_remaining('public.people');
SELECT epsilon, delta FROM dp_train('public.people', 'y', 'x', algorithm => 'bolton', epsilon => 0.2,
                                    delta => 1e-7, batch_size => 10);
SELECT * FROM dp_table_budget_remaining('public.people');
-- The amounts of a DP001 detail: exact when short (above), short when not:
-- a cap of 1e308 printed its 309 digits, a delta of 1e-300 its 302.
SELECT dp_set_table_budget('public.people', 1e308, 1e-300);
\x on
SELECT * FROM pg_temp.try($$SELECT dp_train('public.people', 'y', 'x', algorithm => 'dpsgd', epsilon => 1,
                                            delta => 1e-5)$$);
\x off
SELECT dp_set_table_budget('public.people', 2, 1e-6);
RESET ROLE;

-- ---- who may see the cap -----------------------------------------------------------------
CREATE ROLE regress_stranger;
SET ROLE regress_stranger;
\x on
SELECT * FROM pg_temp.try($$SELECT dp_table_budget_remaining('public.people')$$);
\x off
SELECT count(*) AS caps_visible FROM dptrain.table_budgets;
SET ROLE regress_bob;
SELECT count(*) AS caps_visible FROM dptrain.table_budgets;
RESET ROLE;

-- ---- the ledger adds up ---------------------------------------------------------------------
SELECT l.role, l.epsilon, l.delta, l.budgeted, l.capped FROM dptrain.ledger l ORDER BY l.id;
SELECT t.spent_epsilon = sum(l.epsilon) AS cap_adds_up, t.spent_delta = sum(l.delta) AS delta_adds_up
FROM dptrain.table_budgets t JOIN dptrain.ledger l ON l.source = t.source AND l.epsilon IS NOT NULL
GROUP BY t.spent_epsilon, t.spent_delta;

-- ---- a dropped table takes its cap along ---------------------------------------------------
DROP TABLE public.people;
SELECT count(*) AS caps FROM dptrain.table_budgets;

DELETE FROM dptrain.ledger WHERE source_name = 'public.people';
DELETE FROM dptrain.models WHERE created_by IN ('regress_curator', 'regress_alice', 'regress_bob', 'regress_carol');
REVOKE CREATE ON SCHEMA public FROM regress_curator;
DROP ROLE regress_curator, regress_alice, regress_bob, regress_carol, regress_stranger;
