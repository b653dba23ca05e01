-- Attack (issue 15, item 3): a role that may train on a table but not read
-- it must learn nothing about the rows except through the differentially
-- private model it pays for.
--  * Refusals that depend on the data are a free oracle: "values outside the
--    declared classes" tells whether some row has a label outside a guessed
--    set, a NULL error whether some row has a NULL. For such a role dptrain
--    now trains on every row: a row it cannot use (NULL, NaN or infinite
--    features, wrong length, a label outside the declared classes) becomes
--    the all-zero row of the first class, a fixed public row; nothing says
--    whether or how many (docs/governance.md).
--  * A charge that rolls back is no charge: a run whose transaction (or
--    subtransaction) aborts after the model was returned was free. The
--    charge is now committed on its own, before the data is read.
SET client_min_messages = warning;
\set SHOW_CONTEXT never
\getenv abs_srcdir PG_ABS_SRCDIR
\set try_sql :abs_srcdir '/sql/include/try.sql'
\i :try_sql
-- (created here: functions in pg_temp belong to the session's role)
-- A prober's run on table t: its error, and what it was charged.
CREATE FUNCTION pg_temp.probe(t regclass, label text, classes text[]) RETURNS TABLE (
    code text, message text, charged numeric) LANGUAGE plpgsql AS $$
BEGIN
  SELECT r.code, r.message INTO code, message
  FROM pg_temp.try(format('SELECT dp_train(%L, %L, %L, algorithm => %L, epsilon => 0.5, classes => %L, '
                          'batch_size => 10, epochs => 2)', t, label, 'x', 'bolton', classes)) r;
  charged := 10 - (SELECT epsilon FROM dp_budget_remaining(t))::numeric;
  RETURN NEXT;
END
$$;
-- A prober's run on t cancelled by its statement_timeout: the cancel, whether its
-- CONTEXT tells the secret or the charge, and what was charged (WHEN OTHERS
-- catches no cancel).
CREATE FUNCTION pg_temp.timed_out(t regclass, OUT code text, OUT message text, OUT tells boolean,
                                  OUT says_charged boolean, OUT charged numeric) LANGUAGE plpgsql AS $$
DECLARE context text;
BEGIN
  EXECUTE format('SELECT dp_train(%L, %L, %L, algorithm => %L, epsilon => 0.5, classes => %L, batch_size => 10)',
                 t, 'diagnosis', 'x', 'bolton', ARRAY['well', 'ill']);
EXCEPTION WHEN query_canceled THEN
  GET STACKED DIAGNOSTICS code = RETURNED_SQLSTATE, message = MESSAGE_TEXT, context = PG_EXCEPTION_CONTEXT;
  tells := context ~ 'Smith|HIV';
  says_charged := context ~ 'was committed before this error';
  charged := 10 - (SELECT epsilon FROM dp_budget_remaining(t))::numeric;
END
$$;
-- A prober's run on t: its error, whether any part of its report (CONTEXT
-- too) tells the secret, and what was charged.
CREATE FUNCTION pg_temp.reported(t regclass, OUT code text, OUT message text, OUT tells boolean,
                                 OUT charged numeric) LANGUAGE plpgsql AS $$
DECLARE detail text; hint text; context text;
BEGIN
  EXECUTE format('SELECT dp_train(%L, %L, %L, algorithm => %L, epsilon => 0.5, classes => %L, batch_size => 10)',
                 t, 'diagnosis', 'x', 'bolton', ARRAY['well', 'ill']);
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS code = RETURNED_SQLSTATE, message = MESSAGE_TEXT, detail = PG_EXCEPTION_DETAIL,
                          hint = PG_EXCEPTION_HINT, context = PG_EXCEPTION_CONTEXT;
  tells := concat_ws(' ', message, detail, hint, context) ~ 'Smith|HIV';
  charged := 10 - (SELECT epsilon FROM dp_budget_remaining(t))::numeric;
