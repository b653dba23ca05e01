-- Resource limits: more than 1000 declared classes are refused
-- before the scan of the rows, which searches the declared array for every
-- row's label (O(n K): 10^5 classes over 10^5 rows took 20 s before the
-- refusal). A table whose scan would fail first shows the order: the
-- refusal of the argument comes before any error about the rows.
SET client_min_messages = warning;
CREATE TABLE limits_classes_empty (y text, x float8[]);
CREATE TABLE limits_classes_null AS SELECT NULL::text AS y, ARRAY[1.0, 2.0]::float8[] AS x;
\set VERBOSITY default
SELECT model_id FROM dp_train('limits_classes_empty', 'y', 'x', epsilon => 1,
    classes => (SELECT array_agg(i::text) FROM generate_series(1, 1001) i));
SELECT model_id FROM dp_train('limits_classes_null', 'y', 'x', epsilon => 1,
    classes => (SELECT array_agg(i::text) FROM generate_series(1, 100000) i));
SELECT model_id FROM dp_tune('limits_classes_null', 'y', 'x', epsilon => 1,
    classes => (SELECT array_agg(i::text) FROM generate_series(1, 1001) i));
-- Nothing was charged.
SELECT count(*) AS charged FROM dptrain.ledger WHERE source_name LIKE 'public.limits_classes_%';
DROP TABLE limits_classes_empty, limits_classes_null;
