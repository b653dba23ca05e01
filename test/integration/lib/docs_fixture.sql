-- The tables the SQL examples of README.md and docs/*.md name, besides adult
-- and adult_test (UCI Adult as `dptrain load` loads it: id, x float8[], y
-- boolean). Small, so that test/integration/docs_sql_examples.sh stays fast.

DELETE FROM adult WHERE id % 10 <> 0;
DELETE FROM adult_test WHERE id % 10 <> 0;

-- README: the clinic's tables, three features.
CREATE TABLE patients AS
SELECT i AS id, ARRAY[sin(i * 0.7), cos(i * 1.3), 0.25]::float8[] AS x,
       (sin(i * 0.7) + 0.5 * cos(i * 1.3) > 0) AS readmitted
FROM generate_series(1, 2000) i;
CREATE TABLE patients_holdout AS SELECT * FROM patients WHERE id % 4 = 0;
CREATE TABLE t AS SELECT id, x, readmitted AS y FROM patients;

-- README and docs/governance.md: an owner's table, a role that may train on it.
CREATE SCHEMA clinic;
CREATE TABLE clinic.visits AS SELECT * FROM patients;
DO $$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'analyst') THEN CREATE ROLE analyst; END IF;
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'trusted_role') THEN CREATE ROLE trusted_role; END IF;
END $$;

-- docs/amp.md, docs/opdisc.md: Adult under other names.
CREATE TABLE adult_train AS SELECT * FROM adult;
CREATE TABLE adult_bin AS SELECT id, x[1:8] AS x, y FROM adult;

-- docs/encoding.md: ordinary columns.
CREATE TABLE adult_raw AS
SELECT i AS id, 17 + i % 74 AS age, 1 + (i * 7) % 99 AS hours_per_week,
       (ARRAY['Female', 'Male'])[1 + i % 2] AS sex,
       (ARRAY['Bachelors', 'HS-grad', 'Masters', 'Some-college'])[1 + (i / 2) % 4] AS education,
       i % 3 = 0 AS married,
       (i % 74 > 30 AND i % 2 = 1) AS income_over_50k
FROM generate_series(1, 2000) i;
CREATE TABLE adult_raw_test AS SELECT * FROM adult_raw WHERE id % 5 = 0;

-- docs/sparse.md: sparse rows (x dptrain.sparsevec), as `dptrain load --sparse` loads them.
CREATE TABLE reuters AS
SELECT id, ARRAY[0, x[1], 0, x[2], 0, 0, x[3]]::float8[]::dptrain.sparsevec AS x, y FROM t;
-- docs/defaults.md, docs/pfw.md: the same under the name docs/loading-data.md gives it.
CREATE TABLE reuters_sparse AS SELECT * FROM reuters WHERE id % 5 <> 0;
CREATE TABLE reuters_sparse_test AS SELECT * FROM reuters WHERE id % 5 = 0;
