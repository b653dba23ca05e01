-- The guard of every read of a Citus table's shards (src/pg/shard_guard.h;
-- docs/distributed.md section 9.6), on a plain server:
-- dptrain.shard_guard(columns, row_security, owner) has constant arguments,
-- so the planner makes it a one-time filter, evaluated before any row is
-- fetched; it checks every relation the statement it is part of reads: a
-- plain (or partitioned) table of `owner`, without row security unless
-- row_security, whose named columns have types with no role's casts;
-- anything else is refused (55000), before a view's expressions, a policy or
-- a cast run. A planner hook makes the same check before such a statement is
-- planned (planning evaluates IMMUTABLE functions of views and indexes). The races on a
-- cluster are test/citus/pass_source_swap.sh and worker_shard_swap.sh; here
-- every branch.
\set VERBOSITY default
CREATE SCHEMA sg;
CREATE ROLE regress_sg_owner;
CREATE ROLE regress_sg_reader;
GRANT USAGE, CREATE ON SCHEMA sg TO regress_sg_owner;
GRANT USAGE ON SCHEMA sg TO regress_sg_reader;
-- Evidence of code run: sg.called.
CREATE TABLE sg.called (what text);
GRANT INSERT ON sg.called TO PUBLIC;
-- built-in types, a domain over one, a superuser's enum: accepted
CREATE DOMAIN sg.unit AS float8[] CHECK (cardinality(VALUE) = 2);
CREATE TYPE sg.su_label AS ENUM ('no', 'yes');
CREATE TABLE sg.plain (id bigint, x float8[], y boolean, d sg.unit, e sg.su_label, n numeric[]);
INSERT INTO sg.plain VALUES (1, '{1,2}', true, '{1,2}', 'yes', '{1}'), (2, '{3,4}', false, '{3,4}', 'no', '{2}');
ALTER TABLE sg.plain OWNER TO regress_sg_owner;
SELECT count(*) FROM sg.plain WHERE dptrain.shard_guard(ARRAY['y', 'x', 'id', 'd', 'e', 'n'], false, 'regress_sg_owner');
-- a one-time filter: evaluated once, before the scan
EXPLAIN (COSTS OFF) SELECT count(*) FROM sg.plain WHERE dptrain.shard_guard(ARRAY['x'], false, 'regress_sg_owner');
-- an enum made by a role (it may CREATE CAST from it): refused, naming the column
SET ROLE regress_sg_owner;
CREATE TYPE sg.label AS ENUM ('no', 'yes');
CREATE TABLE sg.owned (id bigint, x float8[], y sg.label);
INSERT INTO sg.owned VALUES (1, '{1,2}', 'yes');
CREATE FUNCTION sg.label_text(sg.label) RETURNS text LANGUAGE plpgsql AS
  $$ BEGIN INSERT INTO sg.called VALUES ('cast'); RETURN 'cast'; END $$;
CREATE CAST (sg.label AS text) WITH FUNCTION sg.label_text(sg.label);
RESET ROLE;
SELECT count(*) FROM sg.owned WHERE dptrain.shard_guard(ARRAY['id', 'x'], false, 'regress_sg_owner');
SELECT y::text FROM sg.owned WHERE dptrain.shard_guard(ARRAY['y', 'x', 'id'], false, 'regress_sg_owner');
-- an array of a role's domain is not a domain: refused
SET ROLE regress_sg_owner;
CREATE DOMAIN sg.pos AS float8 CHECK (VALUE >= 0);
CREATE TABLE sg.arr (id bigint, x sg.pos[], y boolean);
INSERT INTO sg.arr VALUES (1, '{1,2}', true);
RESET ROLE;
SELECT count(*) FROM sg.arr WHERE dptrain.shard_guard(ARRAY['y', 'x', 'id'], false, 'regress_sg_owner');
-- another owner than the table's: refused
SELECT count(*) FROM sg.plain WHERE dptrain.shard_guard(ARRAY['x'], false, 'regress_sg_reader');
-- a missing column: refused
SELECT count(*) FROM sg.plain WHERE dptrain.shard_guard(ARRAY['y', 'x', 'nope'], false, 'regress_sg_owner');
-- row security: refused, unless the table on the coordinator has it too;
-- refused before the policy runs for a role it applies to
SET ROLE regress_sg_owner;
CREATE FUNCTION sg.policy_check() RETURNS boolean LANGUAGE plpgsql AS
  $$ BEGIN INSERT INTO sg.called VALUES ('policy'); RETURN true; END $$;
