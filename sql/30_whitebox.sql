-- White-box private SGD (SCS13, BST14; docs/whitebox.md). Their noise is
-- added at the end of every mini-batch inside the epoch aggregate (the state
-- carries the noise scale and the run's secret key), so SCS13 runs its
-- permutation epochs through dptrain.sgd_epoch unchanged. BST14 needs freshly
-- sampled batches instead of a permutation (algorithms.md trap T9):
--
--   SELECT dptrain.sgd_sampled_epoch(d.x, d.y, s.batch, $1)
--   FROM dptrain.sample_batches($1, n) s
--   CROSS JOIN LATERAL (SELECT t.x, t.y FROM <prepared table> t WHERE t.i = s.row OFFSET 0) d;
--
-- sample_batches draws ceil(n/b) batches of b distinct row numbers from the
-- key in the state; the LATERAL subquery (OFFSET 0 keeps it from being
-- flattened) forces a nested loop driven by the batches, so the aggregate
-- sees them in order, and its transition function checks that it does.
-- The sampled aggregate has no combine function and is not parallel safe:
-- a BST14 epoch is one sequential run.
CREATE FUNCTION dptrain.sample_batches(state float8[], rows int8)
RETURNS TABLE (batch int8, "row" int8)
AS 'MODULE_PATHNAME', 'dptrain_sample_batches' LANGUAGE C VOLATILE ROWS 100000;

CREATE FUNCTION dptrain.sgd_sampled_transition(state float8[], x float8[], y float8, batch int8, init float8[])
RETURNS float8[] AS 'MODULE_PATHNAME', 'dptrain_sgd_sampled_transition' LANGUAGE C;
CREATE AGGREGATE dptrain.sgd_sampled_epoch(x float8[], y float8, batch int8, init float8[]) (
    SFUNC = dptrain.sgd_sampled_transition, STYPE = float8[],
    FINALFUNC = dptrain.sgd_final, FINALFUNC_MODIFY = READ_WRITE);

CREATE FUNCTION dptrain.training_index(shuffled text)
RETURNS void AS 'MODULE_PATHNAME', 'dptrain_training_index' LANGUAGE C STRICT VOLATILE;

REVOKE EXECUTE ON FUNCTION
    dptrain.sample_batches(float8[], int8),
    dptrain.sgd_sampled_transition(float8[], float8[], float8, int8, float8[]),
    dptrain.sgd_sampled_epoch(float8[], float8, int8, float8[]),
    dptrain.training_index(text)
FROM PUBLIC;

-- By hand (and in tests): turn an epoch state into a white-box one.
--   SELECT dptrain.sgd_state_with_noise(dptrain.sgd_state(3, 10), 'gaussian', 4.0);
-- noise: 'none' | 'gaussian' (scale = sigma) | 'l2_laplace' (scale =
-- sensitivity / epsilon), on the gradient SUM of every batch; sampled = the
-- state takes sampled batches (dptrain.sgd_sampled_epoch). The key comes
-- from the OS CSPRNG, or from seed (reproducible, not private).
CREATE FUNCTION dptrain.sgd_state_with_noise(
    state float8[], noise text, scale float8, sampled boolean DEFAULT false, seed bigint DEFAULT NULL)
RETURNS float8[] AS 'MODULE_PATHNAME', 'dptrain_sgd_state_with_noise' LANGUAGE C VOLATILE PARALLEL SAFE;
