-- Attack (issue 15, item 1): search_path hijacking. A role that may create
-- objects in a schema on someone's search_path (here: public) plants
-- functions, operators and types named like the built-ins dptrain's internal
-- SQL uses; a role may also plant types in its own temporary schema, which
-- PostgreSQL searches first for types. If any dptrain function resolved such
-- a name through the caller's search_path, the planted code would run with
-- the rights of whoever called it (a superuser here) or of the role dptrain
-- switched to (the table owner, the extension owner). Every planted object
-- logs to hijack_log and raises a WARNING; the test calls every user-facing
-- function and shows that none ran.
SET client_min_messages = warning;
\set SHOW_CONTEXT never

-- ---- 1. the rule, checked on the catalog ------------------------------------
-- Every function of the extension runs with search_path pinned to
-- pg_catalog, pg_temp -- except the functions called once per row or value,
-- where a SET clause would cost a GUC save and restore per call: the support
-- functions of aggregates and the I/O functions of types, which run no SQL
-- and call no function or operator by name, and the three listed below.
SELECT p.oid::regprocedure AS not_pinned
FROM pg_depend d JOIN pg_proc p ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid
WHERE d.refclassid = 'pg_extension'::regclass
  AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'dptrain')
  AND p.prokind <> 'a'
  AND NOT coalesce('search_path=pg_catalog, pg_temp' = ANY (p.proconfig), false)
  AND NOT EXISTS (SELECT FROM pg_aggregate a
                  WHERE p.oid IN (a.aggtransfn, a.aggfinalfn, a.aggcombinefn, a.aggserialfn, a.aggdeserialfn))
  AND NOT EXISTS (SELECT FROM pg_type t WHERE p.oid IN (t.typinput, t.typoutput, t.typreceive, t.typsend))
  -- dp_predict, dp_predict_proba and dp_features pin the path in C around
  -- the query that loads their model; usable_row, intercept_row and decision_score run no
  -- SQL (all but intercept_row are hijack-tested below); the shuffle keys
  -- are per-row C hashes that run no SQL either, and the feature encoders
  -- (encode_row, encode_json_row, encoding_check) parse and encode in C.
  AND p.oid NOT IN ('dp_predict(text, float8[])'::regprocedure, 'dp_predict(bigint, float8[])'::regprocedure,
                    'dp_features(text, jsonb)'::regprocedure, 'dp_features(bigint, jsonb)'::regprocedure,
                    'dp_predict_proba(text, float8[])'::regprocedure,
                    'dp_predict_proba(bigint, float8[])'::regprocedure,
                    'dptrain.decision_score(float8[], float8[])'::regprocedure,
                    'dptrain.usable_row(float8[], float8, int)'::regprocedure,
                    -- whether a numeric value's cast to float8 fails (per value, in the row checks and copies)
                    'dptrain.beyond_float8(numeric)'::regprocedure,
                    'dptrain.intercept_row(float8[], float8, float8)'::regprocedure,
                    'dptrain.shuffle_key(bigint, float8[])'::regprocedure,
                    'dptrain.shuffle_epoch_key(float8[], bigint)'::regprocedure,
                    'dptrain.shuffle_run_key(bigint)'::regprocedure,
                    'dptrain.tuning_part(bigint, float8[], int)'::regprocedure,
                    -- a float's text, whatever extra_float_digits (label classes, encoded columns)
                    'dptrain.float_text(float8)'::regprocedure,
                    'dptrain.float_text(float4)'::regprocedure,
                    -- the shard guard of the distributed passes reads the catalog caches only
                    'dptrain.shard_guard(text[], boolean, dptrain.role_ref)'::regprocedure,
                    'dptrain.encode_row(jsonb, text[])'::regprocedure,
                    'dptrain.encode_json_row(jsonb, jsonb)'::regprocedure,
                    'dptrain.encoding_check(jsonb)'::regprocedure,
                    -- sparse rows (docs/sparse.md): the casts and the training copy's per-row functions
                    'dptrain.sparsevec_to_float8(dptrain.sparsevec)'::regprocedure,
                    'dptrain.float8_to_sparsevec(float8[])'::regprocedure,
                    'dptrain.usable_row(dptrain.sparsevec, float8, int)'::regprocedure,
                    'dptrain.intercept_row(dptrain.sparsevec, float8, float8)'::regprocedure,
                    -- the sparse copy's row trigger (copy_row_oids.h): detoasts and draws an OID, no SQL
                    'dptrain.one_oid_per_row()'::regprocedure)
