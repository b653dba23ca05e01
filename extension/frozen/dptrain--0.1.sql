-- dptrain 0.1 as released (frozen: the starting point of ALTER EXTENSION dptrain UPDATE; never edit)
\echo Use "CREATE EXTENSION dptrain VERSION '0.1'" to load this file. \quit

-- ---- sql/00_schema.sql
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
    name        text UNIQUE,
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
    created_by  name NOT NULL DEFAULT current_user
);
COMMENT ON TABLE dptrain.models IS 'models released by dp_train / dptrain train, with their privacy guarantee';
-- Models are user data: pg_dump keeps them.
SELECT pg_catalog.pg_extension_config_dump('dptrain.models', '');
SELECT pg_catalog.pg_extension_config_dump('dptrain.models_id_seq', '');
GRANT SELECT ON dptrain.models TO PUBLIC;

-- ---- sql/10_sgd_epoch.sql
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

REVOKE EXECUTE ON FUNCTION
    dptrain.sgd_transition(float8[], float8[], float8, float8[]),
    dptrain.sgd_transition(float8[], float8[], boolean, float8[]),
    dptrain.sgd_transition(float8[], real[], float8, float8[]),
    dptrain.sgd_transition(float8[], real[], boolean, float8[]),
    dptrain.sgd_combine(float8[], float8[]),
    dptrain.sgd_final(float8[]),
    dptrain.sgd_epoch(float8[], float8, float8[]),
    dptrain.sgd_epoch(float8[], boolean, float8[]),
    dptrain.sgd_epoch(real[], float8, float8[]),
    dptrain.sgd_epoch(real[], boolean, float8[])
FROM PUBLIC;

-- ---- sql/15_sgd_state.sql
-- Building and reading epoch states by hand, Bismarck style:
--   SELECT dptrain.sgd_state_weights(dptrain.sgd_epoch(x, y, dptrain.sgd_state(3))) FROM t;
CREATE FUNCTION dptrain.sgd_state(
    dim int, batch_size int DEFAULT 1, learning_rate float8 DEFAULT 0.1, lambda float8 DEFAULT 0,
    loss text DEFAULT 'logistic', models int DEFAULT 1, radius float8 DEFAULT 0, weights float8[] DEFAULT NULL)
RETURNS float8[] AS 'MODULE_PATHNAME', 'dptrain_sgd_state' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION dptrain.sgd_state_weights(state float8[])
RETURNS float8[] AS 'MODULE_PATHNAME', 'dptrain_sgd_state_weights' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dptrain.sgd_state_info(state float8[])
RETURNS jsonb AS 'MODULE_PATHNAME', 'dptrain_sgd_state_info' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- ---- sql/20_training.sql
-- Training, prediction and evaluation.

-- What dp_train returns.
CREATE TYPE dptrain.trained_model AS (
    model_id   bigint,
    name       text,
    algorithm  text,
    epsilon    float8,
    delta      float8,
    weights    float8[],   -- d (binary) or K x d (one-vs-all, row k = class k)
    classes    text[],
    details    jsonb
);

-- Internal steps of a training run, shared by dp_train and the CLI's
-- controller (`dptrain train` drives the epochs itself over libpq).
CREATE FUNCTION dptrain.training_prepare(
    source regclass, label text, features text,
    classes text[] DEFAULT NULL, seed bigint DEFAULT NULL,
    OUT shuffled text, OUT rows bigint, OUT dim int, OUT classes text[],
    OUT classes_from_data boolean, OUT source_name text)
RETURNS record AS 'MODULE_PATHNAME', 'dptrain_training_prepare' LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;
CREATE FUNCTION dptrain.training_reshuffle(shuffled text)
RETURNS void AS 'MODULE_PATHNAME', 'dptrain_training_reshuffle' LANGUAGE C STRICT VOLATILE
SET search_path = pg_catalog, pg_temp;
CREATE FUNCTION dptrain.training_drop(shuffled text)
RETURNS void AS 'MODULE_PATHNAME', 'dptrain_training_drop' LANGUAGE C STRICT VOLATILE
SET search_path = pg_catalog, pg_temp;
-- Stores a model and charges the caller's budget (sql/40_ledger.sql).
CREATE FUNCTION dptrain.store_model(model jsonb)
RETURNS bigint AS 'MODULE_PATHNAME', 'dptrain_store_model' LANGUAGE C STRICT VOLATILE
SET search_path = pg_catalog, pg_temp;
REVOKE EXECUTE ON FUNCTION
    dptrain.training_prepare(regclass, text, text, text[], bigint),
    dptrain.training_reshuffle(text),
    dptrain.training_drop(text),
    dptrain.store_model(jsonb)
