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
DELETE FROM dptrain.models;
SELECT * FROM pg_temp.try($$UPDATE dptrain.models SET epsilon = 0.001$$);
RESET ROLE;
SELECT count(*) AS untouched FROM dptrain.models WHERE name IN ('lc_a3', 'lc_b');

SELECT dp_drop_model('lc_a3') = :lc_a AS dropped;
SELECT count(*) AS gone FROM dptrain.models WHERE id = :lc_a;
SELECT * FROM pg_temp.try($$SELECT dp_predict('lc_a3', ARRAY[0.1, 0.2])$$);
DROP TABLE lc_pts;
DROP ROLE regress_lc_other;

-- Leave no model or ledger row behind: other files read the whole ledger.
DELETE FROM dptrain.ledger WHERE source_name = 'public.lc_pts';
DELETE FROM dptrain.models WHERE source = 'public.lc_pts';
