-- Budgets and caps, user-facing (src/pg/ledger.cpp), and the event triggers
-- that keep the ledger honest across DROP TABLE and DROP EXTENSION
-- (docs/governance.md).

CREATE FUNCTION @extschema@.dp_grant_budget(source regclass, role name, epsilon float8, delta float8 DEFAULT 0)
RETURNS void AS 'MODULE_PATHNAME', 'dptrain_dp_grant_budget' LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION @extschema@.dp_grant_budget IS
'owner of source: let role train on source (even without SELECT) up to a total privacy budget (epsilon, delta)';

CREATE FUNCTION @extschema@.dp_revoke_budget(source regclass, role name)
RETURNS boolean AS 'MODULE_PATHNAME', 'dptrain_dp_revoke_budget' LANGUAGE C STRICT VOLATILE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION @extschema@.dp_revoke_budget IS
'owner of source: remove the budget of role on source (what it spent stays in the ledger); true if there was one';

CREATE FUNCTION @extschema@.dp_budget_remaining(source regclass, role name DEFAULT NULL,
    OUT epsilon float8, OUT delta float8)
RETURNS record AS 'MODULE_PATHNAME', 'dptrain_dp_budget_remaining' LANGUAGE C STABLE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION @extschema@.dp_budget_remaining IS
'privacy budget left to role (default: current_user) on source; NULLs if it has none';

CREATE FUNCTION @extschema@.dp_set_table_budget(source regclass, epsilon float8, delta float8 DEFAULT 0)
RETURNS void AS 'MODULE_PATHNAME', 'dptrain_dp_set_table_budget' LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION @extschema@.dp_set_table_budget IS
'owner of source: cap the total privacy loss (epsilon, delta) of all private runs on source, by any role';

CREATE FUNCTION @extschema@.dp_table_budget_remaining(source regclass, OUT epsilon float8, OUT delta float8)
RETURNS record AS 'MODULE_PATHNAME', 'dptrain_dp_table_budget_remaining' LANGUAGE C STABLE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION @extschema@.dp_table_budget_remaining IS
'what is left of the cap on source (all roles); NULLs if it has none';

-- A dropped relation's budgets and cap go with it, and its ledger rows and
-- models lose their link to it ("-"): its OID may later be reused by an
-- unrelated table, which must neither inherit the budgets nor let its
-- readers see the models. (The ledger rows stay: they are history, with
-- source_name.) The same goes for the relation's registered encoding (a
-- view's, sql/48_encoding.sql) and load spec (a loaded table's,
-- sql/49_load_specs.sql): one trigger forgets every registry entry.
-- A temporary relation has none of them, and its models and ledger rows
-- keep no OID (dptrain.lasting_ref): its drop, which every run makes (its
-- shuffled copy), touches nothing. (It scanned dptrain.models, so under
-- SERIALIZABLE two overlapping runs read what the other wrote, and the
-- second COMMIT failed with 40001 after its charge:
-- test/isolation/specs/budget_snapshot_race.spec.)
CREATE FUNCTION dptrain.forget_dropped_sources()
RETURNS event_trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    dropped oid[] := ARRAY(SELECT d.objid FROM pg_catalog.pg_event_trigger_dropped_objects() d
                            WHERE d.classid = 'pg_catalog.pg_class'::pg_catalog.regclass AND d.objsubid = 0
                              AND NOT d.is_temporary);
BEGIN
    IF pg_catalog.cardinality(dropped) OPERATOR(pg_catalog.=) 0 THEN
        RETURN;
    END IF;
    DELETE FROM dptrain.budgets b WHERE b.source = ANY (dropped);
    DELETE FROM dptrain.table_budgets t WHERE t.source = ANY (dropped);
    UPDATE dptrain.ledger l SET source = '-' WHERE l.source = ANY (dropped);
    UPDATE dptrain.models m SET source_table = '-' WHERE m.source_table = ANY (dropped);
    DELETE FROM dptrain.feature_encodings e WHERE e.relation::pg_catalog.oid = ANY (dropped);
    DELETE FROM dptrain.load_specs s WHERE s.relation::pg_catalog.oid = ANY (dropped);
END
$$;
REVOKE EXECUTE ON FUNCTION dptrain.forget_dropped_sources() FROM PUBLIC;
CREATE EVENT TRIGGER dptrain_forget_dropped_sources ON sql_drop
    EXECUTE FUNCTION dptrain.forget_dropped_sources();

-- The ledger outlives nothing it depends on, so it must not go while it
-- records privacy spent under a budget or cap: DROP EXTENSION dptrain, DROP
-- SCHEMA ... CASCADE of the extension's schema and DROP OWNED BY its owner
-- are refused until the extension's owner deletes that history on purpose
-- (src/pg/ledger_guard.cpp).
CREATE FUNCTION dptrain.guard_ledger() RETURNS event_trigger
AS 'MODULE_PATHNAME', 'dptrain_guard_ledger' LANGUAGE C
SET search_path = pg_catalog, pg_temp;
REVOKE EXECUTE ON FUNCTION dptrain.guard_ledger() FROM PUBLIC;
CREATE EVENT TRIGGER dptrain_guard_ledger ON ddl_command_start
    WHEN TAG IN ('DROP EXTENSION', 'DROP SCHEMA', 'DROP OWNED')
    EXECUTE FUNCTION dptrain.guard_ledger();

-- Help for \dx+ dptrain: the COMMENTs of this file's objects not commented above
-- (test/regress/sql/comments.sql lists every member without one).
COMMENT ON FUNCTION dptrain.forget_dropped_sources() IS
'internal: event trigger function: a dropped relation''s budgets, cap, encoding and load spec go; its ledger rows and models lose the link to it';
COMMENT ON EVENT TRIGGER dptrain_forget_dropped_sources IS
'forgets what dptrain keeps about a dropped relation (dptrain.forget_dropped_sources)';
COMMENT ON FUNCTION dptrain.guard_ledger() IS
'internal: event trigger function: refuses DROP EXTENSION, DROP SCHEMA and DROP OWNED that would drop a ledger recording privacy spent under a budget or cap';
COMMENT ON EVENT TRIGGER dptrain_guard_ledger IS
'keeps the ledger while it records privacy spent under a budget or cap (dptrain.guard_ledger)';