FROM PUBLIC;

CREATE FUNCTION @extschema@.dp_train(
    source        regclass,
    label         text,
    features      text,
    algorithm     text     DEFAULT 'bolton',
    loss          text     DEFAULT 'logistic',
    epsilon       float8   DEFAULT NULL,
    delta         float8   DEFAULT NULL,
    epochs        int      DEFAULT 10,
    batch_size    int      DEFAULT 50,
    lambda        float8   DEFAULT 0,
    learning_rate float8   DEFAULT NULL,
    name          text     DEFAULT NULL,
    seed          bigint   DEFAULT NULL,
    classes       text[]   DEFAULT NULL,
    schedule      text     DEFAULT NULL,
    huber_h       float8   DEFAULT 0.1,
    averaging     boolean  DEFAULT false,
    reshuffle     boolean  DEFAULT false,
    radius        float8   DEFAULT NULL,
    options       jsonb    DEFAULT '{}')
RETURNS dptrain.trained_model
AS 'MODULE_PATHNAME', 'dptrain_dp_train' LANGUAGE C VOLATILE
-- SECURITY INVOKER on purpose: the C code knows the caller (GetUserId() on
-- entry) and switches to the table owner / extension owner step by step
-- (src/pg/access.h, docs/governance.md). Its SQL resolves names in
-- pg_catalog only.
-- The per-row work of an epoch is one C call: JIT-compiling the epoch query
-- costs tens of milliseconds per epoch and gains nothing.
SET search_path = pg_catalog, pg_temp
SET jit = off;
COMMENT ON FUNCTION @extschema@.dp_train IS
'train a (differentially private) linear model on a table; see README for the arguments';

CREATE FUNCTION @extschema@.dp_predict(model text, features float8[])
RETURNS text AS 'MODULE_PATHNAME', 'dptrain_dp_predict' LANGUAGE C STRICT STABLE;
COMMENT ON FUNCTION @extschema@.dp_predict IS 'label predicted by a stored model (by name or id)';

-- Evaluation aggregate: state {rows, correct, loss_sum}; combine = sum.
CREATE FUNCTION dptrain.evaluate_transition(float8[], float8[], int, float8[])
RETURNS float8[] AS 'MODULE_PATHNAME', 'dptrain_evaluate_transition' LANGUAGE C PARALLEL SAFE;
CREATE FUNCTION dptrain.evaluate_combine(float8[], float8[])
RETURNS float8[] AS 'MODULE_PATHNAME', 'dptrain_evaluate_combine' LANGUAGE C PARALLEL SAFE;
CREATE AGGREGATE dptrain.evaluate_agg(x float8[], label_index int, model float8[]) (
    SFUNC = dptrain.evaluate_transition, STYPE = float8[],
    COMBINEFUNC = dptrain.evaluate_combine, PARALLEL = SAFE);

CREATE FUNCTION @extschema@.dp_evaluate(model text, source regclass, label text, features text,
    OUT accuracy float8, OUT n bigint, OUT loss float8)
RETURNS record AS 'MODULE_PATHNAME', 'dptrain_dp_evaluate' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION @extschema@.dp_evaluate IS 'accuracy and mean loss of a stored model on a labelled table';

-- ---- sql/30_accounting.sql
-- Privacy accounting (src/core/privacy, docs/accounting.md): the same functions as
-- `dptrain privacy ...`. Pure arithmetic on public parameters, so IMMUTABLE,
-- PARALLEL SAFE and STRICT, and open to everyone. Each states its adjacency:
-- "any" = holds under whichever neighbouring relation the inputs refer to.

