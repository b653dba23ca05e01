-- The bad-input catalogue, part 3: aggregate states and models passed by
-- hand. Only roles trusted with the raw data may run the epoch aggregate
-- (EXECUTE is revoked from PUBLIC); even for them a malformed state is an
-- ERROR, never a crash. The evaluation aggregate is PUBLIC, so its model
-- argument is checked on every row.
SET client_min_messages = warning;
\getenv abs_srcdir PG_ABS_SRCDIR
\set try_sql :abs_srcdir '/sql/include/try.sql'
\i :try_sql
-- A well-formed initial state (layout in src/core/sgd/epoch_state.h): d = 2,
-- K = 1, logistic, h = 0.1, lambda = 0, no projection, feature bound 1,
-- b = 1, constant step 0.1; 48 header values (version 2), then w and the
-- accumulator.
CREATE FUNCTION pg_temp.state(VARIADIC fix float8[] DEFAULT '{}') RETURNS float8[] LANGUAGE plpgsql AS $$
DECLARE
  s float8[] := ARRAY[1146115188, 2, 2, 1, 0, 0.1, 0, 0, 1, 1, 0, 0.1]::float8[]
                || array_fill(0::float8, ARRAY[36 + 4]);
BEGIN
  -- fix = {index (0-based), value, index, value, ...}
  FOR i IN 1 .. coalesce(array_length(fix, 1), 0) BY 2 LOOP
    s[fix[i]::int + 1] := fix[i + 1];
  END LOOP;
  RETURN s;
END
$$;
CREATE TABLE st (x float8[], y float8);
INSERT INTO st VALUES (ARRAY[0.5, 0.5], 1), (ARRAY[-0.5, 0.25], -1);

-- The well-formed state trains: 2 rows, 2 updates.
SELECT s[16] AS updates, s[17] AS rows FROM (SELECT dptrain.sgd_epoch(x, y, pg_temp.state()) s FROM st) q;

CREATE TEMP TABLE cases (ord serial, what text, sql text);
INSERT INTO cases (what, sql) VALUES
  ('state function called directly', $$SELECT dptrain.sgd_transition(NULL, ARRAY[1, 2]::float8[], 1::float8, pg_temp.state())$$),
  ('final function called directly', $$SELECT dptrain.sgd_final(pg_temp.state())$$),
  ('combine called directly',        $$SELECT dptrain.sgd_combine(pg_temp.state(), pg_temp.state())$$),
  ('NULL initial state',             $$SELECT dptrain.sgd_epoch(x, y, NULL) FROM st$$),
  ('too short',                      $$SELECT dptrain.sgd_epoch(x, y, ARRAY[1, 2, 3]::float8[]) FROM st$$),
  ('empty',                          $$SELECT dptrain.sgd_epoch(x, y, '{}') FROM st$$),
  ('two-dimensional',                $$SELECT dptrain.sgd_epoch(x, y, ARRAY[pg_temp.state(), pg_temp.state()]) FROM st$$),
  ('NULL element',                   $$SELECT dptrain.sgd_epoch(x, y, pg_temp.state() || NULL::float8) FROM st$$),
  ('bad magic',                      $$SELECT dptrain.sgd_epoch(x, y, pg_temp.state(0, 42)) FROM st$$),
  ('one value too many',             $$SELECT dptrain.sgd_epoch(x, y, pg_temp.state() || 0::float8) FROM st$$),
  ('huge claimed dimension',         $$SELECT dptrain.sgd_epoch(x, y, pg_temp.state(2, 1e9)) FROM st$$),
  ('huge claimed number of models',  $$SELECT dptrain.sgd_epoch(x, y, pg_temp.state(3, 5e6)) FROM st$$),
  ('fractional dimension',           $$SELECT dptrain.sgd_epoch(x, y, pg_temp.state(2, 1.5)) FROM st$$),
  ('NaN dimension',                  $$SELECT dptrain.sgd_epoch(x, y, pg_temp.state(2, 'NaN')) FROM st$$),
  ('averaging without its block',    $$SELECT dptrain.sgd_epoch(x, y, pg_temp.state(18, 1)) FROM st$$),
  ('pending rows >= batch',          $$SELECT dptrain.sgd_epoch(x, y, pg_temp.state(17, 1)) FROM st$$),
  ('negative row counter',           $$SELECT dptrain.sgd_epoch(x, y, pg_temp.state(16, -1)) FROM st$$),
  ('unknown loss',                   $$SELECT dptrain.sgd_epoch(x, y, pg_temp.state(4, 9)) FROM st$$),
  ('unknown schedule',               $$SELECT dptrain.sgd_epoch(x, y, pg_temp.state(10, 9)) FROM st$$),
  ('negative step size',             $$SELECT dptrain.sgd_epoch(x, y, pg_temp.state(11, -0.1)) FROM st$$),
  ('infinite lambda',                $$SELECT dptrain.sgd_epoch(x, y, pg_temp.state(6, 'Infinity')) FROM st$$),
  ('reserved field set',             $$SELECT dptrain.sgd_epoch(x, y, pg_temp.state(46, 1)) FROM st$$),
  ('version 1 (no shard counts)',    $$SELECT dptrain.sgd_epoch(x, y, pg_temp.state(1, 1)) FROM st$$),
  ('shard counts without the flag',  $$SELECT dptrain.sgd_epoch(x, y, pg_temp.state(42, 2)) FROM st$$),
  ('shard-count key word >= 2^32',   $$SELECT dptrain.sgd_epoch(x, y, pg_temp.state(37, 1, 38, 4294967296)) FROM st$$),
  ('NaN weight',                     $$SELECT dptrain.sgd_epoch(x, y, pg_temp.state(48, 'NaN')) FROM st$$),
  ('rows of the wrong length',       $$SELECT dptrain.sgd_epoch(x || 0::float8, y, pg_temp.state()) FROM st$$),
  ('label not -1/0/+1',              $$SELECT dptrain.sgd_epoch(x, 2::float8, pg_temp.state()) FROM st$$);

