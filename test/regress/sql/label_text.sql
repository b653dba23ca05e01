-- A class is a label's value written as text: the models store their
-- classes as text, dp_predict returns text, and every copy, in-place pass
-- and dp_evaluate maps a row to its class by array_position(classes,
-- <class text>). A number has one class text per value of its type's =
-- (src/pg/label_classes.h): a numeric without trailing zeros (trim_scale:
-- 1.0 and 1.00 are '1', 2.50 is '2.5'), a float's -0 as '0'. So equal
-- labels are one class, as PostgreSQL's = and GROUP BY take them; before,
-- they were one class per text (1.0 and 1.00 two classes of a numeric label,
-- binary or not by the spelling), and earlier still one class whose text
-- only some rows had, the others copied with a NULL label and refused by the
-- first epoch -- after the charge of a private run. Declared classes are
-- read as values of the label's type ('1.0' declares the rows written 1.00).
SET client_min_messages = warning;
\set SHOW_CONTEXT never
\getenv abs_srcdir PG_ABS_SRCDIR
\set try_sql :abs_srcdir '/sql/include/try.sql'
\i :try_sql
CREATE ROLE regress_label_owner;
CREATE ROLE regress_label_trainer;
GRANT CREATE ON SCHEMA public TO regress_label_owner;
SET ROLE regress_label_owner;
-- Ten rows of each text: 1.0, 1.00 and 2 (1.0 = 1.00 as numeric values): two classes.
CREATE TABLE lt_numeric AS SELECT i AS id, ARRAY[sin(i), cos(i)]::float8[] AS x,
  (ARRAY['1.0', '1.00', '2'])[i % 3 + 1]::numeric AS y FROM generate_series(1, 30) i;
-- float8: 0 and -0 are equal values with different texts: one class, '0'.
CREATE TABLE lt_float AS SELECT i AS id, ARRAY[sin(i), cos(i)]::float8[] AS x,
  (ARRAY['0', '-0', '1'])[i % 3 + 1]::float8 AS y FROM generate_series(1, 30) i;
-- float8 written 1 and 1.0 has one text ('1'): two classes.
CREATE TABLE lt_float_one AS SELECT i AS id, ARRAY[sin(i), cos(i)]::float8[] AS x,
  (ARRAY['1', '1.0', '2'])[i % 3 + 1]::float8 AS y FROM generate_series(1, 30) i;
-- text: every value is its own text.
CREATE TABLE lt_text AS SELECT i AS id, ARRAY[sin(i), cos(i)]::float8[] AS x,
  (ARRAY['1.0', '1.00', '2'])[i % 3 + 1] AS y FROM generate_series(1, 30) i;
-- numeric 2 and 10: the classes keep the label type's order (2 before 10);
-- 2.50 is the class '2.5', numeric -0.0 the class '0'.
CREATE TABLE lt_order AS SELECT i AS id, ARRAY[sin(i), cos(i)]::float8[] AS x,
  (ARRAY['10', '2.0', '2', '10.0', '2.50', '-0.0'])[i % 6 + 1]::numeric AS y FROM generate_series(1, 60) i;
-- real (float4): 0 and -0 too.
CREATE TABLE lt_real AS SELECT i AS id, ARRAY[sin(i), cos(i)]::float8[] AS x,
  (ARRAY['-0', '0', '0.5'])[i % 3 + 1]::real AS y FROM generate_series(1, 30) i;
-- integers: one text per value already.
CREATE TABLE lt_int AS SELECT i AS id, ARRAY[sin(i), cos(i)]::float8[] AS x,
  (ARRAY[1, 2])[i % 2 + 1] AS y FROM generate_series(1, 30) i;
-- NaN is no class (float8 and numeric): refused, as before.
CREATE TABLE lt_nan AS SELECT i AS id, ARRAY[sin(i), cos(i)]::float8[] AS x,
  (ARRAY['NaN', '0', '1'])[i % 3 + 1]::float8 AS y, (ARRAY['NaN', '0', '1'])[i % 3 + 1]::numeric AS n
  FROM generate_series(1, 30) i;
-- boolean: declared classes are boolean inputs ('t', 'yes', 'on', '1' are true).
CREATE TABLE lt_bool AS SELECT i AS id, ARRAY[sin(i), cos(i)]::float8[] AS x, i % 2 = 0 AS y
  FROM generate_series(1, 30) i;
GRANT SELECT ON lt_numeric, lt_float, lt_float_one, lt_text, lt_order, lt_real, lt_int, lt_nan, lt_bool TO regress_label_trainer;
RESET ROLE;

