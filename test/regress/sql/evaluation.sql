-- dp_evaluate's metrics and dp_predict_proba. Every metric is checked against
-- an independent computation in plain SQL from dp_predict / dp_predict_proba
-- on the same rows, so the aggregate, the confusion matrix and the ROC AUC
-- query are each compared with a second implementation.
SET client_min_messages = warning;
\set SHOW_CONTEXT never
CREATE TABLE ev_train AS
SELECT i AS id, ARRAY[sin(i * 0.7), cos(i * 1.3), 0.25]::float8[] AS x,
       (sin(i * 0.7) + 0.5 * cos(i * 1.3) + 0.3 * sin(i * 5.1) > 0) AS y,
       CASE WHEN sin(i * 0.7) > 0.4 THEN 'a' WHEN cos(i * 1.3) > 0 THEN 'b' ELSE 'c' END AS k
FROM generate_series(1, 600) i;
-- A held-out table with a few rows whose label the models do not know.
CREATE TABLE ev_test AS
SELECT i AS id, ARRAY[sin(i * 0.7), cos(i * 1.3), 0.25]::float8[] AS x,
       (sin(i * 0.7) + 0.5 * cos(i * 1.3) + 0.3 * sin(i * 5.1) > 0)::text AS y,
       CASE WHEN i % 97 = 0 THEN 'zzz' WHEN sin(i * 0.7) > 0.4 THEN 'a' WHEN cos(i * 1.3) > 0 THEN 'b' ELSE 'c' END AS k
FROM generate_series(601, 900) i;

-- Trained and evaluated in one statement (an epsilon sweep is one query).
SELECT m.name, e.n, round(e.accuracy::numeric, 2) > 0.6 AS learned, e.classes
FROM dp_train('ev_train', 'y', 'x', algorithm => 'none', epochs => 5, batch_size => 10,
              name => 'ev_bin', seed => 7) m,
     LATERAL dp_evaluate(m.model_id, 'ev_test', 'y', 'x') e;
SELECT name FROM dp_train('ev_train', 'k', 'x', algorithm => 'none', epochs => 5, batch_size => 10,
                          name => 'ev_multi', seed => 7);
SELECT name FROM dp_train('ev_train', 'y', 'x', algorithm => 'none', loss => 'huber', epochs => 2,
                          batch_size => 10, name => 'ev_huber', seed => 7);

-- ---- binary: every metric against plain SQL ----------------------------------
CREATE TEMP TABLE ev_pred AS
SELECT y, dp_predict('ev_bin', x) AS p, (dp_predict_proba('ev_bin', x))[2] AS score FROM ev_test;
CREATE TEMP TABLE ev_sql AS
WITH c AS (SELECT count(*) FILTER (WHERE y = 'true' AND p = 'true')::float8 tp,
                  count(*) FILTER (WHERE y = 'false' AND p = 'true')::float8 fp,
                  count(*) FILTER (WHERE y = 'true' AND p = 'false')::float8 fn,
                  count(*) FILTER (WHERE y = p)::float8 correct,
                  count(*) FILTER (WHERE y = 'true')::float8 pos,
                  count(*)::float8 n FROM ev_pred),
     -- ROC AUC as the Mann-Whitney statistic over all positive/negative pairs
     auc AS (SELECT avg(CASE WHEN a.score > b.score THEN 1 WHEN a.score = b.score THEN 0.5 ELSE 0 END) v
             FROM ev_pred a, ev_pred b WHERE a.y = 'true' AND b.y = 'false')
SELECT correct / n AS accuracy, greatest(pos, n - pos) / n AS majority_rate, tp / (tp + fp) AS precision,
       tp / (tp + fn) AS recall, 2 * tp / (2 * tp + fp + fn) AS f1, auc.v AS roc_auc
FROM c, auc;
SELECT abs(e.accuracy - s.accuracy) < 1e-12 AS accuracy_ok,
       abs(e.majority_rate - s.majority_rate) < 1e-12 AS majority_ok,
       abs(e.precision - s.precision) < 1e-12 AS precision_ok,
       abs(e.recall - s.recall) < 1e-12 AS recall_ok,
       abs(e.f1 - s.f1) < 1e-12 AS f1_ok,
       abs(e.roc_auc - s.roc_auc) < 1e-12 AS auc_ok,
       e.roc_auc > 0.5 AS auc_better_than_chance,
       e.confusion = (SELECT ARRAY[[count(*) FILTER (WHERE y = 'false' AND p = 'false'),
                                    count(*) FILTER (WHERE y = 'false' AND p = 'true')],
                                   [count(*) FILTER (WHERE y = 'true' AND p = 'false'),
                                    count(*) FILTER (WHERE y = 'true' AND p = 'true')]] FROM ev_pred) AS confusion_ok
FROM dp_evaluate('ev_bin', 'ev_test', 'y', 'x') e, ev_sql s;
-- by id: the same row
SELECT (SELECT row(e.*)::text FROM dp_evaluate('ev_bin', 'ev_test', 'y', 'x') e)
     = (SELECT row(e.*)::text FROM dp_evaluate((SELECT id FROM dptrain.models WHERE name = 'ev_bin'),
                                                'ev_test', 'y', 'x') e) AS same_by_id;

