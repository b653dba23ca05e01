-- Training and evaluating on ordinary columns in ONE call (issue 16 item 4,
-- docs/encoding.md): dp_train(..., features => ARRAY[...], bounds, categories)
-- applies the encoding inside the run's own statements and stores it with
-- the model; dp_evaluate without a features column applies the stored one.
SET client_min_messages = notice;
\getenv abs_srcdir PG_ABS_SRCDIR
\set try_sql :abs_srcdir '/sql/include/try.sql'
\i :try_sql

-- A raw table with a hostile column name (quotes, a semicolon, a comment).
CREATE TABLE col_people (id int, age int, "we""ird; DROP TABLE col_people; --" float8, sex text, owner boolean,
                         city text, y boolean);
INSERT INTO col_people
SELECT i, 17 + (i * 37) % 74, 10 + (i * 13) % 60, CASE WHEN i % 3 = 0 THEN 'Female' ELSE 'Male' END,
       i % 4 = 0, CASE i % 5 WHEN 0 THEN 'Oslo' WHEN 1 THEN 'Rome' ELSE 'Lima' END,
       (17 + (i * 37) % 74) + (10 + (i * 13) % 60) > 80 OR i % 4 = 0
FROM generate_series(1, 400) i;
CREATE TABLE col_people_test AS SELECT * FROM col_people WHERE id % 4 = 1;
\set feats 'ARRAY[''age'', ''we"ird; DROP TABLE col_people; --'', ''sex'', ''owner'', ''city'']'
\set bounds '''{"age": [17, 90], "we\\"ird; DROP TABLE col_people; --": [0, 99]}'''
\set cats '''{"sex": ["Female", "Male"], "city": ["Lima", "Oslo", "Rome"]}'''

-- ---- 1. one statement: train on the raw columns, evaluate on raw held-out rows --------------
SELECT m.algorithm, e.n, e.accuracy > e.majority_rate AS beats_majority, m.details->'encoding'->'dim' AS dim
FROM dp_train('col_people', 'y', features => :feats, bounds => :bounds, categories => :cats,
              algorithm => 'none', epochs => 5, batch_size => 10, seed => 1, name => 'col_model') m,
     LATERAL dp_evaluate(m.model_id, 'col_people_test', 'y') e;
SELECT id AS col_model FROM dptrain.models WHERE name = 'col_model' \gset
-- the hostile name was quoted, never pasted: the table is still there
SELECT count(*) AS rows_still_there FROM col_people;

-- ---- 2. the model: the raw table as its source, dp_encoding's encoding -------------------
SELECT source, source_table, details->'encoding' = dp_encoding('col_people', :feats, :bounds, :cats) AS same_encoding,
       details->'encoding'->'columns'->1->>'name' AS hostile_name
FROM dptrain.models WHERE id = :col_model;

-- ---- 3. the same run as through an encoded view: the very same weights ---------------------
SELECT dp_encoded_view('col_people_view', 'col_people', 'y', :feats, :bounds, :cats) IS NOT NULL AS view;
SELECT v.weights = c.weights AS same_weights, v.details->'encoding' = c.details->'encoding' AS same_encoding
FROM dp_train('col_people_view', 'y', 'x', algorithm => 'none', epochs => 5, batch_size => 10, seed => 1) v,
     dptrain.models c WHERE c.id = :col_model;
-- evaluating on raw rows = evaluating on the view with the model's encoding
SELECT r = v AS same_metrics
FROM dp_evaluate(:col_model, 'col_people', 'y') r, dp_evaluate(:col_model, 'col_people_view', 'y', 'x') v;
SELECT r = v AS same_metrics_by_name
FROM dp_evaluate('col_model', 'col_people_test', 'y', NULL) r, dp_evaluate(:col_model, 'col_people_test', 'y') v;

