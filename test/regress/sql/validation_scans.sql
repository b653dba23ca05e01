-- How often a dp_train call reads its source (docs/performance.md, "The
-- validation"): a caller who may read the table has every row checked, its
-- labels against the declared classes or its classes read from the data, in
-- ONE scan (before: a second scan for the declared classes, or for the
-- classes read from the data); the copy then reads the table once more.
-- Counted by PostgreSQL itself: pg_stat_user_tables.seq_scan and
-- seq_tup_read of the source, before and after each call. Algorithm none
-- (seeded) and bolt-on read nothing but the copy afterwards.
SET client_min_messages = warning;
CREATE TABLE scan_bool AS SELECT i AS id, ARRAY[sin(i), cos(i)]::float8[] AS x, (i % 3 = 0) AS y
  FROM generate_series(1, 300) i;
CREATE TABLE scan_int AS SELECT id, x, (id % 3)::int AS y FROM scan_bool;
CREATE TABLE scan_text AS SELECT id, x, CASE WHEN id % 2 = 0 THEN 'yes' ELSE 'no' END AS y FROM scan_bool;
CREATE TABLE scan_real AS SELECT id, x::real[] AS x, (id % 3)::float8 AS y FROM scan_bool;
CREATE TABLE scan_numeric AS SELECT id, x::numeric[] AS x, (id % 2)::numeric AS y FROM scan_bool;
CREATE TABLE scan_sparse AS SELECT id, x::dptrain.sparsevec AS x, (id % 3)::int AS y FROM scan_bool;
CREATE TABLE scan_columns AS SELECT id, id % 90 AS age, CASE WHEN id % 3 = 0 THEN 'a' ELSE 'b' END AS kind,
  (id % 3)::int AS y FROM scan_bool;
-- The source's counters (statistics are flushed only between transactions:
-- one statement each).
CREATE FUNCTION pg_temp.reads(rel regclass, OUT scans bigint, OUT rows bigint) LANGUAGE sql AS
  $$SELECT seq_scan, seq_tup_read FROM pg_stat_user_tables WHERE relid = rel$$;
CREATE TEMP TABLE counted (ord serial, what text, source regclass, scans bigint, rows bigint);
CREATE FUNCTION pg_temp.before(what text, rel regclass) RETURNS void LANGUAGE sql AS
  $$INSERT INTO counted (what, source, scans, rows) SELECT what, rel, scans, rows FROM pg_temp.reads(rel)$$;
CREATE FUNCTION pg_temp.after() RETURNS TABLE (what text, scans bigint, rows_read_per_row numeric) LANGUAGE sql AS $$
  SELECT c.what, r.scans - c.scans, round((r.rows - c.rows)::numeric / 300, 2)
  FROM counted c, pg_temp.reads(c.source) r ORDER BY c.ord DESC LIMIT 1
$$;

SELECT pg_stat_force_next_flush();
SELECT pg_temp.before('boolean label, no classes', 'scan_bool');
SELECT count(*) FROM dp_train('scan_bool', 'y', 'x', algorithm => 'none', seed => 1);
SELECT pg_stat_force_next_flush();
SELECT * FROM pg_temp.after();

SELECT pg_temp.before('boolean label, declared classes', 'scan_bool');
SELECT count(*) FROM dp_train('scan_bool', 'y', 'x', algorithm => 'none', seed => 1, classes => '{false,true}');
SELECT pg_stat_force_next_flush();
SELECT * FROM pg_temp.after();

SELECT pg_temp.before('int label, classes from the data', 'scan_int');
SELECT classes FROM dp_train('scan_int', 'y', 'x', algorithm => 'none', seed => 1);
SELECT pg_stat_force_next_flush();
SELECT * FROM pg_temp.after();

SELECT pg_temp.before('int label, declared classes', 'scan_int');
SELECT count(*) FROM dp_train('scan_int', 'y', 'x', algorithm => 'none', seed => 1, classes => '{0,1,2}');
SELECT pg_stat_force_next_flush();
SELECT * FROM pg_temp.after();

SELECT pg_temp.before('text label, classes from the data', 'scan_text');
SELECT classes FROM dp_train('scan_text', 'y', 'x', algorithm => 'none', seed => 1);
SELECT pg_stat_force_next_flush();
SELECT * FROM pg_temp.after();

