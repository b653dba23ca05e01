-- Features from ordinary columns (issue 16 item 4, docs/encoding.md): an
-- encoding declared from public bounds and categories, an encoded view to
-- train on, the encoding stored with the model, and raw rows scored with it.
SET client_min_messages = notice;
\getenv abs_srcdir PG_ABS_SRCDIR
\set try_sql :abs_srcdir '/sql/include/try.sql'
\i :try_sql

CREATE TABLE enc_people (id int, age int, hours float8, sex text, owner boolean, city text, y boolean);
INSERT INTO enc_people
SELECT i, 17 + (i * 37) % 74, 10 + (i * 13) % 60, CASE WHEN i % 3 = 0 THEN 'Female' ELSE 'Male' END,
       i % 4 = 0, CASE i % 5 WHEN 0 THEN 'Oslo' WHEN 1 THEN 'Rome' ELSE 'Lima' END,
       (17 + (i * 37) % 74) + (10 + (i * 13) % 60) > 80 OR i % 4 = 0
FROM generate_series(1, 400) i;
CREATE TABLE enc_people_test AS SELECT * FROM enc_people WHERE id % 4 = 1;

-- ---- 1. the encoding: public bounds and declared categories --------------------------
SELECT jsonb_pretty(dp_encoding('enc_people', ARRAY['age', 'sex', 'owner'],
                                bounds => '{"age": [17, 90]}', categories => '{"sex": ["Female", "Male"]}'));
-- by hand: age 53.5 -> 0.5, Male -> (0, 1), owner -> 1; norm 1.5: (1/3, 0, 2/3, 2/3)
SELECT dptrain.encode_row(dp_encoding('enc_people', ARRAY['age', 'sex', 'owner'], bounds => '{"age": [17, 90]}',
                                      categories => '{"sex": ["Female", "Male"]}'), '53.5', 'Male', 't') AS x;
-- NULL numbers: no features (the row counts as NULL features); NULL text: all zeros
SELECT dptrain.encode_row(dp_encoding('enc_people', ARRAY['age', 'sex'], bounds => '{"age": [17, 90]}',
                                      categories => '{"sex": ["Female", "Male"]}'), NULL, 'Male') AS null_age,
       dptrain.encode_row(dp_encoding('enc_people', ARRAY['age', 'sex'], bounds => '{"age": [17, 90]}',
                                      categories => '{"sex": ["Female", "Male"]}'), '90', NULL) AS null_sex;
-- categories read from the data: said so, and recorded in the encoding
SELECT e->'columns'->0 AS city FROM dp_encoding('enc_people', ARRAY['city']) e;

-- ---- 2. bad declarations: clear errors -----------------------------------------------------
\x on
SELECT * FROM pg_temp.try($$SELECT dp_encoding('enc_people', ARRAY['age'])$$);
SELECT * FROM pg_temp.try($$SELECT dp_encoding('enc_people', ARRAY['age'], bounds => '{"age": [90, 17]}')$$);
SELECT * FROM pg_temp.try($$SELECT dp_encoding('enc_people', ARRAY['age'], bounds => '{"age": [17, 90], "agee": [0, 1]}')$$);
SELECT * FROM pg_temp.try($$SELECT dp_encoding('enc_people', ARRAY['nope'])$$);
SELECT * FROM pg_temp.try($$SELECT dp_encoding('enc_people', ARRAY['owner', 'owner'])$$);
SELECT * FROM pg_temp.try($$SELECT dp_encoding('enc_people', ARRAY['sex'], categories => '{"sex": []}')$$);
SELECT * FROM pg_temp.try($$SELECT dp_encoding('enc_people', ARRAY['owner'], normalization => 'none')$$);
SELECT * FROM pg_temp.try($$SELECT dp_encoding('enc_people', '{}')$$);
SELECT * FROM pg_temp.try($$SELECT dp_encoding('enc_people', ARRAY['owner'], bounds => '[]')$$);
SELECT * FROM pg_temp.try($$SELECT dptrain.encode_json_row('{"columns": [{"name": "a", "type": "numeric", "bounds": [0, 1]}]}', '{"a": "secret"}')$$);
SELECT * FROM pg_temp.try($$SELECT dptrain.encode_json_row('{"columns": [{"name": "a", "type": "boolean"}]}', '[1]')$$);
\x off

