-- The DP-SGD family's pass (docs/dpsgd.md §8): many Poisson lots per query.
--
--   SELECT dptrain.dpsgd_lots((r).x, (r).y, (r).lot, $1)
--   FROM (SELECT dptrain.lot_rows($1, '<prepared table>'::regclass, n) AS r) s;
--
-- lot_rows draws lots current .. last of the lot state $1 from the run's
-- secret key (Binomial(n, q) lot sizes, uniform subsets of the row numbers
-- 1..n; never TABLESAMPLE, never slices) and streams their rows, lot after
-- lot, fetched by tuple id, then one marker row (last lot, NULL, NULL); the
-- aggregate clips every per-example gradient, adds the lot's Gaussian noise
-- from the key's stream of that lot (also to empty lots), divides by q n and
-- steps the optimizer. The state carries the secret key: it never leaves the
-- run, and none of these functions is executable by PUBLIC.
CREATE TYPE dptrain.lot_row AS (lot int8, x float8[], y float8);
CREATE FUNCTION dptrain.lot_rows(state float8[], prepared regclass, rows int8)
RETURNS SETOF dptrain.lot_row
AS 'MODULE_PATHNAME', 'dptrain_lot_rows' LANGUAGE C VOLATILE ROWS 100000
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION dptrain.lot_rows(float8[], regclass, int8) IS
'internal (DP-SGD pass): the rows of the Poisson lots of a lot state, drawn from its secret key, then a marker row';

CREATE FUNCTION dptrain.dpsgd_lots_transition(state float8[], x float8[], y float8, lot int8, init float8[])
RETURNS float8[] AS 'MODULE_PATHNAME', 'dptrain_dpsgd_lots_transition' LANGUAGE C;
CREATE FUNCTION dptrain.dpsgd_lots_final(state float8[])
RETURNS float8[] AS 'MODULE_PATHNAME', 'dptrain_dpsgd_lots_final' LANGUAGE C;
CREATE AGGREGATE dptrain.dpsgd_lots(x float8[], y float8, lot int8, init float8[]) (
    SFUNC = dptrain.dpsgd_lots_transition, STYPE = float8[],
    FINALFUNC = dptrain.dpsgd_lots_final, FINALFUNC_MODIFY = READ_WRITE);
COMMENT ON AGGREGATE dptrain.dpsgd_lots(float8[], float8, int8, float8[]) IS
'internal (DP-SGD pass): per-example clipping, Gaussian noise on every lot sum, the optimizer step';

-- One whole pass (what dp_train runs for the DP-SGD family): the same lots as
-- lot_rows into dpsgd_lots, rows applied in the same order, with the same
-- result; each chunk of the pass's rows (chunk_rows of them, 0 = as many as
-- fit in max(4 MB, work_mem)) is read in physical order (src/pg/lots_pass.cpp).
CREATE FUNCTION dptrain.lots_pass(state float8[], prepared regclass, rows int8, chunk_rows int4 DEFAULT 0)
RETURNS float8[]
AS 'MODULE_PATHNAME', 'dptrain_lots_pass' LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION dptrain.lots_pass(float8[], regclass, int8, int4) IS
'internal (DP-SGD pass): the Poisson lots of a lot state over a prepared table, drawn from its secret key; returns the final state';

REVOKE EXECUTE ON FUNCTION
    dptrain.lots_pass(float8[], regclass, int8, int4),
    dptrain.lot_rows(float8[], regclass, int8),
    dptrain.dpsgd_lots_transition(float8[], float8[], float8, int8, float8[]),
    dptrain.dpsgd_lots_final(float8[]),
    dptrain.dpsgd_lots(float8[], float8, int8, float8[])
FROM PUBLIC;

-- Help for \dx+ dptrain: the COMMENTs of this file's objects not commented above
-- (test/regress/sql/comments.sql lists every member without one).
COMMENT ON TYPE dptrain.lot_row IS
'internal: a row of dptrain.lot_rows (lot, features, label)';
COMMENT ON FUNCTION dptrain.dpsgd_lots_transition(float8[], float8[], float8, int8, float8[]) IS
'internal: transition function of dptrain.dpsgd_lots';
COMMENT ON FUNCTION dptrain.dpsgd_lots_final(float8[]) IS
'internal: final function of dptrain.dpsgd_lots';
