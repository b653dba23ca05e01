-- Sparse feature rows (docs/sparse.md): the type dptrain.sparsevec, its
-- casts from and to float8[], and the overloads that let a training run
-- read a sparsevec feature column. A prepared copy of a sparse table keeps
-- x as dptrain.sparsevec, so the passes' SQL (src/core/engine/pass.cpp)
-- resolves to the sparse overloads below without knowing it.
--
-- Text form: {index:value,...}/dimension, 1-based strictly increasing
-- indices (as LIBSVM files and pgvector), e.g. '{1:0.5,7:0.25}/8315'.
CREATE TYPE dptrain.sparsevec;
CREATE FUNCTION dptrain.sparsevec_in(cstring, oid, int4) RETURNS dptrain.sparsevec
AS 'MODULE_PATHNAME', 'dptrain_sparsevec_in' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dptrain.sparsevec_out(dptrain.sparsevec) RETURNS cstring
AS 'MODULE_PATHNAME', 'dptrain_sparsevec_out' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dptrain.sparsevec_recv(internal, oid, int4) RETURNS dptrain.sparsevec
AS 'MODULE_PATHNAME', 'dptrain_sparsevec_recv' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dptrain.sparsevec_send(dptrain.sparsevec) RETURNS bytea
AS 'MODULE_PATHNAME', 'dptrain_sparsevec_send' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE TYPE dptrain.sparsevec (
    INPUT = dptrain.sparsevec_in, OUTPUT = dptrain.sparsevec_out,
    RECEIVE = dptrain.sparsevec_recv, SEND = dptrain.sparsevec_send,
    INTERNALLENGTH = VARIABLE, ALIGNMENT = double, STORAGE = extended);
COMMENT ON TYPE dptrain.sparsevec IS
'a sparse feature row: {index:value,...}/dimension with 1-based increasing indices, finite values';

-- The BEFORE INSERT row trigger of a sparse training copy of a run without
-- read access: one OID per row, out of line or not (src/pg/copy_row_oids.h).
CREATE FUNCTION dptrain.one_oid_per_row() RETURNS trigger
AS 'MODULE_PATHNAME', 'dptrain_one_oid_per_row' LANGUAGE C;
COMMENT ON FUNCTION dptrain.one_oid_per_row() IS
'internal: the BEFORE INSERT row trigger of a sparse training copy made for a role without read access (one OID per row, whatever its size)';

-- Casts (run once per row, no SQL: no SET clause; security_search_path lists them).
CREATE FUNCTION dptrain.sparsevec_to_float8(dptrain.sparsevec) RETURNS float8[]
AS 'MODULE_PATHNAME', 'dptrain_sparsevec_to_float8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dptrain.float8_to_sparsevec(float8[]) RETURNS dptrain.sparsevec
AS 'MODULE_PATHNAME', 'dptrain_float8_to_sparsevec' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
-- Implicit: a sparse row goes wherever a float8[] row does (dp_predict,
-- dp_predict_proba, array functions), densified; functions with a sparse
-- overload (the training aggregates) take it as it is.
CREATE CAST (dptrain.sparsevec AS float8[]) WITH FUNCTION dptrain.sparsevec_to_float8(dptrain.sparsevec) AS IMPLICIT;
CREATE CAST (float8[] AS dptrain.sparsevec) WITH FUNCTION dptrain.float8_to_sparsevec(float8[]);
COMMENT ON FUNCTION dptrain.sparsevec_to_float8(dptrain.sparsevec) IS
'the dense row of a sparse vector (the cast sparsevec -> float8[])';
COMMENT ON FUNCTION dptrain.float8_to_sparsevec(float8[]) IS
'the sparse form of a dense row: its non-zero values (the cast float8[] -> sparsevec)';

CREATE FUNCTION dptrain.sparsevec_dims(dptrain.sparsevec) RETURNS int4
AS 'MODULE_PATHNAME', 'dptrain_sparsevec_dims' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp;
CREATE FUNCTION dptrain.sparsevec_nnz(dptrain.sparsevec) RETURNS int4
AS 'MODULE_PATHNAME', 'dptrain_sparsevec_nnz' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp;
CREATE FUNCTION dptrain.sparsevec_norm(dptrain.sparsevec) RETURNS float8
AS 'MODULE_PATHNAME', 'dptrain_sparsevec_norm' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION dptrain.sparsevec_dims(dptrain.sparsevec) IS 'the dimension d of a sparse vector';
COMMENT ON FUNCTION dptrain.sparsevec_nnz(dptrain.sparsevec) IS 'the number of stored (non-zero) entries of a sparse vector';
COMMENT ON FUNCTION dptrain.sparsevec_norm(dptrain.sparsevec) IS 'the L2 norm of a sparse vector';

-- The training copy's per-row functions on sparse rows (sql/20_training.sql
-- has the float8[] ones; the same rules: open to PUBLIC, read nothing, no SQL).
CREATE FUNCTION dptrain.usable_row(x dptrain.sparsevec, y float8, dim int) RETURNS boolean
AS 'MODULE_PATHNAME', 'dptrain_sparse_usable_row' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dptrain.usable_row(dptrain.sparsevec, float8, int) IS
'internal: whether a training run takes a sparse row as it is (the right dimension, a finite norm)';
CREATE FUNCTION dptrain.intercept_row(x dptrain.sparsevec, bound float8, b float8) RETURNS dptrain.sparsevec
AS 'MODULE_PATHNAME', 'dptrain_sparse_intercept_row' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dptrain.intercept_row(dptrain.sparsevec, float8, float8) IS
'internal: a sparse training row with an intercept: x clipped to norm bound, then the constant b appended';

