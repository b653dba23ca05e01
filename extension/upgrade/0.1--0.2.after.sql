
-- ---- back: the user data of 0.1 ------------------------------------------------
INSERT INTO dptrain.models (id, name, algorithm, loss, epsilon, delta, source, classes, weights, seeded, details,
                           created_at, created_by, source_table)
SELECT id, name, algorithm, loss, epsilon, delta, source, classes, weights, seeded, details, created_at, created_by,
       source_table::oid::pg_catalog.regclass
FROM @extschema@.dptrain_update_models;
SELECT pg_catalog.setval('dptrain.models_id_seq', m, m > 0)
FROM (SELECT coalesce(max(id), 0) AS m FROM dptrain.models) q WHERE m > 0;
INSERT INTO dptrain.budgets (source, role, epsilon, delta, spent_epsilon, spent_delta, composition, granted_by,
                            granted_at)
SELECT source::pg_catalog.regclass, role::pg_catalog.regrole, epsilon, delta, spent_epsilon, spent_delta,
       composition, granted_by::pg_catalog.regrole, granted_at
FROM @extschema@.dptrain_update_budgets;
INSERT INTO dptrain.ledger (id, source, source_name, role, session_role, model_id, algorithm, epsilon, delta,
                           budgeted, composition, charged_at)
SELECT id, source::pg_catalog.regclass, source_name, role::pg_catalog.regrole, session_role, model_id, algorithm,
       epsilon, delta, budgeted, composition, charged_at
FROM @extschema@.dptrain_update_ledger;
SELECT pg_catalog.setval('dptrain.ledger_id_seq', m, m > 0)
FROM (SELECT coalesce(max(id), 0) AS m FROM dptrain.ledger) q WHERE m > 0;
DROP TABLE @extschema@.dptrain_update_models, @extschema@.dptrain_update_budgets, @extschema@.dptrain_update_ledger;
-- The dropped tables of 0.1 stay listed as the extension's configuration
-- tables (pg_dump's list of user data) unless removed by hand.
UPDATE pg_catalog.pg_extension e SET extconfig = q.tables, extcondition = q.conditions
FROM (SELECT array_agg(u.tbl ORDER BY u.i) AS tables, array_agg(u.cond ORDER BY u.i) AS conditions
      FROM pg_catalog.pg_extension x, unnest(x.extconfig, x.extcondition) WITH ORDINALITY u(tbl, cond, i)
      WHERE x.extname = 'dptrain' AND EXISTS (SELECT FROM pg_catalog.pg_class c WHERE c.oid = u.tbl)) q
WHERE e.extname = 'dptrain';