-- ---- 4. the features-column form still resolves as before -------------------------------
-- an unknown literal prefers text to text[]: dp_train(regclass, text, text, ...)
CREATE TABLE col_plain AS SELECT y, x FROM col_people_view;
SELECT algorithm, details ? 'encoding' AS has_encoding
FROM dp_train('col_plain', 'y', 'x', algorithm => 'none', epochs => 1, seed => 1);
SELECT algorithm FROM dp_train('col_plain', 'y', 'x', 'none', seed => 1, epochs => 1);
SELECT algorithm, details ? 'encoding' AS has_encoding
FROM dp_train('col_people', 'y', ARRAY['owner'], 'none', seed => 1, epochs => 1);

-- dp_tune takes the same columns; the chosen model stores the encoding too
SELECT algorithm, candidates, details->'encoding' = dp_encoding('col_people', :feats, :bounds, :cats) AS same_encoding
FROM dp_tune('col_people', 'y', :feats, bounds => :bounds, categories => :cats, epsilon => 1,
             lambdas => '{0.001, 0.01}', epochs => '{1}', batch_sizes => '{10}', seed => 1);
SELECT algorithm, candidates FROM dp_tune('col_plain', 'y', 'x', epsilon => 1, lambdas => '{0.001}', epochs => '{1}',
                                          batch_sizes => '{10}', seed => 1);

-- ---- 5. bad declarations and bad columns: clear errors -------------------------------------
\x on
SELECT * FROM pg_temp.try($$SELECT dp_train('col_people', 'y', ARRAY['age'], algorithm => 'none', seed => 1)$$);
SELECT * FROM pg_temp.try($$SELECT dp_train('col_people', 'y', ARRAY['age'], bounds => '{"age": [90, 17]}',
                                            algorithm => 'none', seed => 1)$$);
SELECT * FROM pg_temp.try($$SELECT dp_train('col_people', 'y', ARRAY['age'], bounds => '{"age": [17, "old"]}',
                                            algorithm => 'none', seed => 1)$$);
-- (a third bound was ignored; categories that are not text failed as a JSON type error)
SELECT * FROM pg_temp.try($$SELECT dp_train('col_people', 'y', ARRAY['age'], bounds => '{"age": [17, 90, 200]}',
                                            algorithm => 'none', seed => 1)$$);
SELECT * FROM pg_temp.try($$SELECT dp_train('col_people', 'y', ARRAY['sex'], categories => '{"sex": [1, 2]}',
                                            algorithm => 'none', seed => 1)$$);
SELECT * FROM pg_temp.try($$SELECT dp_train('col_people', 'y', ARRAY['nope'], algorithm => 'none', seed => 1)$$);
SELECT * FROM pg_temp.try($$SELECT dp_train('col_people', 'y', ARRAY['owner', 'y'], algorithm => 'none', seed => 1)$$);
SELECT * FROM pg_temp.try($$SELECT dp_train('col_people', 'y', ARRAY['owner', NULL], algorithm => 'none', seed => 1)$$);
SELECT * FROM pg_temp.try($$SELECT dp_train('col_people', 'y', '{}'::text[], algorithm => 'none', seed => 1)$$);
SELECT * FROM pg_temp.try($$SELECT dp_train('col_people', 'y', ARRAY['owner'], bounds => NULL, algorithm => 'none', seed => 1)$$);
SELECT * FROM pg_temp.try($$SELECT dp_train('col_people', 'y', ARRAY['owner'], normalization => 'none', algorithm => 'none', seed => 1)$$);
SELECT * FROM pg_temp.try($$SELECT dp_train('col_people', 'y', ARRAY['id'], bounds => '{"id": [0, 1], "age": [0, 1]}',
                                            algorithm => 'none', seed => 1)$$);
-- dp_evaluate without features: only for a model that stores an encoding, on columns of the right types
SELECT model_id AS plain_model FROM dp_train('col_plain', 'y', 'x', algorithm => 'none', epochs => 1, seed => 1) \gset
SELECT code, regexp_replace(message, '[0-9]+', 'N') AS message, hint
FROM pg_temp.try(format('SELECT dp_evaluate(%s, %L, %L)', :plain_model, 'col_people', 'y'));
CREATE TABLE col_people_typo AS SELECT id, age, "we""ird; DROP TABLE col_people; --", owner AS sex, owner, city, y
FROM col_people;
SELECT * FROM pg_temp.try(format('SELECT dp_evaluate(%s, %L, %L)', :col_model, 'col_people_typo', 'y'));
\x off