ORDER BY p.oid::regprocedure::text;
-- and those exempt are C functions
SELECT count(*) AS exempt, bool_and(l.lanname = 'c') AS all_c
FROM pg_depend d JOIN pg_proc p ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid
JOIN pg_language l ON l.oid = p.prolang
WHERE d.refclassid = 'pg_extension'::regclass
  AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'dptrain')
  AND p.prokind <> 'a' AND p.proconfig IS NULL;

-- ---- 2. the victim's data and models ------------------------------------------
CREATE ROLE regress_mallory;
GRANT CREATE ON SCHEMA public TO regress_mallory;
CREATE TABLE public.hj_data AS
SELECT i AS id, ARRAY[sin(i), cos(i)]::float8[] AS x, (sin(i) + 0.2 * cos(i) > 0) AS y,
       CASE WHEN sin(i) > 0 THEN 'up' ELSE 'down' END AS label
FROM generate_series(1, 400) i;
CREATE TABLE public.hj_test AS SELECT * FROM public.hj_data WHERE id % 4 = 0;
SELECT model_id AS hj_model_id FROM dp_train('public.hj_data', 'label', 'x', algorithm => 'none',
       classes => ARRAY['down', 'up'], name => 'hj_model', seed => 1, batch_size => 10) \gset
-- mallory may train on hj_data without reading it (budget), and owns a table of its own.
GRANT SELECT ON public.hj_test TO regress_mallory;
SELECT dp_grant_budget('public.hj_data', 'regress_mallory', 100, 1e-3);
SET ROLE regress_mallory;
CREATE TABLE public.hj_mine AS SELECT * FROM public.hj_test;
RESET ROLE;

-- ---- 3. mallory plants ----------------------------------------------------------
SET ROLE regress_mallory;
CREATE TABLE public.hijack_log (what text, by_whom name);
GRANT INSERT, SELECT ON public.hijack_log TO PUBLIC;
CREATE FUNCTION public.hijacked(what text) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO public.hijack_log VALUES (what, current_user);
  RAISE WARNING 'HIJACKED: % ran as %', what, current_user;
  RETURN true;
END
$$;
-- functions, with the exact argument types that beat pg_catalog's
CREATE FUNCTION public.array_position(text[], text) RETURNS int LANGUAGE plpgsql AS
  $$ BEGIN PERFORM public.hijacked('array_position(text[], text)'); RETURN pg_catalog.array_position($1, $2); END $$;
CREATE FUNCTION public.array_position(anycompatiblearray, anycompatible) RETURNS int LANGUAGE plpgsql AS
  $$ BEGIN PERFORM public.hijacked('array_position(anycompatiblearray, anycompatible)');
     RETURN pg_catalog.array_position($1, $2); END $$;
CREATE FUNCTION public.random() RETURNS float8 LANGUAGE plpgsql AS
  $$ BEGIN PERFORM public.hijacked('random()'); RETURN pg_catalog.random(); END $$;
CREATE FUNCTION public.setseed(float8) RETURNS void LANGUAGE plpgsql AS
  $$ BEGIN PERFORM public.hijacked('setseed(float8)'); PERFORM pg_catalog.setseed($1); END $$;
