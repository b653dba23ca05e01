-- Attacks (issue 15, item 6) with hostile numbers:
--  * a subnormal epsilon or delta (1e-320) is refused with 22023 before any
--    data is read (it used to fail with an internal error after an epoch);
--  * the evaluation aggregate refuses a model with NaN or infinite weights
--    (it used to report 100% accuracy).
SET client_min_messages = warning;
\set SHOW_CONTEXT never
\getenv abs_srcdir PG_ABS_SRCDIR
\set try_sql :abs_srcdir '/sql/include/try.sql'
\i :try_sql

CREATE TABLE public.tiny AS
SELECT i AS id, ARRAY[sin(i), cos(i)]::float8[] AS x, (sin(i) > 0) AS y FROM generate_series(1, 100) i;
-- a view that counts its rows as they are read (in a sequence: not rolled
-- back with the failing statement): nothing may be read for a refused argument
CREATE SEQUENCE public.reads;
CREATE VIEW public.tiny_watched AS SELECT t.* FROM public.tiny t WHERE nextval('public.reads') > 0;

\x on
SELECT * FROM pg_temp.try($$SELECT dp_train('public.tiny_watched', 'y', 'x', algorithm => 'bolton', epsilon => 1e-320)$$);
SELECT * FROM pg_temp.try($$SELECT dp_train('public.tiny_watched', 'y', 'x', algorithm => 'bolton', epsilon => 1,
                          delta => 1e-320)$$);
SELECT * FROM pg_temp.try($$SELECT dp_train('public.tiny_watched', 'y', 'x', algorithm => 'scs13', epsilon => 1,
                          delta => 4.9e-324)$$);
SELECT * FROM pg_temp.try($$SELECT dp_tune('public.tiny_watched', 'y', 'x', epsilon => 2.2e-308)$$);
SELECT * FROM pg_temp.try($$SELECT dp_grant_budget('public.tiny', current_user, 1e-320, 0)$$);
SELECT * FROM pg_temp.try($$SELECT dp_grant_budget('public.tiny', current_user, 1, 1e-320)$$);
\x off
SELECT is_called AS any_row_read FROM public.reads;
-- ---- the evaluation aggregate and NaN / infinite weights ---------------------------
-- packed model: [magic, version, K, d, loss, huber_h, feature_bound, w...]
CREATE FUNCTION pg_temp.packed(w1 float8, w2 float8) RETURNS float8[] LANGUAGE sql AS
  $$ SELECT ARRAY[1146115181, 1, 1, 2, 0, 0.1, 1, w1, w2]::float8[] $$;
-- a sound model evaluates
SELECT e[1] AS rows, e[2] BETWEEN 0 AND 100 AS correct_counted
FROM (SELECT dptrain.evaluate_agg(x, y::int, pg_temp.packed(1, 0)) e FROM public.tiny) s;
\x on
SELECT * FROM pg_temp.try($$SELECT dptrain.evaluate_agg(x, y::int, pg_temp.packed('NaN', 'NaN')) FROM public.tiny$$);
SELECT * FROM pg_temp.try($$SELECT dptrain.evaluate_agg(x, y::int, pg_temp.packed('Infinity', 0)) FROM public.tiny$$);
SELECT * FROM pg_temp.try($$SELECT dptrain.evaluate_agg(x, y::int, pg_temp.packed(0, '-Infinity')) FROM public.tiny$$);
\x off

DROP VIEW public.tiny_watched;
DROP SEQUENCE public.reads;
DROP TABLE public.tiny;
DELETE FROM dptrain.ledger WHERE source_name LIKE 'public.tiny%';
DELETE FROM dptrain.models WHERE source = 'public.tiny';
