-- The privacy ledger: budgets granted by table owners, charged (basic
-- composition) before a run reads its rows, in a transaction of its own;
-- refused past the budget with SQLSTATE DP001 and a detail saying requested
-- vs remaining. Private runs are stored here the way `dptrain train` stores
-- them: dptrain.store_model with the model's JSON (epsilon, delta), which
-- charges the model's (epsilon, delta) before storing it. The ledger only
-- looks at those, so any private algorithm is charged the same way
-- (dp_train's runs: governance.sql, table_budget.sql, security_oracle.sql).
SET client_min_messages = warning;
\set SHOW_CONTEXT never
\getenv abs_srcdir PG_ABS_SRCDIR
\set try_sql :abs_srcdir '/sql/include/try.sql'
\i :try_sql
-- A released model as the controller stores it (K = 1: binary).
CREATE FUNCTION pg_temp.model(source text, name text, epsilon float8, delta float8,
                              classes text[] DEFAULT '{no,yes}', seeded boolean DEFAULT false) RETURNS jsonb
LANGUAGE sql AS $$
  SELECT jsonb_build_object(
    'format', 'dptrain-model', 'version', 1, 'name', name, 'algorithm', 'bolton', 'loss', 'logistic',
    'huber_h', 0.1, 'feature_bound', 1.0, 'classes', classes,
    'weights', (SELECT jsonb_agg(jsonb_build_array(0.5, -0.5))
                FROM generate_series(1, CASE WHEN cardinality(classes) = 2 THEN 1 ELSE cardinality(classes) END)),
    'epsilon', epsilon, 'delta', delta, 'seeded', seeded,
    'details', jsonb_build_object('data', jsonb_build_object('source', source)))
$$;

-- This file lists the whole ledger and counts every budget: it needs none at
-- its start. Every file removes what it stored (zz_leftovers.sql), so both
-- counts are 0 in any order; one that leaked shows here, where a bare DELETE
-- hid it from zz_leftovers (it runs after this file).
SELECT count(*) AS ledger_rows_left_before FROM dptrain.ledger;
SELECT count(*) AS budgets_left_before FROM dptrain.budgets;

CREATE ROLE regress_owner;
CREATE ROLE regress_controller;  -- may read the data and run the controller (dptrain train)
CREATE ROLE regress_analyst;     -- may not read the data
GRANT CREATE ON SCHEMA public TO regress_owner;
GRANT EXECUTE ON FUNCTION dptrain.store_model(jsonb) TO regress_controller, regress_analyst;
SET ROLE regress_owner;
CREATE TABLE ledger_data AS SELECT i AS id, ARRAY[sin(i), cos(i)]::float8[] AS x,
       CASE WHEN sin(i) > 0 THEN 'yes' ELSE 'no' END AS y FROM generate_series(1, 50) i;
GRANT SELECT ON ledger_data TO regress_controller;
RESET ROLE;

-- ---- granting ------------------------------------------------------------
\x on
-- only the owner grants
SET ROLE regress_controller;
SELECT * FROM pg_temp.try($$SELECT dp_grant_budget('ledger_data', 'regress_controller', 1, 1e-5)$$);
SET ROLE regress_owner;
SELECT * FROM pg_temp.try($$SELECT dp_grant_budget('ledger_data', 'regress_controller', 0, 0)$$);
SELECT * FROM pg_temp.try($$SELECT dp_grant_budget('ledger_data', 'regress_controller', 'Infinity', 0)$$);
SELECT * FROM pg_temp.try($$SELECT dp_grant_budget('ledger_data', 'regress_controller', 1, 1)$$);
-- 15 significant digits (the ledger's numeric) round it to 1: refused as above, not by the table's CHECK (23514)
SELECT * FROM pg_temp.try($$SELECT dp_grant_budget('ledger_data', 'regress_controller', 1, 0.9999999999999999)$$);
SELECT * FROM pg_temp.try($$SELECT dp_grant_budget('ledger_data', 'regress_controller', 1, NULL)$$);
SELECT * FROM pg_temp.try($$SELECT dp_grant_budget('ledger_data', 'regress_nobody', 1, 0)$$);
SELECT * FROM pg_temp.try($$SELECT dp_grant_budget('ledger_data', 'public', 1, 0)$$);
CREATE TEMP TABLE ledger_temp (x float8[], y boolean);
SELECT * FROM pg_temp.try($$SELECT dp_grant_budget('ledger_temp', 'regress_controller', 1, 0)$$);
\x off
SELECT dp_grant_budget('ledger_data', 'regress_controller', 1, 1e-5);
SELECT dp_grant_budget('ledger_data', 'regress_analyst', 0.5, 0);
SELECT source, role, epsilon, delta, spent_epsilon, spent_delta, composition, granted_by FROM dptrain.budgets ORDER BY role;

-- ---- what is left, and who may see it ------------------------------------
SELECT * FROM dp_budget_remaining('ledger_data', 'regress_controller');  -- the owner may look
SET ROLE regress_controller;
SELECT * FROM dp_budget_remaining('ledger_data');                        -- its own
\x on
SELECT * FROM pg_temp.try($$SELECT dp_budget_remaining('ledger_data', 'regress_analyst')$$);
\x off
SELECT role FROM dptrain.budgets;                                         -- its own row only

-- ---- charging ------------------------------------------------------------
-- Four runs adding up to exactly the budget: 0.1 + 0.2 + 0.3 + 0.4 = 1 (in
-- float8 this sum is 1.0000000000000002; the ledger adds decimals exactly).
SELECT dptrain.store_model(pg_temp.model('public.ledger_data', 'led_' || e, e, 2.5e-6)) > 0 AS stored
FROM unnest(ARRAY[0.1, 0.2, 0.3, 0.4]::float8[]) e;
SELECT * FROM dp_budget_remaining('ledger_data');
-- The next run is refused: DP001, requested vs remaining; no model is stored.
\x on
SELECT * FROM pg_temp.try($$SELECT dptrain.store_model(pg_temp.model('public.ledger_data', 'led_over', 0.001, 0))$$);
\x off
SELECT count(*) AS refused_model_stored FROM dptrain.models WHERE name = 'led_over';

-- More budget: a three-class (one-vs-all) model is charged its total
-- epsilon and delta once (the algorithm splits them over the K models).
RESET ROLE;
SET ROLE regress_owner;
SELECT dp_grant_budget('ledger_data', 'regress_controller', 2, 2e-5);
SET ROLE regress_controller;
SELECT dptrain.store_model(pg_temp.model('public.ledger_data', 'led_multi', 0.6, 1e-5, '{a,b,c}')) > 0 AS stored;
SELECT * FROM dp_budget_remaining('ledger_data');
-- Runs that are not private cannot be charged: no epsilon, or seeded noise.
\x on
SELECT * FROM pg_temp.try($$SELECT dptrain.store_model(pg_temp.model('public.ledger_data', 'led_none', NULL, NULL))$$);
SELECT * FROM pg_temp.try($$SELECT dptrain.store_model(pg_temp.model('public.ledger_data', 'led_seeded', 0.1, 0, seeded => true))$$);
\x off
-- The budget allows 0.4 more epsilon but no more delta.
\x on
SELECT * FROM pg_temp.try($$SELECT dptrain.store_model(pg_temp.model('public.ledger_data', 'led_delta', 0.1, 1e-6))$$);
\x off
SELECT dptrain.store_model(pg_temp.model('public.ledger_data', 'led_pure', 0.4, 0)) > 0 AS pure_dp_fits;

-- The ledger: one row per stored model; the budget's spent = its sum.
RESET ROLE;
SELECT l.source, l.source_name, l.role, l.session_role, m.name AS model, l.algorithm, l.epsilon, l.delta,
       l.budgeted, l.composition
FROM dptrain.ledger l LEFT JOIN dptrain.models m ON m.id = l.model_id ORDER BY l.id;
SELECT b.role, b.spent_epsilon, b.spent_delta, b.spent_epsilon = sum(l.epsilon) AS epsilon_adds_up,
       b.spent_delta = sum(l.delta) AS delta_adds_up
FROM dptrain.budgets b JOIN dptrain.ledger l ON l.source = b.source AND l.role = b.role AND l.budgeted
GROUP BY b.role, b.spent_epsilon, b.spent_delta;

-- ---- the controller's path needs read access -----------------------------
SET ROLE regress_analyst;
\x on
SELECT * FROM pg_temp.try($$SELECT dptrain.store_model(pg_temp.model('public.ledger_data', 'led_analyst', 0.1, 0))$$);
SELECT * FROM pg_temp.try($$SELECT dptrain.store_model(pg_temp.model('public.no_such_table', 'led_x', 0.1, 0))$$);
SELECT * FROM pg_temp.try($$SELECT dptrain.store_model('{"format": "dptrain-model"}')$$);
\x off

-- ---- revoking, granting again ---------------------------------------------
SET ROLE regress_controller;
\x on
SELECT * FROM pg_temp.try($$SELECT dp_revoke_budget('ledger_data', 'regress_controller')$$);
\x off
SET ROLE regress_owner;
SELECT dp_revoke_budget('ledger_data', 'regress_controller') AS revoked,
       dp_revoke_budget('ledger_data', 'regress_controller') AS again;
-- Without a budget row a role that may read the data trains freely: its
-- runs are logged, not charged (even non-private ones).
SET ROLE regress_controller;
SELECT * FROM dp_budget_remaining('ledger_data');
SELECT dptrain.store_model(pg_temp.model('public.ledger_data', 'led_free', NULL, NULL)) > 0 AS stored;
SELECT role, epsilon, budgeted FROM dptrain.ledger WHERE model_id = (SELECT id FROM dptrain.models WHERE name = 'led_free');
-- Granting again refunds nothing: what was spent stays spent.
SET ROLE regress_owner;
SELECT dp_grant_budget('ledger_data', 'regress_controller', 3, 1e-4);
SELECT spent_epsilon, spent_delta FROM dptrain.budgets WHERE role = 'regress_controller'::regrole;
SELECT * FROM dp_budget_remaining('ledger_data', 'regress_controller');
-- A budget lowered below what was spent leaves nothing (not a negative amount).
SELECT dp_grant_budget('ledger_data', 'regress_controller', 1, 0);
SELECT * FROM dp_budget_remaining('ledger_data', 'regress_controller');

-- ---- a dropped table takes its budgets along; the ledger keeps the history
SELECT count(*) AS budgets FROM dptrain.budgets;
DROP TABLE ledger_data;
RESET ROLE;
SELECT count(*) AS budgets FROM dptrain.budgets;
SELECT count(*) AS ledger_rows, count(DISTINCT source_name) AS sources FROM dptrain.ledger;

DROP TABLE ledger_temp;
REVOKE EXECUTE ON FUNCTION dptrain.store_model(jsonb) FROM regress_controller, regress_analyst;
DELETE FROM dptrain.ledger WHERE source_name = 'public.ledger_data';
DELETE FROM dptrain.models WHERE created_by IN ('regress_controller', 'regress_analyst', 'regress_owner');
REVOKE CREATE ON SCHEMA public FROM regress_owner;
DROP ROLE regress_owner, regress_controller, regress_analyst;

-- The event trigger function guarding DROP EXTENSION, called directly, says
-- so with the event trigger protocol's SQLSTATE (it was XX000, an internal error).
SELECT code, message, hint FROM pg_temp.try($$SELECT dptrain.guard_ledger()$$);