CREATE FUNCTION public.cardinality(float8[]) RETURNS int LANGUAGE plpgsql AS
  $$ BEGIN PERFORM public.hijacked('cardinality(float8[])'); RETURN pg_catalog.cardinality($1); END $$;
CREATE FUNCTION public.array_ndims(float8[]) RETURNS int LANGUAGE plpgsql AS
  $$ BEGIN PERFORM public.hijacked('array_ndims(float8[])'); RETURN pg_catalog.array_ndims($1); END $$;
CREATE FUNCTION public.array_fill(float8, int[]) RETURNS float8[] LANGUAGE plpgsql AS
  $$ BEGIN PERFORM public.hijacked('array_fill(float8, int[])'); RETURN pg_catalog.array_fill($1, $2); END $$;
CREATE FUNCTION public.abs(numeric) RETURNS numeric LANGUAGE plpgsql AS
  $$ BEGIN PERFORM public.hijacked('abs(numeric)'); RETURN pg_catalog.abs($1); END $$;
CREATE FUNCTION public.trim_scale(numeric) RETURNS numeric LANGUAGE plpgsql AS
  $$ BEGIN PERFORM public.hijacked('trim_scale(numeric)'); RETURN pg_catalog.trim_scale($1); END $$;
CREATE FUNCTION public.now() RETURNS timestamptz LANGUAGE plpgsql AS
  $$ BEGIN PERFORM public.hijacked('now()'); RETURN pg_catalog.now(); END $$;
CREATE FUNCTION public.pg_has_role(oid, text) RETURNS boolean LANGUAGE plpgsql AS
  $$ BEGIN PERFORM public.hijacked('pg_has_role(oid, text)'); RETURN pg_catalog.pg_has_role($1, $2); END $$;
CREATE FUNCTION public.has_table_privilege(oid, text) RETURNS boolean LANGUAGE plpgsql AS
  $$ BEGIN PERFORM public.hijacked('has_table_privilege(oid, text)');
     RETURN pg_catalog.has_table_privilege($1, $2); END $$;
-- aggregates
CREATE FUNCTION public.hj_count(int8) RETURNS int8 LANGUAGE plpgsql AS
  $$ BEGIN PERFORM public.hijacked('count(*)'); RETURN $1 + 1; END $$;
CREATE AGGREGATE public.count(*) (SFUNC = public.hj_count, STYPE = int8, INITCOND = '0');
CREATE FUNCTION public.hj_max(int, int) RETURNS int LANGUAGE plpgsql AS
  $$ BEGIN PERFORM public.hijacked('max(int)'); RETURN pg_catalog.greatest($1, $2); END $$;
CREATE AGGREGATE public.max(int) (SFUNC = public.hj_max, STYPE = int);
CREATE FUNCTION public.hj_sum(numeric, numeric) RETURNS numeric LANGUAGE plpgsql AS
  $$ BEGIN PERFORM public.hijacked('sum(numeric)'); RETURN coalesce($1, 0) OPERATOR(pg_catalog.+) $2; END $$;
CREATE AGGREGATE public.sum(numeric) (SFUNC = public.hj_sum, STYPE = numeric);
-- operators
CREATE FUNCTION public.hj_text_eq(text, text) RETURNS boolean LANGUAGE plpgsql AS
  $$ BEGIN PERFORM public.hijacked('= (text, text)'); RETURN pg_catalog.texteq($1, $2); END $$;
CREATE OPERATOR public.= (LEFTARG = text, RIGHTARG = text, FUNCTION = public.hj_text_eq);
CREATE FUNCTION public.hj_text_match(text, text) RETURNS boolean LANGUAGE plpgsql AS
  $$ BEGIN PERFORM public.hijacked('~ (text, text)'); RETURN pg_catalog.textregexeq($1, $2); END $$;
CREATE OPERATOR public.~ (LEFTARG = text, RIGHTARG = text, FUNCTION = public.hj_text_match);
CREATE FUNCTION public.hj_int8_eq(bigint, bigint) RETURNS boolean LANGUAGE plpgsql AS
  $$ BEGIN PERFORM public.hijacked('= (bigint, bigint)'); RETURN pg_catalog.int8eq($1, $2); END $$;
