-- The scan qualifier of the passes pushed down to a Citus table's shards
-- (src/pg/shard_guard.h, docs/distributed.md section 9.6):
--
--   ... FROM ONLY t WHERE dptrain.shard_guard(tableoid, ARRAY['y', 'x', 'id'])
--
-- true for a plain table without row security whose named columns have
-- built-in types (or domains over them), an ERROR (55000) otherwise: each
-- worker resolves the shard's name again, and what it finds must not run
-- anyone's code when the pass reads and casts its columns. A C function: it
-- resolves no names (no search_path involved). Internal to training, so not
-- executable by PUBLIC.
CREATE FUNCTION dptrain.shard_guard(relation oid, columns text[])
RETURNS boolean AS 'MODULE_PATHNAME', 'dptrain_shard_guard' LANGUAGE C STABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION dptrain.shard_guard(oid, text[]) IS
'internal: refuses (55000) a shard that is not a plain table without row security with built-in column types';

REVOKE EXECUTE ON FUNCTION dptrain.shard_guard(oid, text[]) FROM PUBLIC;
