-- Non-private training (algorithm => 'none') end to end on a small,
-- deterministic, linearly separable table.
CREATE TABLE sep AS
SELECT i AS id,
       ARRAY[sin(i * 0.7), cos(i * 1.3), 0.25]::float8[] AS x,
       (sin(i * 0.7) + 0.5 * cos(i * 1.3) > 0) AS y
FROM generate_series(1, 1000) i;

SELECT model_id > 0 AS has_id, name, algorithm, epsilon, delta, array_length(weights, 1) AS d, classes,
       details->'data' AS data, details->'hyperparameters'->>'schedule' AS schedule,
       details->>'randomness' AS randomness
FROM dp_train('sep', 'y', 'x', algorithm => 'none', epochs => 5, batch_size => 10,
              name => 'sep_none', seed => 42);

SELECT accuracy > 0.97 AS accurate, n, loss < 0.3 AS low_loss FROM dp_evaluate('sep_none', 'sep', 'y', 'x');
SELECT dp_predict('sep_none', ARRAY[0.9, 0.5, 0.25]) AS positive,
       dp_predict('sep_none', ARRAY[-0.9, -0.5, 0.25]) AS negative;
-- by id as well as by name (other test files store models too: look the id up)
SELECT dp_predict((SELECT id::text FROM dptrain.models WHERE name = 'sep_none'), ARRAY[0.9, 0.5, 0.25]);
SELECT name, algorithm, loss, source, classes, seeded, created_by = current_user AS mine
FROM dptrain.models WHERE name = 'sep_none';

-- Its one option is schedule_c; any other key is refused (22023), not ignored
-- (bolton's tolerance was silently dropped: a run of every epoch, said nowhere).
SELECT dp_train('sep', 'y', 'x', algorithm => 'none', epochs => 1, batch_size => 10, seed => 42,
                options => '{"tolerance": 0.01}');
SELECT algorithm, details->'hyperparameters'->>'schedule' AS schedule
FROM dp_train('sep', 'y', 'x', algorithm => 'none', epochs => 1, batch_size => 10, seed => 42,
              schedule => 'decreasing', options => '{"schedule_c": 0.3}');

-- Leave no model or ledger row behind: other files read the whole ledger.
DELETE FROM dptrain.ledger WHERE source_name = 'public.sep';
DELETE FROM dptrain.models WHERE source = 'public.sep';
-- Drop what this file created: it runs again in the same database.
DROP TABLE sep;