SELECT pg_temp.before('real[], float8 label from the data', 'scan_real');
SELECT classes FROM dp_train('scan_real', 'y', 'x', algorithm => 'none', seed => 1);
SELECT pg_stat_force_next_flush();
SELECT * FROM pg_temp.after();

SELECT pg_temp.before('numeric[], numeric label from the data', 'scan_numeric');
SELECT classes FROM dp_train('scan_numeric', 'y', 'x', algorithm => 'none', seed => 1);
SELECT pg_stat_force_next_flush();
SELECT * FROM pg_temp.after();

SELECT pg_temp.before('sparse, classes from the data', 'scan_sparse');
SELECT classes FROM dp_train('scan_sparse', 'y', 'x', algorithm => 'bolton', seed => 1, epsilon => 1, epochs => 1);
SELECT pg_stat_force_next_flush();
SELECT * FROM pg_temp.after();

SELECT pg_temp.before('feature columns, classes from the data', 'scan_columns');
SELECT classes FROM dp_train('scan_columns', 'y', features => ARRAY['age', 'kind'], bounds => '{"age": [0, 90]}',
                             categories => '{"kind": ["a", "b"]}', algorithm => 'none', seed => 1);
SELECT pg_stat_force_next_flush();
SELECT * FROM pg_temp.after();

-- A role that may train but not read: one count of n and d (no row check,
-- no class check: every unusable row becomes the fixed public row in the
-- copy), then the copy -- as before.
CREATE ROLE regress_scan_analyst;
SELECT dp_grant_budget('scan_int', 'regress_scan_analyst', 10.0, 1e-5);
SELECT pg_temp.before('without read access, declared classes', 'scan_int');
SET ROLE regress_scan_analyst;
SELECT count(*) FROM dp_train('scan_int', 'y', 'x', algorithm => 'bolton', epsilon => 1, epochs => 1,
                              classes => '{0,1,2}');
RESET ROLE;
SELECT pg_stat_force_next_flush();
SELECT * FROM pg_temp.after();

-- The refusals read the table once too (one scan, then the error).
INSERT INTO scan_int VALUES (301, ARRAY[0.5, 0.5], 7);
SELECT pg_temp.before('label outside the declared classes', 'scan_int');
\set VERBOSITY terse
SELECT count(*) FROM dp_train('scan_int', 'y', 'x', algorithm => 'none', seed => 1, classes => '{0,1,2}');
\set VERBOSITY default
SELECT pg_stat_force_next_flush();
SELECT what, scans FROM pg_temp.after();

-- The labels are checked against the declared classes by their class text
-- (the copy maps array_position(classes, <class text>): label_classes.h);
-- boolean and integer labels are compared as values, with the same answers.
-- A declared class of a number or boolean label is read as a value of its
-- type ('00' and '+0' of an integer label are 0, '1.0' of a numeric one is
-- 1, 'f' and 'TRUE' of a boolean one are false and true: they matched no row
-- before); one that is no value of the type ('f' for an integer) matches no
-- row. NaN is found in float8 and numeric labels.
CREATE TABLE scan_small AS SELECT id, x, (id % 2)::int AS y, (id % 2 = 0) AS b, (id % 2)::numeric AS nu,
  CASE WHEN id % 2 = 0 THEN 9223372036854775807 ELSE -9223372036854775808 END AS big
  FROM scan_bool WHERE id <= 20;
SELECT classes FROM dp_train('scan_small', 'y', 'x', algorithm => 'none', seed => 1, batch_size => 5, classes => '{0,1}');
SELECT classes FROM dp_train('scan_small', 'y', 'x', algorithm => 'none', seed => 1, batch_size => 5, classes => '{1,0,2}');
SELECT classes FROM dp_train('scan_small', 'b', 'x', algorithm => 'none', seed => 1, batch_size => 5, classes => '{false,true}');
SELECT classes FROM dp_train('scan_small', 'big', 'x', algorithm => 'none', seed => 1, batch_size => 5,
                             classes => '{-9223372036854775808,9223372036854775807}');
