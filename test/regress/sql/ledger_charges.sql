-- The ledger charges what each released model claims, in every path of
-- dp_tune and of one-vs-all: each run's ledger row against the value computed
-- by hand, and the model against its ledger row. The ledger's relation is
-- replace-one (docs/accounting.md, "Adjacency"): a replace-one run (bolton,
-- AMP, ...) is charged its own (epsilon, delta) and the model claims exactly
-- that; an add/remove-one run (the DP-SGD family, DP-AGD) is charged the
-- group-privacy conversion (2 epsilon, (1 + e^epsilon) delta) (Vadhan 2017,
-- Lemma 2.2, k = 2) and the model records that charge in
-- details.privacy.charged. dp_train's single runs are in ledger_adjacency.sql,
-- dp_tune's holdout bolton in tuning.sql. Each amount is rounded up to the 15
-- significant digits the ledger keeps (ledger_digits_up, unit-tested): the
-- hand values below are shown to 10 digits.
-- Run as the table's owner without a budget: every private run is charged.
\getenv abs_srcdir PG_ABS_SRCDIR
\set try_sql :abs_srcdir '/sql/include/try.sql'
\i :try_sql
CREATE TABLE lc_two AS
SELECT i AS id, ARRAY[sin(i * 0.7), 0.5 * cos(i * 1.3)]::float8[] AS x, sin(i * 0.7) > 0 AS y
FROM generate_series(1, 600) i;
CREATE TABLE lc_three AS
SELECT i AS id, ARRAY[cos(i * 0.37), sin(i * 0.37), 0.25]::float8[] AS x,
       (ARRAY['a', 'b', 'c'])[1 + (i % 3)] AS label
FROM generate_series(1, 600) i;

-- One model against its ledger row: the row as stored (delta in units of
-- 1e-6, to 10 decimals), and where the model records it -- "own" when the
-- model's (epsilon, delta) is the row (replace-one), "charged" when its
-- details.privacy.charged is (add/remove-one); anything else is a mismatch.
-- (The ledger keeps 15 significant digits of the float8 amounts.)
CREATE FUNCTION pg_temp.charge_of(model bigint) RETURNS TABLE (
    algorithm text, ledger_epsilon numeric, ledger_delta_e6 numeric, recorded text)
LANGUAGE sql AS $$
  SELECT l.algorithm, l.epsilon, round(l.delta * 1e6, 10),
         CASE WHEN c IS NULL AND abs(l.epsilon - m.epsilon::numeric) <= 1e-14 * l.epsilon
                   AND abs(l.delta - m.delta::numeric) <= 1e-14 * l.delta THEN 'own'
              WHEN c->>'adjacency' = 'replace-one'
                   AND abs(l.epsilon - (c->>'epsilon')::numeric) <= 1e-14 * l.epsilon
                   AND abs(l.delta - (c->>'delta')::numeric) <= 1e-14 * l.delta THEN 'charged'
              ELSE 'MISMATCH: model ' || m.epsilon || ', ' || m.delta || ', charged ' || coalesce(c::text, '-') END
  FROM dptrain.ledger l JOIN dptrain.models m ON m.id = l.model_id,
       LATERAL (SELECT m.details->'privacy'->'charged') AS x(c)
  WHERE l.model_id = model
$$;

SET client_min_messages = warning;
-- 1. dp_tune, Liu-Talwar random stopping (docs/tuning.md §4). The model
--    claims the requested TOTAL (epsilon, delta) of the search (Theorem 3.4's
--    bound of the split is at most that, checked); Theorem 3.4 holds under
--    the candidates' own relation, so an add/remove-one search is charged the
--    conversion of the total, once.
-- DP-AGD at the total (0.5, 1e-6): charged (2 * 0.5, (1 + e^0.5) 1e-6)
--   = (1, (1 + 1.6487212707001282) 1e-6) = (1, 2.6487212707e-6).
SELECT c.*, t.epsilon AS model_epsilon, t.delta AS model_delta, t.details->'tuning'->>'method' AS method
FROM dp_tune('lc_two', 'y', 'x', algorithm => 'dpagd', epsilon => 0.5, delta => 1e-6, method => 'liu_talwar',
             grid => '{"lambda": [0.001, 0.01], "splits": [10]}') t, pg_temp.charge_of(t.model_id) c;
-- DP-SGD at the total (0.4, 1e-6): charged (0.8, (1 + e^0.4) 1e-6)
--   = (0.8, (1 + 1.4918246976412703) 1e-6) = (0.8, 2.4918246976e-6).
SELECT c.*, t.epsilon AS model_epsilon, t.delta AS model_delta, t.details->'tuning'->>'method' AS method
FROM dp_tune('lc_two', 'y', 'x', algorithm => 'dpsgd', epsilon => 0.4, delta => 1e-6, method => 'liu_talwar',
             grid => '{"learning_rate": [0.1, 0.5], "epochs": [1]}', classes => ARRAY['false', 'true']) t,
     pg_temp.charge_of(t.model_id) c;
