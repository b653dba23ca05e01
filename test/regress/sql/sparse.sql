-- Sparse feature rows (docs/sparse.md): the type dptrain.sparsevec, its
-- casts and errors, and training on a sparsevec column -- the same model as
-- on the dense column for the same seed for every algorithm, the same
-- row-norm clipping and intercept, scoring, tuning, and a role without read
-- access.
SET client_min_messages = warning;
\set SHOW_CONTEXT never
\getenv abs_srcdir PG_ABS_SRCDIR
\set try_sql :abs_srcdir '/sql/include/try.sql'
\i :try_sql

-- ---- 1. the type ----------------------------------------------------------------
-- Text form: 1-based increasing indices, /dimension; values print exactly.
SELECT '{1:0.5, 7:-0.25}/8'::dptrain.sparsevec AS parsed, '{}/3'::dptrain.sparsevec AS all_zero,
       '{2:0.1}/2'::dptrain.sparsevec AS exact;
SELECT dptrain.sparsevec_dims('{1:3,4:4}/9') AS dims, dptrain.sparsevec_nnz('{1:3,4:4}/9') AS nnz,
       dptrain.sparsevec_norm('{1:3,4:4}/9') AS norm;
-- casts both ways; zeros are left out of the sparse form
SELECT '{2:1.5,4:-2}/5'::dptrain.sparsevec::float8[] AS dense,
       ARRAY[0, 1.5, 0, -2, 0]::float8[]::dptrain.sparsevec AS sparse,
       ARRAY[0, 0]::float8[]::dptrain.sparsevec AS zeros;