-- ---- 3. an encoded view, a model trained on it, its encoding stored ------------------------
SELECT dp_encoded_view('enc_people_view', 'enc_people', 'y', ARRAY['age', 'hours', 'sex', 'owner', 'city'],
                       bounds => '{"age": [17, 90], "hours": [0, 99]}',
                       categories => '{"sex": ["Female", "Male"], "city": ["Lima", "Oslo", "Rome"]}') AS view;
SELECT count(*) AS rows, min(array_length(x, 1)) AS dim, max(abs(sqrt((SELECT sum(v * v) FROM unnest(x) v)) - 1)) < 1e-9 AS unit_rows
FROM enc_people_view;
SELECT model_id AS enc_model FROM dp_train('enc_people_view', 'y', 'x', algorithm => 'none', classes => ARRAY['false', 'true'],
       epochs => 5, batch_size => 10, name => 'enc_model', seed => 1) \gset
SELECT details->'encoding' = (SELECT encoding FROM dptrain.feature_encodings WHERE relation = 'enc_people_view'::regclass)
       AS encoding_stored,
       details->'encoding'->'dim' AS dim
FROM dptrain.models WHERE id = :enc_model;
-- a model of a plain table has none
CREATE TABLE enc_people_plain AS SELECT y, x FROM enc_people_view;
-- dp_features keeps the model's encoding for the other calls of its call
-- site, and a PL/pgSQL function's call sites last the whole transaction: a
-- rename earlier in the same transaction left it the model of the old name.
CREATE FUNCTION pg_temp.enc_features(model text) RETURNS float8[] LANGUAGE plpgsql AS
  $$ BEGIN RETURN dp_features(model, '{"age": 40, "hours": 40, "sex": "Male", "owner": true, "city": "Rome"}'); END $$;
BEGIN;
SELECT cardinality(pg_temp.enc_features('enc_model')) AS dim;
SELECT dp_rename_model('enc_model', 'enc_model_renamed') = :enc_model AS renamed;
SELECT * FROM pg_temp.try($$SELECT pg_temp.enc_features('enc_model')$$);
ROLLBACK;
SELECT model_id AS plain_model FROM dp_train('enc_people_plain', 'y', 'x', algorithm => 'none', classes => ARRAY['false', 'true'],
       epochs => 1, batch_size => 10, seed => 1, name => 'plain_model') \gset

-- ---- 4. raw rows scored with the stored encoding -------------------------------------------
-- dp_features(model, to_jsonb(row)) is the very vector the view gave the training run
SELECT count(*) AS rows, count(*) FILTER (WHERE dp_features(:enc_model, to_jsonb(p)) = v.x) AS same_vector
FROM enc_people p, LATERAL (SELECT dptrain.encode_row((SELECT encoding FROM dptrain.feature_encodings
                                                   WHERE relation = 'enc_people_view'::regclass),
                                                  p.age::text, p.hours::text, p.sex, p.owner::text, p.city) AS x) v;
-- by name and by id, the same predictions
SELECT bool_and(dp_predict('enc_model', dp_features('enc_model', to_jsonb(p)))
                = dp_predict(:enc_model, dp_features(:enc_model, to_jsonb(p)))) AS same_prediction
FROM enc_people_test p;
-- a held-out raw table, evaluated through a view with the model's encoding
SELECT dp_encoded_view('pg_temp.enc_people_test_view', 'enc_people_test', 'y',
                       encoding => (SELECT details->'encoding' FROM dptrain.models WHERE id = :enc_model)) IS NOT NULL AS view;