END
$$;
-- An exception block that keeps the weights and rolls back the rest.
CREATE FUNCTION pg_temp.steal() RETURNS float8[] LANGUAGE plpgsql AS $$
DECLARE w float8[];
BEGIN
  BEGIN
    SELECT weights INTO w FROM dp_train('public.clean', 'sick', 'x', algorithm => 'bolton', epsilon => 1,
                                        batch_size => 10, epochs => 2);
    RAISE EXCEPTION 'undo the charge';
  EXCEPTION WHEN raise_exception THEN
    RETURN w;
  END;
END
$$;

CREATE ROLE regress_keeper;
CREATE ROLE regress_prober;
GRANT CREATE ON SCHEMA public TO regress_keeper;
SET ROLE regress_keeper;
CREATE TABLE public.clean AS
SELECT i AS id, ARRAY[sin(i), cos(i)]::float8[] AS x,
       CASE WHEN sin(i) > 0 THEN 'ill' ELSE 'well' END AS diagnosis, (sin(i) > 0) AS sick
FROM generate_series(1, 200) i;
-- the same table with one secret in it, in each way a row can be unusable
CREATE TABLE public.secret_label AS SELECT * FROM public.clean;
UPDATE public.secret_label SET diagnosis = 'rare disease' WHERE id = 17;
CREATE TABLE public.secret_null_label AS SELECT * FROM public.clean;
UPDATE public.secret_null_label SET diagnosis = NULL, sick = NULL WHERE id = 17;
CREATE TABLE public.secret_null_x AS SELECT * FROM public.clean;
UPDATE public.secret_null_x SET x = NULL WHERE id = 17;
CREATE TABLE public.secret_nan AS SELECT * FROM public.clean;
UPDATE public.secret_nan SET x = ARRAY['NaN', 1]::float8[] WHERE id = 17;
CREATE TABLE public.secret_inf AS SELECT * FROM public.clean;
UPDATE public.secret_inf SET x = ARRAY['Infinity', 1]::float8[] WHERE id = 17;
CREATE TABLE public.secret_huge AS SELECT * FROM public.clean;
UPDATE public.secret_huge SET x = ARRAY[1e200, 1]::float8[] WHERE id = 17;
CREATE TABLE public.secret_null_element AS SELECT * FROM public.clean;
UPDATE public.secret_null_element SET x = ARRAY[NULL, 1]::float8[] WHERE id = 17;
CREATE TABLE public.secret_2d AS SELECT * FROM public.clean;
UPDATE public.secret_2d SET x = ARRAY[[1, 2], [3, 4]]::float8[] WHERE id = 17;
CREATE TABLE public.secret_short AS SELECT * FROM public.clean;
UPDATE public.secret_short SET x = ARRAY[0.5]::float8[] WHERE id = 17;
CREATE TABLE public.secret_numeric AS SELECT id, x::numeric[] AS x, diagnosis, sick FROM public.clean;
UPDATE public.secret_numeric SET x = ARRAY[1e400, 1]::numeric[] WHERE id = 17;
-- ... and one too close to 0 for float8 (the cast would fail printing it)
CREATE TABLE public.secret_underflow AS SELECT id, x::numeric[] AS x, diagnosis, sick FROM public.clean;
UPDATE public.secret_underflow SET x = ARRAY[('4.217e-400')::numeric, 1] WHERE id = 17;
CREATE TABLE public.secret_nan_label AS SELECT id, x, (CASE WHEN sick THEN 1 ELSE 0 END)::float8 AS y
FROM public.clean;
UPDATE public.secret_nan_label SET y = 'NaN' WHERE id = 17;
SELECT dp_grant_budget(t, 'regress_prober', 10, 0)
FROM unnest(ARRAY['public.clean', 'public.secret_label', 'public.secret_null_label', 'public.secret_null_x',
                  'public.secret_nan', 'public.secret_inf', 'public.secret_huge', 'public.secret_null_element',
                  'public.secret_2d', 'public.secret_short', 'public.secret_numeric',
                  'public.secret_underflow', 'public.secret_nan_label']::regclass[]) t;
RESET ROLE;