CREATE OPERATOR public.= (LEFTARG = bigint, RIGHTARG = bigint, FUNCTION = public.hj_int8_eq);
CREATE FUNCTION public.hj_oid_eq(oid, oid) RETURNS boolean LANGUAGE plpgsql AS
  $$ BEGIN PERFORM public.hijacked('= (oid, oid)'); RETURN pg_catalog.oideq($1, $2); END $$;
CREATE OPERATOR public.= (LEFTARG = oid, RIGHTARG = oid, FUNCTION = public.hj_oid_eq);
CREATE FUNCTION public.hj_regclass_eq(regclass, regclass) RETURNS boolean LANGUAGE plpgsql AS
  $$ BEGIN PERFORM public.hijacked('= (regclass, regclass)'); RETURN pg_catalog.oideq($1, $2); END $$;
CREATE OPERATOR public.= (LEFTARG = regclass, RIGHTARG = regclass, FUNCTION = public.hj_regclass_eq);
CREATE FUNCTION public.hj_regrole_eq(regrole, regrole) RETURNS boolean LANGUAGE plpgsql AS
  $$ BEGIN PERFORM public.hijacked('= (regrole, regrole)'); RETURN pg_catalog.oideq($1, $2); END $$;
CREATE OPERATOR public.= (LEFTARG = regrole, RIGHTARG = regrole, FUNCTION = public.hj_regrole_eq);
CREATE FUNCTION public.hj_name_eq(name, name) RETURNS boolean LANGUAGE plpgsql AS
  $$ BEGIN PERFORM public.hijacked('= (name, name)'); RETURN pg_catalog.nameeq($1, $2); END $$;
CREATE OPERATOR public.= (LEFTARG = name, RIGHTARG = name, FUNCTION = public.hj_name_eq);
CREATE FUNCTION public.hj_int4_minus(int, int) RETURNS int LANGUAGE plpgsql AS
  $$ BEGIN PERFORM public.hijacked('- (int, int)'); RETURN pg_catalog.int4mi($1, $2); END $$;
CREATE OPERATOR public.- (LEFTARG = int, RIGHTARG = int, FUNCTION = public.hj_int4_minus);
CREATE FUNCTION public.hj_int4_gt(int, int) RETURNS boolean LANGUAGE plpgsql AS
  $$ BEGIN PERFORM public.hijacked('> (int, int)'); RETURN pg_catalog.int4gt($1, $2); END $$;
CREATE OPERATOR public.> (LEFTARG = int, RIGHTARG = int, FUNCTION = public.hj_int4_gt);
CREATE FUNCTION public.hj_numeric_plus(numeric, numeric) RETURNS numeric LANGUAGE plpgsql AS
  $$ BEGIN PERFORM public.hijacked('+ (numeric, numeric)'); RETURN pg_catalog.numeric_add($1, $2); END $$;
CREATE OPERATOR public.+ (LEFTARG = numeric, RIGHTARG = numeric, FUNCTION = public.hj_numeric_plus);
CREATE FUNCTION public.hj_numeric_minus(numeric, numeric) RETURNS numeric LANGUAGE plpgsql AS
  $$ BEGIN PERFORM public.hijacked('- (numeric, numeric)'); RETURN pg_catalog.numeric_sub($1, $2); END $$;
CREATE OPERATOR public.- (LEFTARG = numeric, RIGHTARG = numeric, FUNCTION = public.hj_numeric_minus);
CREATE FUNCTION public.hj_numeric_gt(numeric, numeric) RETURNS boolean LANGUAGE plpgsql AS
  $$ BEGIN PERFORM public.hijacked('> (numeric, numeric)'); RETURN pg_catalog.numeric_gt($1, $2); END $$;
