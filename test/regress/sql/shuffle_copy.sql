-- The training copy (src/pg/training_copy.cpp, copy_training_data): one
-- random permutation of the rows. Unseeded runs draw it with the bucket
-- shuffle (src/pg/bucket_shuffle.cpp: no sort, a fresh key from the OS
-- CSPRNG; the algorithm's uniformity is tested in
-- test/unit/sgd/bucket_shuffle_test.cpp); seeded runs (tests only) sort by
-- random() after setseed, as before (engine_pins.sql).
-- dptrain.training_prepare is the controller's entry to the same copy.
CREATE TABLE copy_rows AS SELECT i AS id, ARRAY[i::float8, -i] AS x, (i % 3 = 0) AS y
FROM generate_series(1, 1000) i;
CREATE FUNCTION pg_temp.copy_order(seed bigint) RETURNS float8[] LANGUAGE plpgsql AS $$
DECLARE t text; o float8[];
BEGIN
  SELECT shuffled INTO t FROM dptrain.training_prepare('copy_rows', 'y', 'x', NULL, seed);
  EXECUTE format('SELECT array_agg(x[1] ORDER BY ctid) FROM %s', t) INTO o;
  PERFORM dptrain.training_drop(t);
  RETURN o;
END $$;

-- Every row exactly once, with its own label and features, numbered 1..n.
BEGIN;
SELECT shuffled AS copy FROM dptrain.training_prepare('copy_rows', 'y', 'x', NULL, NULL) \gset
SELECT count(*) AS rows, count(DISTINCT x[1]) AS distinct_rows, min(x[1]) AS first, max(x[1]) AS last,
       count(DISTINCT i) AS distinct_i, min(i) AS min_i, max(i) AS max_i,
       bool_and(x[2] = -x[1] AND y = (x[1]::int % 3 = 0)::int) AS rows_intact
FROM :copy;
-- Stored in a shuffled order: Spearman's footrule sum |position - value| is
-- about n^2/3 = 333333 for a random permutation, 0 for the source order.
SELECT sum(abs(p - v)) > 222222 AS shuffled
FROM unnest((SELECT array_agg(x[1] ORDER BY ctid) FROM :copy)) WITH ORDINALITY AS o(v, p);
COMMIT;

-- A partitioned table, an inherited one, a view and a table with updated
-- rows (new tuple versions): every row exactly once, in its current version.
CREATE TABLE copy_parts (id int, x float8[], y boolean) PARTITION BY RANGE (id);
CREATE TABLE copy_parts_1 PARTITION OF copy_parts FOR VALUES FROM (1) TO (501);
CREATE TABLE copy_parts_2 PARTITION OF copy_parts FOR VALUES FROM (501) TO (1001);
INSERT INTO copy_parts SELECT id, x, y FROM copy_rows;
CREATE TABLE copy_parent (id int, x float8[], y boolean);
CREATE TABLE copy_child () INHERITS (copy_parent);
INSERT INTO copy_parent SELECT id, x, y FROM copy_rows WHERE id <= 500;
INSERT INTO copy_child SELECT id, x, y FROM copy_rows WHERE id > 500;
CREATE VIEW copy_view AS SELECT x, y FROM copy_rows WHERE id <= 500;
CREATE TABLE copy_updated AS SELECT * FROM copy_rows;
UPDATE copy_updated SET x = ARRAY[x[1], -x[1]] WHERE id % 2 = 0;
BEGIN;
SELECT shuffled AS parts FROM dptrain.training_prepare('copy_parts', 'y', 'x', NULL, NULL) \gset
SELECT shuffled AS inherited FROM dptrain.training_prepare('copy_parent', 'y', 'x', NULL, NULL) \gset
SELECT shuffled AS view FROM dptrain.training_prepare('copy_view', 'y', 'x', NULL, NULL) \gset
SELECT shuffled AS updated FROM dptrain.training_prepare('copy_updated', 'y', 'x', NULL, NULL) \gset
SELECT 'partitioned' AS source, count(*) AS rows, count(DISTINCT x[1]) AS distinct_rows, count(DISTINCT i) AS distinct_i
FROM :parts
UNION ALL SELECT 'inherited', count(*), count(DISTINCT x[1]), count(DISTINCT i) FROM :inherited
UNION ALL SELECT 'view', count(*), count(DISTINCT x[1]), count(DISTINCT i) FROM :view
UNION ALL SELECT 'updated', count(*), count(DISTINCT x[1]), count(DISTINCT i) FROM :updated;
COMMIT;

-- Unseeded: a new order every time, not drawn from PostgreSQL's random():
-- the same setseed before two copies leaves them different.
BEGIN;
SELECT setseed(0.5);
SELECT pg_temp.copy_order(NULL) AS a \gset
SELECT setseed(0.5);
SELECT pg_temp.copy_order(NULL) <> :'a'::float8[] AS fresh_order_each_copy;
COMMIT;