SELECT e.n, e.accuracy > e.majority_rate AS beats_majority,
       e.accuracy = (SELECT avg((dp_predict(:enc_model, dp_features(:enc_model, to_jsonb(p))) = p.y::text)::int)
                     FROM enc_people_test p) AS same_as_row_by_row
FROM dp_evaluate(:enc_model, 'pg_temp.enc_people_test_view', 'y', 'x') e;
\x on
SELECT * FROM pg_temp.try($$SELECT dp_features('plain_model', '{}')$$);
SELECT * FROM pg_temp.try($$SELECT dp_features('no_such_model', '{}')$$);
SELECT * FROM pg_temp.try($$SELECT dp_encoded_view('v2', 'enc_people', 'y')$$);
SELECT * FROM pg_temp.try($$SELECT dp_encoded_view('v2', 'enc_people', 'x', ARRAY['owner'])$$);
-- view names (parse_ident's and CREATE VIEW's own errors had no hint): not an identifier, three
-- parts, a schema that does not exist, an existing relation
SELECT * FROM pg_temp.try($$SELECT dp_encoded_view('my view', 'enc_people', 'y', ARRAY['owner'])$$);
SELECT * FROM pg_temp.try($$SELECT dp_encoded_view('', 'enc_people', 'y', ARRAY['owner'])$$);
SELECT * FROM pg_temp.try($$SELECT dp_encoded_view('db.s.v', 'enc_people', 'y', ARRAY['owner'])$$);
SELECT * FROM pg_temp.try($$SELECT dp_encoded_view('no_schema.v', 'enc_people', 'y', ARRAY['owner'])$$);
SELECT * FROM pg_temp.try($$SELECT dp_encoded_view('enc_people', 'enc_people', 'y', ARRAY['owner'])$$);
\x off

-- ---- 5. the registry: only dp_encoded_view registers, only what it just created -----------
-- another role, an existing view, a table, a temporary view: refused
CREATE ROLE regress_enc_other;
SET ROLE regress_enc_other;
\x on
SELECT * FROM pg_temp.try($$SELECT dptrain.register_encoding('enc_people_view', '{"columns": [{"name": "owner", "type": "boolean"}]}')$$);
SELECT * FROM pg_temp.try($$INSERT INTO dptrain.feature_encodings VALUES ('enc_people_view', '{}', 'me')$$);
-- no CREATE on the source's schema, where an unqualified view_name goes
SELECT * FROM pg_temp.try($$SELECT dp_encoded_view('enc_other_view', 'enc_people', 'y', ARRAY['owner'])$$);
\x off
RESET ROLE;
\x on
SELECT * FROM pg_temp.try($$SELECT dptrain.register_encoding('enc_people_view', '{"columns": [{"name": "owner", "type": "boolean"}]}')$$);
SELECT * FROM pg_temp.try($$SELECT dptrain.register_encoding('enc_people', '{"columns": [{"name": "owner", "type": "boolean"}]}')$$);
-- a reused encoding must fit the columns' types (here: a numeric encoding of a text column)
SELECT * FROM pg_temp.try($$SELECT dp_encoded_view('v3', 'enc_people', 'y',
       encoding => '{"columns": [{"name": "sex", "type": "numeric", "bounds": [0, 1]}]}')$$);
\x off
-- the temporary evaluation view was not registered
SELECT count(*) AS registered, bool_and(relation = 'enc_people_view'::regclass) AS only_the_view
FROM dptrain.feature_encodings;
-- a view redefined after its registration loses its encoding: models trained on it carry none
CREATE OR REPLACE VIEW enc_people_view AS SELECT y, x FROM enc_people_plain;
SELECT details ? 'encoding' AS redefined_view_model_has_encoding
FROM dp_train('enc_people_view', 'y', 'x', algorithm => 'none', classes => ARRAY['false', 'true'], epochs => 1, seed => 1);