CREATE TABLE sg.secured (id bigint, x float8[], y boolean);
INSERT INTO sg.secured VALUES (1, '{1,2}', true);
ALTER TABLE sg.secured ENABLE ROW LEVEL SECURITY;
CREATE POLICY p ON sg.secured USING (sg.policy_check());
GRANT SELECT ON sg.secured TO regress_sg_reader;
RESET ROLE;
SET ROLE regress_sg_reader;
SELECT count(*) FROM sg.secured WHERE dptrain.shard_guard(ARRAY['y', 'x', 'id'], false, 'regress_sg_owner');
SELECT count(*) FROM sg.secured WHERE dptrain.shard_guard(ARRAY['y', 'x', 'id'], true, 'regress_sg_owner');
RESET ROLE;
-- a partitioned table read through its partitions passes (each is checked);
-- a materialized view is not a plain table
CREATE TABLE sg.parted (id bigint, x float8[], y boolean) PARTITION BY RANGE (id);
CREATE TABLE sg.part1 PARTITION OF sg.parted FOR VALUES FROM (0) TO (10);
INSERT INTO sg.parted VALUES (1, '{1,2}', true);
ALTER TABLE sg.parted OWNER TO regress_sg_owner;
ALTER TABLE sg.part1 OWNER TO regress_sg_owner;
SELECT count(*) FROM sg.parted WHERE dptrain.shard_guard(ARRAY['y', 'x', 'id'], false, 'regress_sg_owner');
CREATE MATERIALIZED VIEW sg.mv AS SELECT * FROM sg.plain;
ALTER MATERIALIZED VIEW sg.mv OWNER TO regress_sg_owner;
SELECT count(*) FROM sg.mv WHERE dptrain.shard_guard(ARRAY['y', 'x', 'id'], false, 'regress_sg_owner');
-- a view is refused before its expressions run, also one that shows a
-- tableoid column (a view may define one) of a plain table
SET ROLE regress_sg_owner;
CREATE FUNCTION sg.spy() RETURNS boolean LANGUAGE plpgsql AS
  $$ BEGIN INSERT INTO sg.called VALUES ('view'); RETURN true; END $$;
CREATE TABLE sg.decoy (id bigint, x float8[], y boolean);
INSERT INTO sg.decoy VALUES (1, '{1,2}', true);
CREATE VIEW sg.v AS SELECT d.tableoid AS tableoid, d.id, d.x, sg.spy() AS y FROM sg.decoy d WHERE sg.spy();
CREATE VIEW sg.vb WITH (security_barrier) AS SELECT d.id, d.x, d.y FROM sg.decoy d WHERE sg.spy();
RESET ROLE;
SELECT count(*) FROM sg.v WHERE dptrain.shard_guard(ARRAY['y', 'x', 'id'], false, 'regress_sg_owner');
SELECT y FROM sg.v WHERE dptrain.shard_guard(ARRAY['y', 'x', 'id'], false, 'regress_sg_owner');
SELECT count(*) FROM (SELECT * FROM sg.vb AS dptrain_source
                      WHERE dptrain.shard_guard(ARRAY['y', 'x', 'id'], false, 'regress_sg_owner')) AS dptrain_source;
-- inside a function's statement (an executor run nested in another): the
-- statement that holds the call is the one checked
DO $$ BEGIN PERFORM count(*) FROM sg.v WHERE dptrain.shard_guard(ARRAY['y'], false, 'regress_sg_owner'); END $$;
SELECT count(*) FROM sg.plain p WHERE p.id IN (SELECT count(*) FROM sg.plain q WHERE dptrain.shard_guard(ARRAY['x'], false, 'regress_sg_owner'));
-- planning evaluates an IMMUTABLE function with constant arguments (of a
-- view, of an index predicate): checked before planning, it never runs
SET ROLE regress_sg_owner;
CREATE FUNCTION sg.imm(int) RETURNS int LANGUAGE plpgsql IMMUTABLE AS
  $$ BEGIN RAISE NOTICE 'imm ran as %', current_user; RETURN $1; END $$;
