-- Attack (issue 15, item 5): model-name squatting. Model references were
-- text, a name before an id: an analyst naming its model '7' took over the
-- owner's dp_predict('7', ...) of model 7, and unique names told anyone
-- whether a model of that name existed, visible or not. Now:
--  * a name cannot look like an id, so text that looks like an id is an id;
--  * dp_predict and dp_evaluate take the bigint id dp_train returns;
--  * a name is unique per creator, and a name refers to the caller's own
--    model: nobody else's model can answer to it;
--  * an invisible model and a missing one look the same.
SET client_min_messages = warning;
\set SHOW_CONTEXT never
\getenv abs_srcdir PG_ABS_SRCDIR
\set try_sql :abs_srcdir '/sql/include/try.sql'
\i :try_sql
-- (model ids vary from run to run: shown as N)
CREATE FUNCTION pg_temp.try_model(sql text) RETURNS TABLE (code text, message text, detail text, hint text)
LANGUAGE sql AS $$
  SELECT t.code, regexp_replace(t.message, '\m[0-9]+\M', 'N', 'g'),
         regexp_replace(t.detail, '\m[0-9]+\M', 'N', 'g'), regexp_replace(t.hint, '\m[0-9]+\M', 'N', 'g')
  FROM pg_temp.try(sql) t
$$;

CREATE ROLE regress_boss;
CREATE ROLE regress_squatter;
GRANT CREATE ON SCHEMA public TO regress_boss;
SET ROLE regress_boss;
CREATE TABLE public.sales AS
SELECT i AS id, ARRAY[sin(i), cos(i)]::float8[] AS x, (sin(i) + 0.2 * cos(i) > 0) AS y
FROM generate_series(1, 300) i;
CREATE TABLE public.sales_test AS SELECT * FROM public.sales WHERE id % 3 = 0;
-- the boss's model: predicts 'true' for (1, 0), trained without noise
SELECT model_id AS boss_id FROM dp_train('public.sales', 'y', 'x', algorithm => 'none', name => 'forecast',
       batch_size => 10) \gset
SELECT dp_grant_budget('public.sales', 'regress_squatter', 5, 0);
GRANT SELECT ON public.sales_test TO regress_squatter;
RESET ROLE;

-- ---- 1. names that look like ids are refused ---------------------------------------
SET ROLE regress_squatter;
\x on
SELECT * FROM pg_temp.try_model(format('SELECT dp_train(%L, %L, %L, algorithm => %L, epsilon => 1, name => %L)',
                                       'public.sales', 'y', 'x', 'bolton', :'boss_id'));
SELECT * FROM pg_temp.try($$SELECT dp_train('public.sales', 'y', 'x', algorithm => 'bolton', epsilon => 1,
                          name => ' 00042 ')$$);
SELECT * FROM pg_temp.try($$SELECT dp_train('public.sales', 'y', 'x', algorithm => 'bolton', epsilon => 1,
                          name => '+7')$$);
SELECT * FROM pg_temp.try($$SELECT dp_train('public.sales', 'y', 'x', algorithm => 'bolton', epsilon => 1,
                          name => '')$$);
-- white space the table's CHECK counts (\s: also vertical tab and form feed)
SELECT * FROM pg_temp.try($$SELECT dp_train('public.sales', 'y', 'x', algorithm => 'bolton', epsilon => 1,
                          name => E'\x0b7\f')$$);
-- control characters (a newline, ESC, DEL, a C1 control): a name is printed
-- in listings and terminals; refused before the charge as well
SELECT * FROM pg_temp.try($$SELECT dp_train('public.sales', 'y', 'x', algorithm => 'bolton', epsilon => 1,
                          name => E'two\nlines')$$);
SELECT * FROM pg_temp.try($$SELECT dp_train('public.sales', 'y', 'x', algorithm => 'bolton', epsilon => 1,
                          name => E'\x1b[31mred')$$);
SELECT * FROM pg_temp.try($$SELECT dp_train('public.sales', 'y', 'x', algorithm => 'bolton', epsilon => 1,
                          name => E'del\x7f')$$);
SELECT * FROM pg_temp.try($$SELECT dp_tune('public.sales', 'y', 'x', epsilon => 1, name => E'c1\u0085')$$);
\x off
-- (refused before anything was charged)
SELECT epsilon AS budget_left FROM dp_budget_remaining('public.sales');
RESET ROLE;

-- ---- 2. the boss's reference by id reaches the boss's model ----------------------------
SET ROLE regress_boss;
SELECT m.id = :boss_id AS the_boss_model FROM dptrain.models m
WHERE m.name = 'forecast' AND m.created_by = 'regress_boss';
-- (the squatter's model is noisy: its mean loss differs from the boss's)
SELECT (SELECT loss FROM dp_evaluate(:'boss_id', 'public.sales_test', 'y', 'x'))
     = (SELECT loss FROM dp_evaluate('forecast', 'public.sales_test', 'y', 'x')) AS text_id_is_the_boss_model;
