-- Features from ordinary columns (docs/encoding.md): numeric columns scaled
-- by PUBLIC bounds, booleans, text columns one-hot encoded with DECLARED
-- categories, rows normalized; the encoding is stored with every model
-- trained on an encoded view, so raw rows can be scored later.

-- Encoded views and their encodings (written by dptrain.register_encoding
-- only, for the owner of the view). dp_train looks its source up here and
-- stores the encoding with the model.
CREATE TABLE dptrain.feature_encodings (
    relation   regclass PRIMARY KEY,
    encoding   jsonb NOT NULL,
    definition text NOT NULL,      -- pg_get_viewdef at registration: a redefined view loses its encoding
    created_by name NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
REVOKE ALL ON dptrain.feature_encodings FROM PUBLIC;
SELECT pg_catalog.pg_extension_config_dump('dptrain.feature_encodings', '');
COMMENT ON TABLE dptrain.feature_encodings IS
'encoded views (dp_encoded_view) and their feature encodings, stored with the models trained on them';

CREATE FUNCTION dptrain.encode_row(encoding jsonb, VARIADIC "values" text[]) RETURNS float8[]
AS 'MODULE_PATHNAME', 'dptrain_encode_row' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION dptrain.encode_row IS
'the feature vector of one row under an encoding (one text value per encoded column; NULL if a number or boolean is NULL)';
CREATE FUNCTION dptrain.encode_json_row(encoding jsonb, "row" jsonb) RETURNS float8[]
AS 'MODULE_PATHNAME', 'dptrain_encode_json_row' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dptrain.encode_json_row IS
'the feature vector of a row given as a JSON object (e.g. to_jsonb(t)) under an encoding';
CREATE FUNCTION dptrain.encoding_check(encoding jsonb) RETURNS jsonb
AS 'MODULE_PATHNAME', 'dptrain_encoding_check' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dptrain.encoding_check IS
'internal: a feature encoding validated and written in its normal form (an error if it is malformed)';
-- SECURITY INVOKER: the C code checks that the caller owns the view, then
-- writes the registry as the extension owner.
CREATE FUNCTION dptrain.register_encoding(view regclass, encoding jsonb) RETURNS void
AS 'MODULE_PATHNAME', 'dptrain_register_encoding' LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION dptrain.register_encoding IS
'internal: records the encoding of an encoded view (its owner only)';

-- How a column of `source` is encoded, from its type: numeric, boolean or
-- categorical (an error for a missing column or another type).
CREATE FUNCTION dptrain.column_kind(source regclass, col text) RETURNS text
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    typ oid;
BEGIN
    SELECT a.atttypid INTO typ FROM pg_attribute a
    WHERE a.attrelid = source AND a.attname = col AND a.attnum > 0 AND NOT a.attisdropped;
    IF typ IS NULL THEN
        RAISE EXCEPTION 'column "%" of % does not exist', col, source USING ERRCODE = 'undefined_column',
            HINT = 'List columns of the source table in features.';
    ELSIF typ IN ('int2'::regtype, 'int4'::regtype, 'int8'::regtype, 'float4'::regtype, 'float8'::regtype,
                  'numeric'::regtype) THEN
        RETURN 'numeric';
    ELSIF typ = 'bool'::regtype THEN
        RETURN 'boolean';
    ELSIF typ IN ('text'::regtype, 'varchar'::regtype, 'bpchar'::regtype, 'name'::regtype)
          OR EXISTS (SELECT 1 FROM pg_type t WHERE t.oid = typ AND t.typtype = 'e') THEN
        RETURN 'categorical';
    END IF;
    RAISE EXCEPTION 'column "%" has type %, which dptrain cannot encode', col, format_type(typ, NULL)
        USING ERRCODE = 'datatype_mismatch', HINT = 'Encode numeric, boolean and text columns; cast others in a view.';
END
$$;
COMMENT ON FUNCTION dptrain.column_kind IS
'internal: how a column is encoded (numeric, boolean or categorical), from its type';

-- The distinct values of a column, as dp_encoding reads undeclared
-- categories (src/pg/data_categories.cpp): with the caller's rights; in C, so
-- that the statement naming the relation is checked before it runs.
CREATE FUNCTION dptrain.distinct_text_values(source regclass, col text, max_values int4) RETURNS text[]
AS 'MODULE_PATHNAME', 'dptrain_distinct_text_values' LANGUAGE C STABLE STRICT
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION dptrain.distinct_text_values IS
'internal: up to max_values distinct values of a column as text, sorted (with the caller''s rights)';

-- One column's entry of an encoding, from its type and the declarations.
CREATE FUNCTION dptrain.encoding_column(source regclass, col text, bounds jsonb, categories jsonb)
RETURNS jsonb LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    kind text := dptrain.column_kind(source, col);
    vals text[];
    cats jsonb;
    n bigint;
BEGIN
    IF kind = 'numeric' THEN
        IF NOT bounds ? col THEN
            RAISE EXCEPTION 'numeric column "%" needs public bounds', col USING ERRCODE = 'invalid_parameter_value',
                HINT = format('Declare them, e.g. bounds => ''{"%s": [0, 100]}'': bounds read from the data would not be private.', col);
        END IF;
        RETURN jsonb_build_object('name', col, 'type', 'numeric', 'bounds', bounds -> col);
    ELSIF kind = 'boolean' THEN
        RETURN jsonb_build_object('name', col, 'type', 'boolean');
    END IF;
    IF categories ? col THEN
        RETURN jsonb_build_object('name', col, 'type', 'categorical', 'categories', categories -> col);
    END IF;
    -- Read from the data, as the caller: outside the privacy guarantee, and said so.
    vals := dptrain.distinct_text_values(source, col, 1001);
    n := coalesce(cardinality(vals), 0);
    cats := to_jsonb(vals);
    IF n > 1000 THEN
        RAISE EXCEPTION 'text column "%" has more than 1000 distinct values', col
            USING ERRCODE = 'program_limit_exceeded',
            HINT = 'Declare the categories to keep (categories => ...), or leave the column out.';
    END IF;
    RAISE NOTICE 'the categories of column "%" were read from the data: they are outside the privacy guarantee (declare them with categories => ...)', col;
    RETURN jsonb_build_object('name', col, 'type', 'categorical', 'categories', coalesce(cats, '[]'),
                              'categories_from_data', true);
END
$$;
COMMENT ON FUNCTION dptrain.encoding_column IS
'internal: one column of a feature encoding, from its type and the declared bounds and categories';

-- The body of dp_encoding, in the internal schema: dptrain's own calls
-- (dp_encoded_view, dp_train and dp_tune on columns: encoded_features.cpp)
-- go here. A call of @extschema@.dp_encoding by name is resolved among every
-- function of that name in that schema, where other roles may CREATE (public
-- on older clusters): an overload planted there with one more defaulted or
-- variadic argument made every such call ambiguous, for every role
-- (test/regress/sql/security_extension_schema.sql). Only the extension owner
-- creates in dptrain, and this name has no defaults to widen.
CREATE FUNCTION dptrain.build_encoding(source regclass, features text[], bounds jsonb, categories jsonb,
                                       normalization text)
RETURNS jsonb LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    cols jsonb := '[]';
    f text;
    unknown text;
BEGIN
    IF source IS NULL OR features IS NULL OR bounds IS NULL OR categories IS NULL OR normalization IS NULL THEN
        RAISE EXCEPTION 'arguments of dp_encoding must not be NULL' USING ERRCODE = 'null_value_not_allowed',
            HINT = 'Leave an argument out to use its default.';
    END IF;
    IF jsonb_typeof(bounds) <> 'object' OR jsonb_typeof(categories) <> 'object' THEN
        RAISE EXCEPTION 'bounds and categories must be JSON objects keyed by column' USING ERRCODE = 'invalid_parameter_value',
            HINT = 'E.g. bounds => ''{"age": [17, 90]}'', categories => ''{"sex": ["Female", "Male"]}''.';
    END IF;
    SELECT k INTO unknown FROM (SELECT jsonb_object_keys(bounds) k UNION ALL SELECT jsonb_object_keys(categories)) d
    WHERE k <> ALL (features) LIMIT 1;
    IF unknown IS NOT NULL THEN
        RAISE EXCEPTION '"%" is declared but not among the features', unknown USING ERRCODE = 'invalid_parameter_value',
            HINT = 'Declare bounds and categories only for columns listed in features.';
    END IF;
    FOREACH f IN ARRAY features LOOP
        cols := cols || dptrain.encoding_column(source, f, bounds, categories);
    END LOOP;
    RETURN dptrain.encoding_check(jsonb_build_object('columns', cols, 'normalize', normalization));
END
$$;
COMMENT ON FUNCTION dptrain.build_encoding IS
'internal: the body of dp_encoding, which dptrain''s own SQL calls (never the name in the extension''s schema)';

CREATE FUNCTION @extschema@.dp_encoding(source regclass, features text[], bounds jsonb DEFAULT '{}',
                                        categories jsonb DEFAULT '{}', normalization text DEFAULT 'l2')
RETURNS jsonb LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS
$$ SELECT dptrain.build_encoding(source, features, bounds, categories, normalization) $$;
COMMENT ON FUNCTION @extschema@.dp_encoding IS
'a feature encoding of columns of a table: numeric (public bounds), boolean and text (declared categories) columns; see docs/encoding.md';

CREATE FUNCTION @extschema@.dp_encoded_view(view_name text, source regclass, label text, features text[] DEFAULT NULL,
                                            bounds jsonb DEFAULT '{}', categories jsonb DEFAULT '{}',
                                            normalization text DEFAULT 'l2', encoding jsonb DEFAULT NULL)
RETURNS regclass LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    enc jsonb;
    target text;
    cols text;
    mismatch text;
    v regclass;
    parts text[];
    problem text;
BEGIN
    IF view_name IS NULL OR source IS NULL OR label IS NULL THEN
        RAISE EXCEPTION 'view_name, source and label must not be NULL' USING ERRCODE = 'null_value_not_allowed',
            HINT = 'Name the view, the source table and its label column.';
    END IF;
    IF (features IS NULL) = (encoding IS NULL) THEN
        RAISE EXCEPTION 'pass either features or encoding' USING ERRCODE = 'invalid_parameter_value',
            HINT = 'features => ARRAY[...] builds a new encoding; encoding => (a model''s details->''encoding'') reuses one.';
    END IF;
    -- The view's name, before any work: an identifier, optionally schema-
    -- qualified (parse_ident's error, and CREATE VIEW's about three or more
    -- parts, named no argument and gave no hint).
    BEGIN
        parts := parse_ident(view_name);
    EXCEPTION WHEN invalid_parameter_value THEN
        GET STACKED DIAGNOSTICS problem = MESSAGE_TEXT;
        RAISE EXCEPTION 'view_name % is not a view name', quote_literal(view_name)
            USING ERRCODE = 'invalid_parameter_value', DETAIL = problem || '.',
            HINT = 'Write it as in SQL: my_view or my_schema.my_view, a name with capitals or spaces in double '
                   'quotes inside the string (''"My View"'').';
    END;
    IF array_length(parts, 1) > 2 THEN
        RAISE EXCEPTION 'view_name % has % dotted parts', quote_literal(view_name), array_length(parts, 1)
            USING ERRCODE = 'invalid_parameter_value',
            HINT = 'Name the view my_view (created in the schema of the source) or my_schema.my_view; it is created '
                   'in the current database.';
    END IF;
    enc := CASE WHEN encoding IS NULL THEN dptrain.build_encoding(source, features, bounds, categories, normalization)
                ELSE dptrain.encoding_check(encoding) END;
    -- Every role can read a view's definition (pg_views, even of a temporary
    -- view): categories read from the data would be public in it.
    SELECT c->>'name' INTO mismatch FROM jsonb_array_elements(enc -> 'columns') c
    WHERE (c->>'categories_from_data')::boolean LIMIT 1;
    IF mismatch IS NOT NULL THEN
        RAISE EXCEPTION 'the categories of column "%" were read from the data', mismatch
            USING ERRCODE = 'invalid_parameter_value',
            DETAIL = 'A view''s definition is readable by every role (pg_views): they would be public in it.',
            HINT = format('Declare them (categories => ''{"%s": [...]}''), or train and evaluate on the columns in one '
                          'call, which keeps the encoding inside the model: dp_train(source, label, features => '
                          'ARRAY[...]) and dp_evaluate(model, table, label).', mismatch);
    END IF;
    -- A reused encoding must fit the columns' types here too: a mismatch found
    -- row by row would tell a training run something about the data.
    SELECT c->>'name' INTO mismatch FROM jsonb_array_elements(enc -> 'columns') c
    WHERE dptrain.column_kind(source, c->>'name') <> c->>'type' LIMIT 1;
    IF mismatch IS NOT NULL THEN
        RAISE EXCEPTION 'column "%" of % does not have the type the encoding expects', mismatch, source
            USING ERRCODE = 'datatype_mismatch',
            HINT = 'Numeric encodings need numeric columns, boolean ones boolean columns, categorical ones text columns.';
    END IF;
    IF label = 'x' THEN
        RAISE EXCEPTION 'the label column cannot be called "x"' USING ERRCODE = 'invalid_parameter_value',
            HINT = 'The view''s feature column is x; rename the label in a view first.';
    END IF;
    -- A number column as dptrain.float_text writes its float8 value (its
    -- text, col::text, would follow the reader's extra_float_digits:
    -- src/pg/float_text.h), the others as their text. A numeric value no
    -- double holds (dptrain.beyond_float8: above 1.8e308, or not 0 and
    -- rounding to 0) reads as NaN, not as the cast's error: a run without read
    -- access reads the view as its owner, and an error on one hidden row told
    -- it that the row is there (security_oracle_columns.sql); NaN makes it the
    -- fixed public row. Every value that casts (subnormal ones too) reads as its double.
    SELECT string_agg(CASE WHEN c->>'type' <> 'numeric' THEN format('%I::pg_catalog.text', c->>'name')
                           WHEN (SELECT coalesce(nullif(ty.typbasetype, 0), ty.oid) FROM pg_attribute a
                                 JOIN pg_type ty ON ty.oid = a.atttypid
                                 WHERE a.attrelid = source AND a.attname = c->>'name') = 'numeric'::regtype
                           THEN format('dptrain.float_text(CASE WHEN dptrain.beyond_float8(%1$I) '
                                       'THEN ''NaN''::pg_catalog.float8 ELSE %1$I::pg_catalog.float8 END)', c->>'name')
                           ELSE format('dptrain.float_text(%I::pg_catalog.float8)', c->>'name') END, ', ' ORDER BY o)
    INTO cols
    FROM jsonb_array_elements(enc -> 'columns') WITH ORDINALITY AS e(c, o);
    -- An unqualified name goes to the source's schema (this function's own
    -- search_path is pinned, and the caller's is not known here).
    SELECT string_agg(quote_ident(p), '.') INTO target FROM unnest(parse_ident(view_name)) p;
    IF array_length(parse_ident(view_name), 1) = 1 THEN
        SELECT quote_ident(n.nspname) || '.' || target INTO target
        FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = source;
    END IF;
    -- CREATE VIEW's errors about the name, with what to do (they had no hint).
    BEGIN
        EXECUTE format('CREATE VIEW %s AS SELECT %I, dptrain.encode_row(%L::jsonb, %s) AS x FROM %s',
                       target, label, enc, cols, source);
    EXCEPTION
        WHEN duplicate_table THEN
            GET STACKED DIAGNOSTICS problem = MESSAGE_TEXT;
            RAISE EXCEPTION '%', problem USING ERRCODE = 'duplicate_table',
                HINT = 'Choose another view_name, or qualify it with another schema (pg_temp.my_view for a '
                       'temporary view).';
        WHEN invalid_schema_name THEN
            GET STACKED DIAGNOSTICS problem = MESSAGE_TEXT;
            RAISE EXCEPTION '%', problem USING ERRCODE = 'invalid_schema_name',
                HINT = 'Create the schema first, or qualify view_name with an existing schema (unqualified, the view '
                       'goes to the schema of the source).';
        WHEN insufficient_privilege THEN
            GET STACKED DIAGNOSTICS problem = MESSAGE_TEXT;
            RAISE EXCEPTION '%', problem USING ERRCODE = 'insufficient_privilege',
                HINT = 'Qualify view_name with a schema you may create in (unqualified, the view goes to the schema '
                       'of the source), e.g. pg_temp.my_view for a temporary view.';
    END;
    v := target::regclass;
    -- CREATE VIEW named the source by text, which PostgreSQL resolved again:
    -- a schema renamed meanwhile by another session could have put another
    -- relation (or, for dptrain.encode_row, function) under the name
    -- (docs/governance.md, "Names resolved again"). The new view must be ours
    -- and read `source` and nothing else, and call only PostgreSQL's and
    -- dptrain's functions.
    IF (SELECT c.relowner FROM pg_class c WHERE c.oid = v) <> (SELECT r.oid FROM pg_roles r WHERE r.rolname = current_user)
       OR NOT EXISTS (SELECT FROM pg_depend d JOIN pg_rewrite w ON w.oid = d.objid
                      WHERE d.classid = 'pg_rewrite'::regclass AND w.ev_class = v
                        AND d.refclassid = 'pg_class'::regclass AND d.refobjid = source)
       OR EXISTS (SELECT FROM pg_depend d JOIN pg_rewrite w ON w.oid = d.objid
                  WHERE d.classid = 'pg_rewrite'::regclass AND w.ev_class = v
                    AND ((d.refclassid = 'pg_class'::regclass AND d.refobjid NOT IN (v, source))
                         OR (d.refclassid = 'pg_proc'::regclass
                             AND (SELECT p.pronamespace FROM pg_proc p WHERE p.oid = d.refobjid) <> 'pg_catalog'::regnamespace
                             AND NOT EXISTS (SELECT FROM pg_depend e
                                             WHERE e.classid = 'pg_proc'::regclass AND e.objid = d.refobjid
                                               AND e.refclassid = 'pg_extension'::regclass AND e.deptype = 'e'
                                               AND e.refobjid = (SELECT x.oid FROM pg_extension x WHERE x.extname = 'dptrain')))))
    THEN
        RAISE EXCEPTION 'the name of % now finds another object', source
            USING ERRCODE = 'object_not_in_prerequisite_state',
            DETAIL = format('The view %s does not read that relation, or reads or calls something else.', target),
            HINT = 'Was a schema renamed during the call? Call again with the relation''s current name.';
    END IF;
    -- A temporary view (e.g. to evaluate on raw rows) is not registered: no
    -- model is trained on it, and its end is never reported to the registry.
    IF (SELECT c.relpersistence FROM pg_class c WHERE c.oid = v) <> 't' THEN
        PERFORM dptrain.register_encoding(v, enc);
    END IF;
    RETURN v;
