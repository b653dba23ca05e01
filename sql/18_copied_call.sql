-- The planner support function of dp_train and dp_tune: refuses a
-- statement in which the parser copied one written call, as it does for
-- SELECT (dp_train(...)).*, one run (charged, a model of its own) per column
-- of the result; before, eight runs were charged for one row that mixed
-- their columns (src/pg/copied_call.cpp). The planner calls it without an
-- EXECUTE check, so PUBLIC needs none. It runs no SQL.
CREATE FUNCTION dptrain.copied_call_support(internal) RETURNS internal
AS 'MODULE_PATHNAME', 'dptrain_copied_call_support' LANGUAGE C STRICT STABLE
SET search_path = pg_catalog, pg_temp;
REVOKE ALL ON FUNCTION dptrain.copied_call_support(internal) FROM PUBLIC;
COMMENT ON FUNCTION dptrain.copied_call_support(internal) IS
'planner support of dp_train and dp_tune: refuses (f(...)).*, which would run the call once per column';
