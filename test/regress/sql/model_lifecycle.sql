-- Renaming and dropping models: the creator only, by id or name; clear errors.
SET client_min_messages = warning;
\set SHOW_CONTEXT never
\getenv abs_srcdir PG_ABS_SRCDIR
\set try_sql :abs_srcdir '/sql/include/try.sql'
\i :try_sql
CREATE TABLE lc_pts AS
SELECT i AS id, ARRAY[sin(i * 0.7), cos(i * 1.3)]::float8[] AS x, (sin(i * 0.7) > 0) AS y
FROM generate_series(1, 300) i;
SELECT model_id AS lc_a FROM dp_train('lc_pts', 'y', 'x', algorithm => 'none', name => 'lc_a', seed => 1) \gset
SELECT FROM dp_train('lc_pts', 'y', 'x', algorithm => 'none', name => 'lc_b', seed => 1);

SELECT dp_rename_model('lc_a', 'lc_a2') = :lc_a AS renamed_by_name;
SELECT dp_rename_model(:'lc_a', 'lc_a3') = :lc_a AS renamed_by_id;
SELECT name FROM dptrain.models WHERE id = :lc_a;
SELECT * FROM pg_temp.try($$SELECT dp_rename_model('lc_a3', 'lc_b')$$);
SELECT * FROM pg_temp.try($$SELECT dp_rename_model('lc_a3', '42')$$);
SELECT * FROM pg_temp.try($$SELECT dp_rename_model('lc_a3', '')$$);
SELECT * FROM pg_temp.try($$SELECT dp_rename_model('lc_a3', E'x\ty')$$);
SELECT * FROM pg_temp.try($$SELECT dp_rename_model('no_such', 'x')$$);
SELECT * FROM pg_temp.try($$SELECT dp_drop_model('999999999')$$);
-- A NULL model or name is an error (22004) that names the argument, not a
-- silent no-op nor "you have no model".
SELECT * FROM pg_temp.try($$SELECT dp_drop_model(NULL)$$);
SELECT * FROM pg_temp.try($$SELECT dp_rename_model(NULL, 'x')$$);
SELECT * FROM pg_temp.try($$SELECT dp_rename_model('lc_a3', NULL)$$);
SELECT count(*) AS untouched_by_nulls FROM dptrain.models WHERE name IN ('lc_a3', 'lc_b');

-- Another role sees nothing to rename or drop, through the functions or the table.
CREATE ROLE regress_lc_other;
GRANT SELECT ON lc_pts TO regress_lc_other;
SET ROLE regress_lc_other;
SELECT code, message = format('you have no model "%s"', :'lc_a') AS not_yours
FROM pg_temp.try(format('SELECT dp_drop_model(%L)', :'lc_a'));
SELECT code, message = format('you have no model "%s"', :'lc_a') AS not_yours
FROM pg_temp.try(format('SELECT dp_rename_model(%L, %L)', :'lc_a', 'mine'));
UPDATE dptrain.models SET name = 'mine';
SELECT * FROM pg_temp.try($$DELETE FROM dptrain.models$$);
SELECT * FROM pg_temp.try($$UPDATE dptrain.models SET epsilon = 0.001$$);
-- Nor may it lock the table: a table-level DELETE (granted to PUBLIC
-- before, for dp_drop_model) allows LOCK TABLE in any mode, and a role that
-- held ACCESS EXCLUSIVE made every other role's dp_train wait after its
-- charge (charged, then cancelled by its timeout, no model) and every
-- dp_predict wait (hostile review 2026-11-27). Only ACCESS SHARE (SELECT) is
-- left, which conflicts with nothing dptrain takes.
SELECT * FROM pg_temp.try($$LOCK TABLE dptrain.models IN ACCESS EXCLUSIVE MODE$$);
SELECT * FROM pg_temp.try($$LOCK TABLE dptrain.models IN ROW EXCLUSIVE MODE$$);
SELECT * FROM pg_temp.try($$LOCK TABLE dptrain.models IN ACCESS SHARE MODE$$);
RESET ROLE;
SELECT count(*) AS untouched FROM dptrain.models WHERE name IN ('lc_a3', 'lc_b');

SELECT dp_drop_model('lc_a3') = :lc_a AS dropped;
SELECT count(*) AS gone FROM dptrain.models WHERE id = :lc_a;
-- dp_drop_model deletes as the extension owner, the caller's own models only:
-- also its own model under a role that sees the other's (the owner of lc_pts).
CREATE ROLE regress_lc_creator;
GRANT SELECT ON lc_pts TO regress_lc_creator;
SET ROLE regress_lc_creator;
SELECT model_id AS lc_c FROM dp_train('lc_pts', 'y', 'x', algorithm => 'bolton', epsilon => 1, name => 'lc_c') \gset
RESET ROLE;
SELECT code, message = format('you have no model "%s"', :'lc_c') AS not_yours
FROM pg_temp.try(format('SELECT dp_drop_model(%L)', :'lc_c'));
SET ROLE regress_lc_creator;
SELECT dp_drop_model(:'lc_c') = :lc_c AS creator_dropped;
SELECT code, message FROM pg_temp.try($$SELECT dp_drop_model('lc_b')$$);
RESET ROLE;
SELECT count(*) FILTER (WHERE id = :lc_c) AS c_gone, count(*) FILTER (WHERE name = 'lc_b') AS b_kept
FROM dptrain.models;
DELETE FROM dptrain.ledger WHERE role::oid = 'regress_lc_creator'::regrole::oid;
SELECT * FROM pg_temp.try($$SELECT dp_predict('lc_a3', ARRAY[0.1, 0.2])$$);
DROP TABLE lc_pts;
DROP ROLE regress_lc_other, regress_lc_creator;

-- Leave no model or ledger row behind: other files read the whole ledger.
DELETE FROM dptrain.ledger WHERE source_name = 'public.lc_pts';
DELETE FROM dptrain.models WHERE source = 'public.lc_pts';
