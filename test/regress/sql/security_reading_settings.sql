-- The caller's settings do not change the owner's code (docs/governance.md,
-- "The caller's settings"; src/pg/reading_settings.h). A role with a budget
-- on a view and no SELECT chose its session's DateStyle: the owner's view
-- parses a text date, and one row, '12/31/2020', fails under 'ISO, DMY'
-- while every row parses under the built-in 'ISO, MDY'. The run failed
-- ("reading ... failed", charged) where it trained under the default: a bit
-- about one row that the caller chose to ask for. Now the source is read
-- with fixed settings, whatever the caller set, and the caller's own
-- settings are as it left them after the call.
SET client_min_messages = warning;
\set SHOW_CONTEXT never
\getenv abs_srcdir PG_ABS_SRCDIR
\set try_sql :abs_srcdir '/sql/include/try.sql'
\i :try_sql
CREATE ROLE regress_rs_analyst;
CREATE TABLE public.rs_visits AS
SELECT i AS id, sin(i) AS a, (i % 3 = 0) AS y,
       CASE WHEN i = 77 THEN '12/31/2020' ELSE format('0%s/0%s/2020', 1 + i % 9, 1 + i % 9) END AS seen,
       '2020-06-30 23:30:00+00'::timestamptz + i * interval '1 second' AS at
FROM generate_series(1, 120) i;
-- The owner's view: the month of a text date, and a division that fails on
-- a row only where the day of `at` is the 1st (in UTC: none; at UTC+1 every row).
CREATE VIEW public.rs_view AS
SELECT ARRAY[a, extract(month FROM seen::date) / 12]::float8[] AS x, y FROM public.rs_visits;
CREATE VIEW public.rs_view_tz AS
SELECT ARRAY[a, 1 / (extract(day FROM at) - 1)]::float8[] AS x, y FROM public.rs_visits;
SELECT dp_grant_budget(v, 'regress_rs_analyst', 100, 1e-6)
FROM unnest(ARRAY['public.rs_view', 'public.rs_view_tz']::regclass[]) v;
CREATE FUNCTION pg_temp.run(v regclass) RETURNS TABLE (code text, message text) LANGUAGE sql AS $$
  SELECT r.code, r.message
  FROM pg_temp.try(format('SELECT dp_train(%L, %L, %L, algorithm => %L, epsilon => 1)', v, 'y', 'x', 'bolton')) r
$$;
SET ROLE regress_rs_analyst;
-- the owner's settings: both train
SELECT * FROM pg_temp.run('public.rs_view');
SELECT * FROM pg_temp.run('public.rs_view_tz');
-- the caller's settings: the same answers, and its settings stay its own
SET DateStyle = 'ISO, DMY';
SET TimeZone = 'Europe/Paris';
SELECT * FROM pg_temp.run('public.rs_view');
SELECT * FROM pg_temp.run('public.rs_view_tz');
SHOW DateStyle;
SHOW TimeZone;
SELECT '12/01/2020'::date AS caller_parses_dmy;
-- inside a transaction, after the call too
BEGIN;
SELECT * FROM pg_temp.run('public.rs_view');
SHOW DateStyle;
COMMIT;
RESET DateStyle;
RESET TimeZone;
RESET ROLE;
SELECT count(*) AS models FROM dptrain.models WHERE source LIKE 'public.rs\_view%';

DELETE FROM dptrain.ledger WHERE source_name LIKE 'public.rs\_view%';
DELETE FROM dptrain.models WHERE source LIKE 'public.rs\_view%';
DROP VIEW public.rs_view, public.rs_view_tz;
DROP TABLE public.rs_visits;
DROP ROLE regress_rs_analyst;
