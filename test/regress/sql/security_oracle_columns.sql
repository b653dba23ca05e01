-- Attack: the oracle of security_oracle.sql, on ordinary columns
-- (dp_train(features => ARRAY[...]), docs/encoding.md). A role with a budget
-- and no SELECT trains on tables that differ from a clean one in one secret
-- row. A numeric value no double holds (1e400, or 1e-400) failed the cast to
-- float8 in the owner's read: the run failed with "reading ... failed"
-- (charged), the clean table's run did not -- one bit about one hidden row,
-- repeatable at the price of a run, that no DP release covers. Such a value
-- now makes its row the fixed public row, like NaN, NULL or an undeclared
-- category; a reader still gets the cast's error.
SET client_min_messages = warning;
\set SHOW_CONTEXT never
\getenv abs_srcdir PG_ABS_SRCDIR
\set try_sql :abs_srcdir '/sql/include/try.sql'
\i :try_sql
CREATE FUNCTION pg_temp.probe(t regclass) RETURNS TABLE (code text, message text, charged numeric)
LANGUAGE plpgsql AS $$
BEGIN
  SELECT r.code, r.message INTO code, message
  FROM pg_temp.try(format($q$SELECT dp_train(%L, 'sick', features => ARRAY['age', 'dose', 'ward'],
                            algorithm => 'bolton', epsilon => 0.5, batch_size => 10, epochs => 2,
                            bounds => '{"age": [0, 100], "dose": [0, 10]}',
                            categories => '{"ward": ["a", "b"]}')$q$, t)) r;
  charged := 10 - (SELECT epsilon FROM dp_budget_remaining(t))::numeric;
  RETURN NEXT;
END
$$;

CREATE ROLE regress_col_keeper;
CREATE ROLE regress_col_prober;
GRANT CREATE ON SCHEMA public TO regress_col_keeper;
SET ROLE regress_col_keeper;
CREATE TABLE public.col_clean AS
SELECT i AS id, (20 + i % 60)::float8 AS age, (i % 10)::numeric AS dose,
       CASE WHEN i % 3 = 0 THEN 'a' ELSE 'b' END AS ward, (sin(i) > 0) AS sick
FROM generate_series(1, 200) i;
CREATE TABLE public.col_numeric_huge AS SELECT * FROM public.col_clean;
UPDATE public.col_numeric_huge SET dose = 1e400 WHERE id = 17;
CREATE TABLE public.col_numeric_tiny AS SELECT * FROM public.col_clean;
UPDATE public.col_numeric_tiny SET dose = 1e-400 WHERE id = 17;
CREATE TABLE public.col_numeric_nan AS SELECT * FROM public.col_clean;
UPDATE public.col_numeric_nan SET dose = 'NaN' WHERE id = 17;
CREATE TABLE public.col_float_nan AS SELECT * FROM public.col_clean;
UPDATE public.col_float_nan SET age = 'NaN' WHERE id = 17;
CREATE TABLE public.col_null AS SELECT * FROM public.col_clean;
UPDATE public.col_null SET age = NULL, dose = NULL, ward = NULL WHERE id = 17;
CREATE TABLE public.col_category AS SELECT * FROM public.col_clean;
UPDATE public.col_category SET ward = 'isolation ward' WHERE id = 17;
-- encoded views of the owner (dp_encoded_view) over the clean table and
-- over the one with a numeric beyond float8: read as the owner too
SELECT dp_encoded_view(v || '_view', v, 'sick', ARRAY['age', 'dose', 'ward'],
                       bounds => '{"age": [0, 100], "dose": [0, 10]}', categories => '{"ward": ["a", "b"]}') AS view
FROM unnest(ARRAY['public.col_clean', 'public.col_numeric_huge']) v;
SELECT count(dp_grant_budget(t, 'regress_col_prober', 10, 0)) AS granted_on_views
FROM unnest(ARRAY['public.col_clean_view', 'public.col_numeric_huge_view']::regclass[]) t;
SELECT count(dp_grant_budget(t, 'regress_col_prober', 10, 0)) AS granted
FROM unnest(ARRAY['public.col_clean', 'public.col_numeric_huge', 'public.col_numeric_tiny',
                  'public.col_numeric_nan', 'public.col_float_nan', 'public.col_null',
                  'public.col_category']::regclass[]) t;
RESET ROLE;

-- every table answers alike, and is charged alike
SET ROLE regress_col_prober;
SELECT t AS source, p.*
FROM unnest(ARRAY['public.col_clean', 'public.col_numeric_huge', 'public.col_numeric_tiny',
                  'public.col_numeric_nan', 'public.col_float_nan', 'public.col_null',
                  'public.col_category']::regclass[]) t,
     pg_temp.probe(t) p;
SELECT t AS source, r.code, r.message
FROM unnest(ARRAY['public.col_clean_view', 'public.col_numeric_huge_view']::regclass[]) t,
     pg_temp.try(format($q$SELECT dp_train(%L, 'sick', 'x', algorithm => 'bolton', epsilon => 0.5,
                          batch_size => 10, epochs => 2)$q$, t)) r;
SELECT t AS source, 10 - (SELECT epsilon FROM dp_budget_remaining(t))::numeric AS charged
FROM unnest(ARRAY['public.col_clean_view', 'public.col_numeric_huge_view']::regclass[]) t;
RESET ROLE;

-- a reader is told (the cast's own error)
GRANT SELECT ON public.col_numeric_huge TO regress_col_prober;
SET ROLE regress_col_prober;
SELECT code FROM pg_temp.probe('public.col_numeric_huge');
RESET ROLE;

DELETE FROM dptrain.ledger WHERE source_name LIKE 'public.col\_%';
DELETE FROM dptrain.models WHERE source LIKE 'public.col\_%';
DROP VIEW public.col_clean_view, public.col_numeric_huge_view;
DROP TABLE public.col_clean, public.col_numeric_huge, public.col_numeric_tiny, public.col_numeric_nan,
           public.col_float_nan, public.col_null, public.col_category;
REVOKE CREATE ON SCHEMA public FROM regress_col_keeper;
DROP ROLE regress_col_keeper, regress_col_prober;