-- Gaussian mechanism (any adjacency: sensitivity is measured under the caller's relation).
CREATE FUNCTION dptrain.gaussian_sigma(epsilon float8, delta float8,
    sensitivity float8 DEFAULT 1, method text DEFAULT 'analytic')
RETURNS float8 AS 'MODULE_PATHNAME', 'dptrain_gaussian_sigma' LANGUAGE C IMMUTABLE PARALLEL SAFE STRICT;
COMMENT ON FUNCTION dptrain.gaussian_sigma IS
'noise std of the Gaussian mechanism for (epsilon, delta)-DP; method analytic (Balle-Wang 2018, default), classic (Dwork-Roth, epsilon < 1) or amp (Iyengar et al. 2019)';

CREATE FUNCTION dptrain.gaussian_delta(sigma float8, epsilon float8, sensitivity float8 DEFAULT 1)
RETURNS float8 AS 'MODULE_PATHNAME', 'dptrain_gaussian_delta' LANGUAGE C IMMUTABLE PARALLEL SAFE STRICT;
COMMENT ON FUNCTION dptrain.gaussian_delta IS
'exact delta of the Gaussian mechanism with noise std sigma at epsilon (Balle-Wang 2018, Theorem 8)';

-- Composition of (epsilon, delta)-DP (any adjacency).
CREATE FUNCTION dptrain.basic_composition(epsilon float8, delta float8, k bigint,
    OUT total_epsilon float8, OUT total_delta float8)
RETURNS record AS 'MODULE_PATHNAME', 'dptrain_basic_composition' LANGUAGE C IMMUTABLE PARALLEL SAFE STRICT;
COMMENT ON FUNCTION dptrain.basic_composition IS 'k-fold basic composition: (k epsilon, k delta)';

CREATE FUNCTION dptrain.advanced_composition(epsilon float8, delta float8, k bigint, delta_prime float8,
    OUT total_epsilon float8, OUT total_delta float8)
RETURNS record AS 'MODULE_PATHNAME', 'dptrain_advanced_composition' LANGUAGE C IMMUTABLE PARALLEL SAFE STRICT;
COMMENT ON FUNCTION dptrain.advanced_composition IS
'k-fold advanced composition (Dwork-Rothblum-Vadhan): (sqrt(2k ln(1/delta'')) epsilon + k epsilon (e^epsilon - 1), k delta + delta'')';

CREATE FUNCTION dptrain.advanced_composition_step_epsilon(total_epsilon float8, k bigint, delta_prime float8)
RETURNS float8 AS 'MODULE_PATHNAME', 'dptrain_advanced_composition_step_epsilon'
LANGUAGE C IMMUTABLE PARALLEL SAFE STRICT;
COMMENT ON FUNCTION dptrain.advanced_composition_step_epsilon IS
'largest per-step epsilon whose k-fold advanced composition is at most total_epsilon';

-- zCDP (any adjacency; DP-AGD uses add/remove-one).
CREATE FUNCTION dptrain.zcdp_gaussian_rho(sigma float8, sensitivity float8 DEFAULT 1)
RETURNS float8 AS 'MODULE_PATHNAME', 'dptrain_zcdp_gaussian_rho' LANGUAGE C IMMUTABLE PARALLEL SAFE STRICT;
COMMENT ON FUNCTION dptrain.zcdp_gaussian_rho IS 'zCDP cost of the Gaussian mechanism: sensitivity^2 / (2 sigma^2)';

CREATE FUNCTION dptrain.zcdp_gaussian_sigma(rho float8, sensitivity float8 DEFAULT 1)
RETURNS float8 AS 'MODULE_PATHNAME', 'dptrain_zcdp_gaussian_sigma' LANGUAGE C IMMUTABLE PARALLEL SAFE STRICT;
COMMENT ON FUNCTION dptrain.zcdp_gaussian_sigma IS 'noise std making the Gaussian mechanism rho-zCDP: sensitivity / sqrt(2 rho)';

CREATE FUNCTION dptrain.zcdp_from_pure_dp(epsilon float8)
RETURNS float8 AS 'MODULE_PATHNAME', 'dptrain_zcdp_from_pure_dp' LANGUAGE C IMMUTABLE PARALLEL SAFE STRICT;
COMMENT ON FUNCTION dptrain.zcdp_from_pure_dp IS 'epsilon-DP is epsilon^2/2-zCDP (Bun-Steinke 2016)';

CREATE FUNCTION dptrain.zcdp_to_dp(rho float8, delta float8, conversion text DEFAULT 'cks')
RETURNS float8 AS 'MODULE_PATHNAME', 'dptrain_zcdp_to_dp' LANGUAGE C IMMUTABLE PARALLEL SAFE STRICT;
COMMENT ON FUNCTION dptrain.zcdp_to_dp IS
'epsilon of rho-zCDP as (epsilon, delta)-DP; conversion cks (Canonne-Kamath-Steinke 2020, default) or bun-steinke';

CREATE FUNCTION dptrain.dp_to_zcdp(epsilon float8, delta float8)
RETURNS float8 AS 'MODULE_PATHNAME', 'dptrain_dp_to_zcdp' LANGUAGE C IMMUTABLE PARALLEL SAFE STRICT;
COMMENT ON FUNCTION dptrain.dp_to_zcdp IS
'zCDP budget rho = (sqrt(ln(1/delta) + epsilon) - sqrt(ln(1/delta)))^2 whose spending guarantees (epsilon, delta)-DP';

-- RDP of the Poisson-subsampled Gaussian (add/remove-one; adjacency => 'replace-one'
-- converts by group privacy).
CREATE FUNCTION dptrain.rdp_default_orders()
RETURNS float8[] AS 'MODULE_PATHNAME', 'dptrain_rdp_default_orders' LANGUAGE C IMMUTABLE PARALLEL SAFE STRICT;
COMMENT ON FUNCTION dptrain.rdp_default_orders IS 'the default grid of RDP orders (1.1 ... 1024)';

CREATE FUNCTION dptrain.sampled_gaussian_rdp(q float8, sigma float8, alpha float8)
RETURNS float8 AS 'MODULE_PATHNAME', 'dptrain_sampled_gaussian_rdp' LANGUAGE C IMMUTABLE PARALLEL SAFE STRICT;
COMMENT ON FUNCTION dptrain.sampled_gaussian_rdp IS
'RDP at order alpha of one step of the Poisson-subsampled Gaussian (rate q, noise multiplier sigma; Mironov-Talwar-Zhang 2019)';

CREATE FUNCTION dptrain.rdp_epsilon(q float8, sigma float8, steps bigint, delta float8,
    conversion text DEFAULT 'improved', orders float8[] DEFAULT dptrain.rdp_default_orders(),
    adjacency text DEFAULT 'add-remove')
RETURNS float8 AS 'MODULE_PATHNAME', 'dptrain_rdp_epsilon' LANGUAGE C IMMUTABLE PARALLEL SAFE STRICT;
COMMENT ON FUNCTION dptrain.rdp_epsilon IS
'epsilon of `steps` steps of the Poisson-subsampled Gaussian at delta (RDP accountant; conversion improved or classic)';

CREATE FUNCTION dptrain.rdp_privacy(q float8, sigma float8, steps bigint, delta float8,
    conversion text DEFAULT 'improved', orders float8[] DEFAULT dptrain.rdp_default_orders(),
    adjacency text DEFAULT 'add-remove',
    OUT epsilon float8, OUT optimal_order float8)
RETURNS record AS 'MODULE_PATHNAME', 'dptrain_rdp_privacy' LANGUAGE C IMMUTABLE PARALLEL SAFE STRICT;
COMMENT ON FUNCTION dptrain.rdp_privacy IS 'as rdp_epsilon, also returning the optimal RDP order';

CREATE FUNCTION dptrain.rdp_sigma(q float8, steps bigint, epsilon float8, delta float8,
    conversion text DEFAULT 'improved', orders float8[] DEFAULT dptrain.rdp_default_orders(),
    adjacency text DEFAULT 'add-remove',
    OUT sigma float8, OUT achieved_epsilon float8, OUT optimal_order float8)
RETURNS record AS 'MODULE_PATHNAME', 'dptrain_rdp_sigma' LANGUAGE C IMMUTABLE PARALLEL SAFE STRICT;
COMMENT ON FUNCTION dptrain.rdp_sigma IS
'smallest noise multiplier for which `steps` steps at rate q are (epsilon, delta)-DP, with the epsilon it achieves';

-- Adjacency conversions (add/remove-one => replace-one by group privacy).
CREATE FUNCTION dptrain.dp_add_remove_to_replace_one(epsilon float8, delta float8,
    OUT replace_one_epsilon float8, OUT replace_one_delta float8)
RETURNS record AS 'MODULE_PATHNAME', 'dptrain_dp_add_remove_to_replace_one'
LANGUAGE C IMMUTABLE PARALLEL SAFE STRICT;
COMMENT ON FUNCTION dptrain.dp_add_remove_to_replace_one IS
'(epsilon, delta)-DP under add/remove-one is (2 epsilon, (1 + e^epsilon) delta)-DP under replace-one';

CREATE FUNCTION dptrain.zcdp_add_remove_to_replace_one(rho float8)
RETURNS float8 AS 'MODULE_PATHNAME', 'dptrain_zcdp_add_remove_to_replace_one'
LANGUAGE C IMMUTABLE PARALLEL SAFE STRICT;
COMMENT ON FUNCTION dptrain.zcdp_add_remove_to_replace_one IS
'rho-zCDP under add/remove-one is 4 rho-zCDP under replace-one';

-- ---- sql/30_whitebox.sql
-- White-box private SGD (SCS13, BST14; docs/whitebox.md). Their noise is
-- added at the end of every mini-batch inside the epoch aggregate (the state
-- carries the noise scale and the run's secret key), so SCS13 runs its
-- permutation epochs through dptrain.sgd_epoch unchanged. BST14 needs freshly
-- sampled batches instead of a permutation (algorithms.md trap T9):
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
AS 'MODULE_PATHNAME', 'dptrain_sample_batches' LANGUAGE C VOLATILE ROWS 100000;

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
RETURNS float8[] AS 'MODULE_PATHNAME', 'dptrain_sgd_state_with_noise' LANGUAGE C VOLATILE PARALLEL SAFE;

-- The rows of one sampled epoch, fetched by tuple id (what the epoch query
-- of BST14 streams into dptrain.sgd_sampled_epoch; see src/pg/sampled_rows.cpp).
CREATE TYPE dptrain.sampled_row AS (batch int8, x float8[], y float8);
CREATE FUNCTION dptrain.sampled_rows(state float8[], prepared regclass, rows int8)
RETURNS SETOF dptrain.sampled_row
AS 'MODULE_PATHNAME', 'dptrain_sampled_rows' LANGUAGE C VOLATILE ROWS 100000;
REVOKE EXECUTE ON FUNCTION dptrain.sampled_rows(float8[], regclass, int8) FROM PUBLIC;

-- ---- sql/40_ledger.sql
-- Privacy governance (docs/governance.md): the budgets that table owners
-- grant per (source relation, role), the ledger of what every training run
-- spent, and who may see which model.
--
-- Budget amounts are numeric. A float8 epsilon or delta becomes numeric with
-- 15 significant digits (PostgreSQL's float8 -> numeric cast), so decimal
-- budgets and charges add up exactly (0.1 + 0.2 = 0.3 fits a budget of 0.3).

-- Per (source, role): the budget the owner of the source granted, and what
-- runs of that role on that source have spent of it. `spent_*` is updated
-- under the row lock in the transaction that stores the model, so it is the
-- authoritative total; dptrain.ledger is the itemized log of the same runs.
CREATE TABLE dptrain.budgets (
    source        regclass    NOT NULL,
    role          regrole     NOT NULL,
    epsilon       numeric     NOT NULL CHECK (epsilon > 0),
    delta         numeric     NOT NULL CHECK (delta >= 0 AND delta < 1),
    spent_epsilon numeric     NOT NULL DEFAULT 0 CHECK (spent_epsilon >= 0),
    spent_delta   numeric     NOT NULL DEFAULT 0 CHECK (spent_delta >= 0),
    composition   text        NOT NULL DEFAULT 'basic' CHECK (composition = 'basic'),
    granted_by    regrole     NOT NULL,
    granted_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (source, role)
);
COMMENT ON TABLE dptrain.budgets IS
'privacy budgets granted by table owners (dp_grant_budget); spent = sum of the budgeted ledger rows';

-- One row per stored model: what the run spent and against which budget.
-- Runs of roles that may read the data and have no budget row are logged
-- with budgeted = false (an audit trail; nothing is charged).
CREATE TABLE dptrain.ledger (
    id           bigserial   PRIMARY KEY,
    source       regclass    NOT NULL,
    source_name  text        NOT NULL,   -- as named when the run was charged
    role         regrole     NOT NULL,   -- current_user of the run: whose budget
    session_role name        NOT NULL,   -- session_user of the run: who logged in
    model_id     bigint      REFERENCES dptrain.models (id) ON DELETE SET NULL,
    algorithm    text        NOT NULL,
    epsilon      numeric,                -- NULL: the run is not private
    delta        numeric,
    budgeted     boolean     NOT NULL,
    composition  text        NOT NULL DEFAULT 'basic',
    charged_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX ledger_source_role ON dptrain.ledger (source, role);
COMMENT ON TABLE dptrain.ledger IS 'every stored model with the privacy it spent (basic composition)';

-- The ledger is user data: pg_dump keeps it.
SELECT pg_catalog.pg_extension_config_dump('dptrain.budgets', '');
SELECT pg_catalog.pg_extension_config_dump('dptrain.ledger', '');
SELECT pg_catalog.pg_extension_config_dump('dptrain.ledger_id_seq', '');

-- Who sees what: a role sees its own budgets and runs (and those of roles
-- it has the privileges of); the owner of a source sees all of them for it.
-- Nobody but the extension's functions writes these tables.
ALTER TABLE dptrain.budgets ENABLE ROW LEVEL SECURITY;
ALTER TABLE dptrain.ledger ENABLE ROW LEVEL SECURITY;
CREATE POLICY grantee_or_owner ON dptrain.budgets FOR SELECT USING (
    pg_catalog.pg_has_role(role, 'USAGE')
    OR EXISTS (SELECT 1 FROM pg_catalog.pg_class c
               WHERE c.oid = source AND pg_catalog.pg_has_role(c.relowner, 'USAGE')));
CREATE POLICY grantee_or_owner ON dptrain.ledger FOR SELECT USING (
    pg_catalog.pg_has_role(role, 'USAGE')
    OR EXISTS (SELECT 1 FROM pg_catalog.pg_class c
               WHERE c.oid = source AND pg_catalog.pg_has_role(c.relowner, 'USAGE')));
GRANT SELECT ON dptrain.budgets, dptrain.ledger TO PUBLIC;

-- Models: a model is visible to the role that trained it and to roles that
-- may read the table it was trained on (a model, private or not, tells them
-- nothing they cannot read). Everyone else sees nothing: a non-private model
-- is a noiseless function of the data. dp_predict / dp_evaluate read models
-- with the caller's rights, so they obey the same rule.
ALTER TABLE dptrain.models ADD COLUMN source_table regclass;
COMMENT ON COLUMN dptrain.models.source_table IS 'the relation the model was trained on (NULL once dropped and restored without it)';
ALTER TABLE dptrain.models ENABLE ROW LEVEL SECURITY;
CREATE POLICY creator_or_reader ON dptrain.models FOR SELECT USING (
    created_by = current_user OR pg_catalog.has_table_privilege(source_table, 'SELECT'));

-- ---- internal: the ledger logic (called by the C functions as the ----------
-- ---- extension owner, after they checked who the caller is) ----------------

-- Decides whether `p_role` may run (or store) a training run of (epsilon,
-- delta) on `p_source`. Returns true if a budget row applies (then the run is
-- charged to it), false for a reader without a budget row; otherwise raises:
--   42501  the role may not read the data and has no budget
--   DP002  the run is not private (no epsilon, or seeded noise) under a budget
--   DP001  the run needs more than the budget has left
-- With p_lock the budget row is locked (FOR UPDATE) until the end of the
-- transaction: a concurrent run of the same role on the same source waits
-- here, then sees what this one spent.
CREATE FUNCTION dptrain.ledger_check(p_source regclass, p_role regrole, p_reader boolean,
    p_epsilon float8, p_delta float8, p_seeded boolean, p_lock boolean)
RETURNS boolean LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    b dptrain.budgets;
    want_epsilon numeric := p_epsilon::numeric;
    want_delta numeric := coalesce(p_delta, 0)::numeric;
    left_epsilon numeric;
    left_delta numeric;
BEGIN
    IF p_lock THEN
        SELECT * INTO b FROM dptrain.budgets x WHERE x.source = p_source AND x.role = p_role FOR UPDATE;
    ELSE
        SELECT * INTO b FROM dptrain.budgets x WHERE x.source = p_source AND x.role = p_role;
    END IF;
    IF NOT FOUND THEN
        IF p_reader THEN
            RETURN false;
        END IF;
        RAISE EXCEPTION 'permission denied to train on %', p_source
            USING ERRCODE = '42501',
                  DETAIL = format('Role %s may not read the label and feature columns of %s and has no privacy budget on it.',
                                  p_role, p_source),
                  HINT = format('The owner of %s can grant a budget: SELECT dp_grant_budget(%L, %L, epsilon, delta);',
                                p_source, p_source::text, p_role::text);
    END IF;
    IF p_epsilon IS NULL OR p_seeded THEN
        RAISE EXCEPTION 'a training run that is not differentially private cannot be charged to a privacy budget'
            USING ERRCODE = 'DP002',
                  DETAIL = format('Role %s has a privacy budget on %s, so every run it makes there must be private; this run %s.',
                                  p_role, p_source,
                                  CASE WHEN p_epsilon IS NULL THEN 'has no epsilon (algorithm none, or epsilon not given)'
                                       ELSE 'uses seeded (reproducible) noise' END),
                  HINT = 'Train with a private algorithm and an explicit epsilon (and delta), without seed.';
    END IF;
    left_epsilon := trim_scale(greatest(b.epsilon - b.spent_epsilon, 0));
    left_delta := trim_scale(greatest(b.delta - b.spent_delta, 0));
    IF want_epsilon > left_epsilon OR want_delta > left_delta THEN
        RAISE EXCEPTION 'privacy budget exceeded for role % on %', p_role, p_source
            USING ERRCODE = 'DP001',
                  DETAIL = format('Requested epsilon = %s, delta = %s; remaining epsilon = %s, delta = %s '
                                  '(granted epsilon = %s, delta = %s; spent epsilon = %s, delta = %s).',
                                  want_epsilon, want_delta, left_epsilon, left_delta,
                                  b.epsilon, b.delta, b.spent_epsilon, b.spent_delta),
                  HINT = 'Train with a smaller epsilon or delta, or ask the owner of the table for more budget (dp_grant_budget).';
    END IF;
    RETURN true;
END
$$;

-- Charges a stored model: checks under the row lock, adds its (epsilon,
-- delta) to the budget (basic composition), logs the run. Runs in the
-- transaction that inserted the model, so both commit or neither does.
CREATE FUNCTION dptrain.ledger_charge(p_source regclass, p_source_name text, p_role regrole, p_reader boolean,
    p_model_id bigint, p_algorithm text, p_epsilon float8, p_delta float8, p_seeded boolean)
RETURNS void LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    budgeted boolean;
BEGIN
    budgeted := dptrain.ledger_check(p_source, p_role, p_reader, p_epsilon, p_delta, p_seeded, true);
    IF budgeted THEN
        UPDATE dptrain.budgets x
           SET spent_epsilon = trim_scale(x.spent_epsilon + p_epsilon::numeric),
               spent_delta = trim_scale(x.spent_delta + coalesce(p_delta, 0)::numeric)
         WHERE x.source = p_source AND x.role = p_role;
    END IF;
    INSERT INTO dptrain.ledger (source, source_name, role, session_role, model_id, algorithm, epsilon, delta, budgeted)
    VALUES (p_source, p_source_name, p_role, session_user, p_model_id, p_algorithm, p_epsilon::numeric,
            CASE WHEN p_epsilon IS NULL THEN NULL ELSE coalesce(p_delta, 0)::numeric END, budgeted);
END
$$;

-- Sets the budget of (source, role). What the role already spent on the
-- source stays spent: a new row starts from the sum of its budgeted runs
-- in the ledger, so revoking and granting again never refunds anything.
CREATE FUNCTION dptrain.ledger_grant(p_source regclass, p_role regrole, p_epsilon float8, p_delta float8,
    p_granted_by regrole)
RETURNS void LANGUAGE sql SET search_path = pg_catalog, pg_temp AS $$
    INSERT INTO dptrain.budgets AS b (source, role, epsilon, delta, spent_epsilon, spent_delta, granted_by)
    SELECT p_source, p_role, p_epsilon::numeric, p_delta::numeric,
           trim_scale(coalesce(sum(l.epsilon), 0)), trim_scale(coalesce(sum(l.delta), 0)), p_granted_by
      FROM dptrain.ledger l
     WHERE l.source = p_source AND l.role = p_role AND l.budgeted
    ON CONFLICT (source, role) DO UPDATE
       SET epsilon = EXCLUDED.epsilon, delta = EXCLUDED.delta,
           granted_by = EXCLUDED.granted_by, granted_at = now();
$$;

REVOKE EXECUTE ON FUNCTION
    dptrain.ledger_check(regclass, regrole, boolean, float8, float8, boolean, boolean),
    dptrain.ledger_charge(regclass, text, regrole, boolean, bigint, text, float8, float8, boolean),
    dptrain.ledger_grant(regclass, regrole, float8, float8, regrole)
FROM PUBLIC;

-- A dropped relation's budgets go with it: its OID may later be reused by an
-- unrelated table, which must not inherit them. (Its ledger rows stay: they
-- are history.)
CREATE FUNCTION dptrain.forget_dropped_sources()
RETURNS event_trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    DELETE FROM dptrain.budgets b
     USING pg_catalog.pg_event_trigger_dropped_objects() d
     WHERE d.classid = 'pg_catalog.pg_class'::pg_catalog.regclass AND d.objsubid = 0
       AND b.source = d.objid;
END
$$;
REVOKE EXECUTE ON FUNCTION dptrain.forget_dropped_sources() FROM PUBLIC;
CREATE EVENT TRIGGER dptrain_forget_dropped_sources ON sql_drop
    EXECUTE FUNCTION dptrain.forget_dropped_sources();

-- ---- user-facing: budgets ----------------------------------------------------

CREATE FUNCTION @extschema@.dp_grant_budget(source regclass, role name, epsilon float8, delta float8 DEFAULT 0)
RETURNS void AS 'MODULE_PATHNAME', 'dptrain_dp_grant_budget' LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION @extschema@.dp_grant_budget IS
'owner of source: let role train on source (even without SELECT) up to a total privacy budget (epsilon, delta)';

CREATE FUNCTION @extschema@.dp_revoke_budget(source regclass, role name)
RETURNS boolean AS 'MODULE_PATHNAME', 'dptrain_dp_revoke_budget' LANGUAGE C STRICT VOLATILE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION @extschema@.dp_revoke_budget IS
'owner of source: remove the budget of role on source (what it spent stays in the ledger); true if there was one';

CREATE FUNCTION @extschema@.dp_budget_remaining(source regclass, role name DEFAULT NULL,
    OUT epsilon float8, OUT delta float8)
RETURNS record AS 'MODULE_PATHNAME', 'dptrain_dp_budget_remaining' LANGUAGE C STABLE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION @extschema@.dp_budget_remaining IS
'privacy budget left to role (default: current_user) on source; NULLs if it has none';

-- ---- sql/50_tuning.sql
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
RETURNS SETOF record AS 'MODULE_PATHNAME', 'dptrain_training_split' LANGUAGE C STRICT VOLATILE;
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
    options       jsonb    DEFAULT '{}')
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