-- ---- 6. NULLs: a reader is refused, as through a view ---------------------------------------
CREATE TABLE col_nulls AS SELECT * FROM col_people;
UPDATE col_nulls SET age = NULL WHERE id IN (3, 5);
UPDATE col_nulls SET sex = NULL WHERE id = 7;   -- a NULL category is all zeros, not missing
\x on
SELECT * FROM pg_temp.try($$SELECT dp_train('col_nulls', 'y', ARRAY['age', 'sex'], bounds => '{"age": [17, 90]}',
                                            categories => '{"sex": ["Female", "Male"]}', algorithm => 'none', seed => 1)$$);
\x off
SELECT count(*) FILTER (WHERE x IS NULL) AS null_rows_in_view
FROM (SELECT dptrain.encode_row(dp_encoding('col_nulls', ARRAY['age', 'sex'], '{"age": [17, 90]}',
                                            '{"sex": ["Female", "Male"]}'), age::text, sex) x FROM col_nulls) v;

-- ---- 7. a role that may train but not read -------------------------------------------------
CREATE ROLE regress_col_analyst;
SELECT dp_grant_budget('col_people', 'regress_col_analyst', 5, 0);
SELECT dp_grant_budget('col_nulls', 'regress_col_analyst', 5, 0);
SELECT count(*) AS ledger_before FROM dptrain.ledger \gset
SET ROLE regress_col_analyst;
\x on
-- undeclared categories would be read from the data: refused before any charge
SELECT * FROM pg_temp.try($$SELECT dp_train('col_people', 'y', ARRAY['age', 'city'], bounds => '{"age": [17, 90]}',
                                            algorithm => 'bolton', epsilon => 1)$$);
-- bad bounds: refused before any charge too
SELECT * FROM pg_temp.try($$SELECT dp_train('col_people', 'y', ARRAY['age'], bounds => '{"age": [17, 17]}',
                                            algorithm => 'bolton', epsilon => 1)$$);
\x off
RESET ROLE;
SELECT count(*) = :ledger_before AS nothing_charged FROM dptrain.ledger;
SET ROLE regress_col_analyst;
-- every category declared: it trains (charged once), and the model stores the encoding
SELECT algorithm, epsilon, details->'encoding' = (SELECT dp_encoding('col_people', :feats, :bounds, :cats)) AS same_encoding,
       cardinality(weights) AS weights
FROM dp_train('col_people', 'y', features => :feats, bounds => :bounds, categories => :cats,
              algorithm => 'bolton', epsilon => 1);
-- rows without features (NULL age) are replaced by the public row, as through a view: no error
SELECT algorithm, epsilon FROM dp_train('col_nulls', 'y', ARRAY['age', 'sex'], bounds => '{"age": [17, 90]}',
                                        categories => '{"sex": ["Female", "Male"]}', algorithm => 'bolton', epsilon => 1);
\x on
-- it still may not read the table
SELECT * FROM pg_temp.try($$SELECT count(*) FROM col_people$$);
\x off
RESET ROLE;
SELECT count(*) - :ledger_before AS charged_runs FROM dptrain.ledger;
SELECT source, details->'encoding'->'columns'->4->'categories' AS city_categories
FROM dptrain.models WHERE created_by = 'regress_col_analyst' ORDER BY id;

-- a reader may leave categories undeclared: said so, and recorded
SELECT details->'warnings' AS warnings, details->'encoding'->'columns'->0->'categories_from_data' AS from_data
FROM dp_train('col_people', 'y', ARRAY['city'], algorithm => 'none', epochs => 1, seed => 1);