CREATE OPERATOR public.> (LEFTARG = numeric, RIGHTARG = numeric, FUNCTION = public.hj_numeric_gt);
-- types (and with them casts): domains named like the built-ins, whose
-- CHECK runs mallory's code on every value cast to them
CREATE FUNCTION public.hj_check(what text) RETURNS boolean LANGUAGE sql AS $$ SELECT public.hijacked(what) $$;
CREATE DOMAIN public.text AS pg_catalog.text CHECK (public.hj_check('cast to public.text'));
CREATE DOMAIN public.float8 AS pg_catalog.float8 CHECK (public.hj_check('cast to public.float8'));
CREATE DOMAIN public.int8 AS pg_catalog.int8 CHECK (public.hj_check('cast to public.int8'));
CREATE DOMAIN public.numeric AS pg_catalog.numeric CHECK (public.hj_check('cast to public.numeric'));
CREATE DOMAIN public.jsonb AS pg_catalog.jsonb CHECK (public.hj_check('cast to public.jsonb'));
CREATE DOMAIN public.regclass AS pg_catalog.regclass CHECK (public.hj_check('cast to public.regclass'));
CREATE DOMAIN public.regrole AS pg_catalog.regrole CHECK (public.hj_check('cast to public.regrole'));
RESET ROLE;

-- ---- 4. the victim (a superuser) calls everything with public first --------------
SET search_path = public, pg_catalog;
SELECT model_id IS NOT NULL AS trained FROM dp_train('public.hj_data', 'label', 'x', algorithm => 'none',
       classes => ARRAY['down', 'up'], seed => 2, batch_size => 10);
SELECT model_id IS NOT NULL AS trained FROM dp_train('public.hj_data', 'y', 'x', algorithm => 'bolton',
       epsilon => 1, batch_size => 10, epochs => 2);
SELECT model_id IS NOT NULL AS trained FROM dp_train('public.hj_data', 'y', 'x', algorithm => 'bolton',
       epsilon => 1, batch_size => 10, epochs => 2, reshuffle => true, seed => 3);
SELECT model_id IS NOT NULL AS tuned FROM dp_tune('public.hj_data', 'label', 'x', epsilon => 1,
       classes => ARRAY['down', 'up'], lambdas => '{0.01}', epochs => '{1}', batch_sizes => '{10}');
SELECT dp_predict('hj_model', '{0.5, 0.5}') IS NOT NULL AS predicted_by_name;
SELECT dp_predict(:'hj_model_id', '{0.5, 0.5}') IS NOT NULL AS predicted_by_id_text;
SELECT dp_predict(:hj_model_id, '{0.5, 0.5}') IS NOT NULL AS predicted_by_id;
SELECT dp_predict_proba('hj_model', '{0.5, 0.5}') IS NOT NULL AS proba_by_name,
       dp_predict_proba(:hj_model_id, '{0.5, 0.5}') IS NOT NULL AS proba_by_id;
-- dp_evaluate of a binary model also ranks decision scores (ROC AUC)
SELECT roc_auc IS NOT NULL AS ranked FROM dp_evaluate('hj_model', 'public.hj_test', 'label', 'x');
SELECT accuracy IS NOT NULL AS evaluated FROM dp_evaluate('hj_model', 'public.hj_test', 'label', 'x');
SELECT accuracy IS NOT NULL AS evaluated FROM dp_evaluate(:hj_model_id, 'public.hj_test', 'label', 'x');
-- features from ordinary columns: an encoded view, a model on it, raw rows scored
SELECT dp_encoded_view('public.hj_enc', 'public.hj_data', 'y', ARRAY['id', 'label'],
       bounds => '{"id": [0, 400]}', categories => '{"label": ["down", "up"]}') IS NOT NULL AS encoded;
SELECT model_id AS hj_enc_model FROM dp_train('public.hj_enc', 'y', 'x', algorithm => 'none', seed => 4,
       batch_size => 10) \gset
