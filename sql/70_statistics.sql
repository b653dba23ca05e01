-- No planner statistics on the tables PUBLIC reads under row security.
--
-- PostgreSQL estimates the rows of a query from the statistics of the whole
-- table, invisible rows included, whenever the operator is leakproof (float8,
-- text and name comparisons are). After an ANALYZE (autovacuum runs one),
-- EXPLAIN SELECT * FROM dptrain.models WHERE algorithm = 'none' estimated how
-- many non-private models every role had stored, and histograms and most
-- common values gave other roles' epsilons, model names and ledger rows
-- (docs/governance.md, hostile review of 2026-11-27, second round;
-- test/regress/sql/security_statistics.sql). ANALYZE collects nothing on
-- these columns; the planner uses its defaults (the tables are small).
DO $$
DECLARE
    c record;
BEGIN
    FOR c IN SELECT a.attrelid::pg_catalog.regclass AS rel, a.attname
             FROM pg_catalog.pg_attribute a
             WHERE a.attrelid OPERATOR(pg_catalog.=) ANY (ARRAY['dptrain.models'::pg_catalog.regclass,
                       'dptrain.ledger'::pg_catalog.regclass, 'dptrain.budgets'::pg_catalog.regclass,
                       'dptrain.table_budgets'::pg_catalog.regclass]::pg_catalog.oid[])
               AND a.attnum OPERATOR(pg_catalog.>) 0 AND NOT a.attisdropped
    LOOP
        EXECUTE pg_catalog.format('ALTER TABLE %s ALTER COLUMN %I SET STATISTICS 0', c.rel, c.attname);
    END LOOP;
END $$;
