-- The gradient/loss aggregate of the engine's GradientLoss pass (full-
-- gradient algorithms: AMP, DP-AGD, private Frank-Wolfe; src/core/engine/
-- gradient_state.h): for the model points in the request it sums, over the
-- rows, the per-row losses and loss gradients (with the requested clipping)
-- and optionally the Hessian at the first point.
--
--   SELECT dptrain.gradient_sum(x, y, <request>) FROM <table>;
--
-- The combine function is an exact (compensated) sum, so the aggregate is
-- PARALLEL SAFE: on a large ordinary table PostgreSQL runs it with partial
-- aggregates in parallel workers, and a distributed engine (Citus) pushes it
-- down to the shards. It returns noiseless sums, so it is not executable by
-- PUBLIC: only the training functions (and roles the owner trusts with the
-- raw data) may run it.
CREATE FUNCTION dptrain.gradient_transition(state float8[], x float8[], y float8, request float8[])
RETURNS float8[] AS 'MODULE_PATHNAME', 'dptrain_gradient_transition' LANGUAGE C PARALLEL SAFE;
CREATE FUNCTION dptrain.gradient_transition(state float8[], x real[], y float8, request float8[])
RETURNS float8[] AS 'MODULE_PATHNAME', 'dptrain_gradient_transition' LANGUAGE C PARALLEL SAFE;
CREATE FUNCTION dptrain.gradient_combine(float8[], float8[])
RETURNS float8[] AS 'MODULE_PATHNAME', 'dptrain_gradient_combine' LANGUAGE C PARALLEL SAFE;

CREATE AGGREGATE dptrain.gradient_sum(x float8[], y float8, request float8[]) (
    SFUNC = dptrain.gradient_transition, STYPE = float8[],
    COMBINEFUNC = dptrain.gradient_combine, PARALLEL = SAFE);
CREATE AGGREGATE dptrain.gradient_sum(x real[], y float8, request float8[]) (
    SFUNC = dptrain.gradient_transition, STYPE = float8[],
    COMBINEFUNC = dptrain.gradient_combine, PARALLEL = SAFE);

COMMENT ON AGGREGATE dptrain.gradient_sum(float8[], float8, float8[]) IS
'internal: exact sums of the losses and gradients at the requested points (dptrain.gradient_request); a pass of dp_train';
COMMENT ON AGGREGATE dptrain.gradient_sum(real[], float8, float8[]) IS
'internal: exact sums of the losses and gradients at the requested points (dptrain.gradient_request); a pass of dp_train';
-- Open to PUBLIC, the aggregate and its support functions (these refuse to
-- run outside an aggregate and validate every state they are given): the
-- passes over a table read in place or a Citus table's shards run with the
-- reader's rights, never the extension owner's (src/pg/training_run.h,
-- pass_role; Citus checks EXECUTE on all of them on the workers), and a role
-- learns nothing from the noiseless sums of rows it may select itself.

-- Building and reading gradient states by hand:
--   SELECT (dptrain.gradient_result(dptrain.gradient_sum(x, y, dptrain.gradient_request('{0,0,0}')))).* FROM t;
CREATE FUNCTION dptrain.gradient_request(points float8[], loss text DEFAULT 'logistic', huber_h float8 DEFAULT 0.1,
    feature_bound float8 DEFAULT 1, hessian boolean DEFAULT false)
RETURNS float8[] AS 'MODULE_PATHNAME', 'dptrain_gradient_request' LANGUAGE C IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION dptrain.gradient_request IS
'a request for dptrain.gradient_sum at one point (float8[] d, or float8[][] K x d for one-vs-all models)';
CREATE FUNCTION dptrain.gradient_result(state float8[], OUT rows bigint, OUT loss float8[], OUT gradient float8[])
RETURNS record AS 'MODULE_PATHNAME', 'dptrain_gradient_result' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION dptrain.gradient_result IS
'row count, loss sums (per model) and gradient sums (d, or K x d) of a dptrain.gradient_sum state';

-- Help for \dx+ dptrain: the COMMENTs of this file's objects not commented above
-- (test/regress/sql/comments.sql lists every member without one).
COMMENT ON FUNCTION dptrain.gradient_transition(float8[], float8[], float8, float8[]) IS
'internal: transition function of dptrain.gradient_sum';
COMMENT ON FUNCTION dptrain.gradient_transition(float8[], real[], float8, float8[]) IS
'internal: transition function of dptrain.gradient_sum';
COMMENT ON FUNCTION dptrain.gradient_combine(float8[], float8[]) IS
'internal: combine function of dptrain.gradient_sum (sums)';