-- ---- 1. every table answers alike ---------------------------------------------
-- The prober (no SELECT, a budget on each) trains on each table: each run
-- succeeds in the same way, and is charged the same.
SET ROLE regress_prober;
SELECT t AS source, p.*
FROM unnest(ARRAY['public.clean', 'public.secret_label', 'public.secret_null_label', 'public.secret_null_x',
                  'public.secret_nan', 'public.secret_inf', 'public.secret_huge', 'public.secret_null_element',
                  'public.secret_2d', 'public.secret_short', 'public.secret_numeric',
                  'public.secret_underflow']::regclass[]) t,
     pg_temp.probe(t, 'diagnosis', ARRAY['well', 'ill']) p;
SELECT 'public.secret_nan_label' AS source, p.* FROM pg_temp.probe('public.secret_nan_label', 'y', ARRAY['0', '1']) p;
-- one declared class: refused before the charge, without a word about the rows
\x on
SELECT * FROM pg_temp.try($$SELECT dp_train('public.secret_label', 'diagnosis', 'x', algorithm => 'bolton',
                          epsilon => 0.5, classes => ARRAY['ill'])$$);
\x off
-- boolean labels with NULLs too
SELECT 'public.secret_null_label' AS source, p.*
FROM pg_temp.probe('public.secret_null_label', 'sick', NULL) p;
-- the model says nothing about unusable rows either
SELECT count(*) AS models, bool_or(details::text ~* 'skip|unusable|invalid|replaced|dropped') AS tells
FROM dptrain.models WHERE source LIKE 'public.secret%';
RESET ROLE;

-- ---- 2. a reader is still told (it may read the rows anyway) -------------------
\x on
SELECT * FROM pg_temp.try($$SELECT dp_train('public.secret_label', 'diagnosis', 'x', algorithm => 'bolton',
                          epsilon => 0.5, classes => ARRAY['well', 'ill'], batch_size => 10)$$);
SELECT * FROM pg_temp.try($$SELECT dp_train('public.secret_null_x', 'diagnosis', 'x', algorithm => 'bolton',
                          epsilon => 0.5, classes => ARRAY['well', 'ill'], batch_size => 10)$$);
\x off

-- ---- 3. a charge that would roll back --------------------------------------------
SET ROLE regress_prober;
SELECT epsilon AS before FROM dp_budget_remaining('public.clean');
-- the model comes back, then the transaction is rolled back
BEGIN;
SELECT array_length(weights, 1) AS d FROM dp_train('public.clean', 'sick', 'x', algorithm => 'bolton',
       epsilon => 1, batch_size => 10, epochs => 2);
ROLLBACK;
SELECT epsilon AS after_rollback FROM dp_budget_remaining('public.clean');
-- ... or a subtransaction
BEGIN;
SAVEPOINT s;
SELECT array_length(weights, 1) AS d FROM dp_train('public.clean', 'sick', 'x', algorithm => 'bolton',
       epsilon => 1, batch_size => 10, epochs => 2);
ROLLBACK TO SAVEPOINT s;
COMMIT;
SELECT epsilon AS after_savepoint FROM dp_budget_remaining('public.clean');
-- ... or an exception block that keeps the weights and aborts the rest (pg_temp.steal)
SELECT array_length(pg_temp.steal(), 1) AS d;
SELECT epsilon AS after_exception_block FROM dp_budget_remaining('public.clean');
-- ... or a statement that fails after the model row was sent
SELECT * FROM pg_temp.try($$SELECT (SELECT model_id FROM dp_train('public.clean', 'sick', 'x',
                          algorithm => 'bolton', epsilon => 1, batch_size => 10, epochs => 2)) / 0$$);
SELECT epsilon AS after_failed_statement FROM dp_budget_remaining('public.clean');
-- every paid run is in the ledger, with a model only where one was stored
SELECT count(*) AS runs, count(m.id) AS with_model, sum(l.epsilon) AS spent
FROM dptrain.ledger l LEFT JOIN dptrain.models m ON m.id = l.model_id
WHERE l.source::regclass = 'public.clean'::regclass;
RESET ROLE;

