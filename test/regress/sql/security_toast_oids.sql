-- The run's copy of the rows must not spend a data-dependent number of
-- OIDs (docs/governance.md, "Hostile review of 2026-11-28, third round").
-- A value stored out of line in a TOAST table takes an OID from the
-- cluster's one counter, which every role reads (lo_create(0) returns the
-- next one). The copy stored the feature arrays compressed where they
-- compress: an array that does not compress below the TOAST threshold went
-- out of line, so the run spent one OID per such row -- a count of rows with
-- a property, which no DP release covers. Measured by a role with a budget on
-- the owner's view and no SELECT, on two neighbouring tables whose stored
-- sizes are the same (the view picks a compressible or an incompressible
-- array by a secret flag; one row's flag differs): 1 OID more for b. Now the
-- copy stores every array uncompressed (STORAGE EXTERNAL, detoasted first):
-- all rows out of line or none, by d alone.
SET client_min_messages = warning;
CREATE ROLE regress_toast_analyst;
CREATE SCHEMA toast_oids;
GRANT USAGE ON SCHEMA toast_oids TO regress_toast_analyst;
-- smooth compresses to a few bytes; rough (1000 distinct values) does not
CREATE TABLE toast_oids.t_a AS
SELECT i, array_fill((i % 7)::float8 / 10, ARRAY[1000]) AS smooth,
       (SELECT array_agg(sin(i * 1000 + j) / 10) FROM generate_series(1, 1000) j) AS rough,
       i % 3 = 0 AS y, i = 7 AS secret
FROM generate_series(1, 60) i;
CREATE TABLE toast_oids.t_b AS
SELECT i, smooth, rough, y, i IN (7, 8) AS secret FROM toast_oids.t_a ORDER BY i;
SELECT pg_total_relation_size('toast_oids.t_a') = pg_total_relation_size('toast_oids.t_b') AS same_stored_size;
CREATE VIEW toast_oids.v_a AS SELECT CASE WHEN secret THEN rough ELSE smooth END AS x, y FROM toast_oids.t_a;
CREATE VIEW toast_oids.v_b AS SELECT CASE WHEN secret THEN rough ELSE smooth END AS x, y FROM toast_oids.t_b;
SELECT count(*) AS budgets FROM (SELECT dp_grant_budget(v, 'regress_toast_analyst', 100, 1e-5)
  FROM unnest(ARRAY['toast_oids.v_a', 'toast_oids.v_b']::regclass[]) v) g;
-- OIDs a run spends, as the analyst counts them (lo_create(0) takes the next one)
CREATE FUNCTION pg_temp.oids_spent(v regclass, algorithm text) RETURNS int8 LANGUAGE plpgsql AS $$
DECLARE before oid; after oid;
BEGIN
  before := lo_create(0); PERFORM lo_unlink(before);
  PERFORM dp_train(v, 'y', 'x', algorithm => algorithm, epsilon => 1, delta => 1e-6, epochs => 2);
  after := lo_create(0); PERFORM lo_unlink(after);
  RETURN after::int8 - before::int8;
END $$;
SET ROLE regress_toast_analyst;
SELECT pg_temp.oids_spent('toast_oids.v_a', 'bolton') >= 0 AS warm_up;
-- bolt-on (one copy) and DP-SGD (a reshuffle per epoch): b spends what a spends
SELECT pg_temp.oids_spent('toast_oids.v_b', a) - pg_temp.oids_spent('toast_oids.v_a', a) AS b_minus_a, a AS algorithm
FROM unnest(ARRAY['bolton', 'bolton', 'dpsgd']) a;
RESET ROLE;

-- Sparse rows (dptrain.sparsevec): a row's size is its number of non-zeros,
-- so the rows stored out of line (one OID each) were a count of long rows:
-- b spent 1 OID more than a. Now the copy spends one OID per row, whether
-- the row went out of line (its TOAST OID) or not (one drawn for it).
-- few: 5 non-zeros (inline); many: 1000 (out of line); one row's flag differs.
CREATE TABLE toast_oids.s_a AS
SELECT i, ('{' || (i % 5 + 1) || ':0.5,' || (i % 5 + 10) || ':-0.25,100:0.1,200:0.2,300:0.3}/2000')::dptrain.sparsevec AS few,
       ('{' || (SELECT string_agg(j || ':' || (sin(i * 1000 + j) / 10)::text, ',' ORDER BY j)
                FROM generate_series(1, 1000) j) || '}/2000')::dptrain.sparsevec AS many,
       i % 3 = 0 AS y, i = 7 AS secret
FROM generate_series(1, 60) i;
CREATE TABLE toast_oids.s_b AS
SELECT i, few, many, y, i IN (7, 8) AS secret FROM toast_oids.s_a ORDER BY i;
SELECT pg_total_relation_size('toast_oids.s_a') = pg_total_relation_size('toast_oids.s_b') AS same_stored_size;
CREATE VIEW toast_oids.w_a AS SELECT CASE WHEN secret THEN many ELSE few END AS x, y FROM toast_oids.s_a;
CREATE VIEW toast_oids.w_b AS SELECT CASE WHEN secret THEN many ELSE few END AS x, y FROM toast_oids.s_b;
-- every row long (out of line); rows of 150 to 179 non-zeros, either side of
-- the TOAST threshold (about 165 in the copy)
CREATE VIEW toast_oids.w_long AS SELECT many AS x, y FROM toast_oids.s_a;
CREATE VIEW toast_oids.w_edge AS
SELECT ('{' || (SELECT string_agg(j || ':' || (sin(i * 1000 + j) / 10)::text, ',' ORDER BY j)
                FROM generate_series(1, 150 + i % 30) j)
        || '}/2000')::dptrain.sparsevec AS x, y FROM toast_oids.s_a;
SELECT count(*) AS budgets FROM (SELECT dp_grant_budget(v, 'regress_toast_analyst', 100, 1e-3)
  FROM unnest(ARRAY['toast_oids.w_a', 'toast_oids.w_b', 'toast_oids.w_long', 'toast_oids.w_edge']::regclass[]) v) g;
-- OIDs a statement spends (%s: the view)
CREATE FUNCTION pg_temp.oids_spent_by(q text, v regclass) RETURNS int8 LANGUAGE plpgsql AS $$
DECLARE before oid; after oid;
BEGIN
  before := lo_create(0); PERFORM lo_unlink(before);
  EXECUTE format(q, v);
  after := lo_create(0); PERFORM lo_unlink(after);
  RETURN after::int8 - before::int8;
END $$;
SET ROLE regress_toast_analyst;
-- the bucket shuffle (bolt-on), its reshuffles (bolt-on, reshuffled), an order-free copy
-- (PFW: an INSERT) and the parts of a tuning run (INSERTs): b spends what a
-- spends (a seeded copy, also an INSERT, is never charged to a budget)
SELECT pg_temp.oids_spent_by(q, 'toast_oids.w_b') - pg_temp.oids_spent_by(q, 'toast_oids.w_a') AS b_minus_a, run
FROM (VALUES
  ('bolt-on', 'SELECT dp_train(%L, ''y'', ''x'', algorithm => ''bolton'', epsilon => 1, epochs => 2)'),
  ('bolt-on, reshuffled', 'SELECT dp_train(%L, ''y'', ''x'', algorithm => ''bolton'', epsilon => 1, epochs => 3, reshuffle => true)'),
  ('PFW (order-free)', 'SELECT dp_train(%L, ''y'', ''x'', algorithm => ''pfw'', epsilon => 1, delta => 1e-6, radius => 10, intercept => true)'),
  ('tuning', 'SELECT * FROM dp_tune(%L, ''y'', ''x'', epsilon => 1, epochs => ''{1,2}'', lambdas => ''{0.001}'')')
) r(run, q);
-- one OID per row, out of line or not (exactly at the threshold too): every
-- row long, and rows either side of it, spend what a spends
SELECT pg_temp.oids_spent_by(q, 'toast_oids.w_long') - pg_temp.oids_spent_by(q, 'toast_oids.w_a') AS long_minus_a,
       pg_temp.oids_spent_by(q, 'toast_oids.w_edge') - pg_temp.oids_spent_by(q, 'toast_oids.w_a') AS edge_minus_a, run
FROM (VALUES
  ('bolt-on', 'SELECT dp_train(%L, ''y'', ''x'', algorithm => ''bolton'', epsilon => 1, epochs => 2)'),
  ('bolt-on, reshuffled', 'SELECT dp_train(%L, ''y'', ''x'', algorithm => ''bolton'', epsilon => 1, epochs => 3, reshuffle => true)'),
  ('PFW (order-free)', 'SELECT dp_train(%L, ''y'', ''x'', algorithm => ''pfw'', epsilon => 1, delta => 1e-6, radius => 10, intercept => true)')
) r(run, q);
RESET ROLE;

DELETE FROM dptrain.ledger WHERE source_name LIKE 'toast\_oids.%';
DELETE FROM dptrain.models WHERE source LIKE 'toast\_oids.%';
DROP SCHEMA toast_oids CASCADE;
DROP ROLE regress_toast_analyst;
