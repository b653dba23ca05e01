-- The bad-input catalogue, part 1: arguments. Every case is an ERROR with a
-- proper SQLSTATE, a message and a hint, raised before any data is read.
-- pg_temp.try() runs a statement and shows what it raised (in a
-- subtransaction, which also shows that a failed dp_train leaves the
-- session's identity and settings as they were).
SET client_min_messages = warning;
\getenv abs_srcdir PG_ABS_SRCDIR
\set try_sql :abs_srcdir '/sql/include/try.sql'
\i :try_sql

CREATE TABLE bad_args AS
SELECT i AS id, ARRAY[sin(i), cos(i)]::float8[] AS x, (sin(i) > 0) AS y, 'text'::text AS t
FROM generate_series(1, 20) i;
CREATE SEQUENCE bad_args_seq;
CREATE INDEX bad_args_idx ON bad_args (id);

CREATE TEMP TABLE cases (ord serial, what text, sql text);
INSERT INTO cases (what, sql) VALUES
  ('NULL source',          $$SELECT dp_train(NULL, 'y', 'x', algorithm => 'none')$$),
  ('NULL label',           $$SELECT dp_train('bad_args', NULL, 'x', algorithm => 'none')$$),
  ('NULL features',        $$SELECT dp_train('bad_args', 'y', NULL, algorithm => 'none')$$),
  -- (algorithm, epochs, batch_size, lambda: NULL is their default, docs/defaults.md)
  ('NULL loss',            $$SELECT dp_train('bad_args', 'y', 'x', algorithm => 'none', loss => NULL)$$),
  ('NULL averaging',       $$SELECT dp_train('bad_args', 'y', 'x', algorithm => 'none', averaging => NULL)$$),
  ('unknown table',        $$SELECT dp_train('no_such_table', 'y', 'x', algorithm => 'none')$$),
  ('a sequence',           $$SELECT dp_train('bad_args_seq', 'y', 'x', algorithm => 'none')$$),
  ('an index',             $$SELECT dp_train('bad_args_idx', 'y', 'x', algorithm => 'none')$$),
  ('unknown label column', $$SELECT dp_train('bad_args', 'label', 'x', algorithm => 'none')$$),
  ('unknown feature column', $$SELECT dp_train('bad_args', 'y', 'features', algorithm => 'none')$$),
  ('empty column name',    $$SELECT dp_train('bad_args', '', 'x', algorithm => 'none')$$),
  ('system column',        $$SELECT dp_train('bad_args', 'y', 'ctid', algorithm => 'none')$$),
  ('features not numbers', $$SELECT dp_train('bad_args', 'y', 't', algorithm => 'none')$$),
  ('label an array',       $$SELECT dp_train('bad_args', 'x', 'x', algorithm => 'none')$$),
  ('unknown algorithm',    $$SELECT dp_train('bad_args', 'y', 'x', algorithm => 'magic')$$),
  ('opdisc without delta', $$SELECT dp_train('bad_args', 'y', 'x', algorithm => 'opdisc', epsilon => 1)$$),
  ('unknown loss',         $$SELECT dp_train('bad_args', 'y', 'x', algorithm => 'none', loss => 'hinge')$$),
  ('unknown schedule',     $$SELECT dp_train('bad_args', 'y', 'x', algorithm => 'none', schedule => 'fast')$$),
  ('epochs = 0',           $$SELECT dp_train('bad_args', 'y', 'x', algorithm => 'none', epochs => 0)$$),
  ('epochs < 0',           $$SELECT dp_train('bad_args', 'y', 'x', algorithm => 'none', epochs => -3)$$),
  ('epochs too many',      $$SELECT dp_train('bad_args', 'y', 'x', algorithm => 'none', epochs => 100001)$$),
  ('batch_size = 0',       $$SELECT dp_train('bad_args', 'y', 'x', algorithm => 'none', batch_size => 0)$$),
  ('batch_size < 0',       $$SELECT dp_train('bad_args', 'y', 'x', algorithm => 'none', batch_size => -1)$$),
  ('epsilon = 0',          $$SELECT dp_train('bad_args', 'y', 'x', algorithm => 'none', epsilon => 0)$$),
  ('epsilon < 0',          $$SELECT dp_train('bad_args', 'y', 'x', algorithm => 'none', epsilon => -1)$$),
  ('epsilon NaN',          $$SELECT dp_train('bad_args', 'y', 'x', algorithm => 'none', epsilon => 'NaN')$$),
  ('epsilon infinite',     $$SELECT dp_train('bad_args', 'y', 'x', algorithm => 'none', epsilon => 'Infinity')$$),
  ('delta < 0',            $$SELECT dp_train('bad_args', 'y', 'x', algorithm => 'none', epsilon => 1, delta => -1e-9)$$),
  ('delta = 1',            $$SELECT dp_train('bad_args', 'y', 'x', algorithm => 'none', epsilon => 1, delta => 1)$$),
  ('delta NaN',            $$SELECT dp_train('bad_args', 'y', 'x', algorithm => 'none', epsilon => 1, delta => 'NaN')$$),
  ('epsilon for none',     $$SELECT dp_train('bad_args', 'y', 'x', algorithm => 'none', epsilon => 1, batch_size => 5)$$),
  ('lambda < 0',           $$SELECT dp_train('bad_args', 'y', 'x', algorithm => 'none', lambda => -0.1)$$),
  ('learning_rate = 0',    $$SELECT dp_train('bad_args', 'y', 'x', algorithm => 'none', learning_rate => 0)$$),
  ('huber_h = 1',          $$SELECT dp_train('bad_args', 'y', 'x', algorithm => 'none', huber_h => 1)$$),
  ('radius NaN',           $$SELECT dp_train('bad_args', 'y', 'x', algorithm => 'none', radius => 'NaN')$$),
  ('options not an object', $$SELECT dp_train('bad_args', 'y', 'x', algorithm => 'none', options => '[1]')$$),
  ('option of wrong type', $$SELECT dp_train('bad_args', 'y', 'x', algorithm => 'none', batch_size => 5, schedule => 'decreasing', options => '{"schedule_c": "half"}')$$),
  ('classes 2-D',          $$SELECT dp_train('bad_args', 'y', 'x', algorithm => 'none', classes => '{{a,b},{c,d}}')$$),
  ('classes with NULL',    $$SELECT dp_train('bad_args', 'y', 'x', algorithm => 'none', classes => ARRAY['false', NULL])$$),
  ('classes empty',        $$SELECT dp_train('bad_args', 'y', 'x', algorithm => 'none', classes => '{}')$$),
  ('class listed twice',   $$SELECT dp_train('bad_args', 'y', 'x', algorithm => 'none', classes => '{false,true,false}')$$),
  ('too many classes',     $$SELECT dp_train('bad_args', 'y', 'x', algorithm => 'none', classes => (SELECT array_agg(i::text) FROM generate_series(1, 1001) i))$$),
  -- (these two had no hint)
  ('DP-SGD option a string', $$SELECT dp_train('bad_args', 'y', 'x', algorithm => 'dpsgd', epsilon => 1, delta => 1e-6, batch_size => 5, options => '{"clip_norm": "1"}')$$),
  ('schedule_c, constant steps', $$SELECT dp_train('bad_args', 'y', 'x', algorithm => 'bolton', epsilon => 1, options => '{"schedule_c": 0.5}')$$),
  -- (it printed nlohmann's "[json.exception.out_of_range.406] number overflow parsing" and 401 digits)
  ('option beyond float8', $$SELECT dp_train('bad_args', 'y', 'x', algorithm => 'none', batch_size => 5, schedule => 'decreasing', options => '{"schedule_c": 1e400}')$$),
  -- (separate number columns as one text: the hint said to build an array column, not that an array of names trains them)
  ('features a list of columns', $$SELECT dp_train('bad_args', 'y', 'id,t', algorithm => 'none')$$);

\x on
SELECT c.ord, c.what, r.* FROM cases c, pg_temp.try(c.sql) r ORDER BY c.ord;
\x off

-- A model name is taken: refused before training, not after it.
SELECT name FROM dp_train('bad_args', 'y', 'x', algorithm => 'none', batch_size => 5, name => 'bad_args_model');
\x on
SELECT * FROM pg_temp.try($$SELECT dp_train('bad_args', 'y', 'x', algorithm => 'none', batch_size => 5, name => 'bad_args_model')$$);
\x off

-- Nothing above left anything behind, and the session is as it was.
SELECT count(*) AS models FROM dptrain.models WHERE source = 'public.bad_args';
SELECT current_user = session_user AS same_user, current_setting('search_path') AS search_path;
SELECT count(*) AS temp_tables FROM pg_class WHERE relname LIKE 'dptrain_shuffled%';

-- Before any row is read: the same calls on a view none of whose rows can be
-- read (division by zero) are refused for their arguments alike. Listed: the
-- calls that read the rows first. (algorithm none with epsilon or with an
-- option of the wrong type, and declared classes 2-D, with a NULL, empty or
-- with a duplicate, were refused only after a scan of the whole table.) Those
-- left need the public facts (n, d) or are planned with the candidate's lambda
-- (dp_tune's grid sets it).
CREATE VIEW bad_args_unread AS SELECT id, x, y, t FROM bad_args WHERE 1 / (id - id) = 0;
CREATE TEMP TABLE unread_cases AS
  SELECT ord, what, replace(sql, '''bad_args''', '''bad_args_unread''') AS sql FROM cases;
SELECT c.what, r.code, r.message FROM unread_cases c, pg_temp.try(c.sql) r WHERE r.code = '22012' ORDER BY c.ord;

-- A private run (epsilon, no seed) that its arguments or its plan refuse is
-- refused before its charge, whatever the algorithm (bolton, scs13 and bst14
-- refused these only when planning, and dp_train planned after the charge).
SELECT count(*) AS ledger_before FROM dptrain.ledger \gset
CREATE TEMP TABLE charge_cases (ord serial, what text, sql text);
INSERT INTO charge_cases (what, sql) VALUES
  ('bolton unknown option', $$SELECT dp_train('bad_args', 'y', 'x', algorithm => 'bolton', epsilon => 1, options => '{"foo": 1}')$$),
  ('bolton calibration for pure DP', $$SELECT dp_train('bad_args', 'y', 'x', algorithm => 'bolton', epsilon => 1, options => '{"gaussian_calibration": "classic"}')$$),
  ('bolton unknown calibration', $$SELECT dp_train('bad_args', 'y', 'x', algorithm => 'bolton', epsilon => 1, delta => 1e-6, options => '{"gaussian_calibration": "exact"}')$$),
  ('bolton tolerance not a number', $$SELECT dp_train('bad_args', 'y', 'x', algorithm => 'bolton', epsilon => 1, lambda => 0.1, options => '{"tolerance": "1%"}')$$),
  ('bolton inverse_sqrt',   $$SELECT dp_train('bad_args', 'y', 'x', algorithm => 'bolton', epsilon => 1, schedule => 'inverse_sqrt')$$),
  ('bolton schedule_c, constant steps', $$SELECT dp_train('bad_args', 'y', 'x', algorithm => 'bolton', epsilon => 1, options => '{"schedule_c": 0.5}')$$),
  ('bolton decreasing with a step', $$SELECT dp_train('bad_args', 'y', 'x', algorithm => 'bolton', epsilon => 1, schedule => 'decreasing', learning_rate => 0.1)$$),
  ('scs13 unknown option',  $$SELECT dp_train('bad_args', 'y', 'x', algorithm => 'scs13', epsilon => 1, options => '{"foo": 1}')$$),
  ('scs13 unknown accountant', $$SELECT dp_train('bad_args', 'y', 'x', algorithm => 'scs13', epsilon => 1, delta => 1e-6, options => '{"accountant": "moments"}')$$),
  ('bst14 without delta',   $$SELECT dp_train('bad_args', 'y', 'x', algorithm => 'bst14', epsilon => 1, radius => 1)$$),
  ('bst14 reshuffle',       $$SELECT dp_train('bad_args', 'y', 'x', algorithm => 'bst14', epsilon => 1, delta => 1e-6, radius => 1, reshuffle => true)$$),
  ('bst14 unknown amplification', $$SELECT dp_train('bad_args', 'y', 'x', algorithm => 'bst14', epsilon => 1, delta => 1e-6, radius => 1, options => '{"amplification": "x"}')$$),
  -- refused by the plan from the public facts (n = 20, d = 2), which dp_train now makes before the charge
  ('dpsgd lot larger than n', $$SELECT dp_train('bad_args', 'y', 'x', algorithm => 'dpsgd', epsilon => 1, delta => 1e-6, batch_size => 100)$$),
  ('bolton step above 2/beta', $$SELECT dp_train('bad_args', 'y', 'x', algorithm => 'bolton', epsilon => 1, batch_size => 5, learning_rate => 100)$$),
  ('bolton tolerance, convex', $$SELECT dp_train('bad_args', 'y', 'x', algorithm => 'bolton', epsilon => 1, batch_size => 5, options => '{"tolerance": 0.1}')$$),
  ('bst14 convex without radius', $$SELECT dp_train('bad_args', 'y', 'x', algorithm => 'bst14', epsilon => 1, delta => 1e-6, batch_size => 5)$$);
SELECT c.ord, c.what, r.code, r.message FROM charge_cases c, pg_temp.try(c.sql) r ORDER BY c.ord;
SELECT count(*) - :ledger_before AS charged FROM dptrain.ledger;
-- ... and those that read the rows first (see above)
SELECT c.what, r.code, r.message
FROM charge_cases c, pg_temp.try(replace(c.sql, '''bad_args''', '''bad_args_unread''')) r
WHERE r.code = '22012' ORDER BY c.ord;
-- Refused before that scan (Algorithm::check_run_arguments): a step above
-- 2/beta or 1/beta (beta from the loss, the row bound and lambda), bst14's
-- radius, a schedule lambda does not allow -- arguments of the run, no fact
-- of the data. On the view: their own error, not the read's 22012, and no
-- charge (a read that fails before the charge is charged: reading_errors.h;
-- before, each of these cost its epsilon). With the algorithm left out the
-- defaults may still fill in the step: checked before the scan only when
-- the step is given (the control at the end trains).
SELECT count(*) AS ledger_before FROM dptrain.ledger \gset
CREATE TEMP TABLE run_argument_cases (ord serial, what text, sql text);
INSERT INTO run_argument_cases (what, sql) VALUES
  ('bolton step above 2/beta', $$SELECT dp_train('bad_args_unread', 'y', 'x', algorithm => 'bolton', epsilon => 1, batch_size => 5, learning_rate => 100)$$),
  ('bolton step above 2/beta, no intercept', $$SELECT dp_train('bad_args_unread', 'y', 'x', algorithm => 'bolton', epsilon => 1, batch_size => 5, learning_rate => 100, intercept => false)$$),
  ('bolton strongly convex step above 1/beta', $$SELECT dp_train('bad_args_unread', 'y', 'x', algorithm => 'bolton', epsilon => 1, lambda => 0.1, schedule => 'constant', learning_rate => 100)$$),
  ('bolton constant, lambda, no step', $$SELECT dp_train('bad_args_unread', 'y', 'x', algorithm => 'bolton', epsilon => 1, lambda => 0.1, schedule => 'constant')$$),
  ('bolton tolerance, convex', $$SELECT dp_train('bad_args_unread', 'y', 'x', algorithm => 'bolton', epsilon => 1, batch_size => 5, options => '{"tolerance": 0.1}')$$),
  ('bst14 convex without radius', $$SELECT dp_train('bad_args_unread', 'y', 'x', algorithm => 'bst14', epsilon => 1, delta => 1e-6, batch_size => 5)$$),
  ('scs13 strongly_convex, lambda 0', $$SELECT dp_train('bad_args_unread', 'y', 'x', algorithm => 'scs13', epsilon => 1, schedule => 'strongly_convex')$$),
  ('scs13 schedule_c 1', $$SELECT dp_train('bad_args_unread', 'y', 'x', algorithm => 'scs13', epsilon => 1, schedule => 'decreasing', options => '{"schedule_c": 1}')$$),
  ('default algorithm, step above 2/beta', $$SELECT dp_train('bad_args_unread', 'y', 'x', epsilon => 1, learning_rate => 100)$$);
SELECT c.ord, c.what, r.code, r.message FROM run_argument_cases c, pg_temp.try(c.sql) r ORDER BY c.ord;
SELECT count(*) - :ledger_before AS charged FROM dptrain.ledger;
-- control: left to the defaults, the step of such a run is theirs (1/beta), which the plan accepts
SELECT algorithm, details->'hyperparameters'->>'schedule' AS schedule
FROM dp_train('bad_args', 'y', 'x', epsilon => 1, lambda => 0.1, schedule => 'constant', seed => 1);
DELETE FROM dptrain.ledger WHERE source_name = 'public.bad_args_unread';

-- Declared classes whose subscripts do not start at 1 are the same classes:
-- the copy numbered the rows from the array's lower bound, so '[0:1]={false,true}'
-- trained every row as the negative class (a wrong model, no error) and DP-SGD
-- failed after its charge ("label -1 is not a class index").
SELECT a.weights = b.weights AS same_model, a.classes
FROM dp_train('bad_args', 'y', 'x', algorithm => 'none', batch_size => 5, seed => 1, classes => '[0:1]={false,true}') a,
     dp_train('bad_args', 'y', 'x', algorithm => 'none', batch_size => 5, seed => 1, classes => '{false,true}') b;
SELECT algorithm, classes FROM dp_train('bad_args', 'y', 'x', algorithm => 'dpsgd', epsilon => 1, delta => 1e-6,
                                         batch_size => 5, seed => 1, classes => '[-3:-2]={false,true}');

-- The internal interface (the CLI's functions, the passes' aggregates): their refusals carry a
-- hint too (these had none).
CREATE TEMP TABLE internal_cases (ord serial, what text, sql text);
INSERT INTO internal_cases (what, sql) VALUES
  ('training_prepare, NULL source',       $$SELECT dptrain.training_prepare(NULL, 'y', 'x')$$),
  ('training_prepare_run, NULL algorithm', $$SELECT dptrain.training_prepare_run('bad_args', 'y', 'x', NULL)$$),
  ('training_in_place_pass, NULL pass',   $$SELECT dptrain.training_in_place_pass('bad_args', NULL, '{}')$$),
  ('training_split, 0 parts',             $$SELECT dptrain.training_split('pg_temp.dptrain_shuffled_1', 0)$$),
  ('training_split, not a training table', $$SELECT dptrain.training_split('bad_args', 2)$$),
  ('distinct_text_values, unknown column', $$SELECT dptrain.distinct_text_values('bad_args', 'nope', 3)$$),
  ('distinct_text_values, max_values < 0', $$SELECT dptrain.distinct_text_values('bad_args', 't', -1)$$),
  ('gradient_sum, NULL request',          $$SELECT dptrain.gradient_sum(x, 1::float8, NULL) FROM bad_args$$),
  ('shuffle_epoch_key, epoch < 0',        $$SELECT dptrain.shuffle_epoch_key(dptrain.shuffle_run_key(1), -1)$$);
\x on
SELECT c.ord, c.what, r.* FROM internal_cases c, pg_temp.try(c.sql) r ORDER BY c.ord;
\x off

-- Leave no model or ledger row behind: other files read the whole ledger.
DELETE FROM dptrain.ledger WHERE source_name = 'public.bad_args';
DELETE FROM dptrain.models WHERE source = 'public.bad_args';
-- Drop what this file created: it runs again in the same database.
DROP VIEW bad_args_unread;
DROP TABLE bad_args;
DROP SEQUENCE bad_args_seq;
