-- Hostile review of 2026-11-28 (docs/governance.md), second round: outcomes
-- that depend on the rows after the charge. A private tuning run scores each
-- candidate's released model on the caller's rows (dptrain.evaluate_agg). With
-- finite but huge weights (pfw with radius 1e306, a public choice of the
-- analyst) w.x overflowed on a large row, and scoring failed with "the model's
-- weights are not finite" (22P01, charged) where a table without such a row
-- released a model: whether some row has |x| above ~1e308 / radius, an exact
-- bit outside the (epsilon, delta). The class of such a row now comes from the
-- weights scaled by a power of two (packed_model.cpp, predict_index): both
-- tables release a model.
SET client_min_messages = warning;
\set SHOW_CONTEXT never
\getenv abs_srcdir PG_ABS_SRCDIR
\set try_sql :abs_srcdir '/sql/include/try.sql'
\i :try_sql
CREATE ROLE regress_scr_prober;
-- Two tables of 400 rows that differ in one row: x = -1 and x = -500.
CREATE TABLE public.scr_small AS
SELECT i AS id, ARRAY[CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END]::float8[] AS x, (i % 2 = 0) AS y
FROM generate_series(1, 400) i;
CREATE TABLE public.scr_big AS
SELECT id, CASE WHEN id = 7 THEN ARRAY[-500]::float8[] ELSE x END AS x, y FROM public.scr_small;
SELECT dp_grant_budget(t, 'regress_scr_prober', 1000, 1e-3)
FROM unnest(ARRAY['public.scr_small', 'public.scr_big']::regclass[]) t;
-- The prober's statement `sql` on t: its error, and what it was charged.
CREATE FUNCTION pg_temp.probe(t regclass, sql text)
RETURNS TABLE (code text, message text, charged numeric) LANGUAGE plpgsql AS $$
BEGIN
  SELECT r.code, r.message INTO code, message FROM pg_temp.try(format(sql, t)) r;
  charged := 1000 - (SELECT b.epsilon FROM dp_budget_remaining(t) b)::numeric;
  RETURN NEXT;
END
$$;
SET ROLE regress_scr_prober;
-- Liu-Talwar over pfw with radius 1e306: a model from both tables, both charged
SELECT t, p.*
FROM unnest(ARRAY['public.scr_small', 'public.scr_big']::regclass[]) t,
     LATERAL pg_temp.probe(t, $q$SELECT dp_tune(%L, 'y', 'x', algorithm => 'pfw', epsilon => 10, delta => 1e-5,
                                  method => 'liu_talwar', intercept => false, options => '{"coordinate_bound": 1}',
                                  grid => '{"radius": [1e306], "epochs": [1]}')$q$) p;
RESET ROLE;
SELECT source, algorithm, abs(weights[1]) AS abs_weight FROM dptrain.models WHERE source LIKE 'public.scr\_%' ORDER BY id;

DELETE FROM dptrain.ledger WHERE source_name LIKE 'public.scr\_%';
DELETE FROM dptrain.models WHERE source LIKE 'public.scr\_%';
DROP TABLE public.scr_small, public.scr_big;
DROP ROLE regress_scr_prober;