-- ---- 4. the owner's code fails on a row ---------------------------------------------
-- A view (or a row security policy) runs the owner's code on every row; if
-- it fails on one, PostgreSQL's error prints the value. A role without read
-- access gets one fixed error naming the relation, never the value, and is
-- charged for it as for a release, whether the read failed before the charge
-- (counting n and d) or in the copy after it.
SET ROLE regress_keeper;
CREATE TABLE public.notes AS
SELECT id, x, diagnosis, CASE WHEN id = 17 THEN 'patient J. Smith: HIV+' ELSE '0.5' END AS reading
FROM public.clean;
-- fails while n and d are counted (x is read): before the charge
CREATE VIEW public.failing_x AS SELECT id, ARRAY[x[1], reading::float8] AS x, diagnosis FROM public.notes;
-- fails only in the copy (the label is not read before it): after the charge
CREATE VIEW public.failing_label AS
SELECT id, x, CASE WHEN reading::float8 > 0 THEN diagnosis ELSE 'well' END AS diagnosis FROM public.notes;
-- the owner's code raises a cancel itself (RAISE ... USING ERRCODE = 'query_canceled'), on
-- the rows it chooses: one more failure of its code, hidden and charged (it passed as
-- a cancel, uncharged, with the message the code wrote, until 2026-11-28); a real
-- cancel (statement_timeout) passes as a cancel: slow_x and slow_copy below
CREATE FUNCTION public.cancels(v text) RETURNS float8 LANGUAGE plpgsql AS $$
BEGIN
  IF v LIKE 'patient%' THEN RAISE EXCEPTION 'canceling statement at %', v USING ERRCODE = 'query_canceled'; END IF;
  RETURN v::float8;
END $$;
CREATE VIEW public.cancelling_x AS SELECT id, ARRAY[x[1], public.cancels(reading)] AS x, diagnosis FROM public.notes;
-- the owner's code runs a statement built from the row (EXECUTE format with
-- %L), slow on the secret row: the prober's own statement_timeout cancels it
-- there, while n and d are counted (slow_x, before the charge) or in the copy
-- (slow_copy: slow once the ledger holds its charge). The cancel passes as a
-- cancel; its CONTEXT printed that statement, the value inlined: "SQL
-- statement "SELECT pg_sleep(30) WHERE 'patient J. Smith: HIV+' IS NOT
-- NULL"", uncharged before the charge (hostile review of 2026-11-28).
CREATE FUNCTION public.looks_up(v text, once_charged text) RETURNS float8 LANGUAGE plpgsql AS $$
BEGIN
  IF v LIKE 'patient%' AND (once_charged IS NULL OR EXISTS (SELECT FROM dptrain.ledger l
                                                              WHERE l.source_name = once_charged)) THEN
    EXECUTE format('SELECT pg_sleep(30) WHERE %L IS NOT NULL', v);
    RETURN 0;
  END IF;
  RETURN CASE WHEN v LIKE 'patient%' THEN 0 ELSE v::float8 END;
END $$;
CREATE VIEW public.slow_x AS SELECT id, ARRAY[x[1], public.looks_up(reading, NULL)] AS x, diagnosis FROM public.notes;
CREATE VIEW public.slow_copy AS
SELECT id, ARRAY[x[1], public.looks_up(reading, 'public.slow_copy')] AS x, diagnosis FROM public.notes;
-- dptrain's own refusals (about the catalog) raised in the owner's code, on
-- the rows it chooses, are one more failure of its code: hidden and charged
-- (hostile review of 2026-11-28). They passed uncharged, as they were caught.
-- guard_ctx_x: a statement of the owner's code that names
-- dptrain.shard_guard is refused by the guard's planner hook (55000, the
-- shard guard's message); its CONTEXT printed that statement, the row's
-- value inlined. check_ctx_x: the same with the statement check's refusal.
-- check_caught_x: the owner's code catches a statement refusal (the check's
-- window is granted to it here), then fails on the secret row with the value
-- in its message: the refusal's flag, still set, passed that error on whole.
CREATE VIEW public.a_view AS SELECT 1 AS one;
CREATE FUNCTION public.refused_on(v text, how text) RETURNS float8 LANGUAGE plpgsql AS $$
BEGIN
  IF how = 'caught' THEN
    BEGIN
      PERFORM dptrain.check_source_statement('SELECT 1', 'public.notes', false);
    EXCEPTION WHEN object_not_in_prerequisite_state THEN NULL;
    END;
  END IF;
  IF v LIKE 'patient%' THEN
    IF how = 'guard' THEN
      EXECUTE format('SELECT FROM public.a_view WHERE dptrain.shard_guard(ARRAY[]::text[], false, %L) '
                     'AND %L IS NOT NULL', current_user, v);
    ELSIF how = 'check' THEN
      EXECUTE format('SELECT dptrain.check_source_statement(%L, %L, false)', format('SELECT %L', v), 'public.notes');
    ELSE
      RAISE EXCEPTION 'reading %', v;
    END IF;
    RETURN 0;
  END IF;
  RETURN v::float8;
