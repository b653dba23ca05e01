-- Privacy governance (docs/governance.md): the budgets that table owners
-- grant per (source relation, role), the caps they set per source across
-- all roles, the ledger of what every training run spent, and who may see
-- which model.
--
-- Budget amounts are numeric. A float8 epsilon or delta becomes numeric with
-- 15 significant digits (PostgreSQL's float8 -> numeric cast), so decimal
-- budgets and charges add up exactly (0.1 + 0.2 = 0.3 fits a budget of 0.3).
--
-- Relations and roles are dptrain.relation_ref / dptrain.role_ref
-- (sql/05_references.sql): pg_dump keeps these tables, and a dump restored
-- without one of the tables or roles they name restores all other rows.

-- Per (source, role): the budget the owner of the source granted, and what
-- runs of that role on that source have spent of it. `spent_*` is updated
-- under the row lock in the transaction that charges the run, so it is the
-- authoritative total; dptrain.ledger is the itemized log of the same runs.
CREATE TABLE dptrain.budgets (
    source        dptrain.relation_ref NOT NULL,
    role          dptrain.role_ref     NOT NULL,
    epsilon       numeric     NOT NULL CHECK (epsilon > 0),
    delta         numeric     NOT NULL CHECK (delta >= 0 AND delta < 1),
    spent_epsilon numeric     NOT NULL DEFAULT 0 CHECK (spent_epsilon >= 0),
    spent_delta   numeric     NOT NULL DEFAULT 0 CHECK (spent_delta >= 0),
    composition   text        NOT NULL DEFAULT 'basic' CHECK (composition = 'basic'),
    granted_by    dptrain.role_ref NOT NULL,
    granted_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (source, role)
);
COMMENT ON TABLE dptrain.budgets IS
'privacy budgets granted by table owners (dp_grant_budget); spent = sum of the budgeted ledger rows';

-- Per source: a cap on the total privacy loss of the table across all roles
-- (dp_set_table_budget). Every private run on a capped source is charged to
-- it as well as to the role's own budget, if any.
CREATE TABLE dptrain.table_budgets (
    source        dptrain.relation_ref PRIMARY KEY,
    epsilon       numeric     NOT NULL CHECK (epsilon > 0),
    delta         numeric     NOT NULL CHECK (delta >= 0 AND delta < 1),
    spent_epsilon numeric     NOT NULL DEFAULT 0 CHECK (spent_epsilon >= 0),
    spent_delta   numeric     NOT NULL DEFAULT 0 CHECK (spent_delta >= 0),
    composition   text        NOT NULL DEFAULT 'basic' CHECK (composition = 'basic'),
    set_by        dptrain.role_ref NOT NULL,
    set_at        timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE dptrain.table_budgets IS
'caps on the total privacy loss of a table across all roles (dp_set_table_budget); spent = sum of its private ledger rows';

-- One row per charged run (committed before the run reads its rows, in a
-- transaction of its own) and per stored non-private model. A charged run
-- reserves the id its model will have; if the model was never stored -- the
-- run failed, was cancelled, or its transaction rolled back -- no model has
-- that id, and the row stays: what the run spent stays spent. (No foreign
-- key: the charge commits before its model exists.)
CREATE TABLE dptrain.ledger (
    id           bigserial   PRIMARY KEY,
    source       dptrain.relation_ref NOT NULL,   -- "-" once the relation is dropped
    source_name  text        NOT NULL,            -- as named when the run was charged
    role         dptrain.role_ref NOT NULL,       -- current_user of the run: whose budget
    session_role name        NOT NULL,            -- session_user of the run: who logged in
    model_id     bigint,                          -- the (reserved) id of the run's model
    algorithm    text        NOT NULL,
    epsilon      numeric,                         -- NULL: the run is not private
    delta        numeric,
    budgeted     boolean     NOT NULL,            -- charged to the role's budget
    capped       boolean     NOT NULL DEFAULT false,  -- charged to the table's cap
    composition  text        NOT NULL DEFAULT 'basic',
    charged_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX ledger_source_role ON dptrain.ledger (source, role);
COMMENT ON TABLE dptrain.ledger IS 'every charged run and stored model with the privacy it spent (basic composition)';

-- The ledger is user data: pg_dump keeps it.
SELECT pg_catalog.pg_extension_config_dump('dptrain.budgets', '');
SELECT pg_catalog.pg_extension_config_dump('dptrain.table_budgets', '');
SELECT pg_catalog.pg_extension_config_dump('dptrain.ledger', '');
SELECT pg_catalog.pg_extension_config_dump('dptrain.ledger_id_seq', '');

-- A budget or cap whose relation or role is missing from a restored dump
-- (read as "-") is not restored: there is nothing left to spend it on.
CREATE FUNCTION dptrain.skip_unresolved_budget() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  unresolved boolean := NEW.source::oid = 0;
BEGIN
  IF TG_TABLE_NAME = 'budgets' THEN  -- (NEW.role exists in budgets only)
    unresolved := unresolved OR NEW.role::oid = 0;
  END IF;
  IF unresolved THEN
    RAISE WARNING 'dptrain: a row of dptrain.% naming a missing relation or role was not restored', TG_TABLE_NAME;
    RETURN NULL;
  END IF;
  RETURN NEW;
END
$$;
REVOKE EXECUTE ON FUNCTION dptrain.skip_unresolved_budget() FROM PUBLIC;
CREATE TRIGGER skip_unresolved BEFORE INSERT ON dptrain.budgets
    FOR EACH ROW EXECUTE FUNCTION dptrain.skip_unresolved_budget();
CREATE TRIGGER skip_unresolved BEFORE INSERT ON dptrain.table_budgets
    FOR EACH ROW EXECUTE FUNCTION dptrain.skip_unresolved_budget();

-- Who sees what: a role sees its own budgets and runs (and those of roles
-- it has the privileges of); the owner of a source sees all of them for it,
-- and its cap; roles that may read the source or have a budget on it see
-- its cap too. Nobody but the extension's functions writes these tables.
ALTER TABLE dptrain.budgets ENABLE ROW LEVEL SECURITY;
ALTER TABLE dptrain.table_budgets ENABLE ROW LEVEL SECURITY;
ALTER TABLE dptrain.ledger ENABLE ROW LEVEL SECURITY;
CREATE POLICY grantee_or_owner ON dptrain.budgets FOR SELECT USING (
    pg_catalog.pg_has_role(role, 'USAGE')
    OR EXISTS (SELECT 1 FROM pg_catalog.pg_class c
               WHERE c.oid OPERATOR(pg_catalog.=) source AND pg_catalog.pg_has_role(c.relowner, 'USAGE')));
CREATE POLICY owner_reader_or_grantee ON dptrain.table_budgets FOR SELECT USING (
    EXISTS (SELECT 1 FROM pg_catalog.pg_class c
            WHERE c.oid OPERATOR(pg_catalog.=) source AND pg_catalog.pg_has_role(c.relowner, 'USAGE'))
    OR pg_catalog.has_table_privilege(source, 'SELECT')
    OR EXISTS (SELECT 1 FROM dptrain.budgets b
               WHERE b.source OPERATOR(pg_catalog.=) table_budgets.source
                 AND pg_catalog.pg_has_role(b.role, 'USAGE')));
CREATE POLICY grantee_or_owner ON dptrain.ledger FOR SELECT USING (
    pg_catalog.pg_has_role(role, 'USAGE')
    OR EXISTS (SELECT 1 FROM pg_catalog.pg_class c
               WHERE c.oid OPERATOR(pg_catalog.=) source AND pg_catalog.pg_has_role(c.relowner, 'USAGE')));
GRANT SELECT ON dptrain.budgets, dptrain.table_budgets, dptrain.ledger TO PUBLIC;

-- Models. A model that is not private (no epsilon, seeded noise, classes
-- or encoding categories read from the data, a source loaded with bounds or
-- categories read from the data, or a data-dependent number of epochs) is a function
-- of the rows its creator could see -- under row-level security, not all of
-- them: only its creator and the source's owner see it. A private model is
-- differentially private in every row it was trained on, so roles that may
-- SELECT the source see it as well -- when every reader sees the same rows:
-- a table, partitioned table or materialized view without row security. A
-- model carries its exact n and d, which DP does not cover: a model of a
-- table with a policy (or of a view, which may filter on current_user or read
-- through one) would tell tenant B how many rows tenant A's policy shows A,
-- or the total the owner's rows add. dp_predict / dp_evaluate read models
-- with the caller's rights, so they obey the same rule.
ALTER TABLE dptrain.models ADD COLUMN source_table dptrain.relation_ref;
COMMENT ON COLUMN dptrain.models.source_table IS
'the relation the model was trained on ("-" once dropped, or restored without it)';
ALTER TABLE dptrain.models ADD COLUMN private boolean GENERATED ALWAYS AS (
    epsilon IS NOT NULL AND NOT seeded
    AND NOT coalesce((details OPERATOR(pg_catalog.#>>) '{data,classes_from_data}')::boolean, false)
    -- an encoding whose categories were read from the data lists them
    AND NOT (details OPERATOR(pg_catalog.@?) '$.encoding.columns[*] ? (@.categories_from_data == true)')
    -- a table loaded with bounds or categories read from the data (dptrain load)
    AND NOT coalesce((details OPERATOR(pg_catalog.#>>) '{load_spec,from_data}')::boolean, false)
    AND NOT (details OPERATOR(pg_catalog.?) 'stopping')) STORED;
COMMENT ON COLUMN dptrain.models.private IS
'differentially private as a whole: epsilon, no seed, declared classes and categories (also those of dptrain load), a fixed number of epochs';
ALTER TABLE dptrain.models ENABLE ROW LEVEL SECURITY;
CREATE POLICY creator_owner_or_reader ON dptrain.models FOR SELECT USING (
    created_by OPERATOR(pg_catalog.=) current_user
    OR EXISTS (SELECT 1 FROM pg_catalog.pg_class c
               WHERE c.oid OPERATOR(pg_catalog.=) source_table AND pg_catalog.pg_has_role(c.relowner, 'USAGE'))
    OR (private AND pg_catalog.has_table_privilege(source_table, 'SELECT')
        AND EXISTS (SELECT 1 FROM pg_catalog.pg_class c
                    WHERE c.oid OPERATOR(pg_catalog.=) source_table
                      AND c.relkind OPERATOR(pg_catalog.=) ANY (ARRAY['r', 'p', 'm']::"char"[])
                      AND NOT c.relrowsecurity)));

-- ---- internal: the ledger logic (called by the C functions as the ----------
-- ---- extension owner, after they checked who the caller is) ----------------

-- The lock that serializes the charges on one source with setting its cap
-- (both read what the other writes): a row per source, locked FOR UPDATE
-- until the end of the transaction. A row of a table only the extension's
-- functions may write, not an advisory lock: any role may take an advisory
-- lock of any key, and one that held this key (known: the source's OID)
-- blocked every charge on the source and every change of its cap. Rows are
-- created on first use; a stale one (a dropped relation) is only a lock.
-- Locked by an UPDATE, not FOR UPDATE: every charge, grant, revoke and cap
-- leaves a new version of the row, so a REPEATABLE READ or SERIALIZABLE
-- transaction whose snapshot predates one of them fails here (40001)
-- instead of summing the ledger as its snapshot shows it: a cap set or a
-- budget granted again missed the charges committed since, and the table or
-- role could spend them twice (test/isolation/specs/budget_snapshot_race.spec).
CREATE TABLE dptrain.source_locks (source oid PRIMARY KEY);
COMMENT ON TABLE dptrain.source_locks IS
'one row per source charged or capped: the row lock that serializes its charges (dptrain.lock_source)';
REVOKE ALL ON dptrain.source_locks FROM PUBLIC;
CREATE FUNCTION dptrain.lock_source(p_source regclass) RETURNS void
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    INSERT INTO dptrain.source_locks VALUES (p_source::oid) ON CONFLICT DO NOTHING;
    UPDATE dptrain.source_locks l SET source = l.source WHERE l.source OPERATOR(pg_catalog.=) p_source::oid;
EXCEPTION WHEN serialization_failure THEN
    RAISE EXCEPTION 'the privacy budgets of % changed after this transaction''s snapshot', p_source
        USING ERRCODE = 'serialization_failure',
              DETAIL = 'A charge, grant, revoke or cap on the table committed after this REPEATABLE READ or SERIALIZABLE transaction took its snapshot; its ledger sums would miss it.',
              HINT = 'Retry the transaction (nothing was changed), or change budgets and caps in READ COMMITTED.';
END
$$;

-- A budget amount in the details below: its exact text when short (every
-- ordinary amount), else 15 significant digits ("1e+308", not the 309
-- digits of a cap of 1e308): src/core/privacy/budget_text.h.
CREATE FUNCTION dptrain.budget_text(numeric) RETURNS text
AS 'MODULE_PATHNAME', 'dptrain_budget_text' LANGUAGE C IMMUTABLE STRICT
SET search_path = pg_catalog, pg_temp;

-- Decides whether `p_role` may run (or store) a training run of (epsilon,
-- delta) on `p_source`, and what it is charged to: `budgeted` if a budget
-- row of the role applies, `capped` if the source has a cap and the run is
-- private (epsilon given, no seed). Raises:
--   42501  the role may not read the data and has no budget
--   DP002  the run is not private (no epsilon, or seeded noise) under a budget
--   DP001  the run needs more than the budget or the cap has left
-- With p_lock the source is locked (lock_source), then its cap row and the
-- role's budget row (FOR UPDATE), until the end of the transaction: a
-- concurrent charge on the same source waits here, then sees what this one
-- spent.
CREATE FUNCTION dptrain.ledger_check(p_source regclass, p_role regrole, p_reader boolean,
    p_epsilon float8, p_delta float8, p_seeded boolean, p_lock boolean,
    OUT budgeted boolean, OUT capped boolean)
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    b dptrain.budgets;
    t dptrain.table_budgets;
    private boolean := p_epsilon IS NOT NULL AND NOT p_seeded;
    want_epsilon numeric := p_epsilon::numeric;
    want_delta numeric := coalesce(p_delta, 0)::numeric;
    left_epsilon numeric;
    left_delta numeric;
BEGIN
    IF p_lock THEN
        PERFORM dptrain.lock_source(p_source);
        SELECT * INTO t FROM dptrain.table_budgets x WHERE x.source = p_source FOR UPDATE;
        capped := FOUND AND private;
        SELECT * INTO b FROM dptrain.budgets x WHERE x.source = p_source AND x.role = p_role FOR UPDATE;
        budgeted := FOUND;
    ELSE
        SELECT * INTO t FROM dptrain.table_budgets x WHERE x.source = p_source;
        capped := FOUND AND private;
        SELECT * INTO b FROM dptrain.budgets x WHERE x.source = p_source AND x.role = p_role;
        budgeted := FOUND;
    END IF;
    IF NOT budgeted AND NOT p_reader THEN
        RAISE EXCEPTION 'permission denied to train on %', p_source
            USING ERRCODE = '42501',
                  DETAIL = format('Role %s may not read the label and feature columns of %s and has no privacy budget on it.',
                                  p_role, p_source),
                  HINT = format('The owner of %s can grant a budget: SELECT dp_grant_budget(%L, %L, epsilon, delta);',
                                p_source, p_source::text, p_role::text);
    END IF;
    IF budgeted AND NOT private THEN
        RAISE EXCEPTION 'a training run that is not differentially private cannot be charged to a privacy budget'
            USING ERRCODE = 'DP002',
                  DETAIL = format('Role %s has a privacy budget on %s, so every run it makes there must be private; this run %s.',
                                  p_role, p_source,
                                  CASE WHEN p_epsilon IS NULL THEN 'has no epsilon (algorithm none, or epsilon not given)'
                                       ELSE 'uses seeded (reproducible) noise' END),
                  HINT = 'Train with a private algorithm and an explicit epsilon (and delta), without seed.';
    END IF;
    IF budgeted THEN
        left_epsilon := trim_scale(greatest(b.epsilon - b.spent_epsilon, 0));
        left_delta := trim_scale(greatest(b.delta - b.spent_delta, 0));
        IF want_epsilon > left_epsilon OR want_delta > left_delta THEN
            RAISE EXCEPTION 'privacy budget exceeded for role % on %', p_role, p_source
                USING ERRCODE = 'DP001',
                      DETAIL = format('Requested epsilon = %s, delta = %s (under replace-one adjacency); remaining epsilon = %s, delta = %s '
                                      '(granted epsilon = %s, delta = %s; spent epsilon = %s, delta = %s).',
                                      dptrain.budget_text(want_epsilon), dptrain.budget_text(want_delta),
                                      dptrain.budget_text(left_epsilon), dptrain.budget_text(left_delta),
                                      dptrain.budget_text(b.epsilon), dptrain.budget_text(b.delta),
                                      dptrain.budget_text(b.spent_epsilon), dptrain.budget_text(b.spent_delta)),
                      HINT = 'Train with a smaller epsilon or delta, or ask the owner of the table for more budget (dp_grant_budget).';
        END IF;
    END IF;
    IF capped THEN
        left_epsilon := trim_scale(greatest(t.epsilon - t.spent_epsilon, 0));
        left_delta := trim_scale(greatest(t.delta - t.spent_delta, 0));
        IF want_epsilon > left_epsilon OR want_delta > left_delta THEN
            RAISE EXCEPTION 'privacy budget of table % exceeded', p_source
                USING ERRCODE = 'DP001',
                      DETAIL = format('Requested epsilon = %s, delta = %s (under replace-one adjacency); remaining on the table (all roles) '
                                      'epsilon = %s, delta = %s (cap epsilon = %s, delta = %s; spent epsilon = %s, delta = %s).',
                                      dptrain.budget_text(want_epsilon), dptrain.budget_text(want_delta),
                                      dptrain.budget_text(left_epsilon), dptrain.budget_text(left_delta),
                                      dptrain.budget_text(t.epsilon), dptrain.budget_text(t.delta),
                                      dptrain.budget_text(t.spent_epsilon), dptrain.budget_text(t.spent_delta)),
                      HINT = 'Train with a smaller epsilon or delta, or ask the owner of the table to raise its cap (dp_set_table_budget).';
        END IF;
    END IF;
END
$$;

-- The reference a ledger row keeps to its source: "-" for a temporary
-- relation, which ends with its session (or ON COMMIT DROP, DISCARD TEMP)
-- without the sql_drop trigger that clears the references of a dropped one
-- (sql/45_budgets.sql); its OID, kept, could name a later relation, whose
-- owner would then see these rows. (No budget or cap exists on a temporary
-- relation: the ledger's sums never need it.) The source's name stays.
CREATE FUNCTION dptrain.lasting_ref(p_source regclass) RETURNS dptrain.relation_ref
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
    SELECT CASE WHEN EXISTS (SELECT FROM pg_catalog.pg_class c
                             WHERE c.oid OPERATOR(pg_catalog.=) p_source AND c.relpersistence OPERATOR(pg_catalog.=) 't')
                THEN '-'::dptrain.relation_ref ELSE p_source::dptrain.relation_ref END;
$$;

-- Charges a private run before it reads its rows, in a transaction of its
-- own (src/pg/charge_worker.cpp commits it before the run goes on): checks
-- under the locks, adds (epsilon, delta) to the role's budget and the
-- source's cap where they apply (basic composition), and logs the run with
-- the id its model will be stored under, which it returns. Nothing is
-- refunded: a run that then fails, is cancelled or rolled back has spent
-- what it was charged.
CREATE FUNCTION dptrain.ledger_reserve(p_source regclass, p_source_name text, p_role regrole,
    p_session_role name, p_reader boolean, p_algorithm text, p_epsilon float8, p_delta float8)
RETURNS bigint LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    c record;
    model bigint := nextval('dptrain.models_id_seq');
BEGIN
    IF p_epsilon IS NULL THEN
        RAISE EXCEPTION 'dptrain.ledger_reserve charges private runs only' USING ERRCODE = 'XX000';
    END IF;
    SELECT * INTO c FROM dptrain.ledger_check(p_source, p_role, p_reader, p_epsilon, p_delta, false, true);
    IF c.budgeted THEN
        UPDATE dptrain.budgets x
           SET spent_epsilon = trim_scale(x.spent_epsilon + p_epsilon::numeric),
               spent_delta = trim_scale(x.spent_delta + coalesce(p_delta, 0)::numeric)
         WHERE x.source = p_source AND x.role = p_role;
    END IF;
    IF c.capped THEN
        UPDATE dptrain.table_budgets x
           SET spent_epsilon = trim_scale(x.spent_epsilon + p_epsilon::numeric),
               spent_delta = trim_scale(x.spent_delta + coalesce(p_delta, 0)::numeric)
         WHERE x.source = p_source;
    END IF;
    INSERT INTO dptrain.ledger (source, source_name, role, session_role, model_id, algorithm, epsilon, delta,
                                budgeted, capped)
    VALUES (dptrain.lasting_ref(p_source), p_source_name, p_role, p_session_role, model, p_algorithm, p_epsilon::numeric,
            coalesce(p_delta, 0)::numeric, c.budgeted, c.capped);
    RETURN model;
END
$$;

-- Logs a stored model that is not private (nothing to charge; refused with
-- DP002 under a budget and with 42501 for a role that may not read), in the
-- transaction that stores it.
CREATE FUNCTION dptrain.ledger_log(p_source regclass, p_source_name text, p_role regrole, p_reader boolean,
    p_model_id bigint, p_algorithm text, p_epsilon float8, p_delta float8, p_seeded boolean)
RETURNS void LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    IF p_epsilon IS NOT NULL AND NOT p_seeded THEN
        RAISE EXCEPTION 'private runs are charged by dptrain.ledger_reserve' USING ERRCODE = 'XX000';
    END IF;
    PERFORM dptrain.ledger_check(p_source, p_role, p_reader, p_epsilon, p_delta, p_seeded, false);
    INSERT INTO dptrain.ledger (source, source_name, role, session_role, model_id, algorithm, epsilon, delta, budgeted)
    VALUES (dptrain.lasting_ref(p_source), p_source_name, p_role, session_user, p_model_id, p_algorithm, p_epsilon::numeric,
            CASE WHEN p_epsilon IS NULL THEN NULL ELSE coalesce(p_delta, 0)::numeric END, false);
END
$$;

-- Sets the budget of (source, role). What the role already spent on the
-- source stays spent: a new row starts from the sum of its budgeted runs
-- in the ledger, so revoking and granting again never refunds anything.
-- Holds lock_source until the end of the transaction (as dp_revoke_budget
-- does): a charge waits for it before it reads the budget row, so it sees
-- the budget as committed. A charge that waited for the row instead found
-- it deleted by a revoke and granted again in one transaction and the new
-- row not in its snapshot: charged as if the role had no budget
-- (test/tap/012_budget_regrant_during_charge.pl).
CREATE FUNCTION dptrain.ledger_grant(p_source regclass, p_role regrole, p_epsilon float8, p_delta float8,
    p_granted_by regrole)
RETURNS void LANGUAGE sql SET search_path = pg_catalog, pg_temp AS $$
    SELECT dptrain.lock_source(p_source);
    INSERT INTO dptrain.budgets AS b (source, role, epsilon, delta, spent_epsilon, spent_delta, granted_by)
    SELECT p_source, p_role, p_epsilon::numeric, p_delta::numeric,
           trim_scale(coalesce(sum(l.epsilon), 0)), trim_scale(coalesce(sum(l.delta), 0)), p_granted_by
      FROM dptrain.ledger l
     WHERE l.source = p_source AND l.role = p_role AND l.budgeted
    ON CONFLICT (source, role) DO UPDATE
       SET epsilon = EXCLUDED.epsilon, delta = EXCLUDED.delta,
           granted_by = EXCLUDED.granted_by, granted_at = now();
$$;

-- Sets the cap of a source. A new cap starts from everything private ever
-- charged or stored on the source (all roles): the cap bounds the table's
-- total privacy loss, not what is spent from now on. Holds lock_source
-- until the end of the transaction, so no charge on the source slips between
-- the sum and the cap.
CREATE FUNCTION dptrain.ledger_set_cap(p_source regclass, p_epsilon float8, p_delta float8, p_set_by regrole)
RETURNS void LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    PERFORM dptrain.lock_source(p_source);
    INSERT INTO dptrain.table_budgets AS t (source, epsilon, delta, spent_epsilon, spent_delta, set_by)
    SELECT p_source, p_epsilon::numeric, p_delta::numeric,
           trim_scale(coalesce(sum(l.epsilon), 0)), trim_scale(coalesce(sum(l.delta), 0)), p_set_by
      FROM dptrain.ledger l
     WHERE l.source = p_source AND l.epsilon IS NOT NULL
    ON CONFLICT (source) DO UPDATE
       SET epsilon = EXCLUDED.epsilon, delta = EXCLUDED.delta, set_by = EXCLUDED.set_by, set_at = now();
END
$$;

-- Whether the ledger records privacy spent under a budget or cap (then the
-- extension may not be dropped: sql/45_budgets.sql).
CREATE FUNCTION dptrain.ledger_has_spending() RETURNS boolean
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
    SELECT EXISTS (SELECT FROM dptrain.ledger WHERE (budgeted OR capped) AND epsilon IS NOT NULL)
        OR EXISTS (SELECT FROM dptrain.budgets WHERE spent_epsilon > 0 OR spent_delta > 0)
        OR EXISTS (SELECT FROM dptrain.table_budgets WHERE spent_epsilon > 0 OR spent_delta > 0);
$$;

REVOKE EXECUTE ON FUNCTION
    dptrain.lock_source(regclass),
    dptrain.lasting_ref(regclass),
    dptrain.ledger_check(regclass, regrole, boolean, float8, float8, boolean, boolean),
    dptrain.ledger_reserve(regclass, text, regrole, name, boolean, text, float8, float8),
    dptrain.ledger_log(regclass, text, regrole, boolean, bigint, text, float8, float8, boolean),
    dptrain.ledger_grant(regclass, regrole, float8, float8, regrole),
    dptrain.ledger_set_cap(regclass, float8, float8, regrole),
    dptrain.ledger_has_spending()
FROM PUBLIC;

-- Help for \dx+ dptrain: the COMMENTs of this file's objects not commented above
-- (test/regress/sql/comments.sql lists every member without one).
COMMENT ON SEQUENCE dptrain.ledger_id_seq IS
'ids of dptrain.ledger rows';
COMMENT ON FUNCTION dptrain.skip_unresolved_budget() IS
'internal: trigger that skips restoring a budget or cap row whose relation or role is missing ("-")';
COMMENT ON FUNCTION dptrain.lock_source(regclass) IS
'internal: locks the source''s row of dptrain.source_locks until the end of the transaction (serializes its charges and cap changes)';
COMMENT ON FUNCTION dptrain.budget_text(numeric) IS
'internal: a privacy budget amount for an error detail: its exact text when short, else 15 significant digits (1e+308)';
COMMENT ON FUNCTION dptrain.ledger_check(regclass, regrole, boolean, float8, float8, boolean, boolean) IS
'internal: whether a role may run or store a run of (epsilon, delta) on a source, and whether its budget or the source''s cap applies (an error otherwise)';
COMMENT ON FUNCTION dptrain.lasting_ref(regclass) IS
'internal: the reference a ledger row keeps to its source ("-" for a temporary relation)';
COMMENT ON FUNCTION dptrain.ledger_reserve(regclass, text, regrole, name, boolean, text, float8, float8) IS
'internal: charges a private run before it reads its rows and logs it under the id its model will get; returns that id';
COMMENT ON FUNCTION dptrain.ledger_log(regclass, text, regrole, boolean, bigint, text, float8, float8, boolean) IS
'internal: logs a stored model that is not private (nothing to charge)';
COMMENT ON FUNCTION dptrain.ledger_grant(regclass, regrole, float8, float8, regrole) IS
'internal (dp_grant_budget): sets the budget of a role on a source; what the role spent there stays spent';
COMMENT ON FUNCTION dptrain.ledger_set_cap(regclass, float8, float8, regrole) IS
'internal (dp_set_table_budget): sets the cap of a source, counting everything private already charged or stored on it';
COMMENT ON FUNCTION dptrain.ledger_has_spending() IS
'internal: whether the ledger records privacy spent under a budget or cap (then the extension may not be dropped)';