-- Bolt-on (replace-one) at the total (0.7, 1e-6): charged (0.7, 1e-6), no conversion.
SELECT c.*, t.epsilon AS model_epsilon, t.delta AS model_delta, t.details->'tuning'->>'method' AS method
FROM dp_tune('lc_two', 'y', 'x', algorithm => 'bolton', epsilon => 0.7, delta => 1e-6, method => 'liu_talwar',
             grid => '{"lambda": [0.001, 0.01], "epochs": [1]}', classes => ARRAY['false', 'true']) t,
     pg_temp.charge_of(t.model_id) c;
-- AMP (replace-one) at the total (0.9, 1e-6): charged (0.9, 1e-6).
SELECT c.*, t.epsilon AS model_epsilon, t.delta AS model_delta, t.details->'tuning'->>'method' AS method
FROM dp_tune('lc_two', 'y', 'x', algorithm => 'amp', epsilon => 0.9, delta => 1e-6, method => 'liu_talwar',
             gamma => 1, grid => '{"lambda": [0.01]}', classes => ARRAY['false', 'true']) t,
     pg_temp.charge_of(t.model_id) c;

-- 2. dp_tune, held-out selection (Bolt-on Algorithm 3, replace-one only):
--    Bolt-on's charge (0.6, 1e-7) = its model's is pinned in tuning.sql, §5.
-- ... and the add/remove-one algorithms are refused there (0A000) before any
-- charge (DP-AGD's refusal is in ledger_adjacency.sql): no ledger row.
SELECT count(*) AS rows_before FROM dptrain.ledger WHERE source = 'lc_two'::regclass \gset
SELECT code FROM pg_temp.try($$SELECT dp_tune('lc_two', 'y', 'x', algorithm => 'dpsgd', epsilon => 0.5, delta => 1e-6,
                                             method => 'holdout', lambdas => '{0}', epochs => '{1}',
                                             classes => ARRAY['false', 'true'])$$);
SELECT count(*) - :rows_before AS new_rows FROM dptrain.ledger WHERE source = 'lc_two'::regclass;

-- 3. One-vs-all over 3 declared classes: the run is charged the total once,
--    neither a per-model share nor K times the total.
-- Bolt-on, per-model split: each model (0.9/3, 3e-6/3) = (0.3, 1e-6), basic
-- composition over the 3: charged (0.9, 3e-6).
SELECT c.*, (t.details->'privacy'->>'per_model_epsilon')::float8 AS per_model_epsilon,
       round((t.details->'privacy'->>'per_model_delta')::numeric * 1e6, 10) AS per_model_delta_e6
FROM dp_train('lc_three', 'label', 'x', algorithm => 'bolton', epsilon => 0.9, delta => 3e-6, epochs => 1,
              classes => ARRAY['a', 'b', 'c']) t, pg_temp.charge_of(t.model_id) c;
-- Bolt-on, joint release: one Gaussian of sensitivity sqrt(3) Delta at the
-- full (0.9, 3e-6): charged (0.9, 3e-6).
SELECT c.*, t.details->'privacy'->>'multiclass_noise' AS multiclass_noise,
       (t.details->'privacy'->'noise'->>'epsilon')::float8 AS noise_epsilon
FROM dp_train('lc_three', 'label', 'x', algorithm => 'bolton', epsilon => 0.9, delta => 3e-6, epochs => 1,
              classes => ARRAY['a', 'b', 'c'], options => '{"multiclass_noise": "joint"}') t,
     pg_temp.charge_of(t.model_id) c;
-- DP-SGD (add/remove-one), the 3 models clipped jointly at (0.3, 1e-6):
-- charged (0.6, (1 + e^0.3) 1e-6) = (0.6, (1 + 1.3498588075760032) 1e-6)
-- = (0.6, 2.3498588076e-6); the model keeps the accountant's epsilon <= 0.3.
SELECT c.*, t.epsilon <= 0.3 AS model_within, t.delta AS model_delta
FROM dp_train('lc_three', 'label', 'x', algorithm => 'dpsgd', epsilon => 0.3, delta => 1e-6, epochs => 1,
              classes => ARRAY['a', 'b', 'c']) t, pg_temp.charge_of(t.model_id) c;

-- Every run above charged once, under replace-one.
SELECT source_name, count(*) AS runs FROM dptrain.ledger
WHERE source IN ('lc_two'::regclass, 'lc_three'::regclass) GROUP BY 1 ORDER BY 1;

DELETE FROM dptrain.models WHERE source_table IN ('lc_two'::regclass, 'lc_three'::regclass);
DELETE FROM dptrain.ledger WHERE source IN ('lc_two'::regclass, 'lc_three'::regclass);
DROP TABLE lc_two, lc_three;
RESET client_min_messages;