END $$;
CREATE VIEW public.guard_ctx_x AS
SELECT id, ARRAY[x[1], public.refused_on(reading, 'guard')] AS x, diagnosis FROM public.notes;
CREATE VIEW public.check_ctx_x AS
SELECT id, ARRAY[x[1], public.refused_on(reading, 'check')] AS x, diagnosis FROM public.notes;
CREATE VIEW public.check_caught_x AS
SELECT id, ARRAY[x[1], public.refused_on(reading, 'caught')] AS x, diagnosis FROM public.notes;
SELECT dp_grant_budget(t, 'regress_prober', 10, 0)
FROM unnest(ARRAY['public.guard_ctx_x', 'public.check_ctx_x', 'public.check_caught_x']::regclass[]) t;
RESET ROLE;
GRANT EXECUTE ON FUNCTION dptrain.check_source_statement(text, regclass, boolean) TO regress_keeper;
SET ROLE regress_keeper;
SELECT dp_grant_budget(t, 'regress_prober', 10, 0)
FROM unnest(ARRAY['public.failing_x', 'public.failing_label', 'public.cancelling_x', 'public.slow_x',
                  'public.slow_copy']::regclass[]) t;
RESET ROLE;
SET ROLE regress_prober;
-- (the real error goes to the server log only, never to the client, whatever it asks for)
SET client_min_messages = log;
\x on
SELECT t AS source, p.* FROM unnest(ARRAY['public.failing_x', 'public.failing_label']::regclass[]) t,
     pg_temp.probe(t, 'diagnosis', ARRAY['well', 'ill']) p;
SET client_min_messages = warning;
-- the same through dp_tune (one more charge of 0.5 each: the ledger below)
SELECT t AS source, r.*, r.message || r.detail || r.hint ~ 'Smith|HIV' AS tells
FROM unnest(ARRAY['public.failing_x', 'public.failing_label']::regclass[]) t,
     pg_temp.try(format('SELECT dp_tune(%L, %L, %L, epsilon => 0.5, classes => %L, lambdas => %L, epochs => %L, '
                        'batch_sizes => %L)', t, 'diagnosis', 'x', ARRAY['well', 'ill'], '{0.1}', '{1}', '{10}')) r;
SELECT * FROM pg_temp.probe('public.cancelling_x', 'diagnosis', ARRAY['well', 'ill']);
\x off
SET statement_timeout = '2s';
SELECT * FROM pg_temp.timed_out('public.slow_x');
SET statement_timeout = '2s';
SELECT * FROM pg_temp.timed_out('public.slow_copy');
RESET statement_timeout;
-- each the fixed error, charged; nothing tells the secret
SELECT t AS source, r.* FROM unnest(ARRAY['public.guard_ctx_x', 'public.check_ctx_x',
                                          'public.check_caught_x']::regclass[]) t, pg_temp.reported(t) r;
-- every failed run is in the ledger, without a model
SELECT l.source_name, count(*) AS runs, sum(l.epsilon) AS spent, count(l.model_id) AS ids, count(m.id) AS models
FROM dptrain.ledger l LEFT JOIN dptrain.models m ON m.id = l.model_id
WHERE l.source_name IN ('public.failing_x', 'public.failing_label', 'public.cancelling_x', 'public.slow_x',
                        'public.slow_copy')
