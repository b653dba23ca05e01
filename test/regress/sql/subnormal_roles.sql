-- Subnormal numeric features (2.5e-324 <= |v| < 2.2e-308) are doubles: a reader's run
-- trained on them as numbers, but the reads of a role that may train and not read the
-- table (the copy, the read in place, encoded columns) made their rows the fixed public
-- row (d zeros, the first class): the two roles trained on different data. Both now take
-- every value that casts to float8 as its double; only a value no double holds
-- (dptrain.beyond_float8: above 1.8e308, or not 0 and rounding to 0) is unusable, refused
-- for a reader and the fixed public row for the other (docs/governance.md).
-- A role without read access may not seed its noise (DP002), so both train with AMP, an
-- order-free run, on 20000 rows, where its noise is far below what 2000 public rows change.
SET client_min_messages = warning;
\set SHOW_CONTEXT never

CREATE ROLE regress_sub_owner;
CREATE ROLE regress_sub_analyst;
GRANT CREATE ON SCHEMA public TO regress_sub_owner;
SET ROLE regress_sub_owner;
-- every 10th row: a subnormal first feature, 0.8, and the second class (2000 rows)
CREATE TABLE public.sub_arr AS
SELECT i AS id,
       CASE WHEN i % 10 = 0 THEN ARRAY[1e-310, 0.8]::numeric[]
            ELSE ARRAY[round(sin(i)::numeric, 6), round(cos(i)::numeric, 6)] END AS x,
       CASE WHEN i % 10 = 0 THEN true ELSE sin(i) > cos(i) END AS y
FROM generate_series(1, 20000) i;
-- the same values as ordinary numeric columns (encoded: dp_train(features => ARRAY[...]))
CREATE TABLE public.sub_col AS SELECT id, x[1] AS a, x[2] AS b, y FROM public.sub_arr;
-- what the no-read role trained on before: those rows as the fixed public row
CREATE TABLE public.sub_public_rows AS
SELECT id, CASE WHEN id % 10 = 0 THEN ARRAY[0, 0]::numeric[] ELSE x END AS x,
       CASE WHEN id % 10 = 0 THEN false ELSE y END AS y
FROM public.sub_arr;
SELECT count(*) FILTER (WHERE x[1] <> 0 AND abs(x[1]) < 2.2250738585072014e-308) AS subnormal_rows,
       bool_or(dptrain.beyond_float8(x[1])) AS any_beyond_float8,
       min(abs(x[1]::float8)) FILTER (WHERE x[1] <> 0) > 0 AS cast_keeps_them
FROM public.sub_arr;
SELECT count(dp_grant_budget(t, 'regress_sub_analyst', 1e7, 1e-5)) AS granted
FROM unnest(ARRAY['public.sub_arr', 'public.sub_col']::regclass[]) t;
RESET ROLE;
-- the weights each role got (no temporary table: a run without read access refuses a
-- session with temporary relations)
CREATE TABLE public.sub_weights (who text, source regclass, w float8[]);
GRANT INSERT ON public.sub_weights TO regress_sub_owner, regress_sub_analyst;

CREATE FUNCTION pg_temp.train(t regclass) RETURNS void LANGUAGE sql AS $$
  INSERT INTO public.sub_weights
  SELECT current_user, t, weights FROM dp_train(t, 'y', 'x', algorithm => 'amp', epsilon => 15,
                                                      delta => 1e-7, lambda => 0.01, intercept => true)
$$;
CREATE FUNCTION pg_temp.train_columns(t regclass) RETURNS void LANGUAGE sql AS $$
  INSERT INTO public.sub_weights
  SELECT current_user, t, weights
  FROM dp_train(t, 'y', features => ARRAY['a', 'b'], algorithm => 'amp', epsilon => 15, delta => 1e-7,
                lambda => 0.01, intercept => true, bounds => '{"a": [-1, 1], "b": [-1, 1]}')
$$;
CREATE FUNCTION pg_temp.weights(who text, source regclass) RETURNS float8[] LANGUAGE sql AS $$
  SELECT w FROM public.sub_weights s WHERE s.who = $1 AND s.source = $2
$$;
CREATE FUNCTION pg_temp.max_diff(a float8[], b float8[]) RETURNS float8 LANGUAGE sql AS $$
  SELECT max(abs(x - y)) FROM unnest(a, b) u(x, y)
$$;

-- the owner reads the tables
SET ROLE regress_sub_owner;
SELECT pg_temp.train('public.sub_arr'), pg_temp.train_columns('public.sub_col'),
       pg_temp.train('public.sub_public_rows');
RESET ROLE;
-- the analyst may not read them
SET ROLE regress_sub_analyst;
SELECT has_table_privilege('public.sub_arr', 'SELECT') AS reads_arr,
       has_table_privilege('public.sub_col', 'SELECT') AS reads_col;
SELECT pg_temp.train('public.sub_arr'), pg_temp.train_columns('public.sub_col');
RESET ROLE;

-- the same model for both roles, on an array column and on columns (AMP's noise at
-- n = 20000, epsilon = 15: about 1e-3 on the array, 1e-2 on the columns); the table with
-- the public rows in their place, what the analyst trained on before, gives a model 1.0 away
SELECT pg_temp.max_diff(pg_temp.weights('regress_sub_owner', 'public.sub_arr'),
                        pg_temp.weights('regress_sub_analyst', 'public.sub_arr')) < 0.1 AS same_on_arrays,
       pg_temp.max_diff(pg_temp.weights('regress_sub_owner', 'public.sub_col'),
                        pg_temp.weights('regress_sub_analyst', 'public.sub_col')) < 0.1 AS same_on_columns,
       pg_temp.max_diff(pg_temp.weights('regress_sub_owner', 'public.sub_arr'),
                        pg_temp.weights('regress_sub_owner', 'public.sub_public_rows')) > 0.5 AS public_rows_differ;

DELETE FROM dptrain.ledger WHERE source_name LIKE 'public.sub\_%';
DELETE FROM dptrain.models WHERE created_by IN ('regress_sub_owner', 'regress_sub_analyst');
DROP TABLE public.sub_arr, public.sub_col, public.sub_public_rows, public.sub_weights;
REVOKE CREATE ON SCHEMA public FROM regress_sub_owner;
DROP ROLE regress_sub_owner, regress_sub_analyst;
