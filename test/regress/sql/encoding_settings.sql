-- An encoded numeric column does not depend on the caller's settings. The
-- encoder reads every column as text (dptrain.encode_row(encoding, VARIADIC
-- text[])), and a float column's text came from its output function, under
-- the session's extra_float_digits: with -15, 0.1234567890123 was read as
-- 0.1, so the same run trained another model, dp_evaluate scored another
-- table and an encoded view gave each reader other features. A number
-- column's text is now its float8 value's shortest exact text
-- (dptrain.float_text), which the encoder reads back as the very float8.
SET client_min_messages = warning;
CREATE TABLE es_raw AS SELECT i AS id, (sin(i) > 0) AS y, sin(i) * 0.987654321 AS age,
  (i % 7)::numeric / 3 AS score, CASE WHEN i % 2 = 0 THEN 'F' ELSE 'M' END AS sex
FROM generate_series(1, 40) i;

SELECT model_id IS NOT NULL AS trained FROM dp_train('es_raw', 'y', features => ARRAY['age', 'score', 'sex'],
  bounds => '{"age": [-1, 1], "score": [0, 2]}', categories => '{"sex": ["F", "M"]}',
  algorithm => 'none', seed => 1, batch_size => 5, name => 'es_default');
CREATE TABLE es_eval_default AS SELECT * FROM dp_evaluate('es_default', 'es_raw', 'y');
SELECT dp_encoded_view('es_view', 'es_raw', 'y', features => ARRAY['age', 'score', 'sex'],
  bounds => '{"age": [-1, 1], "score": [0, 2]}', categories => '{"sex": ["F", "M"]}');
CREATE TABLE es_view_default AS SELECT * FROM es_view;

SET extra_float_digits = -15;
SELECT model_id IS NOT NULL AS trained FROM dp_train('es_raw', 'y', features => ARRAY['age', 'score', 'sex'],
  bounds => '{"age": [-1, 1], "score": [0, 2]}', categories => '{"sex": ["F", "M"]}',
  algorithm => 'none', seed => 1, batch_size => 5, name => 'es_low');
CREATE TABLE es_eval_low AS SELECT * FROM dp_evaluate('es_default', 'es_raw', 'y');
CREATE TABLE es_view_low AS SELECT * FROM es_view;
RESET extra_float_digits;

-- the same model, the same scores, the same view rows
SELECT a.weights = b.weights AS same_weights
FROM dptrain.models a, dptrain.models b WHERE a.name = 'es_default' AND b.name = 'es_low';
SELECT a.accuracy = b.accuracy AND a.loss = b.loss AS same_scores FROM es_eval_default a, es_eval_low b;
SELECT count(*) AS differ FROM (SELECT * FROM es_view_default EXCEPT ALL SELECT * FROM es_view_low) d;

DELETE FROM dptrain.ledger WHERE source_name = 'public.es_raw';
DELETE FROM dptrain.models WHERE source = 'public.es_raw';
DROP VIEW es_view;
DROP TABLE es_raw, es_eval_default, es_eval_low, es_view_default, es_view_low;