END
$$;
COMMENT ON FUNCTION @extschema@.dp_encoded_view IS
'creates a view (label, x float8[]) of a table''s columns under a feature encoding (unqualified: in the table''s schema); models trained on it store the encoding';

-- dp_train on ordinary columns in one call: the same C function as
-- dp_train(source, label, features text, ...), with the encoding's three
-- declarations last. A call whose features is a quoted literal ('x') still
-- resolves to the features-column form (an unknown literal prefers text to
-- text[]). The encoding is applied inside the run's own statements and stored
-- with the model (src/pg/encoded_features.h, docs/encoding.md).
CREATE FUNCTION @extschema@.dp_train(
    source        regclass,
    label         text,
    features      text[],
    algorithm     text     DEFAULT NULL,
    loss          text     DEFAULT 'logistic',
    epsilon       float8   DEFAULT NULL,
    delta         float8   DEFAULT NULL,
    epochs        int      DEFAULT NULL,
    batch_size    int      DEFAULT NULL,
    lambda        float8   DEFAULT NULL,
    learning_rate float8   DEFAULT NULL,
    name          text     DEFAULT NULL,
    seed          bigint   DEFAULT NULL,
    classes       text[]   DEFAULT NULL,
    schedule      text     DEFAULT NULL,
    huber_h       float8   DEFAULT 0.1,
    averaging     boolean  DEFAULT false,
    reshuffle     boolean  DEFAULT false,
    radius        float8   DEFAULT NULL,
    options       jsonb    DEFAULT '{}',
    intercept     boolean  DEFAULT NULL,
    bounds        jsonb    DEFAULT '{}',
    categories    jsonb    DEFAULT '{}',
    normalization text     DEFAULT 'l2')