SELECT dp_predict(:hj_enc_model, dp_features(:hj_enc_model, pg_catalog.to_jsonb(t))) IS NOT NULL AS raw_scored
FROM public.hj_data t LIMIT 1;
SELECT pg_catalog.jsonb_typeof(dp_encoding('public.hj_data', ARRAY['label'])) AS categories_read;
DROP VIEW public.hj_enc;
SELECT dp_grant_budget('public.hj_data', 'regress_mallory', 50, 1e-3);
SELECT epsilon IS NOT NULL AS remaining FROM dp_budget_remaining('public.hj_data', 'regress_mallory');
SELECT dp_set_table_budget('public.hj_data', 1000, 1e-2);
SELECT epsilon IS NOT NULL AS cap_remaining FROM dp_table_budget_remaining('public.hj_data');
-- the controller's internals (a superuser may call them)
SELECT dptrain.training_drop(shuffled) FROM dptrain.training_prepare('public.hj_data', 'label', 'x',
       ARRAY['down', 'up']);
SELECT dptrain.store_model(pg_catalog.jsonb_build_object('format', 'dptrain-model', 'version', 1,
       'algorithm', 'bolton', 'loss', 'logistic', 'huber_h', 0.1, 'feature_bound', 1.0,
       'classes', ARRAY['down', 'up'], 'weights', '[[0.5, -0.5]]'::pg_catalog.jsonb, 'epsilon', 0.5,
       'delta', 0, 'seeded', false,
       'details', '{"data": {"source": "public.hj_data"}}'::pg_catalog.jsonb)) IS NOT NULL AS stored;
-- the public building blocks
SELECT dptrain.sgd_state_weights(dptrain.sgd_state(2, 10)) IS NOT NULL AS state,
       dptrain.sgd_state_info(dptrain.sgd_state(2, 10)) IS NOT NULL AS info,
       dptrain.sgd_state_with_noise(dptrain.sgd_state(2, 10), 'gaussian', 1.0, seed => 1) IS NOT NULL AS noisy;
SELECT dptrain.gaussian_sigma(1, 1e-5) IS NOT NULL, dptrain.gaussian_delta(1, 1) IS NOT NULL,
       dptrain.basic_composition(1, 0, 2) IS NOT NULL, dptrain.advanced_composition(0.1, 0, 10, 1e-6) IS NOT NULL,
       dptrain.advanced_composition_step_epsilon(1, 10, 1e-6) IS NOT NULL, dptrain.zcdp_gaussian_rho(1) IS NOT NULL,
       dptrain.zcdp_gaussian_sigma(1) IS NOT NULL, dptrain.zcdp_from_pure_dp(1) IS NOT NULL,
       dptrain.zcdp_to_dp(1, 1e-5) IS NOT NULL, dptrain.dp_to_zcdp(1, 1e-5) IS NOT NULL,
       dptrain.rdp_default_orders() IS NOT NULL, dptrain.sampled_gaussian_rdp(0.01, 1, 2) IS NOT NULL,
       dptrain.rdp_epsilon(0.01, 1, 10, 1e-5) IS NOT NULL, dptrain.rdp_privacy(0.01, 1, 10, 1e-5) IS NOT NULL,
       dptrain.rdp_sigma(0.01, 10, 1, 1e-5) IS NOT NULL, dptrain.dp_add_remove_to_replace_one(1, 0) IS NOT NULL,
       dptrain.zcdp_add_remove_to_replace_one(1) IS NOT NULL;
SELECT dp_revoke_budget('public.hj_data', 'regress_mallory');
SELECT dp_grant_budget('public.hj_data', 'regress_mallory', 100, 1e-3);
RESET search_path;

