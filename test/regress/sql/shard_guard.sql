-- The guard of the passes pushed down to a Citus table's shards
-- (src/pg/shard_guard.h; docs/distributed.md section 9.6), on a plain server:
-- dptrain.shard_guard(tableoid, columns) is true for a plain table without
-- row security whose named columns have types with no role's casts, and
-- refuses (55000) anything else, at the first row, before the row's columns
-- are read. The race on a cluster is test/citus/pass_source_swap.sh; here
-- every branch.
\set VERBOSITY default
CREATE SCHEMA sg;
CREATE ROLE regress_sg_owner;
GRANT USAGE, CREATE ON SCHEMA sg TO regress_sg_owner;
-- built-in types, a domain over one, a superuser's enum: accepted
CREATE DOMAIN sg.unit AS float8[] CHECK (cardinality(VALUE) = 2);
CREATE TYPE sg.su_label AS ENUM ('no', 'yes');
CREATE TABLE sg.plain (id bigint, x float8[], y boolean, d sg.unit, e sg.su_label, n numeric[]);
INSERT INTO sg.plain VALUES (1, '{1,2}', true, '{1,2}', 'yes', '{1}'), (2, '{3,4}', false, '{3,4}', 'no', '{2}');
SELECT count(*) FROM sg.plain t WHERE dptrain.shard_guard(t.tableoid, ARRAY['y', 'x', 'id', 'd', 'e', 'n']);
-- an enum made by a role (it may CREATE CAST from it): refused, naming the column
SET ROLE regress_sg_owner;
CREATE TYPE sg.label AS ENUM ('no', 'yes');
CREATE TABLE sg.owned (id bigint, x float8[], y sg.label);
INSERT INTO sg.owned VALUES (1, '{1,2}', 'yes');
RESET ROLE;
SELECT count(*) FROM sg.owned t WHERE dptrain.shard_guard(t.tableoid, ARRAY['id', 'x']);
SELECT count(*) FROM sg.owned t WHERE dptrain.shard_guard(t.tableoid, ARRAY['y', 'x', 'id']);
-- an array of a role's domain is not a domain: refused
SET ROLE regress_sg_owner;
CREATE DOMAIN sg.pos AS float8 CHECK (VALUE >= 0);
CREATE TABLE sg.arr (id bigint, x sg.pos[], y boolean);
INSERT INTO sg.arr VALUES (1, '{1,2}', true);
RESET ROLE;
SELECT count(*) FROM sg.arr t WHERE dptrain.shard_guard(t.tableoid, ARRAY['y', 'x', 'id']);
-- a missing column, row security: refused
SELECT count(*) FROM sg.plain t WHERE dptrain.shard_guard(t.tableoid, ARRAY['y', 'x', 'nope']);
ALTER TABLE sg.plain ENABLE ROW LEVEL SECURITY;
SELECT count(*) FROM sg.plain t WHERE dptrain.shard_guard(t.tableoid, ARRAY['y', 'x', 'id']);
ALTER TABLE sg.plain DISABLE ROW LEVEL SECURITY;
-- a partitioned table read through its partitions passes (each partition is
-- checked); the parent itself and a materialized view are not plain tables
CREATE TABLE sg.parted (id bigint, x float8[], y boolean) PARTITION BY RANGE (id);
CREATE TABLE sg.part1 PARTITION OF sg.parted FOR VALUES FROM (0) TO (10);
INSERT INTO sg.parted VALUES (1, '{1,2}', true);
SELECT count(*) FROM sg.parted t WHERE dptrain.shard_guard(t.tableoid, ARRAY['y', 'x', 'id']);
SELECT dptrain.shard_guard('sg.parted'::regclass, ARRAY['y', 'x', 'id']);
CREATE MATERIALIZED VIEW sg.mv AS SELECT * FROM sg.plain;
SELECT count(*) FROM sg.mv t WHERE dptrain.shard_guard(t.tableoid, ARRAY['y', 'x', 'id']);
-- The guard is evaluated before the projection: the role's cast is never called.
CREATE TABLE sg.called (n int);
GRANT INSERT ON sg.called TO PUBLIC;
SET ROLE regress_sg_owner;
CREATE FUNCTION sg.label_text(sg.label) RETURNS text LANGUAGE plpgsql AS
  $$ BEGIN INSERT INTO sg.called VALUES (1); RETURN 'cast'; END $$;
CREATE CAST (sg.label AS text) WITH FUNCTION sg.label_text(sg.label);
RESET ROLE;
SELECT y::text FROM sg.owned t WHERE dptrain.shard_guard(t.tableoid, ARRAY['y', 'x', 'id']);
SELECT count(*) AS casts_called FROM sg.called;
-- (without the guard the cast runs, as the reading role)
SELECT y::text FROM sg.owned t;
SELECT count(*) AS casts_called FROM sg.called;
-- not for PUBLIC
SELECT has_function_privilege('public', 'dptrain.shard_guard(oid, text[])', 'EXECUTE') AS public_may_call;
DROP SCHEMA sg CASCADE;
DROP OWNED BY regress_sg_owner;
DROP ROLE regress_sg_owner;