-- categories read from the data: never written into a view, whose definition every role can
-- read (pg_views, also of a temporary view): a new encoding and a reused one are refused
\x on
SELECT * FROM pg_temp.try($$SELECT dp_encoded_view('enc_people_city', 'enc_people', 'y', ARRAY['city', 'owner'])$$);
SELECT * FROM pg_temp.try($$SELECT dp_encoded_view('pg_temp.enc_city_tmp', 'enc_people', 'y',
                            encoding => dp_encoding('enc_people', ARRAY['city', 'owner']))$$);
\x off
SELECT count(*) AS views_created FROM pg_views WHERE viewname IN ('enc_people_city', 'enc_city_tmp');
-- the one-call form keeps them inside the model: a reader's model carries a warning, and is not
-- private (visible to its creator and the table's owner only; `dptrain export` says so)
SELECT model_id AS city_model FROM dp_train('enc_people', 'y', ARRAY['city', 'owner'], algorithm => 'bolton',
       epsilon => 1, epochs => 1, classes => ARRAY['false', 'true']) \gset
SELECT model_id AS declared_model FROM dp_train('enc_people', 'y', ARRAY['city', 'owner'],
       categories => '{"city": ["Lima", "Oslo", "Rome"]}', algorithm => 'bolton', epsilon => 1, epochs => 1,
       classes => ARRAY['false', 'true']) \gset
SELECT id = :city_model AS from_data, details->'warnings' AS warnings,
       details->'encoding'->'columns'->0->'categories_from_data' AS categories_from_data, private
FROM dptrain.models WHERE id IN (:city_model, :declared_model) ORDER BY id;
-- and scores raw rows with it in one call, no view
SELECT e.n FROM dp_evaluate(:city_model, 'enc_people_test', 'y') e;
-- a view registered by hand with such an encoding: a role without read access may not train
-- on it (it would learn them), before anything is charged
SELECT dp_encoding('enc_people', ARRAY['city', 'owner']) AS city_encoding \gset
BEGIN;
CREATE VIEW enc_people_city AS
SELECT y, dptrain.encode_row(:'city_encoding'::jsonb, city, owner::text) AS x FROM enc_people;
SELECT dptrain.register_encoding('enc_people_city', :'city_encoding');
COMMIT;
SELECT dp_grant_budget('enc_people_city', 'regress_enc_other', 5, 0);
SELECT count(*) AS ledger_before FROM dptrain.ledger \gset
SET ROLE regress_enc_other;
\x on
SELECT * FROM pg_temp.try($$SELECT dp_train('enc_people_city', 'y', 'x', algorithm => 'bolton', epsilon => 1,
                                           classes => ARRAY['false', 'true'])$$);
\x off
RESET ROLE;
SELECT count(*) = :ledger_before AS nothing_charged FROM dptrain.ledger;
SELECT dp_revoke_budget('enc_people_city', 'regress_enc_other');

-- a dropped view forgets its registration; dropping a column of a table forgets nothing
ALTER TABLE enc_people_plain ADD COLUMN spare int;
ALTER TABLE enc_people_plain DROP COLUMN spare;
SELECT count(*) AS registered FROM dptrain.feature_encodings;
DROP VIEW enc_people_city;
DROP VIEW enc_people_view;
SELECT count(*) AS registered FROM dptrain.feature_encodings;
SELECT details ? 'encoding' AS model_keeps_its_encoding FROM dptrain.models WHERE id = :enc_model;
DROP ROLE regress_enc_other;

-- Leave no model or ledger row behind: other files read the whole ledger.
DELETE FROM dptrain.ledger WHERE source_name LIKE 'public.enc\_%';
DELETE FROM dptrain.models WHERE source LIKE 'public.enc\_%';
-- Drop what this file created: it runs again in the same database.
DROP VIEW pg_temp.enc_people_test_view;
DROP TABLE enc_people, enc_people_test, enc_people_plain;
