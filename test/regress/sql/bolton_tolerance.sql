-- Bolt-on's convergence tolerance (strongly convex only, Bolt-on §4.3):
-- epochs => is the maximum; the run stops once an epoch improves the
-- training objective by less than options.tolerance. The number of epochs
-- then depends on the data, so the metadata says the guarantee is informal,
-- and roles without read access may not use it.
CREATE TABLE tol AS
SELECT i AS id, ARRAY[sin(i * 0.7), cos(i * 1.3), 0.25]::float8[] AS x,
       (sin(i * 0.7) + 0.5 * cos(i * 1.3) > 0) AS y
FROM generate_series(1, 600) i;

SELECT epsilon, details->'stopping'->'epochs_run' AS epochs_run, details->'stopping'->'max_epochs' AS max_epochs,
       details->'privacy'->'epochs_fixed_in_advance' AS fixed_in_advance,
       details->'privacy' ? 'guarantee' AS informal_guarantee_stated
FROM dp_train('tol', 'y', 'x', algorithm => 'bolton', epsilon => 1, lambda => 0.01, epochs => 30,
              batch_size => 10, seed => 11, options => '{"tolerance": 0.5}', name => 'tol_half');

-- The noise covers every stopping epoch: the sensitivity is the largest
-- fixed-k bound over k <= 30, at least that of a run fixed at 30 epochs.
SET client_min_messages = warning;
SELECT (a.details->'privacy'->>'sensitivity')::float8 >= (b.details->'privacy'->>'sensitivity')::float8
         AS covers_thirty_epochs
FROM dptrain.models a, dp_train('tol', 'y', 'x', algorithm => 'bolton', epsilon => 1, lambda => 0.01, epochs => 30,
                                batch_size => 10, seed => 11, name => 'tol_fixed') b
WHERE a.name = 'tol_half';
RESET client_min_messages;

-- not where no analysis covers it
SELECT dp_train('tol', 'y', 'x', algorithm => 'bolton', epsilon => 1, options => '{"tolerance": 0.01}');
SELECT dp_train('tol', 'y', 'x', algorithm => 'bolton', epsilon => 1, lambda => 0.01, learning_rate => 0.1,
                options => '{"tolerance": 0.01}');
SELECT dp_train('tol', 'y', 'x', algorithm => 'bolton', epsilon => 1, lambda => 0.01, options => '{"tolerance": 2}');

-- a role without read access trains under a budget, but not with a tolerance
CREATE ROLE regress_tol_analyst;
SELECT dp_grant_budget('tol', 'regress_tol_analyst', 5, 0);
SET ROLE regress_tol_analyst;
SELECT dp_train('public.tol', 'y', 'x', algorithm => 'bolton', epsilon => 1, lambda => 0.01,
                classes => ARRAY['false', 'true'], options => '{"tolerance": 0.01}');
RESET ROLE;
SELECT * FROM dp_budget_remaining('tol', 'regress_tol_analyst');
SELECT dp_revoke_budget('tol', 'regress_tol_analyst');
DELETE FROM dptrain.ledger WHERE role = 'regress_tol_analyst'::regrole;
DROP ROLE regress_tol_analyst;
DROP TABLE tol;

-- Leave no model or ledger row behind: other files read the whole ledger.
DELETE FROM dptrain.ledger WHERE source_name = 'public.tol';
DELETE FROM dptrain.models WHERE source = 'public.tol';
