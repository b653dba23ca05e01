-- Attack: overloads planted in the extension's own schema. dptrain's
-- user-facing functions live in the schema chosen at CREATE EXTENSION (here
-- public), and a role that may CREATE there can add functions and operators
-- of the same names. dptrain's internal SQL called one of them by name,
-- schema-qualified but resolved by PostgreSQL's overload rules:
-- @extschema@.dp_encoding(...) in dp_encoded_view and in every
-- dp_train(features => ARRAY[...]). A planted dp_encoding with one more
-- argument (defaulted) made those calls ambiguous ("function ... is not
-- unique") for every role, the superuser included; a planted function that
-- matches better would have run as the caller. Now the internal calls go to
-- dptrain.build_encoding, in the extension's internal schema, where only
-- the extension owner creates. Planted operators in public are never
-- looked up: internal SQL runs with search_path = pg_catalog, pg_temp.
SET client_min_messages = warning;
\set SHOW_CONTEXT never
CREATE ROLE regress_planter;
GRANT CREATE ON SCHEMA public TO regress_planter;
CREATE TABLE public.es_data AS
SELECT i AS id, (i % 7)::float8 AS age, CASE WHEN i % 3 = 0 THEN 'a' ELSE 'b' END AS kind,
       (sin(i) > 0) AS y
FROM generate_series(1, 60) i;

SET ROLE regress_planter;
CREATE TABLE public.es_log (what text, by_whom name);
GRANT INSERT, SELECT ON public.es_log TO PUBLIC;
CREATE FUNCTION public.es_planted(what text) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO public.es_log VALUES (what, current_user);
  RAISE WARNING 'PLANTED: % ran as %', what, current_user;
  RETURN true;
END
$$;
-- same name and schema as the real dp_encoding, one defaulted argument more
CREATE FUNCTION public.dp_encoding(source regclass, features text[], bounds jsonb, categories jsonb,
                                   normalization text, extra int DEFAULT 0) RETURNS jsonb
LANGUAGE plpgsql AS $$ BEGIN PERFORM public.es_planted('dp_encoding(..., int)'); RETURN '{}'; END $$;
-- and the same with the variadic form
CREATE FUNCTION public.dp_encoding(source regclass, features text[], bounds jsonb, categories jsonb,
                                   normalization text, VARIADIC more int[]) RETURNS jsonb
LANGUAGE plpgsql AS $$ BEGIN PERFORM public.es_planted('dp_encoding(..., VARIADIC int[])'); RETURN '{}'; END $$;
-- operators the encoding's SQL uses, on its exact types
CREATE FUNCTION public.es_jsonb_concat(jsonb, jsonb) RETURNS jsonb LANGUAGE plpgsql AS
  $$ BEGIN PERFORM public.es_planted('|| (jsonb, jsonb)'); RETURN pg_catalog.jsonb_concat($1, $2); END $$;
CREATE OPERATOR public.|| (LEFTARG = jsonb, RIGHTARG = jsonb, FUNCTION = public.es_jsonb_concat);
CREATE FUNCTION public.es_jsonb_exists(jsonb, text) RETURNS boolean LANGUAGE plpgsql AS
  $$ BEGIN PERFORM public.es_planted('? (jsonb, text)'); RETURN pg_catalog.jsonb_exists($1, $2); END $$;
CREATE OPERATOR public.? (LEFTARG = jsonb, RIGHTARG = text, FUNCTION = public.es_jsonb_exists);
CREATE FUNCTION public.es_text_eq(text, text) RETURNS boolean LANGUAGE plpgsql AS
  $$ BEGIN PERFORM public.es_planted('= (text, text)'); RETURN pg_catalog.texteq($1, $2); END $$;
CREATE OPERATOR public.= (LEFTARG = text, RIGHTARG = text, FUNCTION = public.es_text_eq);
RESET ROLE;

-- the victim, a superuser with public first on its path
SET search_path = public, pg_catalog;
SELECT model_id IS NOT NULL AS trained, details->'encoding'->'columns'->1->'categories' AS kinds
FROM dp_train('public.es_data', 'y', features => ARRAY['age', 'kind'], algorithm => 'none', seed => 1,
              batch_size => 10, bounds => '{"age": [0, 6]}', categories => '{"kind": ["a", "b"]}');
SELECT dp_encoded_view('public.es_view', 'public.es_data', 'y', ARRAY['age', 'kind'],
                       bounds => '{"age": [0, 6]}', categories => '{"kind": ["a", "b"]}') AS view;
SELECT count(*) AS rows FROM public.es_view;
-- the tuning form goes through the same encoding
SELECT model_id IS NOT NULL AS tuned
FROM dp_tune('public.es_data', 'y', features => ARRAY['age', 'kind'], epsilon => 1, lambdas => '{0.01}',
             epochs => '{1}', batch_sizes => '{10}', bounds => '{"age": [0, 6]}',
             categories => '{"kind": ["a", "b"]}');
-- nothing planted ran
SELECT count(*) AS planted_calls FROM public.es_log;

RESET search_path;
DROP VIEW public.es_view;
DELETE FROM dptrain.ledger WHERE source_name = 'public.es_data';
DELETE FROM dptrain.models WHERE source = 'public.es_data';
DROP TABLE public.es_data;
DROP OWNED BY regress_planter;
DROP ROLE regress_planter;
