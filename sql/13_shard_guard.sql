-- The guard of every statement that reads a Citus table's shards
-- (src/pg/shard_guard.h, docs/distributed.md section 9.6):
--
--   ... FROM (SELECT * FROM ONLY t AS dptrain_source
--             WHERE dptrain.shard_guard(ARRAY['y', 'x', 'id'], false, 'alice')) AS dptrain_source
--
-- Constant arguments: each node evaluates it once, as a one-time filter,
-- before any row is fetched, and checked before the statement is planned
-- (a planner hook: planning const-simplifies code of the relations read).
-- true if every relation the statement reads on that node is a plain (or
-- partitioned) table of the table's owner, without row security unless
-- row_security, whose named columns have built-in types (or domains over
-- them); an ERROR (55000) naming the relation otherwise: each worker resolves
-- a shard's name again, and what it finds must not run anyone's code. A C
-- function: it resolves no names (no search_path involved). PARALLEL
-- RESTRICTED: evaluated by the statement's own backend, which knows the
-- statement's plan. Internal, but open to PUBLIC: the reads run with the
-- reader's rights (src/pg/training_run.h, pass_role), and it tells a role
-- only catalog facts every role may read.
CREATE FUNCTION dptrain.shard_guard(columns text[], row_security boolean, owner dptrain.role_ref)
RETURNS boolean AS 'MODULE_PATHNAME', 'dptrain_shard_guard' LANGUAGE C STABLE STRICT PARALLEL RESTRICTED;

COMMENT ON FUNCTION dptrain.shard_guard(text[], boolean, dptrain.role_ref) IS
'internal: refuses (55000) a statement that reads, on this node, a relation other than a plain table without row security with built-in column types';
