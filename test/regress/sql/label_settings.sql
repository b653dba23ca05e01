-- A label's class text does not depend on the caller's settings
-- (src/pg/label_classes.h, README.md "Labels"). A float's text came from its
-- output function, under the session's extra_float_digits: with 0 or less,
-- 0.3 and 0.30000000000000004 (two values, two groups under GROUP BY) were
-- both '0.3' (a run reading the classes from the data failed with "class
-- listed twice"), declared classes were rounded the same way, and a model
-- trained under one setting and evaluated under another disagreed about the
-- rows' classes. A float's class is now its shortest exact text (what
-- extra_float_digits >= 1, the default, prints) under every setting.
SET client_min_messages = warning;
CREATE TABLE ls_float AS SELECT i AS id, ARRAY[sin(i), cos(i)]::float8[] AS x,
  (ARRAY[0.3, 0.30000000000000004, 0.1])[i % 3 + 1]::float8 AS y FROM generate_series(1, 30) i;
-- real: 1 and 1.0000001 are two values, both '1' with extra_float_digits 0.
CREATE TABLE ls_real AS SELECT i AS id, ARRAY[sin(i), cos(i)]::float8[] AS x,
  (ARRAY['1', '1.0000001', '-0'])[i % 3 + 1]::real AS y FROM generate_series(1, 30) i;

-- The classes under the default setting ...
SELECT classes FROM dp_train('ls_float', 'y', 'x', algorithm => 'none', seed => 1, batch_size => 5, name => 'ls_default');
SELECT classes FROM dp_train('ls_real', 'y', 'x', algorithm => 'none', seed => 1, batch_size => 5);
-- ... are the classes under any other.
SET extra_float_digits = 0;
SELECT classes FROM dp_train('ls_float', 'y', 'x', algorithm => 'none', seed => 1, batch_size => 5, name => 'ls_zero');
SELECT classes FROM dp_train('ls_real', 'y', 'x', algorithm => 'none', seed => 1, batch_size => 5);
SET extra_float_digits = -15;
SELECT classes FROM dp_train('ls_float', 'y', 'x', algorithm => 'none', seed => 1, batch_size => 5);
-- declared classes are read as the same texts
SELECT classes FROM dp_train('ls_float', 'y', 'x', algorithm => 'none', seed => 1, batch_size => 5,
                             classes => ARRAY['0.30000000000000004', '0.3', '0.1']);
SELECT classes FROM dp_train('ls_real', 'y', 'x', algorithm => 'none', seed => 1, batch_size => 5,
                             classes => ARRAY['1.0000001', '1', '-0']);
-- A model trained under the default setting, evaluated under another: every
-- row has one of its classes (all 30 in the matrix, no WARNING), and the
-- same weights as the model trained under extra_float_digits 0.
SELECT e.n, (SELECT sum(c) FROM unnest(e.confusion) c) AS in_the_matrix
FROM dp_evaluate('ls_default', 'ls_float', 'y', 'x') e;
RESET extra_float_digits;
SELECT e.n, (SELECT sum(c) FROM unnest(e.confusion) c) AS in_the_matrix
FROM dp_evaluate('ls_zero', 'ls_float', 'y', 'x') e;
SELECT a.classes = b.classes AS same_classes, a.weights = b.weights AS same_weights
FROM dptrain.models a, dptrain.models b WHERE a.name = 'ls_default' AND b.name = 'ls_zero';

DELETE FROM dptrain.ledger WHERE source_name LIKE 'public.ls\_%';
DELETE FROM dptrain.models WHERE source LIKE 'public.ls\_%';
DROP TABLE ls_float, ls_real;
