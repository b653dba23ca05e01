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
    feature_bound float8 DEFAULT 1, intercept float8 DEFAULT NULL,
    OUT shuffled text, OUT rows bigint, OUT dim int, OUT classes text[],
    OUT classes_from_data boolean, OUT source_name text)
RETURNS record AS 'MODULE_PATHNAME', 'dptrain_training_prepare' LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;
-- The controller's reading as dp_train's (src/pg/controller_in_place.cpp):
-- in a REPEATABLE READ transaction, a plain table its caller may read and an
-- algorithm of exact sums are read in place (source_sql, x_expr, y_expr for
-- the passes, run through training_in_place_pass); otherwise the rows are
-- copied as dp_train copies them for that algorithm (shuffled, or in the
-- table's order for an order-free one). read says which.
CREATE FUNCTION dptrain.training_prepare_run(
    source regclass, label text, features text, algorithm text,
    classes text[] DEFAULT NULL, seed bigint DEFAULT NULL,
    feature_bound float8 DEFAULT 1, intercept float8 DEFAULT NULL,
    OUT shuffled text, OUT source_sql text, OUT source_oid oid, OUT x_expr text, OUT y_expr text,
    OUT rows bigint, OUT dim int, OUT classes text[], OUT classes_from_data boolean, OUT source_name text,
    OUT read text)
RETURNS record AS 'MODULE_PATHNAME', 'dptrain_training_prepare_run' LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION dptrain.training_prepare_run IS
'internal (dptrain train): validates a training table and reads it in place or copies it as dp_train would';
-- One pass over a table read in place: the statement must read that
-- relation ONLY and nothing else (checked after parsing), under the
-- transaction's snapshot (REPEATABLE READ), read-only, parallel allowed.
CREATE FUNCTION dptrain.training_in_place_pass(source regclass, pass text, input float8[])
RETURNS float8[] AS 'MODULE_PATHNAME', 'dptrain_training_in_place_pass' LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION dptrain.training_in_place_pass IS
'internal (dptrain train): one pass of a run over a table read in place, checked to read only that table';
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
-- Whether the epoch aggregate takes a row as it is. A run of a role without
-- read access replaces every other row by a fixed public row, so that no
-- error depends on the data (docs/governance.md). Executed with the rights
-- of the table's owner, so open to PUBLIC (it reads nothing). Called once
-- per row, runs no SQL: no SET clause.
CREATE FUNCTION dptrain.usable_row(x float8[], y float8, dim int) RETURNS boolean
AS 'MODULE_PATHNAME', 'dptrain_usable_row' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dptrain.usable_row IS
'internal: whether a training run takes a row as it is (finite features of the right length, a known label)';
-- Whether a numeric value is one that no float8 holds: whether its cast to
-- float8 fails, decided as the cast decides it (src/pg/beyond_float8.cpp):
-- a magnitude beyond DBL_MAX (1.8e308), or one not 0 that rounds to 0 (below
-- about 2.5e-324). Subnormal values (below 2.2e-308) cast, to subnormal
-- doubles; NaN and +-Infinity cast too (and are refused as non-finite). The
-- one definition: a reader's checks before the charge (src/pg/row_checks.cpp)
-- and the reads of a role without read access, which make such a row the
-- fixed public row instead of failing on the cast (training_copy.cpp,
-- distributed_source.cpp, encoded_features.cpp, dp_encoded_view), so both
-- roles take every value alike (docs/governance.md). Called once per value,
-- runs no SQL: no SET clause; open to PUBLIC (it reads nothing).
CREATE FUNCTION dptrain.beyond_float8(v pg_catalog.numeric) RETURNS boolean
AS 'MODULE_PATHNAME', 'dptrain_beyond_float8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dptrain.beyond_float8 IS
'internal: whether no float8 holds a numeric value (its cast to float8 fails: beyond 1.8e308, or rounding to 0)';
-- A row of a run with an intercept: x scaled to norm <= bound, then the
-- public constant b appended (src/core/training/intercept.h). Open to PUBLIC
-- like usable_row (it reads nothing); runs no SQL: no SET clause.
CREATE FUNCTION dptrain.intercept_row(x float8[], bound float8, b float8) RETURNS float8[]
AS 'MODULE_PATHNAME', 'dptrain_intercept_row' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dptrain.intercept_row IS
'internal: a training row with an intercept: x clipped to norm bound, then the constant b appended';
REVOKE EXECUTE ON FUNCTION
    dptrain.training_prepare(regclass, text, text, text[], bigint, float8, float8),
    dptrain.training_prepare_run(regclass, text, text, text, text[], bigint, float8, float8),
    dptrain.training_in_place_pass(regclass, text, float8[]),
    dptrain.training_reshuffle(text),
    dptrain.training_drop(text),
    dptrain.store_model(jsonb)
FROM PUBLIC;

CREATE FUNCTION @extschema@.dp_train(
    source        regclass,
    label         text,
    features      text,
    algorithm     text     DEFAULT NULL,
    loss          text     DEFAULT 'logistic',
    epsilon       float8   DEFAULT NULL,
    delta         float8   DEFAULT NULL,
    epochs        int      DEFAULT NULL,
    batch_size    int      DEFAULT NULL,
    lambda        float8   DEFAULT NULL,
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
RETURNS dptrain.trained_model
AS 'MODULE_PATHNAME', 'dptrain_dp_train' LANGUAGE C VOLATILE
SUPPORT dptrain.copied_call_support
-- SECURITY INVOKER on purpose: the C code knows the caller (GetUserId() on
-- entry) and switches to the table owner / extension owner step by step
-- (src/pg/access.h, docs/governance.md). Its SQL resolves names in
-- pg_catalog only.
-- The per-row work of an epoch is one C call: JIT-compiling the epoch query
-- costs tens of milliseconds per epoch and gains nothing.
SET search_path = pg_catalog, pg_temp
SET jit = off;
-- algorithm, epochs, batch_size, lambda: NULL = the defaults of
-- src/core/training/defaults.h (docs/defaults.md); a named algorithm keeps
-- its classic ones (epochs 10, batch_size 50, lambda 0).
COMMENT ON FUNCTION @extschema@.dp_train IS
'train a (differentially private) linear model on a table; see README for the arguments';

-- dp_predict runs once per row: instead of a SET clause (a GUC save and
-- restore per call) it pins search_path in C around the query that loads the
-- model, its only SQL (src/pg/predict_evaluate.cpp).
CREATE FUNCTION @extschema@.dp_predict(model text, features float8[])
RETURNS text AS 'MODULE_PATHNAME', 'dptrain_dp_predict' LANGUAGE C STRICT STABLE;
COMMENT ON FUNCTION @extschema@.dp_predict(text, float8[]) IS
'label predicted by a stored model: its id, or the name of one of your models';
CREATE FUNCTION @extschema@.dp_predict(model bigint, features float8[])
RETURNS text AS 'MODULE_PATHNAME', 'dptrain_dp_predict_id' LANGUAGE C STRICT STABLE;
COMMENT ON FUNCTION @extschema@.dp_predict(bigint, float8[]) IS
'label predicted by a stored model, by the id dp_train returned';

CREATE FUNCTION @extschema@.dp_predict_proba(model text, features float8[])
RETURNS float8[] AS 'MODULE_PATHNAME', 'dptrain_dp_predict_proba' LANGUAGE C STRICT STABLE;
COMMENT ON FUNCTION @extschema@.dp_predict_proba(text, float8[]) IS
'class probabilities of a logistic-loss model, in the order of the model''s classes (one-vs-all: the K one-vs-rest probabilities normalized to sum 1); Huber SVM and OPDisc models give none (an error: use dp_predict)';
CREATE FUNCTION @extschema@.dp_predict_proba(model bigint, features float8[])
RETURNS float8[] AS 'MODULE_PATHNAME', 'dptrain_dp_predict_proba_id' LANGUAGE C STRICT STABLE;
COMMENT ON FUNCTION @extschema@.dp_predict_proba(bigint, float8[]) IS
'class probabilities of a logistic-loss model (not Huber SVM or OPDisc), by the id dp_train returned';

-- Evaluation aggregate: state {rows, correct, loss_sum, confusion matrix};
-- combine = sum. decision_score ranks the rows of a binary model for ROC AUC.
CREATE FUNCTION dptrain.decision_score(model float8[], x float8[])
RETURNS float8 AS 'MODULE_PATHNAME', 'dptrain_decision_score' LANGUAGE C STRICT IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION dptrain.decision_score(float8[], float8[]) IS
'internal: the score w.x of a packed binary model, the row read as dp_predict reads it (dp_evaluate''s ROC AUC)';
CREATE FUNCTION dptrain.evaluate_transition(float8[], float8[], int, float8[])
RETURNS float8[] AS 'MODULE_PATHNAME', 'dptrain_evaluate_transition' LANGUAGE C PARALLEL SAFE;
CREATE FUNCTION dptrain.evaluate_combine(float8[], float8[])
RETURNS float8[] AS 'MODULE_PATHNAME', 'dptrain_evaluate_combine' LANGUAGE C PARALLEL SAFE;
CREATE AGGREGATE dptrain.evaluate_agg(x float8[], label_index int, model float8[]) (
    SFUNC = dptrain.evaluate_transition, STYPE = float8[],
    COMBINEFUNC = dptrain.evaluate_combine, PARALLEL = SAFE);
COMMENT ON AGGREGATE dptrain.evaluate_agg(float8[], int, float8[]) IS
'internal: the evaluation totals of a packed model over labelled rows (dp_evaluate)';

CREATE FUNCTION @extschema@.dp_evaluate(model text, source regclass, label text, features text DEFAULT NULL,
    OUT accuracy float8, OUT n bigint, OUT loss float8, OUT majority_rate float8,
    OUT "precision" float8, OUT recall float8, OUT f1 float8, OUT roc_auc float8, OUT macro_f1 float8,
    OUT classes text[], OUT confusion bigint[])
RETURNS record AS 'MODULE_PATHNAME', 'dptrain_dp_evaluate' LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION @extschema@.dp_evaluate(text, regclass, text, text) IS
'metrics of a stored model (its id, or the name of one of your models) on a labelled table (features NULL: the model''s stored encoding applied to the raw columns): accuracy, rows, mean loss (the model''s loss on rows scaled to its feature bound as in training, without P-FW''s coordinate clip; OPDisc: the logistic loss, for comparison), majority-class rate, precision/recall/F1 and ROC AUC (binary, positive = second class), macro-F1, classes and confusion matrix [true][predicted]';
CREATE FUNCTION @extschema@.dp_evaluate(model bigint, source regclass, label text, features text DEFAULT NULL,
    OUT accuracy float8, OUT n bigint, OUT loss float8, OUT majority_rate float8,
    OUT "precision" float8, OUT recall float8, OUT f1 float8, OUT roc_auc float8, OUT macro_f1 float8,
    OUT classes text[], OUT confusion bigint[])
RETURNS record AS 'MODULE_PATHNAME', 'dptrain_dp_evaluate_id' LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION @extschema@.dp_evaluate(bigint, regclass, text, text) IS
'metrics of a stored model, by the id dp_train returned, on a labelled table (see dp_evaluate(text, regclass, text, text))';

-- Help for \dx+ dptrain: the COMMENTs of this file's objects not commented above
-- (test/regress/sql/comments.sql lists every member without one).
COMMENT ON TYPE dptrain.trained_model IS
'what dp_train returns: the stored model''s id, name, algorithm, epsilon, delta, weights, classes and details';
COMMENT ON FUNCTION dptrain.training_prepare(regclass, text, text, text[], bigint, float8, float8) IS
'internal (dptrain train): validates a training table and copies its rows in a random order into a prepared table';
COMMENT ON FUNCTION dptrain.training_reshuffle(text) IS
'internal (dptrain train): a new random order of the rows of a prepared table';
COMMENT ON FUNCTION dptrain.training_drop(text) IS
'internal (dptrain train): drops a prepared table';
COMMENT ON FUNCTION dptrain.store_model(jsonb) IS
'internal (dptrain train, controller mode): stores a trained model and charges or logs it in the ledger';
COMMENT ON FUNCTION dptrain.evaluate_transition(float8[], float8[], int, float8[]) IS
'internal: transition function of dptrain.evaluate_agg';
COMMENT ON FUNCTION dptrain.evaluate_combine(float8[], float8[]) IS
'internal: combine function of dptrain.evaluate_agg (sums the totals)';
