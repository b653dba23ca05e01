-- The public classes of a load spec (docs/loading-data.md, "Public classes"):
-- `dptrain load` records a known data set's documented label set (IDX's
-- digits 0..9, or --classes) as "classes_public"; dp_train uses it when the
-- caller declares no classes, so the model is private by default, for a role
-- without read access too. Classes the loader read from the rows are never
-- used, and classes the caller passes win.
SET client_min_messages = notice;

-- Digits 0..2 as the public label set; the rows hold only 0 and 1.
BEGIN;
CREATE TABLE lsc_digits (id bigint PRIMARY KEY, x float8[] NOT NULL, y integer NOT NULL);
INSERT INTO lsc_digits
SELECT i, ARRAY[(i % 7) / 7.0, ((i * 3) % 5) / 5.0], i % 2 FROM generate_series(1, 300) i;
SELECT dptrain.register_load_spec('lsc_digits', '{"format": "idx", "label_type": "integer",
  "classes": ["0", "1", "2"], "classes_public": true}');
COMMIT;
-- The same rows, classes read from the rows (a CSV load without --classes).
BEGIN;
CREATE TABLE lsc_read (LIKE lsc_digits);
INSERT INTO lsc_read SELECT * FROM lsc_digits;
SELECT dptrain.register_load_spec('lsc_read', '{"format": "csv", "label_type": "integer",
  "classes": ["0", "1"]}');
COMMIT;

-- No classes passed: the spec's public ones, with a NOTICE; the model is private.
SELECT model_id AS public_model FROM dp_train('lsc_digits', 'y', 'x', algorithm => 'bolton', epsilon => 1,
       epochs => 1) \gset
SELECT classes, private FROM dptrain.models WHERE id = :public_model;
-- Classes passed explicitly win.
SELECT model_id AS declared_model FROM dp_train('lsc_digits', 'y', 'x', algorithm => 'bolton', epsilon => 1,
       epochs => 1, classes => ARRAY['1', '0']) \gset
SELECT classes, private FROM dptrain.models WHERE id = :declared_model;
-- A spec whose classes were read from the rows: read from the data as before, not private.
SET client_min_messages = warning;
SELECT model_id AS read_model FROM dp_train('lsc_read', 'y', 'x', algorithm => 'bolton', epsilon => 1,
       epochs => 1) \gset
RESET client_min_messages;
SELECT classes, private FROM dptrain.models WHERE id = :read_model;

-- A role without read access (a budget, no SELECT) gets the public classes too.
CREATE ROLE regress_lsc_analyst;
SELECT dp_grant_budget('lsc_digits', 'regress_lsc_analyst', 5, 0);
SET ROLE regress_lsc_analyst;
SELECT model_id AS analyst_model FROM dp_train('lsc_digits', 'y', 'x', algorithm => 'bolton', epsilon => 1,
       epochs => 1) \gset
SELECT classes, private FROM dptrain.models WHERE id = :analyst_model;
RESET ROLE;

-- Another label column of the table is not the loader's: its classes are read from the data.
ALTER TABLE lsc_digits ADD COLUMN z integer;
UPDATE lsc_digits SET z = id % 2;
SET client_min_messages = warning;
SELECT model_id AS z_model FROM dp_train('lsc_digits', 'z', 'x', algorithm => 'bolton', epsilon => 1,
       epochs => 1) \gset
RESET client_min_messages;
SELECT classes, private FROM dptrain.models WHERE id = :z_model;

DROP TABLE lsc_digits, lsc_read;
DELETE FROM dptrain.models WHERE created_by = 'regress_lsc_analyst';
DELETE FROM dptrain.budgets WHERE role::text = 'regress_lsc_analyst';
DROP ROLE regress_lsc_analyst;
-- Leave no model or ledger row behind: other files read the whole ledger.
DELETE FROM dptrain.ledger WHERE source_name LIKE 'public.lsc\_%';
DELETE FROM dptrain.models WHERE source LIKE 'public.lsc\_%';