\x on
SELECT c.ord, c.what, r.* FROM cases c, pg_temp.try(c.sql) r ORDER BY c.ord;
\x off

-- Hand-written aggregates reusing dptrain's state functions with a crafted
-- INITCOND (any role may create them: the functions are PUBLIC so that the
-- passes can run with the reader's rights): the state is validated like any
-- other.
CREATE AGGREGATE pg_temp.evil_epoch(float8[], float8, float8[]) (
    SFUNC = dptrain.sgd_transition, STYPE = float8[], INITCOND = '{1146115188,2,100000,1,0,0.1}');
CREATE AGGREGATE pg_temp.evil_final(float8[], float8, float8[]) (
    SFUNC = dptrain.sgd_transition, STYPE = float8[], FINALFUNC = dptrain.sgd_final,
    INITCOND = '{1146115188,2,2,1,0,0.1,0,0,1,1,0,0.1,0,0,0,0,0,7}');
\x on
SELECT * FROM pg_temp.try($$SELECT pg_temp.evil_epoch(x, y, NULL) FROM st$$);
-- no rows: the final function gets the INITCOND itself
SELECT * FROM pg_temp.try($$SELECT pg_temp.evil_final(x, y, NULL) FROM st WHERE false$$);
\x off
-- The final function fed by the role's own transition function, group by
-- group: group 1's state is valid, group 2's (batch size 0, a NaN weight
-- scale and noise scale) is crafted with the same layout and lands where
-- group 1's was (the group's memory is reset): it is validated all the same.
CREATE FUNCTION pg_temp.pick(s float8[], v float8[]) RETURNS float8[] LANGUAGE sql IMMUTABLE AS 'SELECT v';
CREATE AGGREGATE pg_temp.evil_groups(float8[]) (SFUNC = pg_temp.pick, STYPE = float8[], FINALFUNC = dptrain.sgd_final);
CREATE TEMP TABLE crafted AS SELECT 1 AS g, dptrain.sgd_state(3) AS v;
INSERT INTO crafted
SELECT 2, array_agg(CASE i WHEN 10 THEN 0 WHEN 18 THEN 1 WHEN 21 THEN 'NaN' WHEN 25 THEN 1 WHEN 26 THEN 'NaN'
                           ELSE s[i] END ORDER BY i)
FROM (SELECT dptrain.sgd_state(3) AS s) q, generate_series(1, 54) i;
SET enable_hashagg = off;
\x on
SELECT * FROM pg_temp.try($$SELECT g, pg_temp.evil_groups(v) FROM crafted GROUP BY g ORDER BY g$$);
\x off
RESET enable_hashagg;

-- The evaluation aggregate (PUBLIC): a packed model per row, crafted ones
-- among them (this crashed the backend when the check was cached by pointer).
CREATE TABLE packed (ord int, m float8[]);
INSERT INTO packed VALUES (1, '{1146115181,1,1,2,0,0.1,1,0.5,0.5}'),
                          (2, '{1146115181,1,5000000,2,0,0.1,1,0.5,0.5}'),
                          (3, '{1146115181,1,1,2,0,0.1,1,0.5}');
