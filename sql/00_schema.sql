-- dptrain: the extension's own schema holds everything internal (aggregates,
-- state functions, catalog tables). The user-facing training API (dp_train,
-- dp_predict, dp_evaluate, ...) lives in the schema chosen at
-- CREATE EXTENSION time (@extschema@, usually public).
CREATE SCHEMA dptrain;
COMMENT ON SCHEMA dptrain IS 'dptrain internals: epoch aggregates, models, privacy accounting';
GRANT USAGE ON SCHEMA dptrain TO PUBLIC;

-- Released models. Only noisy (released) models are ever stored here; the
-- noiseless intermediate models never leave the training call.
CREATE TABLE dptrain.models (
    id          bigserial PRIMARY KEY,
    -- A name is unique per creator and cannot look like an id (dp_predict('7')
    -- means model 7, never a model named '7').
    name        text CHECK (name OPERATOR(pg_catalog.!~) '^\s*[-+]?[0-9]+\s*$'
                            AND name OPERATOR(pg_catalog.<>) ''),
    algorithm   text NOT NULL,
    loss        text NOT NULL,
    epsilon     float8,                -- NULL: not private (algorithm none)
    delta       float8,
    source      text NOT NULL,         -- table trained on (as it was named then)
    classes     text[] NOT NULL,       -- binary: {negative, positive}
    weights     float8[] NOT NULL,     -- d (binary) or K x d (one-vs-all)
    seeded      boolean NOT NULL,      -- noise from a test seed: NOT private
    details     jsonb NOT NULL,        -- every hyperparameter, n, d, privacy plan, timings
    created_at  timestamptz NOT NULL DEFAULT now(),
    created_by  name NOT NULL DEFAULT current_user,
    UNIQUE (created_by, name)
);
COMMENT ON TABLE dptrain.models IS 'models released by dp_train / dptrain train, with their privacy guarantee';
-- Models are user data: pg_dump keeps them.
SELECT pg_catalog.pg_extension_config_dump('dptrain.models', '');
SELECT pg_catalog.pg_extension_config_dump('dptrain.models_id_seq', '');
GRANT SELECT ON dptrain.models TO PUBLIC;

-- Help for \dx+ dptrain: the COMMENTs of this file's objects not commented above
-- (test/regress/sql/comments.sql lists every member without one).
COMMENT ON SEQUENCE dptrain.models_id_seq IS
'ids of dptrain.models (a charged run reserves its model''s id before training)';