SELECT classes FROM dp_train('scan_small', 'nu', 'x', algorithm => 'none', seed => 1, batch_size => 5, classes => '{0,1}');
\set VERBOSITY terse
SELECT classes FROM dp_train('scan_small', 'y', 'x', algorithm => 'none', seed => 1, batch_size => 5, classes => '{00,1}');
SELECT classes FROM dp_train('scan_small', 'y', 'x', algorithm => 'none', seed => 1, batch_size => 5, classes => '{+0,1}');
SELECT classes FROM dp_train('scan_small', 'y', 'x', algorithm => 'none', seed => 1, batch_size => 5, classes => '{0}');
SELECT classes FROM dp_train('scan_small', 'b', 'x', algorithm => 'none', seed => 1, batch_size => 5, classes => '{f,t}');
SELECT classes FROM dp_train('scan_small', 'b', 'x', algorithm => 'none', seed => 1, batch_size => 5, classes => '{false,TRUE}');
SELECT classes FROM dp_train('scan_small', 'big', 'x', algorithm => 'none', seed => 1, batch_size => 5,
                             classes => '{-9223372036854775808,9223372036854775808}');
SELECT classes FROM dp_train('scan_small', 'nu', 'x', algorithm => 'none', seed => 1, batch_size => 5, classes => '{0,1.0}');
UPDATE scan_small SET nu = 'NaN' WHERE id = 3;
ALTER TABLE scan_small ADD COLUMN f float8;
UPDATE scan_small SET f = CASE WHEN id = 4 THEN 'NaN'::float8 ELSE id % 2 END;
SELECT classes FROM dp_train('scan_small', 'nu', 'x', algorithm => 'none', seed => 1);
SELECT classes FROM dp_train('scan_small', 'f', 'x', algorithm => 'none', seed => 1, batch_size => 5, classes => '{0,1}');
\set VERBOSITY default

-- A class is a label's class text, one per value of the label type's =
-- (label_classes.h): classes read from the data are the distinct values
-- (numeric 1 and 1.0 are '1', float8 0 and -0 are '0'), in the label's
-- order. (Grouped by the value alone with one raw text of each, the rows of
-- the other texts became NULL labels in the copy -- "label must not be NULL"
-- in the first epoch, after the charge; then equal values with other texts
-- were classes of their own.)
CREATE TABLE scan_texts AS SELECT id, x,
  (CASE id % 3 WHEN 0 THEN '1.0' WHEN 1 THEN '1' ELSE '0' END)::numeric AS nu,
  (CASE id % 3 WHEN 0 THEN '-0' WHEN 1 THEN '0' ELSE '1' END)::float8 AS f,
  (CASE id % 3 WHEN 0 THEN '1.00' WHEN 1 THEN '1' ELSE '0' END)::numeric(4,2)::real AS r
  FROM scan_bool WHERE id <= 30;
SELECT classes FROM dp_train('scan_texts', 'nu', 'x', algorithm => 'none', seed => 1, batch_size => 5);
SELECT classes FROM dp_train('scan_texts', 'f', 'x', algorithm => 'none', seed => 1, batch_size => 5);
SELECT classes FROM dp_train('scan_texts', 'r', 'x', algorithm => 'none', seed => 1, batch_size => 5);
SELECT classes FROM dp_train('scan_texts', 'nu', 'x', epsilon => 1, seed => 1, batch_size => 5);
-- A text label's class is its text under the label's collation, which
-- array_position uses: equal under a nondeterministic collation, 'Yes' and
-- 'yes' are one class (either text), and the copy maps both to it.
CREATE COLLATION scan_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
ALTER TABLE scan_texts ADD COLUMN ci text COLLATE scan_ci;
UPDATE scan_texts SET ci = CASE id % 3 WHEN 0 THEN 'Yes' WHEN 1 THEN 'yes' ELSE 'no' END;
SELECT lower(classes::text) FROM dp_train('scan_texts', 'ci', 'x', algorithm => 'none', seed => 1, batch_size => 5);

-- Leave nothing behind (later tests count models and list the ledger).
DELETE FROM dptrain.models WHERE source LIKE 'public.scan\_%';
DELETE FROM dptrain.budgets WHERE role::text = 'regress_scan_analyst';
DELETE FROM dptrain.ledger WHERE role::text = 'regress_scan_analyst';
DROP TABLE scan_texts, scan_small, scan_bool, scan_int, scan_text, scan_real, scan_numeric, scan_sparse, scan_columns;
DROP ROLE regress_scan_analyst;
DROP COLLATION scan_ci;

-- Leave no model or ledger row behind: other files read the whole ledger.
DELETE FROM dptrain.ledger WHERE source_name LIKE 'public.scan\_%';
