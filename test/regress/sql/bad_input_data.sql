-- The bad-input catalogue, part 2: the data. Every broken table is refused
-- with an ERROR carrying a SQLSTATE and a hint (no skip-and-count policy:
-- the caller repairs or filters the rows), and nothing is stored.
SET client_min_messages = warning;
\getenv abs_srcdir PG_ABS_SRCDIR
\set try_sql :abs_srcdir '/sql/include/try.sql'
\i :try_sql
-- Forty good rows, then one row broken as each case says.
CREATE FUNCTION pg_temp.broken(name text, x text, y text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('CREATE TABLE %I AS SELECT i AS id, ARRAY[sin(i), cos(i)]::float8[] AS x, (i %% 2)::int AS y '
                 'FROM generate_series(1, 40) i', name);
  EXECUTE format('INSERT INTO %I VALUES (41, %s, %s)', name, x, y);
END
$$;
SELECT pg_temp.broken('d_null_x', 'NULL', '1'),
       pg_temp.broken('d_null_y', 'ARRAY[0.1, 0.2]', 'NULL'),
       pg_temp.broken('d_null_row', 'NULL', 'NULL'),
       pg_temp.broken('d_null_elem', 'ARRAY[0.1, NULL]', '1'),
       pg_temp.broken('d_nan', $$ARRAY[0.1, 'NaN']$$, '1'),
       pg_temp.broken('d_inf', $$ARRAY['Infinity', 0.1]$$, '0'),
       pg_temp.broken('d_minus_inf', $$ARRAY[0.1, '-Infinity']$$, '1'),
       pg_temp.broken('d_huge', 'ARRAY[1e300, 1e300]', '1'),
       pg_temp.broken('d_ragged', 'ARRAY[0.1, 0.2, 0.3]', '1'),
       pg_temp.broken('d_empty_array', $$'{}'$$, '1'),
       pg_temp.broken('d_2d', 'ARRAY[[0.1], [0.2]]', '1'),
       pg_temp.broken('d_label_7', 'ARRAY[0.1, 0.2]', '7');
CREATE TABLE d_all_empty AS SELECT i AS id, '{}'::float8[] AS x, (i % 2 = 0) AS y FROM generate_series(1, 10) i;
CREATE TABLE d_nan_label AS SELECT i AS id, ARRAY[sin(i), cos(i)]::float8[] AS x, (i % 3)::float8 AS y
  FROM generate_series(1, 30) i;
UPDATE d_nan_label SET y = 'NaN' WHERE id = 5;
CREATE TABLE d_one_class AS SELECT i AS id, ARRAY[sin(i), cos(i)]::float8[] AS x, 'yes'::text AS y
  FROM generate_series(1, 30) i;
CREATE TABLE d_no_rows (id int, x float8[], y boolean);
CREATE TABLE d_one_row AS SELECT 1 AS id, ARRAY[0.5, 0.5]::float8[] AS x, true AS y;
-- real[] and numeric[] features go through the same checks (cast to float8[]).
CREATE TABLE d_real_nan AS SELECT i AS id, ARRAY[sin(i), cos(i)]::real[] AS x, (i % 2 = 0) AS y
  FROM generate_series(1, 20) i;
UPDATE d_real_nan SET x = ARRAY['NaN', 1]::real[] WHERE id = 3;
CREATE TABLE d_numeric_huge AS SELECT i AS id, ARRAY[i, 1]::numeric[] AS x, (i % 2 = 0) AS y
  FROM generate_series(1, 20) i;
UPDATE d_numeric_huge SET x = ARRAY[1e309, 1]::numeric[] WHERE id = 3;
-- NaN and -Infinity in numeric[]: not "beyond the range of float8" (they were
-- said to be, 22003 with a hint to scale them; found by a sweep over shapes)
CREATE TABLE d_numeric_nan AS SELECT id, CASE WHEN id = 3 THEN ARRAY['NaN', 1]::numeric[] ELSE x END AS x, y
  FROM d_numeric_huge;
CREATE TABLE d_numeric_inf AS SELECT id, CASE WHEN id = 3 THEN ARRAY['-Infinity', 1]::numeric[] ELSE x END AS x, y
  FROM d_numeric_huge;
-- numeric 1e-400 rounds to no double (float8in refuses it): it failed the
-- copy's cast after the charge (a bare 22003 printing the value); 1e-310, a
-- subnormal double, trains (below).
CREATE TABLE d_numeric_tiny AS SELECT id, CASE WHEN id = 3 THEN ARRAY[1e-400, 1]::numeric[] ELSE x END AS x, y
  FROM d_numeric_huge;
CREATE TABLE d_numeric_subnormal AS SELECT id, CASE WHEN id = 3 THEN ARRAY[1e-310, 1]::numeric[] ELSE x END AS x, y
  FROM d_numeric_huge;
-- Finite values whose squares overflow a double (|v| > 1.3e154): the squared
-- norm of the row is infinite, and every pass refuses it -- it did so after a
-- private run's charge (the reader's row checks did not look at the norm).
CREATE TABLE d_numeric_square AS SELECT id, CASE WHEN id = 3 THEN ARRAY[1e200, 1]::numeric[] ELSE x END AS x, y
  FROM d_numeric_huge;
