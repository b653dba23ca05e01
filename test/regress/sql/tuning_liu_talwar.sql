-- Private hyperparameter selection by Liu-Talwar random stopping
-- (dp_tune(..., method => 'liu_talwar'); docs/tuning.md): a grid over any
-- parameters (arguments and options) of any private algorithm, the total
-- (epsilon, delta) recorded and charged once before anything runs, what the
-- model records (and what it does not), and the error paths with their
-- SQLSTATE and hint -- none of which charges anything.
\getenv abs_srcdir PG_ABS_SRCDIR
\set try_sql :abs_srcdir '/sql/include/try.sql'
\i :try_sql
CREATE TABLE lt_sep AS
SELECT i AS id,
       ARRAY[(CASE WHEN sin(i * 0.7) >= 0 THEN 1 ELSE -1 END) * (0.5 + 0.5 * abs(cos(i * 0.3))),
             0.3 * cos(i * 1.3)]::float8[] AS x,
       sin(i * 0.7) >= 0 AS y
FROM generate_series(1, 1000) i;

-- The search's record, flattened (rounded: the split is pinned exactly in the unit tests).
CREATE FUNCTION lt_record(details jsonb) RETURNS TABLE (
    method text, grid jsonb, grid_points int, chosen_point jsonb, gamma float8, max_candidates int,
    delta2 float8, candidate_epsilon numeric, candidate_delta text, training_epsilon numeric,
    score_epsilon numeric, bound_within boolean, candidate_adjacency boolean, has_seconds boolean)
LANGUAGE sql AS $$
  SELECT details->'tuning'->>'method', details->'tuning'->'grid', (details->'tuning'->>'grid_points')::int,
         details->'tuning'->'chosen'->'point', (details->'privacy'->>'gamma')::float8,
         (details->'privacy'->>'max_candidates')::int, (details->'privacy'->>'delta2')::float8,
         round((details->'privacy'->>'candidate_epsilon')::numeric, 9),
         to_char((details->'privacy'->>'candidate_delta')::float8, '9.99999EEEE'),
         round((details->'privacy'->>'training_epsilon')::numeric, 9),
         round((details->'privacy'->>'score_epsilon')::numeric, 9),
         (details->'privacy'->'bound'->>'epsilon')::float8 <= (details->'privacy'->>'epsilon')::float8 * (1 + 1e-12)
           AND (details->'privacy'->'bound'->>'delta')::float8 <= (details->'privacy'->>'delta')::float8 * (1 + 1e-12),
         details->'privacy'->'candidate'->>'adjacency' IS NOT NULL, details ? 'seconds'
$$;

SET client_min_messages = warning;
-- 1. dpadam over learning rate x clipping norm (options key), 4 points, gamma
--    1/4 by default: T = ceil(4 ln(2 / 1e-5)) = 49, sqrt(2 delta1) = 5e-6 / 49,
--    eps1 = (1 - 3 sqrt(2 delta1)) / 3, score eps1 / 10, training 0.9 eps1.
SELECT name, algorithm, epsilon, delta, candidates, epochs, batch_size, classes, array_length(weights, 1) AS d
FROM dp_tune('lt_sep', 'y', 'x', algorithm => 'dpadam', epsilon => 1, delta => 1e-5, method => 'liu_talwar',
             grid => '{"learning_rate": [0.01, 0.1], "clip_norm": [0.5, 1], "epochs": [2]}',
             classes => ARRAY['false', 'true'], name => 'lt_adam', seed => 1);
SELECT r.* FROM dptrain.models m, lt_record(m.details) r WHERE m.name = 'lt_adam';
SELECT epsilon, delta, seeded, details->'privacy'->>'notion' AS notion,
       (details->'tuning'->'chosen'->>'noisy_accuracy')::float8 > 0.9 AS good_score,
       (dp_evaluate('lt_adam', 'lt_sep', 'y', 'x')).accuracy > 0.9 AS accurate
