-- A float's text that does not depend on the session's settings: its
-- shortest exact text (what extra_float_digits >= 1, the default, prints;
-- the output function's text, v::text, rounds with 0 or less), -0 as '0'.
-- A float label's class text (src/pg/label_classes.h) and an encoded number
-- column's text (encode_row reads it back as the very float8: the copy,
-- dp_evaluate, dp_encoded_view's views). Called once per row, in the passes
-- read in place and on a Citus table's shards too: C functions that resolve
-- no names, so no SET clause (a GUC save and restore per row); executable by
-- PUBLIC (the text of the value they are given, nothing else).
CREATE FUNCTION dptrain.float_text(float8) RETURNS text
AS 'MODULE_PATHNAME', 'dptrain_float_text_float8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dptrain.float_text(float4) RETURNS text
AS 'MODULE_PATHNAME', 'dptrain_float_text_float4' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dptrain.float_text(float8) IS
'internal: a float8''s shortest exact text (-0 as 0), whatever extra_float_digits';
COMMENT ON FUNCTION dptrain.float_text(float4) IS
'internal: a real''s shortest exact text (-0 as 0), whatever extra_float_digits';