CREATE TABLE d_sparse_huge AS SELECT i AS id, format('{1:%s,2:1}/2', CASE WHEN i = 3 THEN '1e200' ELSE '0.5' END)::dptrain.sparsevec AS x,
  (i % 2 = 0) AS y FROM generate_series(1, 20) i;
-- 1000 classes x 10001 features = 10,001,000 parameters: over the 10M cap.
CREATE TABLE d_too_big AS SELECT i AS id, array_fill(0.001::float8, ARRAY[10001]) AS x, i::text AS y
  FROM generate_series(1, 2) i;

CREATE TEMP TABLE cases (ord serial, what text, sql text);
INSERT INTO cases (what, sql) VALUES
  ('NULL features',          $$SELECT dp_train('d_null_x', 'y', 'x', algorithm => 'none', batch_size => 5)$$),
  ('NULL label',             $$SELECT dp_train('d_null_y', 'y', 'x', algorithm => 'none', batch_size => 5)$$),
  ('all-NULL row',           $$SELECT dp_train('d_null_row', 'y', 'x', algorithm => 'none', batch_size => 5)$$),
  ('NULL array element',     $$SELECT dp_train('d_null_elem', 'y', 'x', algorithm => 'none', batch_size => 5)$$),
  ('NaN feature',            $$SELECT dp_train('d_nan', 'y', 'x', algorithm => 'none', batch_size => 5)$$),
  ('Infinity feature',       $$SELECT dp_train('d_inf', 'y', 'x', algorithm => 'none', batch_size => 5)$$),
  ('-Infinity feature',      $$SELECT dp_train('d_minus_inf', 'y', 'x', algorithm => 'none', batch_size => 5)$$),
  ('norm overflows',         $$SELECT dp_train('d_huge', 'y', 'x', algorithm => 'none', batch_size => 5)$$),
  ('ragged arrays',          $$SELECT dp_train('d_ragged', 'y', 'x', algorithm => 'none', batch_size => 5)$$),
  ('one zero-length array',  $$SELECT dp_train('d_empty_array', 'y', 'x', algorithm => 'none', batch_size => 5)$$),
  ('all zero-length arrays', $$SELECT dp_train('d_all_empty', 'y', 'x', algorithm => 'none', batch_size => 5)$$),
  ('2-D feature array',      $$SELECT dp_train('d_2d', 'y', 'x', algorithm => 'none', batch_size => 5)$$),
  ('label outside declared', $$SELECT dp_train('d_label_7', 'y', 'x', algorithm => 'none', batch_size => 5, classes => '{0,1}')$$),
  ('NaN label',              $$SELECT dp_train('d_nan_label', 'y', 'x', algorithm => 'none', batch_size => 5)$$),
  ('a single class',         $$SELECT dp_train('d_one_class', 'y', 'x', algorithm => 'none', batch_size => 5)$$),
  ('empty table',            $$SELECT dp_train('d_no_rows', 'y', 'x', algorithm => 'none', batch_size => 5)$$),
  ('batch larger than n',    $$SELECT dp_train('d_label_7', 'y', 'x', algorithm => 'none', batch_size => 42)$$),
  ('one row, default batch', $$SELECT dp_train('d_one_row', 'y', 'x', algorithm => 'none')$$),
  ('NaN in real[]',          $$SELECT dp_train('d_real_nan', 'y', 'x', algorithm => 'none', batch_size => 5)$$),
  ('numeric[] overflow',     $$SELECT dp_train('d_numeric_huge', 'y', 'x', algorithm => 'none', batch_size => 5)$$),
  ('model too large',        $$SELECT dp_train('d_too_big', 'y', 'x', algorithm => 'none', batch_size => 5, classes => (SELECT array_agg(i::text) FROM generate_series(1, 1000) i))$$),
  ('NaN in numeric[]',       $$SELECT dp_train('d_numeric_nan', 'y', 'x', algorithm => 'none', batch_size => 5)$$),
  ('-Infinity in numeric[]', $$SELECT dp_train('d_numeric_inf', 'y', 'x', algorithm => 'none', batch_size => 5)$$),
  ('numeric[] underflow',    $$SELECT dp_train('d_numeric_tiny', 'y', 'x', algorithm => 'bolton', epsilon => 1, batch_size => 5)$$);