FROM dptrain.models WHERE name = 'lt_adam';
-- The same seed gives the same search and model.
SELECT a.weights = t.weights AS reproducible
FROM dptrain.models a,
     dp_tune('lt_sep', 'y', 'x', algorithm => 'dpadam', epsilon => 1, delta => 1e-5, method => 'liu_talwar',
             grid => '{"learning_rate": [0.01, 0.1], "clip_norm": [0.5, 1], "epochs": [2]}',
             classes => ARRAY['false', 'true'], seed => 1) t
WHERE a.name = 'lt_adam';

-- 2. The DP-SGD family defaults to liu_talwar (Algorithm 3 does not cover it);
--    without `grid` the lists lambdas x epochs x batch_sizes are the grid.
SELECT algorithm, epsilon, delta, candidates, details->'tuning'->>'method' AS method,
       details->'tuning'->'grid' AS grid, (details->'privacy'->>'gamma')::float8 AS gamma
FROM dp_tune('lt_sep', 'y', 'x', algorithm => 'dpsgd', epsilon => 2, delta => 1e-6, lambdas => '{0}',
             epochs => '{1, 2}', batch_sizes => '{50}', classes => ARRAY['false', 'true'], seed => 2);
-- 3. Any private algorithm: bolton with a given gamma (1: exactly one candidate, T = ceil(ln(2e6)) = 15).
SELECT algorithm, epsilon, delta, candidates,
       (details->'privacy'->>'max_candidates')::int AS t, (details->'privacy'->>'gamma')::float8 AS gamma,
       details->'privacy'->'candidate'->>'adjacency' AS candidate_adjacency
FROM dp_tune('lt_sep', 'y', 'x', algorithm => 'bolton', epsilon => 1, delta => 1e-6, method => 'liu_talwar',
             gamma => 1, grid => '{"lambda": [0.001, 0.01], "epochs": [1, 2]}', classes => ARRAY['false', 'true'],
             seed => 3);