-- text and binary round trips (the binary one through COPY's send/recv)
CREATE TEMP TABLE rt (v dptrain.sparsevec);
INSERT INTO rt VALUES ('{1:0.1,3:1e-300,8315:-7}/8315');
SELECT v AS text_form, v::text::dptrain.sparsevec::text = v::text AS text_round_trip FROM rt;
-- a number longer than 64 characters is read whole (was refused mid-number)
SELECT ('{1:0.' || repeat('0', 70) || '25,2:' || repeat('1', 70) || 'e-69}/2')::dptrain.sparsevec AS long_numbers;
COPY rt TO '/tmp/dptrain_sparse_rt.bin' (FORMAT binary);
CREATE TEMP TABLE rt2 (v dptrain.sparsevec);
COPY rt2 FROM '/tmp/dptrain_sparse_rt.bin' (FORMAT binary);
SELECT (SELECT v::text FROM rt) = (SELECT v::text FROM rt2) AS binary_round_trip;
-- A binary value whose header claims more entries than it holds is refused
-- before its memory is allocated (10^8 entries made palloc0 ask for 1.2 GB:
-- XX000 "invalid memory alloc request size"; 8 * 10^7 allocated 960 MB for
-- an 8-byte value). A bytea column's binary COPY form is its raw bytes.
CREATE TEMP TABLE short_bytes (n int, b bytea);
INSERT INTO short_bytes VALUES (1, '\x05f5e10005f5e100'), (2, '\x05f5e10004c4b400'), (3, '\x0000000300000001000000');
CREATE TEMP TABLE short_v (v dptrain.sparsevec);
COPY (SELECT b FROM short_bytes WHERE n = 1) TO '/tmp/dptrain_sparse_short1.bin' (FORMAT binary);
COPY (SELECT b FROM short_bytes WHERE n = 2) TO '/tmp/dptrain_sparse_short2.bin' (FORMAT binary);
COPY (SELECT b FROM short_bytes WHERE n = 3) TO '/tmp/dptrain_sparse_short3.bin' (FORMAT binary);
SELECT n, e.code, e.message, e.hint
FROM short_bytes, LATERAL pg_temp.try(format($$COPY short_v FROM '/tmp/dptrain_sparse_short%s.bin' (FORMAT binary)$$, n)) e
ORDER BY n;

-- A row too large for one value (89.5 million non-zeros: 1.07 GB) is refused
-- with 54000; it was XX000 "invalid memory alloc request size", raised
-- across the C++ frames of the cast.
SELECT code, message, detail, hint
FROM pg_temp.try($$SELECT dptrain.float8_to_sparsevec(array_fill(1::float8, ARRAY[89500000]))$$);

-- Every malformed value is refused with its SQLSTATE and a hint.
SELECT t.input, e.code, e.message, e.detail
FROM (VALUES ('{1:2}'), ('{1:2/3'), ('{0:1}/3'), ('{4:1}/3'), ('{2:1,1:1}/3'), ('{2:1,2:5}/3'),
             ('{1:1}/0'), ('{1:NaN}/3'), ('{1:Infinity}/3'), ('{1:1e999}/3'), ('{1:x}/3')) t(input),
     LATERAL pg_temp.try(format('SELECT %L::dptrain.sparsevec', t.input)) e;
SELECT code, message, hint FROM pg_temp.try($$SELECT '{1:1}/0'::dptrain.sparsevec$$);
SELECT code, message, hint FROM pg_temp.try($$SELECT ARRAY[1, 'NaN']::float8[]::dptrain.sparsevec$$);
SELECT code, message FROM pg_temp.try($$SELECT ARRAY[1, NULL]::float8[]::dptrain.sparsevec$$);

-- ---- 2. training: the same model as the dense column ---------------------------
-- 300 rows of dimension 40 with 4 non-zeros each, some of norm > 1 (clipped
-- to the feature bound like dense rows), and the same rows dense.
CREATE TABLE sp_dense AS
SELECT i AS id, x, (x[1] + x[2] - x[3] + 0.3 * sin(i * 7.1) > 0) AS y
FROM (SELECT i, array_agg(CASE WHEN j IN (1 + i % 3, 2 + i % 5, 3 + i % 7, 4 + (i * 13) % 36)
                               THEN sin(i * j * 0.37) * (1 + (i % 4) * 0.4) ELSE 0 END ORDER BY j) AS x
      FROM generate_series(1, 300) i, generate_series(1, 40) j GROUP BY i) r
ORDER BY i;
CREATE TABLE sp_sparse AS SELECT id, x::dptrain.sparsevec AS x, y FROM sp_dense ORDER BY id;
SELECT count(*) AS rows, max(dptrain.sparsevec_nnz(x)) AS max_nnz, max(dptrain.sparsevec_norm(x)) > 1 AS some_beyond_1
FROM sp_sparse;

-- The prepared copy stays sparse; with the intercept every row is
-- (clip_1(x), 1), the very values of the dense copy.
BEGIN;
SELECT shuffled AS d_table, dim AS d_dim FROM dptrain.training_prepare('sp_dense', 'y', 'x', seed => 3,
  feature_bound => 1, intercept => 1) \gset
SELECT shuffled AS s_table, dim AS s_dim FROM dptrain.training_prepare('sp_sparse', 'y', 'x', seed => 3,
  feature_bound => 1, intercept => 1) \gset
SELECT :d_dim AS dense_dim, :s_dim AS sparse_dim, pg_typeof(x) AS sparse_copy_type FROM :s_table LIMIT 1;
SELECT count(*) AS rows, bool_and(s.y = d.y) AS same_labels,
       max((SELECT max(abs(a - b)) FROM unnest(s.x::float8[], d.x) u(a, b))) AS max_row_difference,
       max(dptrain.sparsevec_norm(s.x)) <= sqrt(2) + 1e-12 AS clipped
FROM :s_table s JOIN :d_table d USING (i);
ROLLBACK;

-- Non-private SGD (b = 1 with lambda: the scaled-weights path; b = 10: the
-- batched one) and bolt-on (pure epsilon, seeded noise): the released
-- models agree with the dense ones to rounding.
CREATE FUNCTION pg_temp.max_diff(a float8[], b float8[]) RETURNS float8 LANGUAGE sql AS
$$ SELECT max(abs(x - y)) FROM unnest(a, b) u(x, y) $$;
SELECT b, lambda, array_length(s.weights, 1) AS weights, pg_temp.max_diff(s.weights, d.weights) < 1e-12 AS same_model,
       (SELECT max(abs(v)) FROM unnest(d.weights) v) > 0.01 AS not_trivial
FROM (VALUES (1, 0.01), (10, 0.0)) p(b, lambda),
     LATERAL dp_train('sp_dense', 'y', 'x', algorithm => 'none', epochs => 3, batch_size => p.b, lambda => p.lambda,
                      learning_rate => 0.5, seed => 5) d,
     LATERAL dp_train('sp_sparse', 'y', 'x', algorithm => 'none', epochs => 3, batch_size => p.b, lambda => p.lambda,
                      learning_rate => 0.5, seed => 5) s;
SELECT pg_temp.max_diff(s.weights, d.weights) < 1e-12 AS same_bolton_model,
       s.details->'privacy'->'sensitivity' = d.details->'privacy'->'sensitivity' AS same_sensitivity,
       s.details->'data'->'dim' AS dim
FROM dp_train('sp_dense', 'y', 'x', epsilon => 1, seed => 9) d,
     dp_train('sp_sparse', 'y', 'x', epsilon => 1, seed => 9) s;
-- and without the intercept
SELECT pg_temp.max_diff(s.weights, d.weights) < 1e-12 AS same_model_without_intercept
FROM dp_train('sp_dense', 'y', 'x', algorithm => 'bolton', epsilon => 1, epochs => 2, batch_size => 5,
              learning_rate => 0.2, seed => 4, intercept => false) d,
     dp_train('sp_sparse', 'y', 'x', algorithm => 'bolton', epsilon => 1, epochs => 2, batch_size => 5,
              learning_rate => 0.2, seed => 4, intercept => false) s;
-- SCS13 (white-box noise added by the epoch aggregate's update): the same
-- noisy model for the same seed.
SELECT pg_temp.max_diff(s.weights, d.weights) < 1e-12 AS same_scs13_model
FROM dp_train('sp_dense', 'y', 'x', algorithm => 'scs13', epsilon => 1, delta => 1e-6, epochs => 2, batch_size => 10,
              seed => 7) d,
     dp_train('sp_sparse', 'y', 'x', algorithm => 'scs13', epsilon => 1, delta => 1e-6, epochs => 2, batch_size => 10,
              seed => 7) s;
-- Gradient/loss passes (AMP, DP-AGD, P-FW, the optimum): the sums a sparse
-- row adds are the dense row's bit for bit, so the models agree as well.
SELECT a.algorithm, pg_temp.max_diff(s.weights, d.weights) < 1e-12 AS same_model,
       (SELECT max(abs(v)) FROM unnest(d.weights) v) > 0 AS not_trivial
FROM (VALUES ('amp'), ('dpagd')) a(algorithm),
     LATERAL dp_train('sp_dense', 'y', 'x', algorithm => a.algorithm, epsilon => 1, delta => 1e-6, seed => 6) d,
     LATERAL dp_train('sp_sparse', 'y', 'x', algorithm => a.algorithm, epsilon => 1, delta => 1e-6, seed => 6) s;
SELECT pg_temp.max_diff(s.weights, d.weights) < 1e-12 AS same_pfw_model,
       (SELECT max(abs(v)) FROM unnest(d.weights) v) > 0 AS not_trivial
FROM dp_train('sp_dense', 'y', 'x', algorithm => 'pfw', epsilon => 1, delta => 1e-6, radius => 10, seed => 6) d,
     dp_train('sp_sparse', 'y', 'x', algorithm => 'pfw', epsilon => 1, delta => 1e-6, radius => 10, seed => 6) s;
SELECT pg_temp.max_diff(s.weights, d.weights) < 1e-12 AS same_optimum
FROM dp_train('sp_dense', 'y', 'x', algorithm => 'optimum', lambda => 0.01, seed => 6) d,
     dp_train('sp_sparse', 'y', 'x', algorithm => 'optimum', lambda => 0.01, seed => 6) s;
-- Bismarck by hand on the sparse column.
SELECT pg_temp.max_diff(
         (SELECT dptrain.sgd_state_weights(dptrain.sgd_epoch(x, y, dptrain.sgd_state(40))) FROM sp_sparse),
         (SELECT dptrain.sgd_state_weights(dptrain.sgd_epoch(x, y, dptrain.sgd_state(40))) FROM sp_dense))
       < 1e-12 AS same_epoch_by_hand;

-- ---- 3. the sampled and grouped passes: sparse rows densified ------------------
-- DP-SGD's Poisson lots and BST14's sampled batches fetch each sampled row
-- densified, OPDisc groups x::float8[]: the same models as the dense table.
SELECT a.algorithm, pg_temp.max_diff(s.weights, d.weights) < 1e-12 AS same_model,
       (SELECT max(abs(v)) FROM unnest(d.weights) v) > 0 AS not_trivial
FROM (VALUES ('dpsgd'), ('dpadam'), ('bst14')) a(algorithm),
     LATERAL dp_train('sp_dense', 'y', 'x', algorithm => a.algorithm, epsilon => 1, delta => 1e-6, epochs => 2,
                      batch_size => 20, radius => 5, seed => 3) d,
     LATERAL dp_train('sp_sparse', 'y', 'x', algorithm => a.algorithm, epsilon => 1, delta => 1e-6, epochs => 2,
                      batch_size => 20, radius => 5, seed => 3) s;
-- (OPDisc's exact oracle takes at most 30 features: the first 8.)
CREATE TABLE sp_dense8 AS SELECT id, x[1:8] AS x, y FROM sp_dense ORDER BY id;
CREATE TABLE sp_sparse8 AS SELECT id, x::dptrain.sparsevec AS x, y FROM sp_dense8 ORDER BY id;
SELECT pg_temp.max_diff(s.weights, d.weights) < 1e-12 AS same_opdisc_model
FROM dp_train('sp_dense8', 'y', 'x', algorithm => 'opdisc', epsilon => 1, delta => 1e-6, seed => 3) d,
     dp_train('sp_sparse8', 'y', 'x', algorithm => 'opdisc', epsilon => 1, delta => 1e-6, seed => 3) s;
DROP TABLE sp_dense8, sp_sparse8;
-- The default with delta (dpsgd) on the sparse table, unseeded: its copy and
-- lots take the bucket shuffle and the secure key, and it is charged once.
SELECT count(*) AS ledger_before FROM dptrain.ledger \gset
SELECT algorithm, array_length(weights, 1) AS weights FROM dp_train('sp_sparse', 'y', 'x', epsilon => 1, delta => 1e-6);
SELECT count(*) - :ledger_before AS charged FROM dptrain.ledger;
-- an unseeded bolt-on run with reshuffles, charged once as well
SELECT count(*) AS admitted, bool_and(array_length(weights, 1) = 41) AS trained
FROM dp_train('sp_sparse', 'y', 'x', epsilon => 1, epochs => 3, reshuffle => true);
SELECT count(*) - :ledger_before AS charged FROM dptrain.ledger;

-- ---- 4. scoring sparse rows -------------------------------------------------------
-- dp_predict, dp_predict_proba and dp_evaluate give on a sparse row or table
-- what they give on the dense one.
SELECT model_id AS sp_model FROM dp_train('sp_sparse', 'y', 'x', algorithm => 'none', epochs => 3,
                                         learning_rate => 0.5, name => 'sp_model', seed => 5) \gset
SELECT bool_and(dp_predict(:sp_model, s.x) = dp_predict(:sp_model, d.x)) AS same_predictions,
       bool_and(dp_predict('sp_model', s.x) = dp_predict(:sp_model, d.x)) AS same_by_name,
       max(abs((dp_predict_proba(:sp_model, s.x))[2] - (dp_predict_proba(:sp_model, d.x))[2])) < 1e-15 AS same_proba,
       bool_and(dp_predict_proba('sp_model', s.x) = dp_predict_proba(:sp_model, s.x)) AS proba_by_name
FROM sp_sparse s JOIN sp_dense d USING (id);
SELECT s.accuracy = d.accuracy AND s.n = d.n AND abs(s.loss - d.loss) < 1e-12 AND s.roc_auc = d.roc_auc
       AND s.confusion = d.confusion AS same_metrics, s.accuracy > 0.6 AS learned
FROM dp_evaluate(:sp_model, 'sp_sparse', 'y', 'x') s, dp_evaluate(:sp_model, 'sp_dense', 'y', 'x') d;
SELECT code, message FROM pg_temp.try($$SELECT dp_predict('sp_model', '{1:1}/7'::dptrain.sparsevec)$$);
-- Private tuning (split + evaluation passes) and the training loss of
-- options.tolerance read sparse rows too: the same choice as on the dense table.
SELECT pg_temp.max_diff(s.weights, d.weights) < 1e-12 AS same_tuned_model
FROM dp_tune('sp_dense', 'y', 'x', epsilon => 1, epochs => '{1,3}', lambdas => '{0.001}', seed => 8) d,
     dp_tune('sp_sparse', 'y', 'x', epsilon => 1, epochs => '{1,3}', lambdas => '{0.001}', seed => 8) s;
-- (bolt-on, strongly convex: the algorithm that has the option; the run must
-- stop before its 20 epochs, on both tables after the same number.)
SELECT pg_temp.max_diff(s.weights, d.weights) < 1e-12 AS same_model_with_tolerance,
       (d.details->'stopping'->>'epochs_run')::int < 20 AS stopped_early,
       d.details->'stopping'->'epochs_run' = s.details->'stopping'->'epochs_run' AS same_epochs
FROM dp_train('sp_dense', 'y', 'x', algorithm => 'bolton', epsilon => 1, lambda => 0.01, epochs => 20, seed => 2,
              options => '{"tolerance": 0.01}') d,
     dp_train('sp_sparse', 'y', 'x', algorithm => 'bolton', epsilon => 1, lambda => 0.01, epochs => 20, seed => 2,
              options => '{"tolerance": 0.01}') s;

-- ---- 5. bad sparse rows ---------------------------------------------------------
CREATE TABLE sp_ragged AS SELECT * FROM sp_sparse;
INSERT INTO sp_ragged VALUES (1000, '{1:1}/41', true);
SELECT code, message, detail FROM pg_temp.try($$SELECT dp_train('sp_ragged', 'y', 'x', algorithm => 'none', seed => 1)$$);
CREATE TABLE sp_null AS SELECT * FROM sp_sparse;
INSERT INTO sp_null VALUES (1000, NULL, true);
SELECT code, message FROM pg_temp.try($$SELECT dp_train('sp_null', 'y', 'x', algorithm => 'none', seed => 1)$$);

-- A role without read access trains on a sparse table with a budget: the
-- rows it cannot use (NULL, a shorter dimension; d is the longest row's, the
-- public shape) become the fixed public row
-- ({}/d, the first class) with no error and no count, as dense rows do, and
-- the run is charged once.
CREATE ROLE regress_sparse_analyst;
CREATE TABLE sp_mixed AS SELECT * FROM sp_sparse;
INSERT INTO sp_mixed VALUES (1000, '{1:1}/39', true), (1001, NULL, false);
SELECT dp_grant_budget('sp_mixed', 'regress_sparse_analyst', 1.0, 0);
SET ROLE regress_sparse_analyst;
SELECT has_table_privilege('sp_mixed', 'SELECT') AS reads,
       array_length(weights, 1) AS weights, details->'data'->'rows' AS rows, details->'data'->'dim' AS dim
FROM dp_train('sp_mixed', 'y', 'x', epsilon => 1);
SELECT epsilon AS epsilon_left FROM dp_budget_remaining('sp_mixed');
RESET ROLE;
DELETE FROM dptrain.ledger WHERE session_role = 'regress_sparse_analyst' OR role::text = 'regress_sparse_analyst';
DELETE FROM dptrain.models WHERE created_by = 'regress_sparse_analyst';
SELECT dp_revoke_budget('sp_mixed', 'regress_sparse_analyst');
DROP TABLE sp_mixed;
DROP ROLE regress_sparse_analyst;

-- Leave the ledger and the models as found (table_budget.sql and
-- ledger.sql read all of the ledger, opdisc.sql counts models).
DELETE FROM dptrain.ledger WHERE source_name LIKE 'public.sp\_%';
DELETE FROM dptrain.models WHERE source LIKE 'public.sp\_%';
DROP TABLE sp_dense, sp_sparse, sp_ragged, sp_null;
