-- Private hyperparameter tuning: Bolt-on Algorithm 3 (held-out tuning of
-- Chaudhuri, Monteleoni & Sarwate 2011); docs/tuning.md. The table is split at
-- random into l + 1 disjoint parts, candidate i of the grid trains privately
-- on part i (sensitivity for the part's size), and the exponential mechanism
-- picks one released candidate by its misclassifications on the last part.
-- Total privacy: (epsilon, delta), the budget of ONE training run (parallel
-- composition over the disjoint parts).

-- What dp_tune returns: the chosen model (stored in dptrain.models like a
-- dp_train model) and the chosen hyperparameters.
CREATE TYPE dptrain.tuned_model AS (
    model_id    bigint,
    name        text,
    algorithm   text,
    epsilon     float8,    -- total privacy of the tuning run (= the model's)
    delta       float8,
    lambda      float8,    -- the chosen candidate
    epochs      int,
    batch_size  int,
    candidates  int,       -- l, the size of the grid
    weights     float8[],
    classes     text[],
    details     jsonb      -- the model's metadata: grid, parts, chosen candidate, accounting
);

-- Internal step of `dptrain tune` (which drives the candidates' epochs over
-- libpq): deal a prepared table out into `parts` prepared tables by position.
CREATE FUNCTION dptrain.training_split(shuffled text, parts int,
    OUT part int, OUT part_table text, OUT rows bigint)
RETURNS SETOF record AS 'MODULE_PATHNAME', 'dptrain_training_split' LANGUAGE C STRICT VOLATILE
SET search_path = pg_catalog, pg_temp;
REVOKE EXECUTE ON FUNCTION dptrain.training_split(text, int) FROM PUBLIC;

CREATE FUNCTION @extschema@.dp_tune(
    source        regclass,
    label         text,
    features      text,
    algorithm     text     DEFAULT 'bolton',
    loss          text     DEFAULT 'logistic',
    epsilon       float8   DEFAULT NULL,
    delta         float8   DEFAULT NULL,
    lambdas       float8[] DEFAULT '{0.0001,0.001,0.01}',
    epochs        int[]    DEFAULT '{1,5,10}',
    batch_sizes   int[]    DEFAULT '{50}',
    learning_rate float8   DEFAULT NULL,
    name          text     DEFAULT NULL,
    seed          bigint   DEFAULT NULL,
    classes       text[]   DEFAULT NULL,
    schedule      text     DEFAULT NULL,
    huber_h       float8   DEFAULT 0.1,
    averaging     boolean  DEFAULT false,
    reshuffle     boolean  DEFAULT false,
    radius        float8   DEFAULT NULL,
    options       jsonb    DEFAULT '{}',
    intercept     boolean  DEFAULT NULL)
RETURNS dptrain.tuned_model
AS 'MODULE_PATHNAME', 'dptrain_dp_tune' LANGUAGE C VOLATILE
-- As dp_train: SECURITY INVOKER, identities switched step by step in C
-- (src/pg/access.h, docs/governance.md), the caller's budget checked before
-- and charged with the total (epsilon, delta) in the transaction that stores
-- the chosen model; names resolved in pg_catalog only; no JIT.
SET search_path = pg_catalog, pg_temp
SET jit = off;
COMMENT ON FUNCTION @extschema@.dp_tune IS
'privately tune (lambda, epochs, batch size) over a grid and store the chosen model (Bolt-on Algorithm 3); see docs/tuning.md';
