-- Runs last (the files run in name order): every file removes the models,
-- ledger rows, budgets, caps, encodings and load specs it stored and the roles
-- it created, so that no file depends on what another left behind (each file
-- also passes alone, and twice in a row). Every count here is 0.
SELECT count(*) AS models_left FROM dptrain.models;
SELECT count(*) AS ledger_rows_left FROM dptrain.ledger;
SELECT count(*) AS budgets_left FROM dptrain.budgets;
SELECT count(*) AS caps_left FROM dptrain.table_budgets;
SELECT count(*) AS encodings_left FROM dptrain.feature_encodings;
SELECT count(*) AS load_specs_left FROM dptrain.load_specs;
SELECT count(*) AS roles_left FROM pg_roles
WHERE rolname LIKE 'regress\_%' OR rolname IN ('lt_analyst', 'lt_owner', 'tune_analyst', 'tune_owner', 'tune_someone');
