-- Building and reading epoch states by hand, Bismarck style:
--   SELECT dptrain.sgd_state_weights(dptrain.sgd_epoch(x, y, dptrain.sgd_state(3))) FROM t;
CREATE FUNCTION dptrain.sgd_state(
    dim int, batch_size int DEFAULT 1, learning_rate float8 DEFAULT 0.1, lambda float8 DEFAULT 0,
    loss text DEFAULT 'logistic', models int DEFAULT 1, radius float8 DEFAULT 0, weights float8[] DEFAULT NULL)
RETURNS float8[] AS 'MODULE_PATHNAME', 'dptrain_sgd_state' LANGUAGE C IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp;
CREATE FUNCTION dptrain.sgd_state_weights(state float8[])
RETURNS float8[] AS 'MODULE_PATHNAME', 'dptrain_sgd_state_weights' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp;
CREATE FUNCTION dptrain.sgd_state_info(state float8[])
RETURNS jsonb AS 'MODULE_PATHNAME', 'dptrain_sgd_state_info' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION dptrain.sgd_state IS
'a fresh state for dptrain.sgd_epoch (Bismarck-style SGD by hand; no privacy): dimension, batch size, step, lambda, loss, models, radius, start weights';
COMMENT ON FUNCTION dptrain.sgd_state_weights IS
'the weights (K x d, row-major) of an SGD epoch state';
COMMENT ON FUNCTION dptrain.sgd_state_info IS
'the header of an SGD epoch state as JSON (rows, updates, step, loss, ...)';
