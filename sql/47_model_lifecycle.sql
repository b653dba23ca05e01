-- Model lifecycle: a role renames and deletes its own models (never another
-- role's). Renaming runs with the caller's rights (row-level security
-- decides). Deleting runs in C as the extension owner, for the caller's own
-- models only: PUBLIC holds no DELETE on the table, because a table-level
-- DELETE lets a role LOCK the table in any mode, and one role holding
-- ACCESS EXCLUSIVE stalled every other role's run after its charge
-- (src/pg/model_lifecycle.cpp). Deleting a model does not give back the
-- privacy it spent: the ledger keeps the charge (docs/governance.md).
GRANT UPDATE (name) ON dptrain.models TO PUBLIC;
CREATE POLICY creator_renames ON dptrain.models FOR UPDATE
    USING (created_by OPERATOR(pg_catalog.=) current_user)
    WITH CHECK (created_by OPERATOR(pg_catalog.=) current_user);

-- The id of one of the caller's own models: an id, or the name of one.
-- SET row_security = on: dptrain.models' policies applied to the caller's
-- own reads whatever its row_security (with off, PostgreSQL would refuse the
-- reads and writes below, 42501; src/pg/access.h, pin_row_security).
CREATE FUNCTION dptrain.own_model_id(model text) RETURNS bigint
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
SET row_security = on AS $$
DECLARE
    found bigint;
BEGIN
    IF model ~ '^\s*[-+]?[0-9]+\s*$' THEN
        SELECT m.id INTO found FROM dptrain.models m WHERE m.id = model::bigint AND m.created_by = current_user;
    ELSE
        SELECT m.id INTO found FROM dptrain.models m WHERE m.name = model AND m.created_by = current_user;
    END IF;
    IF found IS NULL THEN
        RAISE EXCEPTION 'you have no model "%"', model USING ERRCODE = 'undefined_object',
            HINT = 'A role renames and deletes only its own models; see SELECT id, name FROM dptrain.models WHERE created_by = current_user.';
    END IF;
    RETURN found;
END
$$;
COMMENT ON FUNCTION dptrain.own_model_id IS
'internal: the id of one of your own models, by id or name (an error otherwise)';

-- A NULL argument is an error (22004), not the silent NULL of a STRICT
-- function: these change the table, and a no-op would look like success.
CREATE FUNCTION @extschema@.dp_rename_model(model text, new_name text) RETURNS bigint
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
SET row_security = on AS $$
DECLARE
    target bigint;
BEGIN
    IF model IS NULL OR new_name IS NULL THEN
        RAISE EXCEPTION 'argument % of dp_rename_model must not be NULL', CASE WHEN model IS NULL THEN 'model' ELSE 'new_name' END
            USING ERRCODE = 'null_value_not_allowed',
            HINT = 'Pass the id or the name of one of your models and its new name.';
    END IF;
    target := dptrain.own_model_id(model);
    IF new_name ~ '^\s*[-+]?[0-9]+\s*$' OR new_name = '' THEN
        RAISE EXCEPTION 'invalid model name "%"', new_name USING ERRCODE = 'invalid_parameter_value',
            HINT = 'A name is non-empty and does not look like an id (dp_predict(''7'') means model 7).';
    END IF;
    -- Control characters, as dp_train refuses them (src/pg/models.cpp): C0,
    -- DEL, and C1 in a UTF-8 database. The name is not printed.
    IF new_name ~ '[\x01-\x1f\x7f]'
       OR (pg_catalog.getdatabaseencoding() = 'UTF8' AND new_name ~ '[\u0080-\u009f]') THEN
        RAISE EXCEPTION 'a model name must not contain control characters' USING ERRCODE = 'invalid_parameter_value',
            HINT = 'Choose a name of printable characters (no newline, tab or escape sequence).';
    END IF;
    IF EXISTS (SELECT FROM dptrain.models m WHERE m.name = new_name AND m.created_by = current_user
               AND m.id <> target) THEN
        RAISE EXCEPTION 'you already have a model named "%"', new_name USING ERRCODE = 'duplicate_object',
            HINT = 'Drop or rename that model first.';
    END IF;
    -- the name taken by a transaction that committed while this UPDATE
    -- waited for it: the check's error, not the unique index's raw one
    -- (test/isolation/specs/model_name_race.spec)
    BEGIN
        UPDATE dptrain.models m SET name = new_name WHERE m.id = target;
    EXCEPTION WHEN unique_violation THEN
        RAISE EXCEPTION 'you already have a model named "%"', new_name USING ERRCODE = 'duplicate_object',
            HINT = 'Another transaction gave that name to one of your models while this call waited for it; choose another name.';
    END;
    -- dropped by a transaction that committed while this UPDATE waited for
    -- the row (test/isolation/specs/model_drop_race.spec)
    IF NOT FOUND THEN
        RAISE EXCEPTION 'you have no model "%"', model USING ERRCODE = 'undefined_object',
            HINT = 'It was dropped by another transaction while this call waited for it.';
    END IF;
    RETURN target;
END
$$;
COMMENT ON FUNCTION @extschema@.dp_rename_model IS
'rename one of your own models (by id or name); returns its id';

CREATE FUNCTION @extschema@.dp_drop_model(model text) RETURNS bigint
AS 'MODULE_PATHNAME', 'dptrain_dp_drop_model' LANGUAGE C VOLATILE SET search_path = pg_catalog, pg_temp
SET row_security = on;
COMMENT ON FUNCTION @extschema@.dp_drop_model IS
'delete one of your own models (by id or name); the privacy it spent stays spent; returns its id';
