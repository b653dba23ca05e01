-- What a released model says (docs/governance.md, "What a model's metadata
-- says"): every key of details, for every algorithm and both tuning methods,
-- trained by a role with a budget and no SELECT, and by the owner. Only
-- public parameters, public facts (n, d, the classes), the release and
-- functions of them may be there for a role that cannot read. The keys are
-- printed (values are noisy), then the one timing field: `seconds` is the
-- time of the passes, which for AMP, the optimum and OPDisc tracks a
-- data-dependent number of passes or a solve time: kept for a reader, left
-- out of a model of a role without read access (it was there for every role).
SET client_min_messages = warning;
CREATE ROLE regress_meta_owner;
CREATE ROLE regress_meta_analyst;
GRANT CREATE ON SCHEMA public TO regress_meta_owner;
SET ROLE regress_meta_owner;
CREATE TABLE public.meta_src AS
SELECT i AS id, ARRAY[sin(i), cos(i)]::float8[] AS x, (sin(i) + 0.3 * cos(3 * i) > 0) AS y
FROM generate_series(1, 200) i;
SELECT dp_grant_budget('public.meta_src', 'regress_meta_analyst', 1000, 0.01);
RESET ROLE;

-- Every key path of a model's details (objects descended, arrays not).
CREATE FUNCTION pg_temp.key_paths(d jsonb) RETURNS SETOF text LANGUAGE sql AS $$
  WITH RECURSIVE k(path, v) AS (
    SELECT e.key, e.value FROM jsonb_each(d) e
    UNION ALL
    SELECT k.path || '.' || e.key, e.value FROM k, jsonb_each(k.v) e WHERE jsonb_typeof(k.v) = 'object')
  SELECT path FROM k
$$;
GRANT EXECUTE ON FUNCTION pg_temp.key_paths(jsonb) TO PUBLIC;
-- (not a temp table: a run without read access refuses a session with temporary relations)
CREATE TABLE public.meta_runs (who text, run text, model_id bigint, details jsonb);
GRANT SELECT, INSERT ON public.meta_runs TO regress_meta_owner, regress_meta_analyst;

SET ROLE regress_meta_analyst;
-- (release WARNINGs, e.g. P-FW's weights on one feature, depend on the noise: not shown)
SET client_min_messages = error;
INSERT INTO public.meta_runs
SELECT 'analyst', 'bolton', model_id, details FROM dp_train('public.meta_src', 'y', 'x', algorithm => 'bolton', epsilon => 1,
                                                 batch_size => 10, epochs => 2)
UNION ALL
SELECT 'analyst', 'scs13', model_id, details FROM dp_train('public.meta_src', 'y', 'x', algorithm => 'scs13', epsilon => 1,
                                                batch_size => 10, epochs => 2)
UNION ALL
SELECT 'analyst', 'bst14', model_id, details FROM dp_train('public.meta_src', 'y', 'x', algorithm => 'bst14', epsilon => 1,
                                                delta => 1e-5, radius => 1, batch_size => 10, epochs => 2)
UNION ALL
SELECT 'analyst', 'psgd', model_id, details FROM dp_train('public.meta_src', 'y', 'x', algorithm => 'psgd', epsilon => 1,
                                               delta => 1e-5, radius => 2, lambda => 0.001, epochs => 2)
UNION ALL
SELECT 'analyst', 'dpsgd', model_id, details FROM dp_train('public.meta_src', 'y', 'x', algorithm => 'dpsgd', epsilon => 1,
                                                delta => 1e-5, batch_size => 10, epochs => 2)
UNION ALL
SELECT 'analyst', 'dpadam', model_id, details FROM dp_train('public.meta_src', 'y', 'x', algorithm => 'dpadam', epsilon => 1,
                                                 delta => 1e-5, batch_size => 10, epochs => 2)
UNION ALL
SELECT 'analyst', 'amp', model_id, details FROM dp_train('public.meta_src', 'y', 'x', algorithm => 'amp', epsilon => 1,
                                              delta => 1e-5)
UNION ALL
SELECT 'analyst', 'amp tuned', model_id, details FROM dp_train('public.meta_src', 'y', 'x', algorithm => 'amp', epsilon => 1,
                                                    delta => 1e-5, options => '{"f": 0.01}')
UNION ALL
SELECT 'analyst', 'pfw', model_id, details FROM dp_train('public.meta_src', 'y', 'x', algorithm => 'pfw', epsilon => 1,
                                              delta => 1e-5, epochs => 5, radius => 2)
UNION ALL
SELECT 'analyst', 'dpagd', model_id, details FROM dp_train('public.meta_src', 'y', 'x', algorithm => 'dpagd', epsilon => 1,
                                                delta => 1e-5)
UNION ALL
SELECT 'analyst', 'opdisc', model_id, details FROM dp_train('public.meta_src', 'y', 'x', algorithm => 'opdisc', epsilon => 1,
                                                 delta => 1e-5)
UNION ALL
SELECT 'analyst', 'tune holdout', model_id, details
FROM dp_tune('public.meta_src', 'y', 'x', epsilon => 10, lambdas => '{0.01}', epochs => '{1, 2}',
             batch_sizes => '{10}')
UNION ALL
SELECT 'analyst', 'tune liu_talwar', model_id, details
FROM dp_tune('public.meta_src', 'y', 'x', algorithm => 'dpadam', epsilon => 1, delta => 1e-5, method => 'liu_talwar',
             grid => '{"learning_rate": [0.01, 0.1], "epochs": [2]}');
SET client_min_messages = warning;
-- the non-private algorithms are refused to it (DP002)
\set VERBOSITY terse
SELECT model_id FROM dp_train('public.meta_src', 'y', 'x', algorithm => 'none');
SELECT model_id FROM dp_train('public.meta_src', 'y', 'x', algorithm => 'optimum', lambda => 0.01);
-- a data-dependent number of epochs (details.stopping.epochs_run): refused to it in dp_train, and
-- in private tuning (for every role; also as a grid point)
SELECT model_id FROM dp_train('public.meta_src', 'y', 'x', algorithm => 'bolton', epsilon => 1, lambda => 0.01,
                              options => '{"tolerance": 0.01}');
SELECT model_id FROM dp_tune('public.meta_src', 'y', 'x', algorithm => 'bolton', epsilon => 1, delta => 1e-5,
                             method => 'liu_talwar', grid => '{"lambda": [0.01], "tolerance": [0.01, 0.1]}');
SELECT count(*) AS models_with_stopping FROM dptrain.models WHERE details ? 'stopping';
\set VERBOSITY default
-- what dp_train returns is what is stored
SELECT r.run, r.details = m.details AS returned_is_stored
FROM public.meta_runs r JOIN dptrain.models m ON m.id = r.model_id WHERE r.who = 'analyst' ORDER BY r.run;
-- every key path, and the runs whose details have it ("all": the 13; the tuning grids keep
-- every candidate's keys alike); not `warnings`, which a
-- release may add or not (DP-AGD's refinements, P-FW's ties: post-processing of the release)
SELECT p AS key_path, CASE WHEN count(*) = 13 THEN 'all' ELSE string_agg(run, ', ' ORDER BY run) END AS runs
FROM public.meta_runs, pg_temp.key_paths(details) p WHERE who = 'analyst' AND p <> 'warnings'
GROUP BY p ORDER BY p;
-- the columns of a model row other than details and weights, as the analyst reads them
SELECT r.run, m.name, m.algorithm, m.loss, m.epsilon, m.delta, m.source, m.classes, m.seeded, m.private,
       m.created_by, cardinality(m.weights) AS weights
FROM public.meta_runs r JOIN dptrain.models m ON m.id = r.model_id WHERE r.who = 'analyst' ORDER BY r.run;
-- NOTICEs it gets: public progress only (AMP's passes are data-dependent: none)
SET client_min_messages = notice;
SELECT model_id > 0 AS trained FROM dp_train('public.meta_src', 'y', 'x', algorithm => 'bolton', epsilon => 1,
                                              batch_size => 10, epochs => 2);
SELECT model_id > 0 AS trained FROM dp_train('public.meta_src', 'y', 'x', algorithm => 'amp', epsilon => 1,
                                              delta => 1e-5);
-- OPDisc's groups and branch-and-bound nodes, Liu-Talwar's candidate numbers: none either
SELECT model_id > 0 AS trained FROM dp_train('public.meta_src', 'y', 'x', algorithm => 'opdisc', epsilon => 1,
                                              delta => 1e-5);
SELECT model_id > 0 AS trained, candidates
FROM dp_tune('public.meta_src', 'y', 'x', algorithm => 'dpadam', epsilon => 1, delta => 1e-5, method => 'liu_talwar',
             grid => '{"learning_rate": [0.01, 0.1], "epochs": [2]}');
-- holdout: the candidates (public: the grid) and their epochs
SELECT model_id > 0 AS trained, candidates
FROM dp_tune('public.meta_src', 'y', 'x', epsilon => 10, lambdas => '{0.01}', epochs => '{1, 2}',
             batch_sizes => '{10}');
SET client_min_messages = warning;
RESET ROLE;

-- the owner (who reads the table): the same keys, and the time
SET ROLE regress_meta_owner;
SET client_min_messages = error;
INSERT INTO public.meta_runs
SELECT 'owner', 'bolton', model_id, details FROM dp_train('public.meta_src', 'y', 'x', algorithm => 'bolton', epsilon => 1,
                                                 batch_size => 10, epochs => 2)
UNION ALL
SELECT 'owner', 'amp', model_id, details FROM dp_train('public.meta_src', 'y', 'x', algorithm => 'amp', epsilon => 1,
                                              delta => 1e-5)
UNION ALL
SELECT 'owner', 'dpagd', model_id, details FROM dp_train('public.meta_src', 'y', 'x', algorithm => 'dpagd', epsilon => 1,
                                                delta => 1e-5)
UNION ALL
SELECT 'owner', 'none', model_id, details FROM dp_train('public.meta_src', 'y', 'x', algorithm => 'none', batch_size => 10,
                                               epochs => 2)
UNION ALL
SELECT 'owner', 'optimum', model_id, details FROM dp_train('public.meta_src', 'y', 'x', algorithm => 'optimum', lambda => 0.01)
UNION ALL
SELECT 'owner', 'tune holdout', model_id, details
FROM dp_tune('public.meta_src', 'y', 'x', epsilon => 10, lambdas => '{0.01}', epochs => '{1, 2}',
             batch_sizes => '{10}');
SET client_min_messages = warning;
-- the key paths of the owner's models that no model of the analyst has
SELECT p AS key_path, string_agg(run, ', ' ORDER BY run) AS runs
FROM public.meta_runs, pg_temp.key_paths(details) p
WHERE who = 'owner' AND p <> 'warnings'
  AND NOT EXISTS (SELECT 1 FROM public.meta_runs a, pg_temp.key_paths(a.details) q WHERE a.who = 'analyst' AND q = p)
GROUP BY p ORDER BY p;
-- The leak closed: the analyst's models carry no time (before: every model
-- had details.seconds); the owner's do.
SELECT 'analyst' AS who, count(*) AS models, count(*) FILTER (WHERE details ? 'seconds') AS with_seconds
FROM dptrain.models WHERE created_by = 'regress_meta_analyst'
UNION ALL
SELECT 'owner', count(*), count(*) FILTER (WHERE details ? 'seconds')
FROM dptrain.models WHERE created_by = 'regress_meta_owner';
RESET ROLE;

DROP TABLE public.meta_src, public.meta_runs;
DELETE FROM dptrain.models WHERE created_by IN ('regress_meta_owner', 'regress_meta_analyst');
DELETE FROM dptrain.ledger WHERE source_name = 'public.meta_src';
REVOKE CREATE ON SCHEMA public FROM regress_meta_owner;
DROP ROLE regress_meta_owner, regress_meta_analyst;