SET ROLE regress_label_trainer;
-- Classes from the data: one class per value, every row is trained on.
SELECT classes, details->'data'->'rows' AS n FROM dp_train('lt_numeric', 'y', 'x', algorithm => 'none', seed => 1, batch_size => 5);
SELECT classes, details->'data'->'rows' AS n FROM dp_train('lt_float', 'y', 'x', algorithm => 'none', seed => 1, batch_size => 5);
SELECT classes, details->'data'->'rows' AS n FROM dp_train('lt_float_one', 'y', 'x', algorithm => 'none', seed => 1, batch_size => 5);
SELECT classes, details->'data'->'rows' AS n FROM dp_train('lt_text', 'y', 'x', algorithm => 'none', seed => 1, batch_size => 5);
SELECT classes, details->'data'->'rows' AS n FROM dp_train('lt_order', 'y', 'x', algorithm => 'none', seed => 1, batch_size => 5);
SELECT classes, details->'data'->'rows' AS n FROM dp_train('lt_real', 'y', 'x', algorithm => 'none', seed => 1, batch_size => 5);
-- Declared classes are values of the label's type: '1.0' is the class '1'
-- (the rows written 1.00 are in it), a float's '-0' is '0', an integer's
-- '01' and ' +2' are '1' and '2'; a name that is no value ('yes') is kept
-- and matches no row.
SELECT classes, details->'data'->'rows' AS n FROM dp_train('lt_numeric', 'y', 'x', algorithm => 'none', seed => 1,
                             batch_size => 5, classes => ARRAY['1.0', '2.000']);
SELECT classes FROM dp_train('lt_float', 'y', 'x', algorithm => 'none', seed => 1, batch_size => 5,
                             classes => ARRAY['-0', '1e0']);
SELECT classes FROM dp_train('lt_real', 'y', 'x', algorithm => 'none', seed => 1, batch_size => 5,
                             classes => ARRAY['0.0', '.5']);
SELECT classes FROM dp_train('lt_int', 'y', 'x', algorithm => 'none', seed => 1, batch_size => 5,
                             classes => ARRAY['01', ' +2 ', 'yes']);
-- A boolean label's declared classes are read as boolin reads them (before,
-- 'f' and 't' were names of no value: every row was outside the declared
-- classes and the run refused); the declared order is kept.
SELECT classes, details->'data'->'rows' AS n FROM dp_train('lt_bool', 'y', 'x', algorithm => 'none', seed => 1,
                             batch_size => 5, classes => ARRAY['f', 't']);
SELECT classes FROM dp_train('lt_bool', 'y', 'x', algorithm => 'none', seed => 1, batch_size => 5,
                             classes => ARRAY[' YES ', 'off']);
SELECT classes FROM dp_train('lt_bool', 'y', 'x', algorithm => 'none', seed => 1, batch_size => 5,
                             classes => ARRAY['0', 'on', 'maybe']);
\x on
-- two spellings of one value: listed twice
SELECT * FROM pg_temp.try($$SELECT dp_train('lt_numeric', 'y', 'x', algorithm => 'none', seed => 1,
                                            batch_size => 5, classes => ARRAY['1.0', '1.00', '2'])$$);
SELECT * FROM pg_temp.try($$SELECT dp_train('lt_bool', 'y', 'x', algorithm => 'none', seed => 1,
                                            batch_size => 5, classes => ARRAY['false', 't', 'true'])$$);
-- names of no value of the label's type match no row: the hint names one
-- (a boolean label declared with the text classes of its file, as the docs'
-- examples once did after `dptrain load --positive '>50K'`)
SELECT * FROM pg_temp.try($$SELECT dp_train('lt_bool', 'y', 'x', algorithm => 'none', seed => 1,
                                            batch_size => 5, classes => ARRAY['<=50K', '>50K'])$$);
SELECT * FROM pg_temp.try($$SELECT dp_train('lt_int', 'y', 'x', algorithm => 'none', seed => 1,
                                            batch_size => 5, classes => ARRAY['1', 'two'])$$);
