-- The check of every statement that names a user's relation by text
-- (src/pg/statement_checks.h; docs/governance.md, "Names resolved again"),
-- through its test entry point dptrain.check_source_statement(sql, source,
-- only_table), which prepares the statement without running it. The race that
-- makes a name find another object is test/isolation/specs/source_rename_race.spec;
-- here every kind of tree the check walks, accepted and refused. A refusal
-- is 55000 and names what the parsed statement reads or calls instead.
CREATE SCHEMA sc;
CREATE TABLE sc.t (x float8[], y boolean);
CREATE TABLE sc.other (z int);
CREATE FUNCTION sc.f(float8[]) RETURNS boolean LANGUAGE sql AS 'SELECT true';
-- A view calling sc.f in its own definition: the owner's code, bound to the
-- view's OID, which the check does not look into.
CREATE VIEW sc.v AS SELECT x, y FROM sc.t WHERE sc.f(x);
CREATE TABLE sc.parent (x float8[], y boolean);
CREATE TABLE sc.child () INHERITS (sc.parent);
CREATE TABLE sc.parted (x float8[], y boolean, k int) PARTITION BY RANGE (k);
CREATE TABLE sc.part1 PARTITION OF sc.parted FOR VALUES FROM (0) TO (10);
CREATE TABLE sc.secured (x float8[], y boolean);
ALTER TABLE sc.secured ENABLE ROW LEVEL SECURITY;
CREATE POLICY p ON sc.secured USING (sc.f(x));
\set VERBOSITY default

-- Accepted: the statements dptrain writes, over each kind of source.
SELECT dptrain.check_source_statement('SELECT count(*)::int8, max(cardinality(x)) FROM sc.t', 'sc.t');
SELECT dptrain.check_source_statement(
  'SELECT count(*) FILTER (WHERE EXISTS (SELECT FROM unnest(x) v WHERE abs(v) > 1e308)) FROM sc.t', 'sc.t');
SELECT dptrain.check_source_statement(
  'SELECT y::text FROM (SELECT DISTINCT y FROM sc.v ORDER BY 1 LIMIT 1001) c', 'sc.v');
SELECT dptrain.check_source_statement(
  'SELECT i, dptrain.intercept_row(x, 1, 1) FROM (SELECT row_number() OVER () AS i, x FROM sc.parted) r', 'sc.parted');
SELECT dptrain.check_source_statement('WITH d AS (SELECT x FROM sc.parent) SELECT count(*) FROM d', 'sc.parent');
SELECT dptrain.check_source_statement('SELECT count(*) FROM sc.secured', 'sc.secured');
-- read in place: ONLY, a plain table
SELECT dptrain.check_source_statement('SELECT count(*) FROM ONLY sc.t', 'sc.t', true);

