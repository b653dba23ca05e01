-- The gradient/loss aggregate on sparse rows (sql/60_engine.sql; the same
-- request and state, docs/sparse.md): AMP, the optimum, P-FW and DP-AGD
-- read a sparse prepared table through it.
CREATE FUNCTION dptrain.gradient_transition(state float8[], x dptrain.sparsevec, y float8, request float8[])
RETURNS float8[] AS 'MODULE_PATHNAME', 'dptrain_gradient_sparse_transition' LANGUAGE C PARALLEL SAFE;
CREATE AGGREGATE dptrain.gradient_sum(x dptrain.sparsevec, y float8, request float8[]) (
    SFUNC = dptrain.gradient_transition, STYPE = float8[],
    COMBINEFUNC = dptrain.gradient_combine, PARALLEL = SAFE);
COMMENT ON AGGREGATE dptrain.gradient_sum(dptrain.sparsevec, float8, float8[]) IS
'internal: exact sums of the losses and gradients at the requested points (dptrain.gradient_request); a pass of dp_train';
-- Open to PUBLIC like its dense forms (sql/60_engine.sql).

-- Help for \dx+ dptrain: the COMMENTs of this file's objects not commented above
-- (test/regress/sql/comments.sql lists every member without one).
COMMENT ON FUNCTION dptrain.gradient_transition(float8[], dptrain.sparsevec, float8, float8[]) IS
'internal: transition function of dptrain.gradient_sum on sparse rows';
