-- Private hyperparameter tuning (docs/tuning.md), two methods:
-- 'holdout': Bolt-on Algorithm 3 (held-out tuning of Chaudhuri, Monteleoni &
-- Sarwate 2011). The table is split at random into l + 1 disjoint parts,
-- candidate i of the grid trains privately on part i (sensitivity for the
-- part's size), and the exponential mechanism picks one released candidate by
-- its misclassifications on the last part. Total privacy: (epsilon, delta), the
-- budget of ONE training run (parallel composition over the disjoint parts).
-- 'liu_talwar': random stopping (Liu & Talwar 2019, Thm 3.4) over a grid of any
-- parameters of any private algorithm (the default for the DP-SGD family and DP-AGD):
-- random grid points trained on the whole table, each scored with noise, until
-- a gamma-coin stops the search; (epsilon, delta) is the total of the search.

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
    candidates  int,       -- the number of grid points (liu_talwar: not how many ran)
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
    lambdas       float8[] DEFAULT NULL,   -- NULL: {0.0001,0.001,0.01}
    epochs        int[]    DEFAULT NULL,   -- NULL: {1,5,10}
    batch_sizes   int[]    DEFAULT NULL,   -- NULL: {50}, capped at a part's floor(n / parts) rows
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
    grid          jsonb    DEFAULT NULL,   -- {"parameter": [values], ...}; NULL: lambdas x epochs x batch_sizes
    method        text     DEFAULT NULL,   -- 'holdout' | 'liu_talwar'; NULL: holdout, liu_talwar for DP-SGD and DP-AGD
    gamma         float8   DEFAULT NULL,   -- liu_talwar: stopping probability; NULL: 1 / grid points
    intercept     boolean  DEFAULT NULL)
RETURNS dptrain.tuned_model
AS 'MODULE_PATHNAME', 'dptrain_dp_tune' LANGUAGE C VOLATILE
SUPPORT dptrain.copied_call_support
-- As dp_train: SECURITY INVOKER, identities switched step by step in C
-- (src/pg/access.h, docs/governance.md), the caller's budget checked before
-- and charged with the total (epsilon, delta) in the transaction that stores
-- the chosen model; names resolved in pg_catalog only; no JIT.
SET search_path = pg_catalog, pg_temp
SET jit = off;
COMMENT ON FUNCTION @extschema@.dp_tune IS
'privately tune an algorithm over a grid of its parameters and store the chosen model (method holdout: Bolt-on Algorithm 3; liu_talwar: Liu-Talwar random stopping); see docs/tuning.md';

-- dp_tune on ordinary columns: the same C function, with the encoding's
-- declarations last, as dp_train(regclass, text, text[], ...) (docs/encoding.md).
CREATE FUNCTION @extschema@.dp_tune(
    source        regclass,
    label         text,
    features      text[],
    algorithm     text     DEFAULT 'bolton',
    loss          text     DEFAULT 'logistic',
    epsilon       float8   DEFAULT NULL,
    delta         float8   DEFAULT NULL,
    lambdas       float8[] DEFAULT NULL,
    epochs        int[]    DEFAULT NULL,
    batch_sizes   int[]    DEFAULT NULL,
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
    grid          jsonb    DEFAULT NULL,
    method        text     DEFAULT NULL,
    gamma         float8   DEFAULT NULL,
    intercept     boolean  DEFAULT NULL,
    bounds        jsonb    DEFAULT '{}',
    categories    jsonb    DEFAULT '{}',
    normalization text     DEFAULT 'l2')
RETURNS dptrain.tuned_model
AS 'MODULE_PATHNAME', 'dptrain_dp_tune' LANGUAGE C VOLATILE
SUPPORT dptrain.copied_call_support
SET search_path = pg_catalog, pg_temp
SET jit = off;
COMMENT ON FUNCTION @extschema@.dp_tune(regclass, text, text[], text, text, float8, float8, float8[], int[], int[],
                                        float8, text, bigint, text[], text, float8, boolean, boolean, float8, jsonb,
                                        jsonb, text, float8, boolean, jsonb, jsonb, text) IS
'privately tune an algorithm on ordinary columns of a table (features => ARRAY[column, ...] with public bounds and declared categories, encoded as dp_encoding does); the chosen model stores the encoding (docs/encoding.md, docs/tuning.md)';

-- Help for \dx+ dptrain: the COMMENTs of this file's objects not commented above
-- (test/regress/sql/comments.sql lists every member without one).
COMMENT ON TYPE dptrain.tuned_model IS
'what dp_tune returns: the chosen model (stored like a dp_train model) and the chosen hyperparameters';
COMMENT ON FUNCTION dptrain.training_split(text, int) IS
'internal (dptrain tune): deals a prepared table out into parts prepared tables by position';