-- ---- multiclass: confusion matrix, unknown labels, macro-F1 ------------------
CREATE TEMP TABLE ev_mpred AS SELECT k, dp_predict('ev_multi', x) AS p FROM ev_test;
SELECT e.n, e.classes, e.precision IS NULL AS no_binary_precision, e.roc_auc IS NULL AS no_auc,
       abs(e.accuracy - (SELECT avg((k = p)::int) FROM ev_mpred)) < 1e-12 AS accuracy_ok,
       -- the rows labelled 'zzz' count as errors, not in the matrix
       (SELECT sum(c) FROM unnest(e.confusion) c) = e.n - (SELECT count(*) FROM ev_test WHERE k = 'zzz') AS unknown_left_out,
       e.confusion = (SELECT array_agg(r ORDER BY t) FROM (
                        SELECT t, ARRAY[count(*) FILTER (WHERE k = t AND p = 'a'), count(*) FILTER (WHERE k = t AND p = 'b'),
                                        count(*) FILTER (WHERE k = t AND p = 'c')] r
                        FROM ev_mpred, unnest(ARRAY['a', 'b', 'c']) t GROUP BY t) q) AS confusion_ok,
       abs(e.macro_f1 - (SELECT avg(2.0 * tp / (2 * tp + fp + fn)) FROM (
             SELECT count(*) FILTER (WHERE k = t AND p = t) tp, count(*) FILTER (WHERE k <> t AND p = t) fp,
                    count(*) FILTER (WHERE k = t AND p <> t) fn
             FROM ev_mpred, unnest(ARRAY['a', 'b', 'c']) t GROUP BY t) f)) < 1e-12 AS macro_f1_ok,
       abs(e.majority_rate - (SELECT max(c)::float8 / 300 FROM (SELECT count(*) c FROM ev_test GROUP BY k) q)) < 1e-12
         AS majority_ok
FROM dp_evaluate('ev_multi', 'ev_test', 'k', 'x') e;
-- A 0/1 integer label against the boolean model: '0' and '1' are none of its
-- classes {false, true}, so every row is an error; a warning says so instead
-- of a silent accuracy of 0 (found by a sweep over other label types).
CREATE TABLE ev_int AS SELECT id, x, (y = 'true')::int AS y FROM ev_test;
SELECT e.n, e.accuracy, e.majority_rate FROM dp_evaluate('ev_bin', 'ev_int', 'y', 'x') e;

-- ---- dp_predict_proba --------------------------------------------------------
-- Probabilities sum to 1, agree with dp_predict's class, and the binary one is
-- the logistic function of the decision score: with the intercept (the last
-- weight, times b = 1) w.x' for x' = (x scaled to norm <= 1, 1) (docs/intercept.md).
WITH w AS (SELECT weights FROM dptrain.models WHERE name = 'ev_bin'),
     q AS (SELECT x, dp_predict_proba('ev_bin', x) pr,
                  least(1, 1 / greatest(sqrt((SELECT sum(a * a) FROM unnest(x) a)), 1e-300))
                  * (SELECT sum(a * b) FROM unnest(x, (SELECT weights FROM w)) u(a, b))
                  + (SELECT weights[cardinality(weights)] FROM w) score FROM ev_test)
SELECT bool_and(abs(pr[1] + pr[2] - 1) < 1e-12) AS binary_sums_to_1,
       bool_and((pr[2] >= 0.5) = (dp_predict('ev_bin', x) = 'true')) AS binary_agrees,
       bool_and(abs(pr[2] - 1 / (1 + exp(-score))) < 1e-12) AS binary_is_logistic
FROM q;
SELECT bool_and(abs(pr[1] + pr[2] + pr[3] - 1) < 1e-12) AS multi_sums_to_1,
       bool_and(pr[array_position(ARRAY['a', 'b', 'c'], dp_predict('ev_multi', x))]
                = (SELECT max(v) FROM unnest(pr) v)) AS argmax_is_predicted
FROM (SELECT x, dp_predict_proba('ev_multi', x) pr FROM ev_test) q;
SELECT dp_predict_proba((SELECT id FROM dptrain.models WHERE name = 'ev_bin'), ARRAY[0, 0, 0.25])
     = dp_predict_proba('ev_bin', ARRAY[0, 0, 0.25]) AS by_id;