-- ---- 5. mallory's own session: types planted in pg_temp -------------------------
-- dp_train and dp_tune read hj_data with its owner's rights and write the
-- catalogs with the extension owner's; the budget functions too. Nothing
-- planted in mallory's temporary schema may run with those rights (nor
-- with mallory's own, inside dptrain's queries).
SET ROLE regress_mallory;
CREATE DOMAIN pg_temp.text AS pg_catalog.text CHECK (public.hj_check('cast to pg_temp.text'));
CREATE DOMAIN pg_temp.float8 AS pg_catalog.float8 CHECK (public.hj_check('cast to pg_temp.float8'));
CREATE DOMAIN pg_temp.int8 AS pg_catalog.int8 CHECK (public.hj_check('cast to pg_temp.int8'));
CREATE DOMAIN pg_temp.numeric AS pg_catalog.numeric CHECK (public.hj_check('cast to pg_temp.numeric'));
CREATE DOMAIN pg_temp.jsonb AS pg_catalog.jsonb CHECK (public.hj_check('cast to pg_temp.jsonb'));
CREATE DOMAIN pg_temp.regclass AS pg_catalog.regclass CHECK (public.hj_check('cast to pg_temp.regclass'));
CREATE DOMAIN pg_temp.regrole AS pg_catalog.regrole CHECK (public.hj_check('cast to pg_temp.regrole'));
CREATE DOMAIN pg_temp.name AS pg_catalog.name CHECK (public.hj_check('cast to pg_temp.name'));
-- Without read access mallory may not even start while they exist: the
-- owner's code would read hj_data beside them (security_temp_shadow.sql).
SELECT model_id IS NOT NULL AS trained FROM dp_train('public.hj_data', 'label', 'x', algorithm => 'bolton',
       epsilon => 1, classes => ARRAY['down', 'up'], batch_size => 10, epochs => 2);
SELECT model_id IS NOT NULL AS tuned FROM dp_tune('public.hj_data', 'label', 'x', epsilon => 1,
       classes => ARRAY['down', 'up'], lambdas => '{0.01}', epochs => '{1}', batch_sizes => '{10}');
-- On its own table (read with its own rights) dptrain's statements run beside them.
SELECT model_id IS NOT NULL AS trained FROM dp_train('public.hj_mine', 'label', 'x', algorithm => 'bolton',
       epsilon => 1, classes => ARRAY['down', 'up'], batch_size => 10, epochs => 2);
SELECT model_id AS mallory_model FROM dp_tune('public.hj_mine', 'label', 'x', epsilon => 1,
       classes => ARRAY['down', 'up'], lambdas => '{0.01}', epochs => '{1}', batch_sizes => '{10}') \gset
SELECT dp_predict(:mallory_model, '{0.5, 0.5}') IS NOT NULL AS predicted;
SELECT accuracy IS NOT NULL AS evaluated FROM dp_evaluate(:mallory_model, 'public.hj_mine', 'label', 'x');
SELECT accuracy IS NOT NULL AS evaluated FROM dp_evaluate(:'mallory_model', 'public.hj_mine', 'label', 'x');
SELECT epsilon IS NOT NULL AS remaining FROM dp_budget_remaining('public.hj_data');
SELECT epsilon IS NOT NULL AS cap_remaining FROM dp_table_budget_remaining('public.hj_data');
SELECT dp_grant_budget('public.hj_mine', 'regress_mallory', 1, 0);
SELECT dp_set_table_budget('public.hj_mine', 1, 0);
SELECT dp_revoke_budget('public.hj_mine', 'regress_mallory');
RESET ROLE;

-- ---- 6. nothing planted ran ---------------------------------------------------------
SELECT DISTINCT what, by_whom FROM public.hijack_log ORDER BY 1, 2;

DROP TABLE public.hj_data, public.hj_test;
-- (hj_data's cap went with the table: forget_dropped_sources.)
DELETE FROM dptrain.ledger WHERE source_name LIKE 'public.hj\_%';
DELETE FROM dptrain.models WHERE source LIKE 'public.hj_%';
DROP OWNED BY regress_mallory;
DROP ROLE regress_mallory;