\x on
SELECT * FROM pg_temp.try($$SELECT dptrain.evaluate_agg(ARRAY[1, 1]::float8[], 1, m) FROM packed$$);
SELECT * FROM pg_temp.try($$SELECT dptrain.evaluate_agg(ARRAY[1, 1]::float8[], 1, m) FROM packed WHERE ord = 3$$);
\x off
SELECT dptrain.evaluate_agg(ARRAY[1, 1]::float8[], 1, m) AS rows_correct_loss FROM packed WHERE ord = 1;
-- A binarized (OPDisc, version 3) packed model [.., t = 0.5, w = (1, -1)]:
-- the row (0.7, 0.3) reads as (1, 0), score 1; a NaN threshold is malformed.
SELECT dptrain.decision_score('{1146115181,3,1,2,0,0.1,1,0.5,1,-1}', ARRAY[0.7, 0.3]) AS binarized_score;
\x on
SELECT * FROM pg_temp.try($$SELECT dptrain.decision_score('{1146115181,3,1,2,0,0.1,1,NaN,1,-1}', ARRAY[0.7, 0.3])$$);
\x off
-- ... and its state, with a crafted INITCOND (any role may do this).
CREATE AGGREGATE pg_temp.evil_eval(float8[], int, float8[]) (
    SFUNC = dptrain.evaluate_transition, STYPE = float8[], INITCOND = '{1,2}');
\x on
SELECT * FROM pg_temp.try($$SELECT pg_temp.evil_eval(ARRAY[1, 1]::float8[], 1, m) FROM packed WHERE ord = 1$$);
\x off

-- dp_predict with features that do not fit the model.
SELECT name FROM dp_train('st', 'y', 'x', algorithm => 'none', batch_size => 1, classes => '{-1,1}', name => 'st_model');
\x on
SELECT * FROM pg_temp.try($$SELECT dp_predict('st_model', ARRAY[1, 2, 3])$$);
SELECT * FROM pg_temp.try($$SELECT dp_predict('st_model', ARRAY[1, 'NaN'::float8])$$);
SELECT * FROM pg_temp.try($$SELECT dp_predict('st_model', ARRAY[1, NULL])$$);
SELECT * FROM pg_temp.try($$SELECT dp_predict('no_such_model', ARRAY[1, 2])$$);
\x off

-- Building blocks called by hand with NULL or malformed arguments: every
-- error says what to pass (a hint), none crashes.
CREATE TEMP TABLE internals (ord serial, what text, sql text);
INSERT INTO internals (what, sql) VALUES
  ('sgd_state with a NULL dimension',   $$SELECT dptrain.sgd_state(NULL)$$),
  ('sgd_state with NULL-laden weights', $$SELECT dptrain.sgd_state(2, weights => ARRAY[1, NULL]::float8[])$$),
  ('sgd_state with too few weights',    $$SELECT dptrain.sgd_state(2, weights => ARRAY[1]::float8[])$$),
  ('noise state with NULL noise',       $$SELECT dptrain.sgd_state_with_noise(pg_temp.state(), NULL, 1)$$),
  ('batches of a NULL state',           $$SELECT * FROM dptrain.sample_batches(NULL, 10)$$),
  ('gradient request without a loss',   $$SELECT dptrain.gradient_request(ARRAY[0, 0]::float8[], NULL)$$),
  ('gradient request, 3-d points',      $$SELECT dptrain.gradient_request(ARRAY[[[0]]]::float8[])$$);
\x on
SELECT c.ord, c.what, r.* FROM internals c, pg_temp.try(c.sql) r ORDER BY c.ord;
\x off

-- Crafted sampled states (field 35 = 1) with a huge batch size (field 9):
-- a rows count no prepared table can have is refused before the sampler
-- allocates its batch (these ran for seconds, deaf to a cancel, or ran out
-- of memory). A large batch that is valid polls the cancel while it is drawn
-- (test/unit/sgd/batch_sampler_test.cpp).
CREATE TEMP TABLE prepared_st (i int8, x float8[], y float8);
CREATE TEMP TABLE huge (ord serial, what text, sql text);
INSERT INTO huge (what, sql) VALUES
  ('batches, b = rows = 1e9',          $$SELECT count(*) FROM dptrain.sample_batches(pg_temp.state(9, 1e9, 35, 1), 1000000000)$$),
  ('batches, b = 2^31, rows = max',    $$SELECT count(*) FROM dptrain.sample_batches(pg_temp.state(9, 2147483648, 35, 1), 9223372036854775807)$$),
  ('sampled rows, b = 2^31',           $$SELECT count(*) FROM dptrain.sampled_rows(pg_temp.state(9, 2147483648, 35, 1), 'prepared_st', 9223372036854775807)$$),
  ('sampled epoch, b = 2^31',          $$SELECT dptrain.sampled_epoch(pg_temp.state(9, 2147483648, 35, 1), 'prepared_st', 9223372036854775807)$$),
  ('batches larger than the rows',     $$SELECT count(*) FROM dptrain.sample_batches(pg_temp.state(9, 1e9, 35, 1), 10)$$);
\x on
SELECT c.ord, c.what, r.* FROM huge c, pg_temp.try(c.sql) r ORDER BY c.ord;
\x off
DROP TABLE prepared_st;

-- Leave no model or ledger row behind: other files read the whole ledger.
DELETE FROM dptrain.ledger WHERE source_name = 'public.st';
DELETE FROM dptrain.models WHERE source = 'public.st';
-- Drop what this file created: it runs again in the same database.
DROP TABLE st, packed;