-- ---- errors ------------------------------------------------------------------
\getenv abs_srcdir PG_ABS_SRCDIR
\set try_sql :abs_srcdir '/sql/include/try.sql'
\i :try_sql
SELECT * FROM pg_temp.try($$SELECT dp_predict_proba('ev_huber', ARRAY[0.1, 0.2, 0.25])$$);
SELECT * FROM pg_temp.try($$SELECT dp_predict_proba('ev_bin', ARRAY[0.1, 0.2])$$);
SELECT * FROM pg_temp.try($$SELECT dp_predict_proba('ev_bin', ARRAY[0.1, 'NaN', 0.25])$$);
SELECT * FROM pg_temp.try($$SELECT dp_predict_proba('no_such_model', ARRAY[0.1, 0.2, 0.25])$$);
SELECT dp_predict_proba('ev_bin', NULL) IS NULL AS strict;
-- an empty table (its aggregate state is NULL): an error, not a crashed backend
CREATE TABLE ev_empty AS SELECT * FROM ev_test WHERE false;
SELECT * FROM pg_temp.try($$SELECT * FROM dp_evaluate('ev_bin', 'ev_empty', 'y', 'x')$$);
-- columns of the wrong type: dp_train's errors (a scalar or text feature column
-- failed as a cast, the text one showing a value; an array label made every row
-- an unknown class, accuracy 0)
SELECT * FROM pg_temp.try($$SELECT * FROM dp_evaluate('ev_bin', 'ev_test', 'y', 'y')$$);
SELECT * FROM pg_temp.try($$SELECT * FROM dp_evaluate('ev_bin', 'ev_test', 'x', 'x')$$);
SELECT * FROM pg_temp.try($$SELECT dptrain.decision_score((SELECT weights FROM dptrain.models WHERE name = 'ev_bin'), ARRAY[0.1])$$);
-- a row of finite values whose squared norm overflows (1e308): clipped to the
-- feature bound by 1 / inf = 0, it scored as the zero row (the intercept
-- alone), silently; training's error now (found by a sweep over shapes)
SELECT * FROM pg_temp.try($$SELECT dp_predict('ev_bin', ARRAY[1e308, 1e308, 0.25])$$);
SELECT * FROM pg_temp.try($$SELECT dp_predict_proba('ev_bin', ARRAY[1e308, 1e308, 0.25])$$);
CREATE TABLE ev_huge AS SELECT id, CASE WHEN id = 700 THEN ARRAY[1e308, 1e308, 0.25] ELSE x END AS x, y FROM ev_test;
SELECT * FROM pg_temp.try($$SELECT * FROM dp_evaluate('ev_bin', 'ev_huge', 'y', 'x')$$);
-- numeric[] features: a value no double holds (1e400, 1e-400) failed the cast
-- as PostgreSQL's bare 22003 printing it; dp_train's error now (shape sweep)
CREATE TABLE ev_numeric AS SELECT id, x::numeric[] AS x, y FROM ev_test;
SELECT n FROM dp_evaluate('ev_bin', 'ev_numeric', 'y', 'x');
UPDATE ev_numeric SET x = ARRAY[1e-400, 0.5, 0.25] WHERE id = 700;
SELECT * FROM pg_temp.try($$SELECT * FROM dp_evaluate('ev_bin', 'ev_numeric', 'y', 'x')$$);
UPDATE ev_numeric SET x = ARRAY[-1e400, 0.5, 0.25] WHERE id = 700;
SELECT * FROM pg_temp.try($$SELECT * FROM dp_evaluate('ev_bin', 'ev_numeric', 'y', 'x')$$);
-- a Huber model is evaluated (ROC AUC ranks its decision score)
SELECT e.roc_auc > 0.5 AS huber_auc, e.precision IS NOT NULL AS huber_precision
FROM dp_evaluate('ev_huber', 'ev_test', 'y', 'x') e;

-- Rows longer than the feature bound are scored clipped to it, as they were
-- trained, also without an intercept: the class never depended on the scale,
-- but the probabilities and the ROC AUC ranking used the raw w.x (a row 100
-- times longer got probabilities near 0 or 1, and long rows ranked first).
CREATE TABLE ev_far AS SELECT i AS id, ARRAY[sin(i), cos(i)]::float8[] AS x, sin(i) + sin(7.3 * i) > 0 AS y
  FROM generate_series(1, 300) i;
CREATE TABLE ev_far_long AS SELECT id, ARRAY[(1 + id % 5 * 20) * x[1], (1 + id % 5 * 20) * x[2]] AS x, y
  FROM ev_far;
SELECT model_id AS far_model
FROM dp_train('ev_far', 'y', 'x', algorithm => 'none', intercept => false, batch_size => 10, seed => 1) \gset
SELECT array(SELECT round(v::numeric, 12) FROM unnest(dp_predict_proba(:far_model, ARRAY[0.6, 0.8])) v) =
       array(SELECT round(v::numeric, 12) FROM unnest(dp_predict_proba(:far_model, ARRAY[60, 80])) v) AS same_proba;
SELECT round(a.roc_auc::numeric, 9) = round(b.roc_auc::numeric, 9) AS same_auc, a.accuracy = b.accuracy AS same_accuracy,
       round(a.loss::numeric, 9) = round(b.loss::numeric, 9) AS same_loss
FROM dp_evaluate(:far_model, 'ev_far', 'y', 'x') a, dp_evaluate(:far_model, 'ev_far_long', 'y', 'x') b;
DROP TABLE ev_far, ev_far_long;

-- Leave no model or ledger row behind: other files read the whole ledger.
DELETE FROM dptrain.ledger WHERE source_name LIKE 'public.ev\_%';
DELETE FROM dptrain.models WHERE source LIKE 'public.ev\_%';
-- Drop what this file created: it runs again in the same database.
DROP TABLE ev_train, ev_test, ev_int, ev_empty;
