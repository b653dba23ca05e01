-- The owner's code leaves no cursor in the caller's session (docs/governance.md,
-- "Hostile review of 2026-11-28, third round"). A run without read access
-- reads the source with the owner's rights in the caller's session; a
-- PL/pgSQL cursor the owner's function OPENs and does not CLOSE stays open
-- until the transaction ends. After a charged run inside BEGIN, the analyst
-- listed them in pg_cursors (the owner's statements, a value inlined where
-- the code built them with format('%L')) and FETCHed the rest of their rows
-- with the owner's rights: every diagnosis of a table it may not read. Now
-- the cursors a read as the owner opened are closed when it ends; the
-- caller's own cursors stay open.
SET client_min_messages = warning;
\set SHOW_CONTEXT never
CREATE ROLE regress_cur_analyst;
CREATE SCHEMA cur;
GRANT USAGE ON SCHEMA cur TO regress_cur_analyst;
CREATE TABLE cur.diag AS
SELECT format('patient %s', i) AS name, CASE WHEN i % 10 = 1 THEN 'HIV+' ELSE 'clear' END AS diagnosis
FROM generate_series(10, 49) i;
CREATE TABLE cur.patients AS SELECT name, sin(length(name) + i) AS a, i % 3 = 0 AS y
FROM cur.diag, LATERAL (SELECT substr(name, 9)::int AS i) n;
-- the owner's code: opens a cursor, fetches one row, forgets to close it
CREATE FUNCTION cur.risk(n text) RETURNS float8 STABLE LANGUAGE plpgsql AS $f$
DECLARE c refcursor; d text;
BEGIN
  OPEN c FOR SELECT diagnosis FROM cur.diag WHERE name >= n ORDER BY name;
  FETCH c INTO d;
  RETURN CASE WHEN d = 'HIV+' THEN 1 ELSE 0 END;
END $f$;
CREATE VIEW cur.v AS SELECT ARRAY[a, cur.risk(name)]::float8[] AS x, y FROM cur.patients;
SELECT count(*) AS budgets FROM (SELECT dp_grant_budget('cur.v', 'regress_cur_analyst', 10, 1e-5)) g;
SET ROLE regress_cur_analyst;
SELECT count(*) AS diagnoses_readable FROM cur.diag;
BEGIN;
DECLARE mine CURSOR FOR SELECT i FROM generate_series(1, 3) i;
SELECT count(*) > 0 AS trained FROM dp_train('cur.v', 'y', 'x', algorithm => 'bolton', epsilon => 1,
                                             batch_size => 10, epochs => 1);
-- the owner's cursors: none left (before: 120, each FETCHable with the owner's rights)
SELECT count(*) FILTER (WHERE statement LIKE '%cur.diag%') AS owners_cursors,
       count(*) FILTER (WHERE name = 'mine') AS own_cursor
FROM pg_cursors;
FETCH ALL FROM mine;
COMMIT;
RESET ROLE;

DELETE FROM dptrain.ledger WHERE source_name LIKE 'cur.%';
DELETE FROM dptrain.models WHERE source LIKE 'cur.%';
DROP SCHEMA cur CASCADE;
DROP ROLE regress_cur_analyst;
