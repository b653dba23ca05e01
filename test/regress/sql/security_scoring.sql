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
-- The same overflow inside a training pass: DP-SGD and SCS13 take w.x on the
-- raw row with the weights of the last step; a learning rate of 1e307 (the
-- noise still draws) gives finite weights of both signs near the double range,
-- and on the row (1000, 1000) w.x = inf - inf = NaN: its gradient poisoned the
-- lot and the run failed as "diverged" (22023, charged) where the table without
-- that row released a model. A NaN margin now counts as 0 (core/loss/loss.cpp).
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
-- Two tables of 300 rows that differ in one row: x = (-1, 1) and (1000, 1000).
CREATE TABLE public.scr_pair AS
SELECT i AS id, ARRAY[s, -s]::float8[] AS x, (s > 0) AS y
FROM generate_series(1, 300) i, LATERAL (SELECT CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END AS s) q;
CREATE TABLE public.scr_pair_big AS
SELECT id, CASE WHEN id = 7 THEN ARRAY[1000, 1000]::float8[] ELSE x END AS x, y FROM public.scr_pair;
SELECT dp_grant_budget(t, 'regress_scr_prober', 1000, 1e-3)
FROM unnest(ARRAY['public.scr_small', 'public.scr_big', 'public.scr_pair', 'public.scr_pair_big']::regclass[]) t;
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
-- DP-SGD and SCS13 with learning rate 1e307, one lot of all rows per step: a model from both tables
SELECT t, p.*
FROM unnest(ARRAY['public.scr_pair', 'public.scr_pair_big']::regclass[]) t,
     LATERAL pg_temp.probe(t, $q$SELECT dp_train(%L, 'y', 'x', algorithm => 'dpsgd', epsilon => 1, delta => 1e-5,
                                  intercept => false, learning_rate => 1e307, batch_size => 300,
                                  options => '{"steps": 3}')$q$) p;
SELECT t, p.*
FROM unnest(ARRAY['public.scr_pair', 'public.scr_pair_big']::regclass[]) t,
     LATERAL pg_temp.probe(t, $q$SELECT dp_train(%L, 'y', 'x', algorithm => 'scs13', epsilon => 1, delta => 1e-5,
                                  intercept => false, learning_rate => 1e307, batch_size => 300, epochs => 3)$q$) p;
RESET ROLE;
SELECT source, algorithm, abs(weights[1]) AS abs_weight FROM dptrain.models WHERE source IN ('public.scr_small', 'public.scr_big') ORDER BY id;
SELECT source, algorithm, abs(weights[1]) > 1e306 AS huge FROM dptrain.models WHERE source LIKE 'public.scr\_pair%' ORDER BY id;

DELETE FROM dptrain.ledger WHERE source_name LIKE 'public.scr\_%';
DELETE FROM dptrain.models WHERE source LIKE 'public.scr\_%';
DROP TABLE public.scr_small, public.scr_big, public.scr_pair, public.scr_pair_big;
DROP ROLE regress_scr_prober;