CREATE VIEW sg.vi AS SELECT d.id, d.x, d.y AND sg.imm(1) = 1 AS y FROM sg.decoy d;
CREATE TABLE sg.indexed (id bigint, x float8[], y boolean);
CREATE INDEX ON sg.indexed (id) WHERE id > sg.imm(0);
RESET ROLE;
SELECT y FROM sg.vi WHERE dptrain.shard_guard(ARRAY['y'], false, 'regress_sg_owner');
-- also as the second statement of one query string (the hook searches each
-- statement's own part of the string for the guard)
SELECT 1 AS first \; SELECT y FROM sg.vi WHERE dptrain.shard_guard(ARRAY['y'], false, 'regress_sg_owner');
-- the index of another role than the expected owner: refused before planning
SELECT count(*) FROM sg.indexed WHERE dptrain.shard_guard(ARRAY['y'], false, 'regress_sg_reader');
-- the expected owner's own index is planned as any reader of its table plans it
SELECT count(*) FROM sg.indexed WHERE dptrain.shard_guard(ARRAY['y'], false, 'regress_sg_owner');
-- (without the guard, planning runs the view's function)
EXPLAIN (COSTS OFF) SELECT y FROM sg.vi;
-- nothing of the role's ran but the policy of the read accepted with row_security
SELECT what, count(*) FROM sg.called GROUP BY what ORDER BY what;
-- (without the guard the view, the policy and the cast run, as the reading role)
SELECT count(*) FROM sg.v;
SELECT y::text FROM sg.owned;
SET ROLE regress_sg_reader;
SELECT count(*) FROM sg.secured;
RESET ROLE;
SELECT what, count(*) > 0 AS ran FROM sg.called GROUP BY what ORDER BY what;
-- the statement's own code is looked up again on each node, under that
-- session's search_path (Citus names pg_catalog's functions unqualified in
-- the shard queries): a role's better match in a schema of the path
-- (cardinality(float8[]) beats pg_catalog's cardinality(anyarray)), or a
-- role's domain named text where the path puts pg_catalog last, is refused
-- before planning, and never runs
CREATE SCHEMA sg_path;
GRANT USAGE, CREATE ON SCHEMA sg_path TO regress_sg_owner;
SET ROLE regress_sg_owner;
CREATE FUNCTION sg_path.cardinality(float8[]) RETURNS int LANGUAGE plpgsql AS
  $$ BEGIN INSERT INTO sg.called VALUES ('search_path'); RETURN 2; END $$;
CREATE FUNCTION sg_path.text_check(pg_catalog.text) RETURNS boolean LANGUAGE plpgsql AS
  $$ BEGIN INSERT INTO sg.called VALUES ('domain'); RETURN true; END $$;
CREATE DOMAIN sg_path.text AS pg_catalog.text CHECK (sg_path.text_check(VALUE));
RESET ROLE;
SET search_path = sg_path;
SELECT count(*) FROM sg.plain WHERE cardinality(x) = 2 AND dptrain.shard_guard(ARRAY['x'], false, 'regress_sg_owner');
SET search_path = sg_path, pg_catalog;
SELECT y::text FROM sg.plain WHERE dptrain.shard_guard(ARRAY['y'], false, 'regress_sg_owner');
SELECT count(*) AS ran FROM sg.called WHERE what IN ('search_path', 'domain');
-- (without the guard the path's function runs)
SET search_path = sg_path;
SELECT count(*) FROM sg.plain WHERE cardinality(x) = 2;
SET search_path = sg_path, pg_catalog;
SELECT y::text FROM sg.plain WHERE id = 1;
RESET search_path;
SELECT what, count(*) FROM sg.called WHERE what IN ('search_path', 'domain') GROUP BY what;
DROP SCHEMA sg_path CASCADE;
-- open to PUBLIC: the reads run with the reader's rights (training_run.h, pass_role)
SELECT has_function_privilege('public', 'dptrain.shard_guard(text[], boolean, dptrain.role_ref)', 'EXECUTE') AS public_may_call;
DROP SCHEMA sg CASCADE;
DROP OWNED BY regress_sg_owner;
DROP OWNED BY regress_sg_reader;
DROP ROLE regress_sg_owner;
DROP ROLE regress_sg_reader;
