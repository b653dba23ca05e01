-- Hostile review of 2026-11-28 (docs/governance.md): hostile numbers whose
-- overflow in a pass depends on the rows. A role with a budget and no SELECT
-- chose options whose noise still draws but whose noiseless sums may leave the
-- double range; whether they did was decided by the data, after the charge.
--  * DP-AGD's options.loss_clip: a line search sums n K losses clipped at
--    loss_clip. At 7e306 on 300 rows, candidates misclassifying 30 rows summed
--    to inf and the run failed ("malformed gradient state", 22023, charged)
--    where 10 such rows trained: an exact count outside the (epsilon, delta).
--    Now refused by the public n before the charge, on both tables alike.
SET client_min_messages = warning;
\set SHOW_CONTEXT never
\getenv abs_srcdir PG_ABS_SRCDIR
\set try_sql :abs_srcdir '/sql/include/try.sql'
\i :try_sql
CREATE ROLE regress_ovf_prober;
-- Two tables that differ in how many rows (of 300) are false: 10 and 30.
CREATE TABLE public.ovf_10 AS SELECT i AS id, ARRAY[1, 0]::float8[] AS x, (i > 10) AS y FROM generate_series(1, 300) i;
CREATE TABLE public.ovf_30 AS SELECT i AS id, ARRAY[1, 0]::float8[] AS x, (i > 30) AS y FROM generate_series(1, 300) i;
SELECT dp_grant_budget('public.ovf_10', 'regress_ovf_prober', 1000, 1e-6),
       dp_grant_budget('public.ovf_30', 'regress_ovf_prober', 1000, 1e-6);
-- The prober's run on t with `options`: its error, and what it was charged.
CREATE FUNCTION pg_temp.probe(t regclass, algorithm text, options jsonb, radius float8 DEFAULT NULL,
                              lambda float8 DEFAULT NULL)
RETURNS TABLE (code text, message text, charged numeric) LANGUAGE plpgsql AS $$
BEGIN
  SELECT r.code, r.message INTO code, message
  FROM pg_temp.try(format('SELECT dp_train(%L, %L, %L, algorithm => %L, epsilon => 40, delta => 1e-25, '
                          'intercept => false, radius => %L, lambda => %L, epochs => 2, options => %L)',
                          t, 'y', 'x', algorithm, radius, lambda, options)) r;
  charged := 1000 - (SELECT epsilon FROM dp_budget_remaining(t))::numeric;
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
\x off
RESET ROLE;

DELETE FROM dptrain.ledger WHERE source_name LIKE 'public.ovf\_%';
DELETE FROM dptrain.models WHERE source LIKE 'public.ovf\_%';
DROP TABLE public.ovf_10, public.ovf_30;
DROP ROLE regress_ovf_prober;