RETURNS dptrain.trained_model
AS 'MODULE_PATHNAME', 'dptrain_dp_train' LANGUAGE C VOLATILE
SUPPORT dptrain.copied_call_support
-- SECURITY INVOKER, pinned path, no JIT: as dp_train(regclass, text, text, ...).
SET search_path = pg_catalog, pg_temp
SET jit = off;
COMMENT ON FUNCTION @extschema@.dp_train(regclass, text, text[], text, text, float8, float8, int, int, float8, float8,
                                         text, bigint, text[], text, float8, boolean, boolean, float8, jsonb, boolean,
                                         jsonb, jsonb, text) IS
'train a (differentially private) linear model on ordinary columns of a table: features => ARRAY[column, ...] with public bounds (numbers) and declared categories (text), encoded as dp_encoding does; the model stores the encoding (docs/encoding.md)';

-- Called once per row: the model is looked up once per call site and kept
-- (src/pg/feature_encoding_sql.cpp); no SET clause (a GUC save and restore
-- per row), the path is pinned in C around the lookup, as in dp_predict.
CREATE FUNCTION @extschema@.dp_features(model text, "row" jsonb) RETURNS float8[]
AS 'MODULE_PATHNAME', 'dptrain_dp_features' LANGUAGE C STABLE STRICT;
CREATE FUNCTION @extschema@.dp_features(model bigint, "row" jsonb) RETURNS float8[]
AS 'MODULE_PATHNAME', 'dptrain_dp_features_id' LANGUAGE C STABLE STRICT;
COMMENT ON FUNCTION @extschema@.dp_features(text, jsonb) IS
'the feature vector of a raw row (e.g. to_jsonb(t)) under the encoding stored with a model: dp_predict(m, dp_features(m, to_jsonb(t)))';
COMMENT ON FUNCTION @extschema@.dp_features(bigint, jsonb) IS
'the feature vector of a raw row (e.g. to_jsonb(t)) under the encoding stored with a model, by the id dp_train returned';

-- A dropped view forgets its encoding: dptrain.forget_dropped_sources
-- (sql/45_budgets.sql), the event trigger of every registry.
