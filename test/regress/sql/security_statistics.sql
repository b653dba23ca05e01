-- Attack (hostile review of 2026-11-27, second round): planner statistics of
-- the extension's tables. PUBLIC may SELECT dptrain.models, the ledger and the
-- budgets under row security, and PostgreSQL estimates a query's rows from
-- the statistics of the whole table whenever the operator is leakproof
-- (float8, text and name comparisons are): after an ANALYZE (autovacuum's),
-- EXPLAIN SELECT * FROM dptrain.models WHERE algorithm = 'none' estimated
-- the number of every role's non-private models -- invisible rows -- and the
-- same held for epsilon (a histogram of other roles' values), model names
-- and the ledger's rows. Now no column of these tables has statistics
-- (sql/70_statistics.sql): the estimates are PostgreSQL's defaults, the
-- same whatever the invisible rows hold.
SET client_min_messages = warning;
CREATE ROLE regress_stats_owner;
CREATE ROLE regress_stats_peer;
GRANT CREATE ON SCHEMA public TO regress_stats_owner;
SET ROLE regress_stats_owner;
CREATE TABLE public.stats_src AS
SELECT i AS id, ARRAY[sin(i), cos(i)]::float8[] AS x, (sin(3 * i) > 0) AS y FROM generate_series(1, 200) i;
-- eight noiseless models and one private one, none visible to the peer
SELECT count(*) FROM generate_series(1, 8) g,
  LATERAL dp_train('public.stats_src', 'y', 'x', algorithm => 'none', batch_size => 10,
                  name => 'secret_project_' || g);
SELECT count(*) FROM dp_train('public.stats_src', 'y', 'x', algorithm => 'bolton', epsilon => 1, batch_size => 10);
RESET ROLE;
ANALYZE dptrain.models;
ANALYZE dptrain.ledger;

-- The estimated rows of a query of the peer's (EXPLAIN only plans it).
CREATE FUNCTION pg_temp.estimate(q text) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE plan json;
BEGIN
  EXECUTE 'EXPLAIN (FORMAT JSON) ' || q INTO plan;
  RETURN (plan -> 0 -> 'Plan' ->> 'Plan Rows')::float8;
END $$;
SET ROLE regress_stats_peer;
SELECT count(*) AS visible FROM dptrain.models WHERE created_by = 'regress_stats_owner';
-- the same estimate for an algorithm nobody used and for the owner's 8 'none'
-- models; for a name nobody gave and for one of the owner's; for epsilon
SELECT pg_temp.estimate($$SELECT * FROM dptrain.models WHERE algorithm = 'none'$$)
     = pg_temp.estimate($$SELECT * FROM dptrain.models WHERE algorithm = 'no such algorithm'$$) AS algorithm_hidden,
       pg_temp.estimate($$SELECT * FROM dptrain.models WHERE name = 'secret_project_3'$$)
     = pg_temp.estimate($$SELECT * FROM dptrain.models WHERE name = 'no such name'$$) AS name_hidden,
       pg_temp.estimate($$SELECT * FROM dptrain.models WHERE epsilon > 0.5$$)
     = pg_temp.estimate($$SELECT * FROM dptrain.models WHERE epsilon > 1e300$$) AS epsilon_hidden,
       pg_temp.estimate($$SELECT * FROM dptrain.ledger WHERE algorithm = 'bolton'$$)
     = pg_temp.estimate($$SELECT * FROM dptrain.ledger WHERE algorithm = 'no such algorithm'$$) AS ledger_hidden;
RESET ROLE;
-- nothing collected on any column of the four tables
SELECT c.relname, count(*) FILTER (WHERE a.attstattarget <> 0) AS columns_with_statistics
FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
WHERE c.oid IN ('dptrain.models'::regclass, 'dptrain.ledger'::regclass, 'dptrain.budgets'::regclass,
                'dptrain.table_budgets'::regclass) AND a.attnum > 0 AND NOT a.attisdropped
GROUP BY c.relname ORDER BY c.relname;
SELECT count(*) AS statistics_rows FROM pg_statistic
WHERE starelid IN ('dptrain.models'::regclass, 'dptrain.ledger'::regclass);

DROP TABLE public.stats_src;
DELETE FROM dptrain.ledger WHERE source_name = 'public.stats_src';
DELETE FROM dptrain.models WHERE created_by = 'regress_stats_owner';
REVOKE CREATE ON SCHEMA public FROM regress_stats_owner;
DROP ROLE regress_stats_owner, regress_stats_peer;
