-- A SERIALIZABLE transaction leaves predicate locks (SIReadLock) on what
-- its reads visit, and pg_locks shows them to every role (docs/governance.md,
-- "Hostile review of 2026-11-28, third round"). A role with a budget on the
-- owner's view and no SELECT read them in its own session after a run
-- refused for free after the count (batch_size above n), rolled back to a
-- savepoint: the view's function looks every patient up in the registry by
-- its index, and the registry tuple of patient 21 was locked only when
-- patient 21 was in the table -- the two tables differ in that one row, the
-- budget did not move. Now such a run is refused in a SERIALIZABLE
-- transaction before anything is read (0A000, nothing charged); a reader
-- still trains there.
SET client_min_messages = warning;
\set SHOW_CONTEXT never
\getenv abs_srcdir PG_ABS_SRCDIR
\set try_sql :abs_srcdir '/sql/include/try.sql'
\i :try_sql
CREATE ROLE regress_ssi_analyst;
CREATE SCHEMA ssi;
GRANT USAGE ON SCHEMA ssi TO regress_ssi_analyst;
CREATE TABLE ssi.registry (id int PRIMARY KEY, note text);
INSERT INTO ssi.registry SELECT i, 'listed' FROM generate_series(1, 999, 2) i;
ANALYZE ssi.registry;
-- neighbouring tables: patient 22 (not listed) in a, patient 21 (listed) in b
CREATE TABLE ssi.visits_a (id int, a float8, y bool);
INSERT INTO ssi.visits_a SELECT 2 * i, sin(i), i % 3 = 0 FROM generate_series(1, 300) i;
CREATE TABLE ssi.visits_b AS SELECT CASE WHEN id = 22 THEN 21 ELSE id END AS id, a, y FROM ssi.visits_a;
-- the owner's code reads the registry for every row, not only for some
CREATE FUNCTION ssi.listed(p int) RETURNS float8 STABLE LANGUAGE sql AS
  'SELECT count(*)::float8 FROM ssi.registry WHERE id = p';
CREATE VIEW ssi.v_a AS SELECT ARRAY[a, ssi.listed(id)]::float8[] AS x, y FROM ssi.visits_a;
CREATE VIEW ssi.v_b AS SELECT ARRAY[a, ssi.listed(id)]::float8[] AS x, y FROM ssi.visits_b;
SELECT count(*) AS budgets FROM (SELECT dp_grant_budget(v, 'regress_ssi_analyst', 10, 1e-5)
  FROM unnest(ARRAY['ssi.v_a', 'ssi.v_b']::regclass[]) v) g;
-- What the analyst sees of the registry's predicate locks after its call.
CREATE FUNCTION pg_temp.registry_locks() RETURNS text LANGUAGE sql AS $$
  SELECT coalesce(string_agg(format('%s (%s,%s)', locktype, page, tuple), ', ' ORDER BY page, tuple), 'none')
  FROM pg_locks WHERE mode = 'SIReadLock' AND pid = pg_backend_pid()
    AND relation = 'ssi.registry'::regclass
$$;
CREATE FUNCTION pg_temp.call(v regclass, batch int) RETURNS TABLE (code text, message text) LANGUAGE sql AS $$
  SELECT r.code, r.message FROM pg_temp.try(format(
    'SELECT model_id FROM dp_train(%L, %L, %L, algorithm => %L, epsilon => 1, delta => 1e-6, batch_size => %s)',
    v, 'y', 'x', 'dpsgd', batch)) r
$$;
SET ROLE regress_ssi_analyst;
BEGIN ISOLATION LEVEL SERIALIZABLE;
SELECT * FROM pg_temp.call('ssi.v_a', 100000);
SELECT pg_temp.registry_locks() AS after_a;
ROLLBACK;
BEGIN ISOLATION LEVEL SERIALIZABLE;
SELECT * FROM pg_temp.call('ssi.v_b', 100000);
SELECT pg_temp.registry_locks() AS after_b;
ROLLBACK;
-- a run that would be charged: refused before its charge too
BEGIN ISOLATION LEVEL SERIALIZABLE;
SELECT * FROM pg_temp.call('ssi.v_b', 50);
ROLLBACK;
SELECT * FROM dp_budget_remaining('ssi.v_b');
-- REPEATABLE READ trains (no predicate locks)
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT * FROM pg_temp.call('ssi.v_b', 50);
SELECT pg_temp.registry_locks() AS repeatable_read;
COMMIT;
RESET ROLE;
-- a reader (here the owner) trains in a SERIALIZABLE transaction as before
BEGIN ISOLATION LEVEL SERIALIZABLE;
SELECT * FROM pg_temp.call('ssi.v_b', 50);
COMMIT;

DELETE FROM dptrain.ledger WHERE source_name LIKE 'ssi.%';
DELETE FROM dptrain.models WHERE source LIKE 'ssi.%';
DROP SCHEMA ssi CASCADE;
DROP ROLE regress_ssi_analyst;
