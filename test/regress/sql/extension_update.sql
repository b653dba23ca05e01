-- ALTER EXTENSION dptrain UPDATE from the released 0.1: the updated database
-- has exactly the objects of a fresh install of the current version, and
-- keeps every model, budget and ledger row of 0.1 (with their ids).
SET client_min_messages = warning;
CREATE DATABASE dptrain_update_fresh;
CREATE DATABASE dptrain_update_old;

\c dptrain_update_fresh
SET client_min_messages = warning;
CREATE EXTENSION dptrain;
-- Every member object of the extension, and every column of its tables.
CREATE VIEW pg_temp.members AS
SELECT pg_describe_object(d.classid, d.objid, 0) AS object
FROM pg_depend d
WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
  AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'dptrain')
UNION ALL
SELECT format('column %s.%s %s', a.attrelid::regclass, a.attname, format_type(a.atttypid, a.atttypmod))
FROM pg_attribute a JOIN pg_depend d ON d.objid = a.attrelid AND d.classid = 'pg_class'::regclass
WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e' AND a.attnum > 0 AND NOT a.attisdropped
  AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'dptrain');
SELECT string_agg(object, E'\n' ORDER BY object) AS fresh_objects, count(*) > 100 AS many FROM pg_temp.members \gset
SELECT :'many' AS fresh_install_has_objects;

\c dptrain_update_old
SET client_min_messages = warning;
CREATE EXTENSION dptrain VERSION '0.1';
SELECT extversion FROM pg_extension WHERE extname = 'dptrain';
CREATE ROLE regress_update_analyst;
CREATE TABLE up_pts AS SELECT i AS id, ARRAY[sin(i), cos(i)]::float8[] AS x, sin(i) > 0 AS y
FROM generate_series(1, 50) i;
-- What a 0.1 database holds (rows as 0.1 wrote them).
INSERT INTO dptrain.models (id, name, algorithm, loss, epsilon, delta, source, classes, weights, seeded, details,
                           created_by, source_table)
VALUES (7, 'old_model', 'bolton', 'logistic', 1, 1e-6, 'up_pts', '{false,true}', '{0.5,-0.25}', false,
        '{"hyperparameters": {"feature_bound": 1, "huber_h": 0.1}}', current_user, 'up_pts');
SELECT setval('dptrain.models_id_seq', 7);
INSERT INTO dptrain.budgets (source, role, epsilon, delta, spent_epsilon, spent_delta, granted_by)
VALUES ('up_pts', 'regress_update_analyst', 2, 1e-5, 1, 1e-6, current_user::regrole);
INSERT INTO dptrain.ledger (id, source, source_name, role, session_role, model_id, algorithm, epsilon, delta, budgeted)
VALUES (3, 'up_pts', 'public.up_pts', 'regress_update_analyst', session_user, 7, 'bolton', 1, 1e-6, true);
SELECT setval('dptrain.ledger_id_seq', 3);

ALTER EXTENSION dptrain UPDATE;
SELECT extversion = (SELECT default_version FROM pg_available_extensions WHERE name = 'dptrain') AS current
FROM pg_extension WHERE extname = 'dptrain';

-- The same objects as a fresh install, in both directions.
CREATE VIEW pg_temp.members AS
SELECT pg_describe_object(d.classid, d.objid, 0) AS object
FROM pg_depend d
WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
  AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'dptrain')
UNION ALL
SELECT format('column %s.%s %s', a.attrelid::regclass, a.attname, format_type(a.atttypid, a.atttypmod))
FROM pg_attribute a JOIN pg_depend d ON d.objid = a.attrelid AND d.classid = 'pg_class'::regclass
WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e' AND a.attnum > 0 AND NOT a.attisdropped
  AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'dptrain');
SELECT object AS missing_after_update
FROM unnest(string_to_array(:'fresh_objects', E'\n')) object
EXCEPT SELECT object FROM pg_temp.members ORDER BY 1;
SELECT object AS extra_after_update FROM pg_temp.members
EXCEPT SELECT object FROM unnest(string_to_array(:'fresh_objects', E'\n')) object ORDER BY 1;

-- The data of 0.1, in the shapes of today.
SELECT id, name, algorithm, epsilon, source_table::regclass, private FROM dptrain.models;
SELECT dp_predict('old_model', ARRAY[1, 0]) AS predicted, dp_predict(7, ARRAY[0, 1]) AS predicted_by_id;
SELECT source::regclass, role::regrole, epsilon, spent_epsilon FROM dptrain.budgets;
SELECT epsilon FROM dp_budget_remaining('up_pts', 'regress_update_analyst');
SELECT id, source::regclass, role::regrole, model_id, budgeted, capped FROM dptrain.ledger;
SELECT nextval('dptrain.models_id_seq') > 7 AS models_ids_continue, nextval('dptrain.ledger_id_seq') > 3 AS ledger_ids_continue;
-- The extension's data is still dumped with the database.
SELECT array_agg(c::regclass::text ORDER BY c::regclass::text) AS dumped_tables
FROM pg_extension e, unnest(e.extconfig) c WHERE e.extname = 'dptrain';

\c contrib_regression
SET client_min_messages = warning;
DROP DATABASE dptrain_update_old;
DROP DATABASE dptrain_update_fresh;
DROP ROLE regress_update_analyst;
