-- A float label's class text (src/pg/label_classes.h): its shortest exact
-- text, -0 as '0', whatever the session's extra_float_digits (the output
-- function's text, y::text, rounds with 0 or less). Every statement that maps
-- a row to its class calls it once per row (the copy, the passes read in
-- place, on a Citus table's shards too, and dp_evaluate): C functions that
-- resolve no names, so no SET clause (a GUC save and restore per row);
-- executable by PUBLIC (the text of the value they are given, nothing else).
CREATE FUNCTION dptrain.label_class(float8) RETURNS text
AS 'MODULE_PATHNAME', 'dptrain_label_class_float8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dptrain.label_class(float4) RETURNS text
AS 'MODULE_PATHNAME', 'dptrain_label_class_float4' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