-- The epoch aggregate on sparse rows (sql/10_sgd_epoch.sql; the same state).
CREATE FUNCTION dptrain.sgd_transition(state float8[], x dptrain.sparsevec, y float8, init float8[])
RETURNS float8[] AS 'MODULE_PATHNAME', 'dptrain_sgd_sparse_transition' LANGUAGE C PARALLEL SAFE;
CREATE FUNCTION dptrain.sgd_transition(state float8[], x dptrain.sparsevec, y boolean, init float8[])
RETURNS float8[] AS 'MODULE_PATHNAME', 'dptrain_sgd_sparse_transition' LANGUAGE C PARALLEL SAFE;
CREATE AGGREGATE dptrain.sgd_epoch(x dptrain.sparsevec, y float8, init float8[]) (
    SFUNC = dptrain.sgd_transition, STYPE = float8[],
    FINALFUNC = dptrain.sgd_final, FINALFUNC_MODIFY = READ_WRITE,
    COMBINEFUNC = dptrain.sgd_combine, PARALLEL = SAFE);
CREATE AGGREGATE dptrain.sgd_epoch(x dptrain.sparsevec, y boolean, init float8[]) (
    SFUNC = dptrain.sgd_transition, STYPE = float8[],
    FINALFUNC = dptrain.sgd_final, FINALFUNC_MODIFY = READ_WRITE,
    COMBINEFUNC = dptrain.sgd_combine, PARALLEL = SAFE);
-- Open to PUBLIC like its dense forms (sql/10_sgd_epoch.sql; docs/governance.md, "Code the
-- planner runs"): they were left revoked when the pass aggregates were opened, and the CLI's
-- controller mode on a sparse table failed mid-run with a bare "permission denied for
-- aggregate sgd_epoch" (it checks EXECUTE on the dense form).

-- Scoring sparse rows: dp_predict and dp_predict_proba take a sparse row
-- through the implicit cast to float8[] above (overloads of their own
-- would make dp_predict(m, '{0.5, 0.5}') ambiguous); the evaluation
-- aggregate reads sparse rows itself (the Evaluate pass of a sparse
-- prepared table; dp_evaluate casts its feature column to float8[]).
CREATE FUNCTION dptrain.evaluate_transition(float8[], dptrain.sparsevec, int, float8[])
RETURNS float8[] AS 'MODULE_PATHNAME', 'dptrain_evaluate_sparse_transition' LANGUAGE C PARALLEL SAFE;
CREATE AGGREGATE dptrain.evaluate_agg(x dptrain.sparsevec, label_index int, model float8[]) (
    SFUNC = dptrain.evaluate_transition, STYPE = float8[],
    COMBINEFUNC = dptrain.evaluate_combine, PARALLEL = SAFE);
COMMENT ON AGGREGATE dptrain.evaluate_agg(dptrain.sparsevec, int, float8[]) IS
'internal: the evaluation totals of a packed model over labelled sparse rows';

-- Help for \dx+ dptrain: the COMMENTs of this file's objects not commented above
-- (test/regress/sql/comments.sql lists every member without one).
COMMENT ON FUNCTION dptrain.sparsevec_in(cstring, oid, int) IS
'internal: input function of type dptrain.sparsevec';
COMMENT ON FUNCTION dptrain.sparsevec_out(dptrain.sparsevec) IS
'internal: output function of type dptrain.sparsevec';
COMMENT ON FUNCTION dptrain.sparsevec_recv(internal, oid, int) IS
'internal: binary input function of type dptrain.sparsevec';
COMMENT ON FUNCTION dptrain.sparsevec_send(dptrain.sparsevec) IS
'internal: binary output function of type dptrain.sparsevec';
COMMENT ON CAST (dptrain.sparsevec AS float8[]) IS
'a sparse row as a dense float8[] (implicit: dp_predict and dp_predict_proba take sparse rows)';
COMMENT ON CAST (float8[] AS dptrain.sparsevec) IS
'a dense float8[] as a sparse row (explicit)';
COMMENT ON FUNCTION dptrain.sgd_transition(float8[], dptrain.sparsevec, float8, float8[]) IS
'internal: transition function of the epoch aggregate dptrain.sgd_epoch on sparse rows';
COMMENT ON FUNCTION dptrain.sgd_transition(float8[], dptrain.sparsevec, boolean, float8[]) IS
'internal: transition function of the epoch aggregate dptrain.sgd_epoch on sparse rows';
COMMENT ON AGGREGATE dptrain.sgd_epoch(dptrain.sparsevec, float8, float8[]) IS
'internal: one noiseless SGD epoch over sparse rows in scan order (the state of dptrain.sgd_state); a pass of dp_train';
COMMENT ON AGGREGATE dptrain.sgd_epoch(dptrain.sparsevec, boolean, float8[]) IS
'internal: one noiseless SGD epoch over sparse rows in scan order (the state of dptrain.sgd_state); a pass of dp_train';
COMMENT ON FUNCTION dptrain.evaluate_transition(float8[], dptrain.sparsevec, int, float8[]) IS
'internal: transition function of dptrain.evaluate_agg on sparse rows';
