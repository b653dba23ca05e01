-- The Bismarck epoch aggregate: one call = one pass of permutation SGD over
-- the rows it is fed, in the order they arrive.
--
--   SELECT dptrain.sgd_epoch(x, y, <initial state>) FROM <shuffled table>;
--
-- The state is an ordinary float8[] (layout in src/core/sgd/epoch_state.h)
-- so that parallel workers and distributed engines can ship and combine it;
-- combine = count-weighted model averaging. The aggregate returns the
-- noiseless model, so it is not executable by PUBLIC: only the training
-- functions (and roles the owner trusts with the raw data) may run it.
CREATE FUNCTION dptrain.sgd_transition(state float8[], x float8[], y float8, init float8[])
RETURNS float8[] AS 'MODULE_PATHNAME', 'dptrain_sgd_transition' LANGUAGE C PARALLEL SAFE;
CREATE FUNCTION dptrain.sgd_transition(state float8[], x float8[], y boolean, init float8[])
RETURNS float8[] AS 'MODULE_PATHNAME', 'dptrain_sgd_transition' LANGUAGE C PARALLEL SAFE;
CREATE FUNCTION dptrain.sgd_transition(state float8[], x real[], y float8, init float8[])
RETURNS float8[] AS 'MODULE_PATHNAME', 'dptrain_sgd_transition' LANGUAGE C PARALLEL SAFE;
CREATE FUNCTION dptrain.sgd_transition(state float8[], x real[], y boolean, init float8[])
RETURNS float8[] AS 'MODULE_PATHNAME', 'dptrain_sgd_transition' LANGUAGE C PARALLEL SAFE;
CREATE FUNCTION dptrain.sgd_combine(float8[], float8[])
RETURNS float8[] AS 'MODULE_PATHNAME', 'dptrain_sgd_combine' LANGUAGE C PARALLEL SAFE;
CREATE FUNCTION dptrain.sgd_final(float8[])
RETURNS float8[] AS 'MODULE_PATHNAME', 'dptrain_sgd_final' LANGUAGE C PARALLEL SAFE;

CREATE AGGREGATE dptrain.sgd_epoch(x float8[], y float8, init float8[]) (
    SFUNC = dptrain.sgd_transition, STYPE = float8[],
    FINALFUNC = dptrain.sgd_final, FINALFUNC_MODIFY = READ_WRITE,
    COMBINEFUNC = dptrain.sgd_combine, PARALLEL = SAFE);
CREATE AGGREGATE dptrain.sgd_epoch(x float8[], y boolean, init float8[]) (
    SFUNC = dptrain.sgd_transition, STYPE = float8[],
    FINALFUNC = dptrain.sgd_final, FINALFUNC_MODIFY = READ_WRITE,
    COMBINEFUNC = dptrain.sgd_combine, PARALLEL = SAFE);
CREATE AGGREGATE dptrain.sgd_epoch(x real[], y float8, init float8[]) (
    SFUNC = dptrain.sgd_transition, STYPE = float8[],
    FINALFUNC = dptrain.sgd_final, FINALFUNC_MODIFY = READ_WRITE,
    COMBINEFUNC = dptrain.sgd_combine, PARALLEL = SAFE);
CREATE AGGREGATE dptrain.sgd_epoch(x real[], y boolean, init float8[]) (
    SFUNC = dptrain.sgd_transition, STYPE = float8[],
    FINALFUNC = dptrain.sgd_final, FINALFUNC_MODIFY = READ_WRITE,
    COMBINEFUNC = dptrain.sgd_combine, PARALLEL = SAFE);

COMMENT ON AGGREGATE dptrain.sgd_epoch(float8[], float8, float8[]) IS
'internal: one noiseless SGD epoch over the rows in scan order (the state of dptrain.sgd_state); a pass of dp_train';
COMMENT ON AGGREGATE dptrain.sgd_epoch(float8[], boolean, float8[]) IS
'internal: one noiseless SGD epoch over the rows in scan order (the state of dptrain.sgd_state); a pass of dp_train';
COMMENT ON AGGREGATE dptrain.sgd_epoch(real[], float8, float8[]) IS
'internal: one noiseless SGD epoch over the rows in scan order (the state of dptrain.sgd_state); a pass of dp_train';
COMMENT ON AGGREGATE dptrain.sgd_epoch(real[], boolean, float8[]) IS
'internal: one noiseless SGD epoch over the rows in scan order (the state of dptrain.sgd_state); a pass of dp_train';
-- Open to PUBLIC, the aggregate and its support functions (these refuse to
-- run outside an aggregate and validate every state they are given): the
-- epochs pushed down to a Citus table's shards run with the reader's rights,
-- never the extension owner's (src/pg/training_run.h, pass_role), and Citus
-- checks EXECUTE on all of them for that role on the workers. A noiseless
-- epoch over rows a role may select itself tells it nothing new.

-- Help for \dx+ dptrain: the COMMENTs of this file's objects not commented above
-- (test/regress/sql/comments.sql lists every member without one).
COMMENT ON FUNCTION dptrain.sgd_transition(float8[], float8[], float8, float8[]) IS
'internal: transition function of the epoch aggregate dptrain.sgd_epoch';
COMMENT ON FUNCTION dptrain.sgd_transition(float8[], float8[], boolean, float8[]) IS
'internal: transition function of the epoch aggregate dptrain.sgd_epoch';
COMMENT ON FUNCTION dptrain.sgd_transition(float8[], real[], float8, float8[]) IS
'internal: transition function of the epoch aggregate dptrain.sgd_epoch';
COMMENT ON FUNCTION dptrain.sgd_transition(float8[], real[], boolean, float8[]) IS
'internal: transition function of the epoch aggregate dptrain.sgd_epoch';
COMMENT ON FUNCTION dptrain.sgd_combine(float8[], float8[]) IS
'internal: combine function of dptrain.sgd_epoch (count-weighted model averaging)';
COMMENT ON FUNCTION dptrain.sgd_final(float8[]) IS
'internal: final function of dptrain.sgd_epoch and dptrain.sgd_sampled_epoch';
