-- The check of statements that name a user's relation by text
-- (src/pg/statement_checks.h, docs/governance.md "Names resolved again"),
-- callable for its regression test only.
CREATE FUNCTION dptrain.check_source_statement(sql text, source regclass, only_table boolean DEFAULT false) RETURNS void
AS 'MODULE_PATHNAME', 'dptrain_check_source_statement' LANGUAGE C VOLATILE STRICT
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION dptrain.check_source_statement IS
'internal (tests): prepares a statement without running it and fails (55000) unless it reads source, by OID, and nothing else by name';
REVOKE EXECUTE ON FUNCTION dptrain.check_source_statement(text, regclass, boolean) FROM PUBLIC;
