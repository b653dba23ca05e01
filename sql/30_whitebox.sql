-- White-box private SGD (SCS13, BST14; docs/whitebox.md). Their noise is
-- added at the end of every mini-batch inside the epoch aggregate (the state
-- carries the noise scale and the run's secret key), so SCS13 runs its
-- permutation epochs through dptrain.sgd_epoch unchanged. BST14 needs freshly
-- sampled batches instead of a permutation (Abadi et al. 2016, Section 3.1: not Poisson lots):
--
--   SELECT dptrain.sgd_sampled_epoch((r).x, (r).y, (r).batch, $1)
--   FROM (SELECT dptrain.sampled_rows($1, '<prepared table>'::regclass, n) AS r) s;
--
-- sampled_rows draws ceil(n/b) batches of b distinct row numbers from the
-- key in the state (dptrain.sample_batches lists the same batches) and
-- streams those rows, batch after batch, fetched by tuple id; the
-- aggregate's transition function checks that every batch arrives whole and
-- in order. The sampled aggregate has no combine function and is not
-- parallel safe: a BST14 epoch is one sequential run.
CREATE FUNCTION dptrain.sample_batches(state float8[], rows int8)
RETURNS TABLE (batch int8, "row" int8)
AS 'MODULE_PATHNAME', 'dptrain_sample_batches' LANGUAGE C VOLATILE ROWS 100000
SET search_path = pg_catalog, pg_temp;

CREATE FUNCTION dptrain.sgd_sampled_transition(state float8[], x float8[], y float8, batch int8, init float8[])
RETURNS float8[] AS 'MODULE_PATHNAME', 'dptrain_sgd_sampled_transition' LANGUAGE C;
CREATE AGGREGATE dptrain.sgd_sampled_epoch(x float8[], y float8, batch int8, init float8[]) (
    SFUNC = dptrain.sgd_sampled_transition, STYPE = float8[],
    FINALFUNC = dptrain.sgd_final, FINALFUNC_MODIFY = READ_WRITE);

REVOKE EXECUTE ON FUNCTION
    dptrain.sample_batches(float8[], int8),
    dptrain.sgd_sampled_transition(float8[], float8[], float8, int8, float8[]),
    dptrain.sgd_sampled_epoch(float8[], float8, int8, float8[])
FROM PUBLIC;

-- By hand (and in tests): turn an epoch state into a white-box one.
--   SELECT dptrain.sgd_state_with_noise(dptrain.sgd_state(3, 10), 'gaussian', 4.0);
-- noise: 'none' | 'gaussian' (scale = sigma) | 'l2_laplace' (scale =
-- sensitivity / epsilon), on the gradient SUM of every batch; sampled = the
-- state takes sampled batches (dptrain.sgd_sampled_epoch). The key comes
-- from the OS CSPRNG, or from seed (reproducible, not private).
CREATE FUNCTION dptrain.sgd_state_with_noise(
    state float8[], noise text, scale float8, sampled boolean DEFAULT false, seed bigint DEFAULT NULL)
RETURNS float8[] AS 'MODULE_PATHNAME', 'dptrain_sgd_state_with_noise' LANGUAGE C VOLATILE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION dptrain.sgd_state_with_noise IS
'an SGD epoch state that adds Gaussian or Laplace noise to every batch gradient sum (white-box private SGD by hand; the key comes from the OS CSPRNG, or from seed: then not private)';

-- The rows of one sampled epoch, fetched by tuple id (what the epoch query
-- of BST14 streams into dptrain.sgd_sampled_epoch; see src/pg/sampled_rows.cpp).
CREATE TYPE dptrain.sampled_row AS (batch int8, x float8[], y float8);
CREATE FUNCTION dptrain.sampled_rows(state float8[], prepared regclass, rows int8)
RETURNS SETOF dptrain.sampled_row
AS 'MODULE_PATHNAME', 'dptrain_sampled_rows' LANGUAGE C VOLATILE ROWS 100000
SET search_path = pg_catalog, pg_temp;
REVOKE EXECUTE ON FUNCTION dptrain.sampled_rows(float8[], regclass, int8) FROM PUBLIC;

-- One whole sampled epoch (what dp_train runs for BST14): the same batches
-- as sampled_rows into sgd_sampled_epoch, applied in the same order, with
-- the same result; each chunk of the epoch's rows (chunk_rows of them, 0 =
-- as many as fit in max(4 MB, work_mem)) is read in physical order
-- (src/pg/sampled_epoch.cpp).
CREATE FUNCTION dptrain.sampled_epoch(state float8[], prepared regclass, rows int8, chunk_rows int4 DEFAULT 0)
RETURNS float8[]
AS 'MODULE_PATHNAME', 'dptrain_sampled_epoch' LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;
REVOKE EXECUTE ON FUNCTION dptrain.sampled_epoch(float8[], regclass, int8, int4) FROM PUBLIC;
COMMENT ON FUNCTION dptrain.sampled_epoch(float8[], regclass, int8, int4) IS
'internal (BST14 pass): one epoch of sampled batches over a prepared table, from the secret key in the state; returns the final state';

-- Help for \dx+ dptrain: the COMMENTs of this file's objects not commented above
-- (test/regress/sql/comments.sql lists every member without one).
COMMENT ON FUNCTION dptrain.sample_batches(float8[], int8) IS
'internal (BST14): the batches of one sampled epoch, drawn from the secret key in the state, as (batch, row number)';
COMMENT ON FUNCTION dptrain.sgd_sampled_transition(float8[], float8[], float8, int8, float8[]) IS
'internal: transition function of dptrain.sgd_sampled_epoch (checks that every batch arrives whole and in order)';
COMMENT ON AGGREGATE dptrain.sgd_sampled_epoch(float8[], float8, int8, float8[]) IS
'internal (BST14): one white-box SGD epoch over the sampled batches that dptrain.sampled_rows streams';
COMMENT ON TYPE dptrain.sampled_row IS
'internal: a row of dptrain.sampled_rows (batch, features, label)';
COMMENT ON FUNCTION dptrain.sampled_rows(float8[], regclass, int8) IS
'internal (BST14): the rows of one sampled epoch, batch after batch, fetched from a prepared table by tuple id';