SELECT (SELECT loss FROM dp_evaluate(:boss_id, 'public.sales_test', 'y', 'x'))
     = (SELECT loss FROM dp_evaluate('forecast', 'public.sales_test', 'y', 'x')) AS bigint_id_is_the_boss_model;
SELECT dp_predict(:'boss_id', '{1, 0}') = dp_predict(:boss_id, '{1, 0}') AS same_prediction;
RESET ROLE;

-- ---- 3. names are per creator: no collisions, no existence leak --------------------------
-- The squatter cannot see 'forecast' (a noiseless model of a table it
-- cannot read), may use the name itself, and does not learn it was taken.
SET ROLE regress_squatter;
SELECT count(*) AS visible_forecasts FROM dptrain.models WHERE name = 'forecast';
SELECT name FROM dp_train('public.sales', 'y', 'x', algorithm => 'bolton', epsilon => 1, name => 'forecast',
                          batch_size => 10);
-- its own name is taken for itself only
\x on
SELECT * FROM pg_temp.try($$SELECT dp_train('public.sales', 'y', 'x', algorithm => 'bolton', epsilon => 1,
                          name => 'forecast')$$);
\x off
-- (refused before the charge: 1 of 5 spent)
SELECT epsilon AS budget_left FROM dp_budget_remaining('public.sales');
-- 'forecast' means its own model
SELECT accuracy IS NOT NULL AS evaluated FROM dp_evaluate('forecast', 'public.sales_test', 'y', 'x');
SELECT name FROM dp_train('public.sales', 'y', 'x', algorithm => 'bolton', epsilon => 0.5, name => 'forecast_2',
                          batch_size => 10);
-- an invisible model and a missing one answer alike
\x on
SELECT * FROM pg_temp.try_model(format('SELECT dp_predict(%s, ''{1, 0}'')', :boss_id));
SELECT * FROM pg_temp.try_model('SELECT dp_predict(999999999, ''{1, 0}'')');
SELECT * FROM pg_temp.try_model(format('SELECT dp_predict(%L, ''{1, 0}'')', :'boss_id'));
SELECT * FROM pg_temp.try_model('SELECT dp_predict(''999999999'', ''{1, 0}'')');
SELECT * FROM pg_temp.try('SELECT dp_predict(''no_such_model'', ''{1, 0}'')');
\x off
RESET ROLE;

-- ---- 4. the boss's 'forecast' is still the boss's -----------------------------------------
-- The boss sees both models named 'forecast'; the name means its own.
SET ROLE regress_boss;
SELECT name, created_by FROM dptrain.models WHERE name = 'forecast' ORDER BY created_by;
SELECT dp_predict('forecast', '{1, 0}') = dp_predict(:boss_id, '{1, 0}')
   AND dp_predict('forecast', '{-1, 0}') = dp_predict(:boss_id, '{-1, 0}') AS forecast_is_the_boss_model;
-- Someone else's model by name: not found, with the ids of the visible ones.
\x on
SELECT * FROM pg_temp.try_model('SELECT dp_predict(''forecast_2'', ''{1, 0}'')');
\x off
RESET ROLE;

-- ---- 5. the id dp_train returns, in the same statement -------------------------------------
SET ROLE regress_boss;
SELECT m.name, e.n, e.accuracy BETWEEN 0 AND 1 AS accuracy_ok
FROM dp_train('public.sales', 'y', 'x', algorithm => 'bolton', epsilon => 1, name => 'sweep',
              batch_size => 10) m,
     LATERAL dp_evaluate(m.model_id, 'public.sales_test', 'y', 'x') e;
SELECT (dp_evaluate(m.model_id, 'public.sales_test', 'y', 'x')).n
FROM dp_train('public.sales', 'y', 'x', algorithm => 'bolton', epsilon => 1, batch_size => 10) m;
SELECT dp_predict(m.model_id, '{1, 0}') IN ('true', 'false') AS predicted
FROM dp_train('public.sales', 'y', 'x', algorithm => 'bolton', epsilon => 1, batch_size => 10) m;
RESET ROLE;

DROP TABLE public.sales, public.sales_test;
DELETE FROM dptrain.ledger WHERE source_name LIKE 'public.sales%';
DELETE FROM dptrain.models WHERE created_by IN ('regress_boss', 'regress_squatter');
REVOKE CREATE ON SCHEMA public FROM regress_boss;
DROP ROLE regress_boss, regress_squatter;
