-- Hostile review of 2026-11-28 (docs/governance.md): hostile numbers whose
-- overflow in a pass depends on the rows. A role with a budget and no SELECT
-- chose options whose noise still draws but whose noiseless sums may leave the
-- double range; whether they did was decided by the data, after the charge.
--  * DP-AGD's options.loss_clip: a line search sums n K losses clipped at
--    loss_clip. At 7e306 on 300 rows, candidates misclassifying 30 rows summed
--    to inf and the run failed ("malformed gradient state", 22023, charged)
--    where 10 such rows trained: an exact count outside the (epsilon, delta).
--    Now refused by the public n before the charge, on both tables alike.
--  * P-FW's scores +-c g_j with lambda c near DBL_MAX / c: the rows' mean
--    gradient tipped a score over the double range or not, and report-noisy-min
--    refused it after the charge (600 vs 200 false rows of 6,000 at epsilon
--    0.5: an error vs a model). Now refused by the public bound c (L + lambda c).
SET client_min_messages = warning;
\set SHOW_CONTEXT never
\getenv abs_srcdir PG_ABS_SRCDIR
\set try_sql :abs_srcdir '/sql/include/try.sql'
\i :try_sql
CREATE ROLE regress_ovf_prober;
-- Two tables that differ in how many rows (of 300) are false: 10 and 30.
CREATE TABLE public.ovf_10 AS SELECT i AS id, ARRAY[1, 0]::float8[] AS x, (i > 10) AS y FROM generate_series(1, 300) i;
CREATE TABLE public.ovf_30 AS SELECT i AS id, ARRAY[1, 0]::float8[] AS x, (i > 30) AS y FROM generate_series(1, 300) i;
-- Two tables of 6,000 rows that differ in how many are false: 600 and 200.
CREATE TABLE public.ovf_600 AS SELECT i AS id, ARRAY[4, 0]::float8[] AS x, (i > 600) AS y FROM generate_series(1, 6000) i;
CREATE TABLE public.ovf_200 AS SELECT i AS id, ARRAY[4, 0]::float8[] AS x, (i > 200) AS y FROM generate_series(1, 6000) i;
SELECT dp_grant_budget(t, 'regress_ovf_prober', 1000, 1e-6)
FROM unnest(ARRAY['public.ovf_10', 'public.ovf_30', 'public.ovf_600', 'public.ovf_200']::regclass[]) t;
-- The prober's run on t with `options`: its error, and what it was charged.
CREATE FUNCTION pg_temp.probe(t regclass, algorithm text, options jsonb, epsilon float8 DEFAULT 40,
                              delta float8 DEFAULT 1e-25, radius float8 DEFAULT NULL, lambda float8 DEFAULT NULL)
RETURNS TABLE (code text, message text, charged numeric) LANGUAGE plpgsql AS $$
BEGIN
  SELECT r.code, r.message INTO code, message
  FROM pg_temp.try(format('SELECT dp_train(%L, %L, %L, algorithm => %L, epsilon => %L, delta => %L, '
                          'intercept => false, radius => %L, lambda => %L, epochs => 2, options => %L)',
                          t, 'y', 'x', algorithm, epsilon, delta, radius, lambda, options)) r;
  charged := 1000 - (SELECT b.epsilon FROM dp_budget_remaining(t) b)::numeric;
  RETURN NEXT;
END
$$;
SET ROLE regress_ovf_prober;
\x on
-- DP-AGD: the same answer for 10 and 30 false rows, before any charge
SELECT * FROM pg_temp.probe('public.ovf_10', 'dpagd', '{"loss_clip": 7e306, "splits": 8, "alpha_max": 8e306}');
SELECT * FROM pg_temp.probe('public.ovf_30', 'dpagd', '{"loss_clip": 7e306, "splits": 8, "alpha_max": 8e306}');
SELECT * FROM pg_temp.probe('public.ovf_30', 'dpagd',
                            '{"loss_clip": 7e306, "splits": 8, "alpha_max": 8e306, "selection": "exponential"}');
-- P-FW (Laplace and exponential): the same answer for 600 and 200 false rows, before any charge
SELECT * FROM pg_temp.probe('public.ovf_600', 'pfw', '{"coordinate_bound": 4, "row_bound": 4}', 0.5, 1e-6,
                            1e300, 3.595386263724631e-292);
SELECT * FROM pg_temp.probe('public.ovf_200', 'pfw', '{"coordinate_bound": 4, "row_bound": 4}', 0.5, 1e-6,
                            1e300, 3.595386263724631e-292);
SELECT * FROM pg_temp.probe('public.ovf_200', 'pfw', '{"coordinate_bound": 4, "row_bound": 4, "selection": "exponential"}',
                            0.5, 1e-6, 1e300, 3.595386263724631e-292);
\x off
RESET ROLE;

DELETE FROM dptrain.ledger WHERE source_name LIKE 'public.ovf\_%';
DELETE FROM dptrain.models WHERE source LIKE 'public.ovf\_%';
DROP TABLE public.ovf_10, public.ovf_30, public.ovf_600, public.ovf_200;
DROP ROLE regress_ovf_prober;