GROUP BY l.source_name ORDER BY 1;
RESET ROLE;
-- the owner reads the data: it sees the real error
\x on
SELECT * FROM pg_temp.try($$SELECT dp_train('public.failing_x', 'diagnosis', 'x', algorithm => 'bolton',
                          epsilon => 0.5, classes => ARRAY['well', 'ill'], batch_size => 10)$$);
\x off
DROP VIEW public.failing_x, public.failing_label, public.cancelling_x, public.slow_x, public.slow_copy;
DROP FUNCTION public.cancels(text), public.looks_up(text, text);
DROP VIEW public.guard_ctx_x, public.check_ctx_x, public.check_caught_x, public.a_view;
DROP FUNCTION public.refused_on(text, text);
REVOKE EXECUTE ON FUNCTION dptrain.check_source_statement(text, regclass, boolean) FROM regress_keeper;

-- ---- 5. the owner's code prints a row -------------------------------------------------
-- Not only its errors: a view's function that says what it does (RAISE
-- NOTICE, WARNING, INFO -- INFO reaches the client whatever
-- client_min_messages) printed the row to a role without read access, also
-- while n and d were counted, before the charge: dp_tune's refusal of a batch
-- larger than its parts (public, after the count) then made it free and
-- repeatable. Such messages now go to the server log only; the owner, who
-- reads, still gets them.
SET ROLE regress_keeper;
CREATE FUNCTION public.chatty(v text) RETURNS float8 LANGUAGE plpgsql AS $$
BEGIN
  IF v LIKE 'patient%' THEN
    RAISE NOTICE 'reading %', v;
    RAISE WARNING 'reading %', v;
    RAISE INFO 'reading %', v;
    RETURN 0;
  END IF;
  RETURN v::float8;
END $$;
CREATE VIEW public.chatty_x AS SELECT id, ARRAY[x[1], public.chatty(reading)] AS x, diagnosis FROM public.notes;
SELECT dp_grant_budget('public.chatty_x', 'regress_prober', 10, 0);
RESET ROLE;
SET ROLE regress_prober;
SET client_min_messages = notice;
-- refused after the count, before the charge: nothing printed, nothing charged
SELECT code, message FROM pg_temp.try($$SELECT dp_tune('public.chatty_x', 'diagnosis', 'x', epsilon => 0.5,
       classes => ARRAY['well', 'ill'], batch_sizes => '{100000}')$$);
SELECT epsilon AS not_charged FROM dp_budget_remaining('public.chatty_x');
-- trained (the count and the copy read every row): only dptrain's own notice
SELECT array_length(weights, 1) AS d FROM dp_train('public.chatty_x', 'diagnosis', 'x', algorithm => 'bolton',
       epsilon => 0.5, classes => ARRAY['well', 'ill'], batch_size => 10, epochs => 1);
SET client_min_messages = warning;
RESET ROLE;
-- the owner reads the data: reading the view prints them to it
SET ROLE regress_keeper;
SELECT count(*) AS rows_read FROM public.chatty_x;
RESET ROLE;
DROP VIEW public.chatty_x;
DROP FUNCTION public.chatty(text);
DROP TABLE public.notes;

DROP TABLE public.clean, public.secret_label, public.secret_null_label, public.secret_null_x, public.secret_nan,
  public.secret_inf, public.secret_huge, public.secret_null_element, public.secret_2d, public.secret_short,
  public.secret_numeric, public.secret_underflow, public.secret_nan_label;
DELETE FROM dptrain.ledger WHERE source_name LIKE 'public.secret\_%'
  OR source_name IN ('public.clean', 'public.notes', 'public.chatty_x', 'public.cancelling_x', 'public.failing_label', 'public.failing_x',
                     'public.slow_x', 'public.slow_copy', 'public.guard_ctx_x', 'public.check_ctx_x',
                     'public.check_caught_x');
DELETE FROM dptrain.models WHERE created_by IN ('regress_keeper', 'regress_prober');
REVOKE CREATE ON SCHEMA public FROM regress_keeper;
DROP ROLE regress_keeper, regress_prober;
