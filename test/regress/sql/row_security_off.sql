-- A role with row_security = off (pg_dump's setting; also a role's or a
-- database's) uses its own models as any other role. dptrain.models has row
-- level security (a role sees its own models, ...: docs/governance.md), and
-- PostgreSQL refuses a query its policies would filter when row_security is
-- off (42501 "query would be affected by row-level security policy") rather
-- than applying them: dp_predict, dp_predict_proba, dp_evaluate, a named
-- dp_train, dp_rename_model and dp_drop_model all failed so. dptrain's own
-- reads of its tables now run with row_security = on (it only applies the
-- policies, never shows more); a source table with row level security is
-- still the caller's read, under the caller's row_security.
SET client_min_messages = warning;
CREATE ROLE regress_rso_user;
CREATE TABLE rso_data AS SELECT i AS id, ARRAY[sin(i), cos(i)]::float8[] AS x, (sin(i) > 0) AS y
FROM generate_series(1, 40) i;
GRANT SELECT ON rso_data TO regress_rso_user;
SET ROLE regress_rso_user;
SELECT classes FROM dp_train('rso_data', 'y', 'x', algorithm => 'none', seed => 1, batch_size => 5, name => 'rso_model');
SET row_security = off;
SELECT dp_predict('rso_model', ARRAY[0.5, 0.5]) IN ('true', 'false') AS predicted;
SELECT cardinality(dp_predict_proba('rso_model', ARRAY[0.5, 0.5])) AS probabilities;
SELECT n FROM dp_evaluate('rso_model', 'rso_data', 'y', 'x');
SELECT classes FROM dp_train('rso_data', 'y', 'x', algorithm => 'none', seed => 1, batch_size => 5, name => 'rso_other');
SELECT dp_rename_model('rso_model', 'rso_renamed') IS NOT NULL AS renamed;
SELECT dp_drop_model('rso_renamed') IS NOT NULL AS dropped;
SELECT dp_drop_model('rso_other') IS NOT NULL AS dropped;
RESET row_security;
RESET ROLE;
SELECT count(*) AS left_over FROM dptrain.models WHERE source = 'public.rso_data';
DELETE FROM dptrain.ledger WHERE source_name = 'public.rso_data';
DROP TABLE rso_data;
DROP ROLE regress_rso_user;
