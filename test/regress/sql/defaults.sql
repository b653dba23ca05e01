-- dp_train with nothing but the privacy budget (docs/defaults.md): the
-- algorithm and hyperparameters the caller leaves out are chosen from public
-- inputs, said in a NOTICE and recorded in the model; a named algorithm keeps
-- its classic defaults; arguments given win.
CREATE TABLE dflt AS
SELECT i AS id, ARRAY[sin(i * 0.7), cos(i * 1.3)]::float8[] AS x, sin(i * 0.7) + 0.5 * cos(i * 1.3) > 0.2 AS y
FROM generate_series(1, 1000) i;
SET client_min_messages = notice;
-- pure epsilon: bolton, eta = 1/beta = 1/2 (L^2 = 1 + 1 with the intercept), 5 epochs,
-- b = ceil(2 * 5 * sqrt(3) * 1 / (0.25 * 1)) = ceil(69.28) = 70
SELECT algorithm, details->'hyperparameters'->'epochs' AS epochs, details->'hyperparameters'->'batch_size' AS b,
       round((details->'hyperparameters'->>'learning_rate')::numeric, 6) AS eta,
       details->'hyperparameters'->'lambda' AS lambda, details->'hyperparameters'->'intercept' AS intercept
FROM dp_train('dflt', 'y', 'x', epsilon => 1, seed => 1);
-- epsilon and delta: dpsgd, 5 epochs of expected lot 50 (100 lots)
SELECT algorithm, details->'hyperparameters'->'steps' AS lots, details->'hyperparameters'->'expected_lot' AS lot
FROM dp_train('dflt', 'y', 'x', epsilon => 1, delta => 1e-6, seed => 2);
-- given arguments win: 2 epochs and eta = 0.1 -> b = ceil(2 * 2 * sqrt(3) * 2 * 0.1 / 0.25) = ceil(5.54) = 6
SELECT algorithm, details->'hyperparameters'->'epochs' AS epochs, details->'hyperparameters'->'batch_size' AS b
FROM dp_train('dflt', 'y', 'x', epsilon => 1, epochs => 2, learning_rate => 0.1, seed => 3);
-- epsilon and lambda only: bolton strongly convex, its schedule min(1/beta, 1/(lambda t)) takes the
-- steps (a constant 1/beta of the loss alone, 1/2, would exceed 1/(2 + 0.01) and be refused);
-- b from its first step: ceil(2 * 5 * sqrt(3) * 2 / 2.01 / 0.25) = ceil(68.94) = 69
SELECT algorithm, details->'hyperparameters'->'schedule' AS schedule, details->'hyperparameters'->'batch_size' AS b,
       details->'hyperparameters'->'learning_rate' AS eta, details->'hyperparameters'->'lambda' AS lambda
FROM dp_train('dflt', 'y', 'x', epsilon => 1, lambda => 0.01, seed => 5);
SET client_min_messages = warning;
-- a named algorithm keeps its classic defaults: 10 epochs, batch 50, eta = min(1/sqrt(n), 2/beta)
SELECT algorithm, details->'hyperparameters'->'epochs' AS epochs, details->'hyperparameters'->'batch_size' AS b,
       round((details->'hyperparameters'->>'learning_rate')::numeric, 6) AS eta
FROM dp_train('dflt', 'y', 'x', algorithm => 'bolton', epsilon => 1, seed => 4);
-- no epsilon: bolton asks for one, as before
SELECT FROM dp_train('dflt', 'y', 'x');

-- Leave the ledger and the models as found (ledger.sql reads all of them).
DELETE FROM dptrain.ledger WHERE source_name = 'public.dflt';
DELETE FROM dptrain.models WHERE source = 'public.dflt';
DROP TABLE dflt;
