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

DELETE FROM dptrain.ledger WHERE source_name LIKE 'toast\_oids.%';
DELETE FROM dptrain.models WHERE source LIKE 'toast\_oids.%';
DROP SCHEMA toast_oids CASCADE;
DROP ROLE regress_toast_analyst;