-- Refused: another relation by name, at the top, in a sublink, in a CTE,
-- in a subquery in FROM, through a join.
SELECT dptrain.check_source_statement('SELECT count(*) FROM sc.other', 'sc.t');
SELECT dptrain.check_source_statement('SELECT count(*) FROM sc.t WHERE EXISTS (SELECT FROM sc.other)', 'sc.t');
SELECT dptrain.check_source_statement('WITH o AS (SELECT z FROM sc.other) SELECT count(*) FROM sc.t, o', 'sc.t');
SELECT dptrain.check_source_statement('SELECT count(*) FROM (SELECT * FROM sc.t, sc.other) s', 'sc.t');
SELECT dptrain.check_source_statement('SELECT count(*) FROM sc.t JOIN sc.other ON true', 'sc.t');
-- A view where the table was expected, and another view.
SELECT dptrain.check_source_statement('SELECT count(*) FROM sc.v', 'sc.t');
CREATE VIEW sc.v2 AS SELECT x, y FROM sc.t;
SELECT dptrain.check_source_statement('SELECT count(*) FROM sc.v2', 'sc.v');
-- A function of someone's schema in the statement's own text (in the view's
-- definition it was accepted above).
SELECT dptrain.check_source_statement('SELECT count(*) FROM sc.t WHERE sc.f(x)', 'sc.t');
SELECT dptrain.check_source_statement('SELECT sc.f(x) FROM sc.t', 'sc.t');
SELECT dptrain.check_source_statement('SELECT count(*) FROM sc.t, LATERAL (SELECT sc.f(x)) s', 'sc.t');
-- Nothing of the source, and no query at all.
SELECT dptrain.check_source_statement('SELECT 1', 'sc.t');
SELECT dptrain.check_source_statement('DELETE FROM sc.t', 'sc.t');
SELECT dptrain.check_source_statement('WITH d AS (DELETE FROM sc.other RETURNING z) SELECT count(*) FROM sc.t, d', 'sc.t');
-- ONLY (read in place): children, a view, and policies that apply to the
-- role are refused (a superuser bypasses row security: no policy runs).
SELECT dptrain.check_source_statement('SELECT count(*) FROM sc.parent', 'sc.parent', true);
SELECT dptrain.check_source_statement('SELECT count(*) FROM ONLY sc.parent', 'sc.parent', true);
SELECT dptrain.check_source_statement('SELECT count(*) FROM sc.v', 'sc.v', true);
SELECT dptrain.check_source_statement('SELECT count(*) FROM ONLY sc.secured', 'sc.secured', true);
CREATE ROLE regress_sc_reader;
GRANT USAGE ON SCHEMA sc TO regress_sc_reader;
GRANT SELECT ON sc.secured TO regress_sc_reader;
GRANT EXECUTE ON FUNCTION dptrain.check_source_statement(text, regclass, boolean) TO regress_sc_reader;
SET ROLE regress_sc_reader;
SELECT dptrain.check_source_statement('SELECT count(*) FROM ONLY sc.secured', 'sc.secured', true);
SELECT dptrain.check_source_statement('SELECT count(*) FROM sc.secured', 'sc.secured');
RESET ROLE;
REVOKE EXECUTE ON FUNCTION dptrain.check_source_statement(text, regclass, boolean) FROM regress_sc_reader;

-- Not for PUBLIC.
SET ROLE regress_sc_reader;
SELECT dptrain.check_source_statement('SELECT 1', 'pg_class');
RESET ROLE;

-- The controller stores what it prepared: store_model refuses a model whose
-- source name now finds another relation (the schema renamed in between).
CREATE SCHEMA sm;
CREATE TABLE sm.t (x float8[], y boolean);
INSERT INTO sm.t SELECT ARRAY[i / 10.0, 0.1], i % 2 = 0 FROM generate_series(1, 10) i;
SELECT rows FROM dptrain.training_prepare('sm.t', 'y', 'x');
ALTER SCHEMA sm RENAME TO sm_old;
CREATE SCHEMA sm;
CREATE TABLE sm.t (x float8[], y boolean);
CREATE FUNCTION pg_temp.model(source text) RETURNS jsonb LANGUAGE sql AS $$
  SELECT jsonb_build_object('format', 'dptrain-model', 'version', 1, 'algorithm', 'bolton', 'loss', 'logistic',
         'huber_h', 0.1, 'feature_bound', 1.0, 'classes', ARRAY['false', 'true'], 'weights', '[[0.5, -0.5]]'::jsonb,
         'epsilon', 0.5, 'delta', 0, 'seeded', false,
         'details', jsonb_build_object('data', jsonb_build_object('source', source)))
$$;
\set VERBOSITY terse
SELECT dptrain.store_model(pg_temp.model('sm.t'));
\set VERBOSITY default
SELECT count(*) AS stored FROM dptrain.models WHERE source IN ('sm.t', 'sm_old.t');
-- The relation prepared, under its name now: stored.
SELECT dptrain.store_model(pg_temp.model('sm_old.t')) > 0 AS stored;
-- (later tests list the whole ledger)
DELETE FROM dptrain.ledger WHERE source_name = 'sm_old.t';
DROP SCHEMA sm, sm_old CASCADE;
DROP SCHEMA sc CASCADE;
DROP ROLE regress_sc_reader;

-- Leave no model or ledger row behind: other files read the whole ledger.
DELETE FROM dptrain.models WHERE source = 'sm_old.t';