-- NaN labels are refused (float8 and numeric)
SELECT * FROM pg_temp.try($$SELECT dp_train('lt_nan', 'y', 'x', algorithm => 'none', seed => 1, batch_size => 5)$$);
SELECT * FROM pg_temp.try($$SELECT dp_train('lt_nan', 'n', 'x', algorithm => 'none', seed => 1, batch_size => 5)$$);
\x off
-- dp_evaluate and dp_predict read the same class texts: every row of
-- lt_numeric and lt_float has a class of its model (no WARNING about labels
-- that are none of the model's classes, every row in the matrix), and
-- dp_predict answers with one of the model's classes.
SELECT m.classes, e.n, (SELECT sum(c) FROM unnest(e.confusion) c) AS in_the_matrix,
       dp_predict(m.model_id, ARRAY[0.5, 0.5]) = ANY (m.classes) AS predicts_a_class
FROM dp_train('lt_numeric', 'y', 'x', algorithm => 'none', seed => 1, batch_size => 5) m,
     dp_evaluate(m.model_id, 'lt_numeric', 'y', 'x') e;
SELECT m.classes, e.n, (SELECT sum(c) FROM unnest(e.confusion) c) AS in_the_matrix
FROM dp_train('lt_float', 'y', 'x', algorithm => 'none', seed => 1, batch_size => 5) m,
     dp_evaluate(m.model_id, 'lt_float', 'y', 'x') e;
SELECT m.classes, e.n, (SELECT sum(c) FROM unnest(e.confusion) c) AS in_the_matrix
FROM dp_train('lt_order', 'y', 'x', algorithm => 'none', seed => 1, batch_size => 5) m,
     dp_evaluate(m.model_id, 'lt_order', 'y', 'x') e;
-- A boolean model declared with 'no' and 'yes': its classes are 'false' and
-- 'true', dp_predict answers one of them, and dp_evaluate maps every row.
SELECT m.classes, e.n, (SELECT sum(c) FROM unnest(e.confusion) c) AS in_the_matrix, e.classes AS evaluated_classes,
       dp_predict(m.model_id, ARRAY[0.5, 0.5]) = ANY (m.classes) AS predicts_a_class
FROM dp_train('lt_bool', 'y', 'x', algorithm => 'none', seed => 1, batch_size => 5, classes => ARRAY['no', 'yes']) m,
     dp_evaluate(m.model_id, 'lt_bool', 'y', 'x') e;
-- A run read in place (exact sums: optimum, docs/performance.md) maps the
-- rows as the copy does: 1.0 and 1.00 in the class '1', every row summed.
SELECT classes, details->'data'->>'read' AS read, details->'data'->'rows' AS n
FROM dp_train('lt_numeric', 'y', 'x', algorithm => 'optimum', lambda => 1e-3);
RESET ROLE;
-- The prepared copy holds no NULL label (its class indexes are 0 and 1).
BEGIN;
SELECT shuffled AS lt_copy, rows AS lt_rows, classes AS lt_classes FROM dptrain.training_prepare('lt_numeric', 'y', 'x', seed => 1) \gset
SELECT :'lt_rows' AS rows, :'lt_classes' AS classes;
SELECT count(*) AS n, count(*) FILTER (WHERE y IS NULL) AS null_labels, min(y), max(y) FROM :lt_copy;
SELECT dptrain.training_drop(:'lt_copy');
COMMIT;

SET ROLE regress_label_owner;
SELECT dp_grant_budget('lt_numeric', 'regress_label_trainer', 1, 0);
SET ROLE regress_label_trainer;
-- A private run on the same data: trained, charged once.
SELECT * FROM dp_budget_remaining('lt_numeric');
SELECT classes, epsilon FROM dp_train('lt_numeric', 'y', 'x', algorithm => 'bolton', epsilon => 0.25, batch_size => 5);
SELECT * FROM dp_budget_remaining('lt_numeric');
-- Declared as '1.0': the same class, the same run, charged once more.
\x on
SELECT * FROM pg_temp.try($$SELECT dp_train('lt_numeric', 'y', 'x', algorithm => 'bolton', epsilon => 0.25,
                                            batch_size => 5, classes => ARRAY['1.0', '2'])$$);
\x off
SELECT * FROM dp_budget_remaining('lt_numeric');
RESET ROLE;

-- An enum label (refused before as "must be boolean, a number or text"; found
-- by a sweep over label types): a class is its text, the classes read from
-- the data come in the enum's order, and dp_evaluate and dp_predict read the
-- same texts.
CREATE TYPE lt_colour AS ENUM ('red', 'green', 'blue');
CREATE TABLE lt_enum AS SELECT i AS id, ARRAY[sin(i), cos(i)]::float8[] AS x,
  (ARRAY['blue', 'red', 'green'])[i % 3 + 1]::lt_colour AS y FROM generate_series(1, 30) i;
SELECT m.classes, m.details->'data'->'rows' AS n, e.n AS evaluated, e.accuracy > 0 AS scored,
       dp_predict(m.model_id, ARRAY[0.5, 0.5]) = ANY (m.classes) AS predicts_a_class
FROM dp_train('lt_enum', 'y', 'x', algorithm => 'none', seed => 1, batch_size => 5) m,
     dp_evaluate(m.model_id, 'lt_enum', 'y', 'x') e;
SELECT classes FROM dp_train('lt_enum', 'y', 'x', algorithm => 'dpsgd', epsilon => 1, delta => 1e-5, seed => 1,
                             batch_size => 5, classes => ARRAY['green', 'red', 'blue']);

SELECT source, count(*) FROM dptrain.models WHERE source LIKE 'public.lt\_%' GROUP BY source ORDER BY source;
DELETE FROM dptrain.ledger WHERE source_name LIKE 'public.lt\_%';
DELETE FROM dptrain.models WHERE created_by = 'regress_label_trainer';
DELETE FROM dptrain.models WHERE source = 'public.lt_enum';
DROP TABLE lt_numeric, lt_float, lt_float_one, lt_text, lt_order, lt_real, lt_int, lt_nan, lt_bool, lt_enum;
DROP TYPE lt_colour;
REVOKE CREATE ON SCHEMA public FROM regress_label_owner;
DROP ROLE regress_label_owner, regress_label_trainer;