SELECT count(*) AS ledger_before FROM dptrain.ledger \gset
\x on
SELECT c.ord, c.what, r.* FROM cases c, pg_temp.try(c.sql) r ORDER BY c.ord;
\x off
-- every refusal above came before a charge (the underflow's is a private run)
SELECT count(*) - :ledger_before AS charged FROM dptrain.ledger;
SELECT details->'data'->'rows' AS n FROM dp_train('d_numeric_subnormal', 'y', 'x', algorithm => 'none', batch_size => 5, seed => 1);

-- A private run is charged before it copies the rows: its reader's row checks
-- refuse these before the charge too (NULL elements and NaN or infinite
-- float8 and real values were found only by the copy or the epoch, after it;
-- finite values too large to square, float8, numeric or sparse, still were).
SELECT count(*) AS ledger_before FROM dptrain.ledger \gset
SELECT t AS "table", r.code, r.message
FROM unnest(ARRAY['d_null_elem', 'd_nan', 'd_inf', 'd_minus_inf', 'd_real_nan', 'd_huge', 'd_numeric_square',
                  'd_sparse_huge']) t,
     pg_temp.try(format('SELECT dp_train(%L, ''y'', ''x'', algorithm => ''bolton'', epsilon => 1, batch_size => 5)', t)) r;
SELECT count(*) - :ledger_before AS charged FROM dptrain.ledger;

-- Small but valid: one row (n = 1 is public; the classes are declared), and
-- numeric labels read from the data (the 41st row of d_label_7 is then
-- simply a third class).
SELECT classes, details->'data'->'rows' AS n FROM dp_train('d_one_row', 'y', 'x', algorithm => 'none', batch_size => 1,
                                                     classes => '{false,true}', seed => 1);
SELECT classes FROM dp_train('d_label_7', 'y', 'x', algorithm => 'none', batch_size => 5, seed => 1);

-- Only the two valid runs stored a model.
SELECT source, count(*) FROM dptrain.models WHERE source LIKE 'public.d\_%' GROUP BY source ORDER BY source;

-- The same rows through the other passes: gradient sums (dpagd, pfw, amp),
-- DP-SGD lots and OPDisc's grouping refuse them with the epoch aggregate's
-- SQLSTATE and words (they said 22000 "a feature value is NaN or infinite"
-- for finite values too large to square, 2202E without a hint for a NULL
-- element, "malformed DP-SGD lot state" for NaN, and trained DP-SGD on 1e300).
-- (A reader's row checks now refuse all four before any pass and its charge,
-- d_huge too, for OPDisc as well: OPDisc binarizes 1e300 to 1 as any value
-- >= 1/2 (docs/opdisc.md) and trained on it, but an analyst's copy replaced
-- that row all the same (dptrain.usable_row), and every other pass refused it
-- after the charge.)
CREATE TEMP TABLE pass_cases (ord serial, algorithm text, args text);
INSERT INTO pass_cases (algorithm, args) VALUES
  ('dpagd', 'epsilon => 1, delta => 1e-5'), ('pfw', 'epsilon => 1, delta => 1e-5, radius => 1'),
  ('amp', 'epsilon => 1, delta => 1e-5'), ('dpsgd', 'epsilon => 1, delta => 1e-5, batch_size => 5'),
  ('opdisc', 'epsilon => 1, delta => 1e-5');
SELECT c.algorithm, t AS "table", r.code, r.message
FROM pass_cases c, unnest(ARRAY['d_nan', 'd_huge', 'd_null_elem', 'd_real_nan']) t,
     pg_temp.try(format('SELECT dp_train(%L, ''y'', ''x'', algorithm => %L, seed => 1, %s)', t, c.algorithm, c.args)) r
ORDER BY c.ord, t;

-- Leave no model or ledger row behind: other files read the whole ledger.
DELETE FROM dptrain.ledger WHERE source_name LIKE 'public.d\_%';
DELETE FROM dptrain.models WHERE source LIKE 'public.d\_%';
-- Drop what this file created: it runs again in the same database.
DROP TABLE d_null_x, d_null_y, d_null_row, d_null_elem, d_nan, d_inf, d_minus_inf, d_huge, d_ragged, d_empty_array, d_2d,
  d_label_7, d_all_empty, d_nan_label, d_one_class, d_no_rows, d_one_row, d_real_nan, d_numeric_huge, d_too_big,
  d_numeric_square, d_sparse_huge;