-- ---- 8. no outcome of a role without read access depends on a secret row ------------------
-- one table per way a row's raw values can be odd; every run succeeds alike (no error, no
-- notice, one charge each): such a row encodes to NULL (replaced by the public row) or to an
-- ordinary vector (clipped, all zeros), never to an error
CREATE TABLE col_secret_base AS SELECT id, age, "we""ird; DROP TABLE col_people; --" AS hours, sex, owner, y
FROM col_people WHERE id <= 60;
CREATE FUNCTION pg_temp.secret_variant(name text, assignment text) RETURNS regclass LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('CREATE TABLE %I AS SELECT * FROM col_secret_base', name);
  IF assignment IS NOT NULL THEN
    EXECUTE format('UPDATE %I SET %s WHERE id = 17', name, assignment);
  END IF;
  PERFORM dp_grant_budget(name::regclass, 'regress_col_analyst', 10, 0);
  RETURN name::regclass;
END
$$;
SELECT count(pg_temp.secret_variant(v, a)) AS variants
FROM (VALUES ('col_secret_none', NULL), ('col_secret_nan', 'hours = ''NaN'''),
             ('col_secret_inf', 'hours = ''Infinity'''), ('col_secret_neg_inf', 'hours = ''-Infinity'''),
             ('col_secret_huge', 'hours = 1e308'), ('col_secret_null_bool', 'owner = NULL'),
             ('col_secret_undeclared', 'sex = ''secret'''), ('col_secret_null_label', 'y = NULL'),
             ('col_secret_zero', 'age = 0, hours = -5, sex = NULL, owner = false')) t(v, a);
SET ROLE regress_col_analyst;
SET client_min_messages = notice;
SELECT t AS secret, r.code, r.message
FROM unnest(ARRAY['col_secret_none', 'col_secret_nan', 'col_secret_inf', 'col_secret_neg_inf', 'col_secret_huge',
                  'col_secret_null_bool', 'col_secret_undeclared', 'col_secret_null_label', 'col_secret_zero']) t,
     pg_temp.try(format('SELECT dp_train(%L, %L, ARRAY[%L, %L, %L, %L], bounds => %L, categories => %L, '
                        'algorithm => %L, epsilon => 0.5, epochs => 1, batch_size => 10)',
                        t, 'y', 'age', 'hours', 'sex', 'owner', '{"age": [17, 90], "hours": [0, 99]}',
                        '{"sex": ["Female", "Male"]}', 'bolton')) r
ORDER BY 1;
SELECT count(*) AS tables, min(10 - epsilon) AS min_charged, max(10 - epsilon) AS max_charged
FROM unnest(ARRAY['col_secret_none', 'col_secret_nan', 'col_secret_inf', 'col_secret_neg_inf', 'col_secret_huge',
                  'col_secret_null_bool', 'col_secret_undeclared', 'col_secret_null_label', 'col_secret_zero']) t,
     dp_budget_remaining(t);
RESET ROLE;

SELECT dp_revoke_budget('col_people', 'regress_col_analyst');
SELECT dp_revoke_budget('col_nulls', 'regress_col_analyst');
SELECT count(dp_revoke_budget(c.oid::regclass, 'regress_col_analyst')) AS revoked
FROM pg_class c WHERE c.relname LIKE 'col_secret_%' AND c.relname <> 'col_secret_base' AND c.relkind = 'r';
DROP VIEW col_people_view;
DROP ROLE regress_col_analyst;

-- Leave no model or ledger row behind: other files read the whole ledger.
DELETE FROM dptrain.ledger WHERE source_name LIKE 'public.col\_%';
DELETE FROM dptrain.models WHERE source LIKE 'public.col\_%';
-- Drop what this file created: it runs again in the same database.
DROP TABLE col_people, col_people_test, col_plain, col_people_typo, col_nulls, col_secret_base, col_secret_none,
  col_secret_nan, col_secret_inf, col_secret_neg_inf, col_secret_huge, col_secret_null_bool, col_secret_undeclared,
  col_secret_null_label, col_secret_zero;