-- Seeded: reproducible; another seed, another order.
BEGIN;
SELECT pg_temp.copy_order(7) = pg_temp.copy_order(7) AS same_seed_same_order,
       pg_temp.copy_order(7) <> pg_temp.copy_order(8) AS other_seed_other_order;
COMMIT;

-- Progress (issue 16, item 7): from 100,000 rows on, the copy says when it
-- starts and ends (the end's detail, with the time, is left out here);
-- dp_train makes the same copy (training_prepare leaves no ledger entry).
CREATE TABLE copy_many AS SELECT ARRAY[(i % 7)::float8 / 7] AS x, (i % 2 = 0) AS y
FROM generate_series(1, 100000) i;
\set VERBOSITY terse
SET client_min_messages = notice;
BEGIN;
SELECT rows, dim FROM dptrain.training_prepare('copy_many', 'y', 'x', NULL, NULL);
COMMIT;
\set VERBOSITY default

-- Many buckets: with work_mem at its minimum (64kB), 20000 rows of 2
-- features (sized at 8 * 3 + 96 = 120 bytes each) go through
-- ceil(20000 * 120 / 65536) = 37 temp files (bucket_shuffle.h). Every row
-- exactly once, intact, and shuffled across the whole table, not only inside
-- a bucket (Spearman's footrule about n^2/3 = 1.33e8, sd ~ 6e5).
CREATE TABLE copy_buckets AS SELECT i AS id, ARRAY[i::float8, -i] AS x, (i % 3 = 0) AS y
FROM generate_series(1, 20000) i;
-- The buckets are temp files: the database's count grows by 37 for the copy
-- alone (statistics flushed when the session goes idle).
SELECT pg_stat_force_next_flush();
SELECT temp_files AS files_before FROM pg_stat_database WHERE datname = current_database() \gset
BEGIN;
SET LOCAL work_mem = '64kB';
SELECT rows FROM dptrain.training_prepare('copy_buckets', 'y', 'x', NULL, NULL);
COMMIT;
SELECT pg_stat_force_next_flush();
SELECT temp_files - :files_before AS bucket_files FROM pg_stat_database WHERE datname = current_database();
BEGIN;
SET LOCAL work_mem = '64kB';
SELECT shuffled AS copy FROM dptrain.training_prepare('copy_buckets', 'y', 'x', NULL, NULL) \gset
SELECT count(*) AS rows, count(DISTINCT x[1]) AS distinct_rows, min(x[1]) AS first, max(x[1]) AS last,
       count(DISTINCT i) AS distinct_i, min(i) AS min_i, max(i) AS max_i,
       bool_and(x[2] = -x[1] AND y = (x[1]::int % 3 = 0)::int) AS rows_intact
FROM :copy;
SELECT sum(abs(p - v)) > 1.2e8 AS shuffled
FROM unnest((SELECT array_agg(x[1] ORDER BY ctid) FROM :copy)) WITH ORDINALITY AS o(v, p);
-- The rows of each tenth of the copy come from all over the source (mean
-- position ~ 10000, sd ~ 183 for 2000 uniform draws).
SELECT bool_and(m BETWEEN 9000 AND 11000) AS every_tenth_mixed
FROM (SELECT avg(v) AS m FROM unnest((SELECT array_agg(x[1] ORDER BY ctid) FROM :copy)) WITH ORDINALITY AS o(v, p)
      GROUP BY (p - 1) / 2000) t;
-- The secure reshuffle of an unseeded copy: every row once, a new order.
SELECT array_agg(x[1] ORDER BY ctid) AS before FROM :copy \gset
SELECT dptrain.training_reshuffle(:'copy');
SELECT count(*) AS rows, count(DISTINCT x[1]) AS distinct_rows, count(DISTINCT i) AS distinct_i,
       array_agg(x[1] ORDER BY ctid) <> :'before'::float8[] AS new_order
FROM :copy;
COMMIT;

-- Unseeded copies and reshuffles in several buckets: still a new order each
-- time, whatever setseed says.
CREATE FUNCTION pg_temp.reshuffled_order(seed bigint) RETURNS float8[] LANGUAGE plpgsql AS $$
DECLARE t text; o float8[];
BEGIN
  SELECT shuffled INTO t FROM dptrain.training_prepare('copy_rows', 'y', 'x', NULL, seed);
  PERFORM dptrain.training_reshuffle(t);
  EXECUTE format('SELECT array_agg(x[1] ORDER BY ctid) FROM %s', t) INTO o;
  PERFORM dptrain.training_drop(t);
  RETURN o;
END $$;
BEGIN;
SET LOCAL work_mem = '64kB';
SELECT setseed(0.5);
SELECT pg_temp.copy_order(NULL) AS a, pg_temp.reshuffled_order(NULL) AS r \gset
SELECT setseed(0.5);
SELECT pg_temp.copy_order(NULL) <> :'a'::float8[] AS fresh_order_each_copy,
       pg_temp.reshuffled_order(NULL) <> :'r'::float8[] AS fresh_order_each_reshuffle;
-- A seeded run's reshuffle stays ORDER BY random() after its setseed: reproducible.
SELECT pg_temp.reshuffled_order(7) = pg_temp.reshuffled_order(7) AS same_seed_same_reshuffle,
       pg_temp.reshuffled_order(7) <> pg_temp.copy_order(7) AS seeded_reshuffle_moves;
COMMIT;

-- dp_train's copy keeps the shuffle for every algorithm whose run depends on
-- the order of the rows, and drops it for those whose run does not
-- (Algorithm::order_free: amp, optimum, pfw, dpagd, opdisc; docs/performance.md,
-- "Order-free copies"). A role that may train but not read the table always
-- gets a copy; with work_mem at 64kB the bucket shuffle of copy_buckets
-- writes its 37 temp files, the copy in the table's order none (and the
-- passes over the copy none either).
CREATE ROLE regress_copy_analyst;
SELECT dp_grant_budget('copy_buckets', 'regress_copy_analyst', 10.0, 1e-5);
-- (Statistics are flushed only between transactions: one statement each.)
SET work_mem = '64kB';
SELECT pg_stat_force_next_flush();
SELECT temp_files AS files_before FROM pg_stat_database WHERE datname = current_database() \gset
SET ROLE regress_copy_analyst;
SELECT count(*) FROM dp_train('copy_buckets', 'y', 'x', algorithm => 'bolton', epsilon => 1, epochs => 1,
                              classes => ARRAY['false', 'true'], name => 'copy_bolton');
RESET ROLE;
SELECT pg_stat_force_next_flush();
SELECT temp_files - :files_before AS bolton_files FROM pg_stat_database WHERE datname = current_database();
SELECT temp_files AS files_before FROM pg_stat_database WHERE datname = current_database() \gset
SET ROLE regress_copy_analyst;
SELECT count(*) FROM dp_train('copy_buckets', 'y', 'x', algorithm => 'amp', epsilon => 1, delta => 1e-6,
                              classes => ARRAY['false', 'true'], name => 'copy_amp');
RESET ROLE;
SELECT pg_stat_force_next_flush();
SELECT temp_files - :files_before AS amp_files FROM pg_stat_database WHERE datname = current_database();
RESET work_mem;
SELECT name, coalesce(details->'data'->>'read', 'shuffled copy') AS read
FROM dptrain.models WHERE name IN ('copy_bolton', 'copy_amp') ORDER BY 1;
-- The same decision for every algorithm, seeded, on a view of the table
-- (a view is never read in place).
SET client_min_messages = error;
CREATE VIEW copy_rows_view AS SELECT x, y FROM copy_rows;
SELECT a.algorithm, t.count
FROM (VALUES ('amp'), ('optimum'), ('pfw'), ('dpagd'), ('opdisc'), ('bolton'), ('scs13'), ('bst14'), ('dpsgd'),
             ('psgd'), ('none')) a(algorithm),
     LATERAL (SELECT count(*) FROM dp_train('copy_rows_view', 'y', 'x', algorithm => a.algorithm, seed => 5,
                                            epsilon => CASE WHEN a.algorithm IN ('optimum', 'none') THEN NULL
                                                            ELSE 1 END,
                                            delta => CASE WHEN a.algorithm IN ('amp', 'pfw', 'dpagd', 'opdisc', 'dpsgd', 'bst14', 'psgd')
                                                          THEN 1e-6 END,
                                            radius => CASE WHEN a.algorithm IN ('pfw', 'bst14') THEN 10 END,
                                            lambda => CASE WHEN a.algorithm = 'optimum' THEN 1e-3 END,
                                            classes => ARRAY['false', 'true'], name => 'view_' || a.algorithm)) t
ORDER BY 1;
SELECT algorithm, coalesce(details->'data'->>'read', 'shuffled copy') AS read
FROM dptrain.models WHERE name LIKE 'view\_%' ORDER BY 1;
RESET client_min_messages;
DELETE FROM dptrain.models WHERE source LIKE 'public.copy\_%';
DELETE FROM dptrain.budgets WHERE role::text = 'regress_copy_analyst';
DELETE FROM dptrain.ledger WHERE role::text = 'regress_copy_analyst';
-- (later tests list the whole ledger)
DELETE FROM dptrain.ledger WHERE source_name = 'public.copy_rows_view';
DROP VIEW copy_rows_view;
DROP ROLE regress_copy_analyst;
-- Drop what this file created: it runs again in the same database.
DROP VIEW copy_view;
DROP TABLE copy_rows, copy_parts, copy_parent, copy_child, copy_updated, copy_many, copy_buckets;