-- A grid may set an argument the algorithm needs and the shared arguments lack
-- (pfw's radius): every candidate is checked, not the shared arguments alone.
SELECT algorithm, candidates, jsonb_path_query_first(details, '$.**.l1_radius')::float8 IN (1, 10) AS radius_from_grid
FROM dp_tune('lt_sep', 'y', 'x', algorithm => 'pfw', epsilon => 1, delta => 1e-6, method => 'liu_talwar',
             gamma => 1, grid => '{"radius": [1, 10]}', classes => ARRAY['false', 'true'], seed => 4);
-- ... and a grid without it is still refused before anything is read, naming the point.
SELECT * FROM pg_temp.try($$SELECT dp_tune('lt_sep', 'y', 'x', algorithm => 'pfw', epsilon => 1, delta => 1e-6,
  method => 'liu_talwar', grid => '{"epochs": [5, 10]}', classes => ARRAY['false', 'true'])$$);

-- 4. The budget: an analyst who may not read the table tunes on a budget; the
--    search is charged its total (epsilon, delta) once, before anything runs,
--    and refused when it would exceed what is left. Errors -- of the grid, of
--    DP-SGD's options (checked without the data), of a plan that needs n --
--    charge nothing; neither does dp_train's DP-SGD with a bad clipping norm.
CREATE ROLE lt_owner;
CREATE ROLE lt_analyst;
GRANT CREATE ON SCHEMA public TO lt_owner;
SET ROLE lt_owner;
CREATE TABLE lt_owned AS SELECT * FROM generate_series(1, 1000) i,
  LATERAL (SELECT ARRAY[sin(i * 0.7), cos(i * 1.3), 0.25]::float8[] AS x, sin(i * 0.7) + 0.5 * cos(i * 1.3) > 0 AS y) r;
-- (DP-SGD is accounted under add/remove-one: the ledger charges (2 eps, (1 + e^eps) delta).)
SELECT dp_grant_budget('lt_owned', 'lt_analyst', 2.0, 1e-5);
SET ROLE lt_analyst;
-- no NOTICE numbers the candidates: how many ran stays hidden (docs/tuning.md §4)
SET client_min_messages = notice;
SELECT model_id IS NOT NULL AS stored, algorithm, epsilon, delta, candidates
FROM dp_tune('lt_owned', 'y', 'x', algorithm => 'dpsgd', epsilon => 0.6, delta => 1e-6, method => 'liu_talwar',
             grid => '{"learning_rate": [0.1, 0.5], "epochs": [1]}', classes => ARRAY['false', 'true']);
SET client_min_messages = warning;
SELECT * FROM dp_budget_remaining('lt_owned');
SELECT algorithm, epsilon, delta FROM dptrain.ledger WHERE role = 'lt_analyst'::regrole;
-- 0.5 more (charged 1) would exceed the 0.8 left
SELECT * FROM pg_temp.try($$SELECT dp_tune('lt_owned', 'y', 'x', algorithm => 'dpsgd', epsilon => 0.5, delta => 1e-6,
  grid => '{"learning_rate": [0.1]}', classes => ARRAY['false', 'true'])$$);
-- a stopping probability so small that the number of candidates is beyond any run (it had no hint)
SELECT * FROM pg_temp.try($$SELECT dp_tune('lt_owned', 'y', 'x', algorithm => 'dpsgd', epsilon => 0.1, delta => 1e-6,
  grid => '{"learning_rate": [0.1]}', gamma => 1e-300, classes => ARRAY['false', 'true'])$$);
-- an unknown DP-SGD option in the grid, a clipping norm <= 0: refused before the charge
SELECT * FROM pg_temp.try($$SELECT dp_tune('lt_owned', 'y', 'x', algorithm => 'dpsgd', epsilon => 0.1, delta => 1e-6,
  grid => '{"clip_nrom": [1]}', classes => ARRAY['false', 'true'])$$);
SELECT * FROM pg_temp.try($$SELECT dp_tune('lt_owned', 'y', 'x', algorithm => 'dpsgd', epsilon => 0.1, delta => 1e-6,
  grid => '{"clip_norm": [1, 0]}', classes => ARRAY['false', 'true'])$$);
-- a lot larger than the table (needs n): refused after the facts, before the charge
SELECT * FROM pg_temp.try($$SELECT dp_tune('lt_owned', 'y', 'x', algorithm => 'dpsgd', epsilon => 0.1, delta => 1e-6,
  grid => '{"batch_size": [50, 5000]}', classes => ARRAY['false', 'true'])$$);
-- dp_train's DP-SGD options are checked before the charge too
SELECT * FROM pg_temp.try($$SELECT dp_train('lt_owned', 'y', 'x', algorithm => 'dpsgd', epsilon => 0.1, delta => 1e-6,
  options => '{"clip_norm": -1}', classes => ARRAY['false', 'true'])$$);
SELECT * FROM pg_temp.try($$SELECT dp_train('lt_owned', 'y', 'x', algorithm => 'dpadam', epsilon => 0.1, delta => 1e-6,
  options => '{"beta1": 1}', classes => ARRAY['false', 'true'])$$);
SELECT * FROM pg_temp.try($$SELECT dp_train('lt_owned', 'y', 'x', algorithm => 'dpsgd', epsilon => 0.1,
  classes => ARRAY['false', 'true'])$$);
SELECT * FROM dp_budget_remaining('lt_owned');
SELECT count(*) AS charges FROM dptrain.ledger WHERE role = 'lt_analyst'::regrole;
RESET ROLE;
DELETE FROM dptrain.ledger WHERE role = 'lt_analyst'::regrole;
DELETE FROM dptrain.models WHERE created_by IN ('lt_owner', 'lt_analyst');
DROP TABLE lt_owned;
REVOKE CREATE ON SCHEMA public FROM lt_owner;
DROP ROLE lt_owner, lt_analyst;

-- 5. Bad input (nothing stored).
CREATE TEMP TABLE lt_before AS SELECT count(*) AS n FROM dptrain.models;
CREATE FUNCTION lt_try(call text) RETURNS TABLE (code text, message text, detail text, hint text)
LANGUAGE sql AS $$
  SELECT * FROM pg_temp.try('SELECT dp_tune(''lt_sep'', ''y'', ''x'', classes => ARRAY[''false'', ''true''], ' || call || ')')
$$;
SELECT * FROM lt_try($$algorithm => 'dpsgd', epsilon => 1, delta => 1e-6, grid => '{"epsilon": [1, 2]}'$$);
SELECT * FROM lt_try($$algorithm => 'dpsgd', epsilon => 1, delta => 1e-6, grid => '{"learning_rate": []}'$$);
SELECT * FROM lt_try($$algorithm => 'dpsgd', epsilon => 1, delta => 1e-6, grid => '{"learning_rate": [0.1, 0.1]}'$$);
SELECT * FROM lt_try($$algorithm => 'dpsgd', epsilon => 1, delta => 1e-6, grid => '[0.1]'$$);
SELECT * FROM lt_try($$algorithm => 'dpsgd', epsilon => 1, delta => 1e-6, grid => '{"epochs": [1.5]}'$$);
SELECT * FROM lt_try($$algorithm => 'dpsgd', epsilon => 1, delta => 1e-6, grid => '{"epochs": [1]}', epochs => '{2}'$$);
-- a list equal to its default is given too (it was taken for left out: the SQL defaults were these literals)
SELECT * FROM lt_try($$algorithm => 'dpsgd', epsilon => 1, delta => 1e-6, grid => '{"epochs": [1]}', lambdas => '{0.0001,0.001,0.01}'$$);
SELECT * FROM lt_try($$algorithm => 'dpsgd', epsilon => 1, delta => 1e-6, gamma => 0$$);
SELECT * FROM lt_try($$algorithm => 'dpsgd', epsilon => 1, delta => 1e-6, gamma => 1.5$$);
SELECT * FROM lt_try($$algorithm => 'dpsgd', epsilon => 1, delta => 1e-6, gamma => 1e-5$$);
SELECT * FROM lt_try($$algorithm => 'dpsgd', epsilon => 1, delta => 1e-6, method => 'random_search'$$);
SELECT * FROM lt_try($$algorithm => 'bolton', epsilon => 1, method => 'liu_talwar'$$);
SELECT * FROM lt_try($$algorithm => 'bolton', epsilon => 1, gamma => 0.5$$);
SELECT * FROM lt_try($$algorithm => 'bolton', epsilon => 1, grid => '{"learning_rate": [0.1]}'$$);
SELECT * FROM lt_try($$algorithm => 'none', epsilon => 1, delta => 1e-6, method => 'liu_talwar'$$);
SELECT * FROM lt_try($$algorithm => 'dpsgd', epsilon => 1e-7, delta => 0.5, gamma => 1$$);
-- delta1 = ((delta - delta2) / T)^2 / 2 underflows to 0: refused naming the split, before the charge
SELECT * FROM lt_try($$algorithm => 'dpsgd', epsilon => 1, delta => 1e-300, gamma => 1$$);
SELECT * FROM lt_try($$algorithm => 'bolton', epsilon => 1, delta => 1e-6, method => 'liu_talwar',
                      grid => '{"lambda": [0], "learning_rate": [3]}'$$);
SELECT count(*) = (SELECT n FROM lt_before) AS nothing_stored FROM dptrain.models;

DELETE FROM dptrain.models WHERE details->'tuning'->>'method' = 'liu_talwar';
DELETE FROM dptrain.ledger WHERE source_name = 'public.lt_sep';
DROP FUNCTION lt_try(text);
DROP FUNCTION lt_record(jsonb);
DROP TABLE lt_sep;
RESET client_min_messages;
