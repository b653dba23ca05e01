-- dp_evaluate on a table the caller may not read. Its result (accuracy,
-- confusion counts, n) is no DP release, so it reads as the caller and a
-- budget does not help. It was refused by PostgreSQL from inside dptrain's
-- own statement ("permission denied for table", the statement as CONTEXT);
-- now by name, before the table is read, with the column it may not read.
SET client_min_messages = warning;
\set SHOW_CONTEXT never
\getenv abs_srcdir PG_ABS_SRCDIR
\set try_sql :abs_srcdir '/sql/include/try.sql'
\i :try_sql
CREATE ROLE regress_eval_analyst;
CREATE TABLE public.ev_data AS
SELECT i AS id, ARRAY[sin(i), cos(i)]::float8[] AS x, (sin(i) > 0) AS y, (i % 7)::float8 AS age
FROM generate_series(1, 100) i;
SELECT dp_grant_budget('public.ev_data', 'regress_eval_analyst', 10, 0);
SET ROLE regress_eval_analyst;
SELECT model_id AS ev_model FROM dp_train('public.ev_data', 'y', 'x', algorithm => 'bolton', epsilon => 1,
       batch_size => 10, name => 'ev_m') \gset
SELECT model_id AS ev_encoded FROM dp_train('public.ev_data', 'y', features => ARRAY['age'], algorithm => 'bolton',
       epsilon => 1, batch_size => 10, bounds => '{"age": [0, 6]}') \gset
\x on
-- no SELECT at all
SELECT * FROM pg_temp.try(format('SELECT * FROM dp_evaluate(%s, %L, %L, %L)', :ev_model, 'public.ev_data', 'y', 'x'));
SELECT * FROM pg_temp.try($$SELECT * FROM dp_evaluate('ev_m', 'public.ev_data', 'y', 'x')$$);
-- the label column only: the feature column is named
RESET ROLE;
GRANT SELECT (y) ON public.ev_data TO regress_eval_analyst;
SET ROLE regress_eval_analyst;
SELECT * FROM pg_temp.try(format('SELECT * FROM dp_evaluate(%s, %L, %L, %L)', :ev_model, 'public.ev_data', 'y', 'x'));
-- an encoded model: the encoding's column is named
SELECT * FROM pg_temp.try(format('SELECT * FROM dp_evaluate(%s, %L, %L)', :ev_encoded, 'public.ev_data', 'y'));
\x off
-- SELECT on the columns it reads is enough
RESET ROLE;
GRANT SELECT (x, age) ON public.ev_data TO regress_eval_analyst;
SET ROLE regress_eval_analyst;
SELECT n FROM dp_evaluate(:ev_model, 'public.ev_data', 'y', 'x');
SELECT n FROM dp_evaluate(:ev_encoded, 'public.ev_data', 'y');
RESET ROLE;

DELETE FROM dptrain.ledger WHERE source_name = 'public.ev_data';
DELETE FROM dptrain.models WHERE source = 'public.ev_data';
DROP TABLE public.ev_data;
DROP ROLE regress_eval_analyst;
