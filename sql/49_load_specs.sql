-- Load specs: the preprocessing of each table `dptrain load` made (format,
-- columns, bounds and category lists and where they came from, label
-- mapping, dropped-row rule, projection, normalization), written by
-- dptrain.register_load_spec only, for the owner of a table created in the
-- same transaction. dp_train copies the spec of its source into the model
-- (details->'load_spec'), so `dptrain eval --file` scores a raw file with it
-- (docs/loading-data.md). Not readable by PUBLIC: the spec holds facts of the
-- rows (docs/governance.md).
CREATE TABLE dptrain.load_specs (
    relation   regclass PRIMARY KEY,
    spec       jsonb NOT NULL,
    created_by name NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
REVOKE ALL ON dptrain.load_specs FROM PUBLIC;
SELECT pg_catalog.pg_extension_config_dump('dptrain.load_specs', '');
COMMENT ON TABLE dptrain.load_specs IS
'the preprocessing of tables made by dptrain load, copied into the models trained on them';

-- SECURITY INVOKER: the C code checks that the caller owns the table, then
-- writes the registry as the extension owner.
CREATE FUNCTION dptrain.register_load_spec(relation regclass, spec jsonb) RETURNS void
AS 'MODULE_PATHNAME', 'dptrain_register_load_spec' LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION dptrain.register_load_spec IS
'internal: records the load spec of a table dptrain load just created (its owner only)';

-- A dropped table forgets its spec (its oid may be reused by another
-- relation, which must not inherit it): dptrain.forget_dropped_sources
-- (sql/45_budgets.sql), the event trigger of every registry.
