-- Privacy governance (docs/governance.md): the budgets that table owners
-- grant per (source relation, role), the ledger of what every training run
-- spent, and who may see which model.
--
-- Budget amounts are numeric. A float8 epsilon or delta becomes numeric with
-- 15 significant digits (PostgreSQL's float8 -> numeric cast), so decimal
-- budgets and charges add up exactly (0.1 + 0.2 = 0.3 fits a budget of 0.3).

-- Per (source, role): the budget the owner of the source granted, and what
-- runs of that role on that source have spent of it. `spent_*` is updated
-- under the row lock in the transaction that stores the model, so it is the
-- authoritative total; dptrain.ledger is the itemized log of the same runs.
CREATE TABLE dptrain.budgets (
    source        regclass    NOT NULL,
    role          regrole     NOT NULL,
    epsilon       numeric     NOT NULL CHECK (epsilon > 0),
    delta         numeric     NOT NULL CHECK (delta >= 0 AND delta < 1),
    spent_epsilon numeric     NOT NULL DEFAULT 0 CHECK (spent_epsilon >= 0),
    spent_delta   numeric     NOT NULL DEFAULT 0 CHECK (spent_delta >= 0),
    composition   text        NOT NULL DEFAULT 'basic' CHECK (composition = 'basic'),
    granted_by    regrole     NOT NULL,
    granted_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (source, role)
);
COMMENT ON TABLE dptrain.budgets IS
'privacy budgets granted by table owners (dp_grant_budget); spent = sum of the budgeted ledger rows';

-- One row per stored model: what the run spent and against which budget.
-- Runs of roles that may read the data and have no budget row are logged
-- with budgeted = false (an audit trail; nothing is charged).
CREATE TABLE dptrain.ledger (
    id           bigserial   PRIMARY KEY,
    source       regclass    NOT NULL,
    source_name  text        NOT NULL,   -- as named when the run was charged
    role         regrole     NOT NULL,   -- current_user of the run: whose budget
    session_role name        NOT NULL,   -- session_user of the run: who logged in
    model_id     bigint      REFERENCES dptrain.models (id) ON DELETE SET NULL,
    algorithm    text        NOT NULL,
    epsilon      numeric,                -- NULL: the run is not private
    delta        numeric,
    budgeted     boolean     NOT NULL,
    composition  text        NOT NULL DEFAULT 'basic',
    charged_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX ledger_source_role ON dptrain.ledger (source, role);
COMMENT ON TABLE dptrain.ledger IS 'every stored model with the privacy it spent (basic composition)';

-- The ledger is user data: pg_dump keeps it.
SELECT pg_catalog.pg_extension_config_dump('dptrain.budgets', '');
SELECT pg_catalog.pg_extension_config_dump('dptrain.ledger', '');
SELECT pg_catalog.pg_extension_config_dump('dptrain.ledger_id_seq', '');

-- Who sees what: a role sees its own budgets and runs (and those of roles
-- it has the privileges of); the owner of a source sees all of them for it.
-- Nobody but the extension's functions writes these tables.
ALTER TABLE dptrain.budgets ENABLE ROW LEVEL SECURITY;
ALTER TABLE dptrain.ledger ENABLE ROW LEVEL SECURITY;
CREATE POLICY grantee_or_owner ON dptrain.budgets FOR SELECT USING (
    pg_catalog.pg_has_role(role, 'USAGE')
    OR EXISTS (SELECT 1 FROM pg_catalog.pg_class c
               WHERE c.oid = source AND pg_catalog.pg_has_role(c.relowner, 'USAGE')));
CREATE POLICY grantee_or_owner ON dptrain.ledger FOR SELECT USING (
    pg_catalog.pg_has_role(role, 'USAGE')
    OR EXISTS (SELECT 1 FROM pg_catalog.pg_class c
               WHERE c.oid = source AND pg_catalog.pg_has_role(c.relowner, 'USAGE')));
GRANT SELECT ON dptrain.budgets, dptrain.ledger TO PUBLIC;

-- Models: a model is visible to the role that trained it and to roles that
-- may read the table it was trained on (a model, private or not, tells them
-- nothing they cannot read). Everyone else sees nothing: a non-private model
-- is a noiseless function of the data. dp_predict / dp_evaluate read models
-- with the caller's rights, so they obey the same rule.
ALTER TABLE dptrain.models ADD COLUMN source_table regclass;
COMMENT ON COLUMN dptrain.models.source_table IS 'the relation the model was trained on (NULL once dropped and restored without it)';
ALTER TABLE dptrain.models ENABLE ROW LEVEL SECURITY;
CREATE POLICY creator_or_reader ON dptrain.models FOR SELECT USING (
    created_by = current_user OR pg_catalog.has_table_privilege(source_table, 'SELECT'));

-- ---- internal: the ledger logic (called by the C functions as the ----------
-- ---- extension owner, after they checked who the caller is) ----------------

-- Decides whether `p_role` may run (or store) a training run of (epsilon,
-- delta) on `p_source`. Returns true if a budget row applies (then the run is
-- charged to it), false for a reader without a budget row; otherwise raises:
--   42501  the role may not read the data and has no budget
--   DP002  the run is not private (no epsilon, or seeded noise) under a budget
--   DP001  the run needs more than the budget has left
-- With p_lock the budget row is locked (FOR UPDATE) until the end of the
-- transaction: a concurrent run of the same role on the same source waits
-- here, then sees what this one spent.
CREATE FUNCTION dptrain.ledger_check(p_source regclass, p_role regrole, p_reader boolean,
    p_epsilon float8, p_delta float8, p_seeded boolean, p_lock boolean)
RETURNS boolean LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    b dptrain.budgets;
    want_epsilon numeric := p_epsilon::numeric;
    want_delta numeric := coalesce(p_delta, 0)::numeric;
    left_epsilon numeric;
    left_delta numeric;
BEGIN
    IF p_lock THEN
        SELECT * INTO b FROM dptrain.budgets x WHERE x.source = p_source AND x.role = p_role FOR UPDATE;
    ELSE
        SELECT * INTO b FROM dptrain.budgets x WHERE x.source = p_source AND x.role = p_role;
    END IF;
    IF NOT FOUND THEN
        IF p_reader THEN
            RETURN false;
        END IF;
        RAISE EXCEPTION 'permission denied to train on %', p_source
            USING ERRCODE = '42501',
                  DETAIL = format('Role %s may not read the label and feature columns of %s and has no privacy budget on it.',
                                  p_role, p_source),
                  HINT = format('The owner of %s can grant a budget: SELECT dp_grant_budget(%L, %L, epsilon, delta);',
                                p_source, p_source::text, p_role::text);
    END IF;
    IF p_epsilon IS NULL OR p_seeded THEN
        RAISE EXCEPTION 'a training run that is not differentially private cannot be charged to a privacy budget'
            USING ERRCODE = 'DP002',
                  DETAIL = format('Role %s has a privacy budget on %s, so every run it makes there must be private; this run %s.',
                                  p_role, p_source,
                                  CASE WHEN p_epsilon IS NULL THEN 'has no epsilon (algorithm none, or epsilon not given)'
                                       ELSE 'uses seeded (reproducible) noise' END),
                  HINT = 'Train with a private algorithm and an explicit epsilon (and delta), without seed.';
    END IF;
    left_epsilon := trim_scale(greatest(b.epsilon - b.spent_epsilon, 0));
    left_delta := trim_scale(greatest(b.delta - b.spent_delta, 0));
    IF want_epsilon > left_epsilon OR want_delta > left_delta THEN
        RAISE EXCEPTION 'privacy budget exceeded for role % on %', p_role, p_source
            USING ERRCODE = 'DP001',
                  DETAIL = format('Requested epsilon = %s, delta = %s; remaining epsilon = %s, delta = %s '
                                  '(granted epsilon = %s, delta = %s; spent epsilon = %s, delta = %s).',
                                  want_epsilon, want_delta, left_epsilon, left_delta,
                                  b.epsilon, b.delta, b.spent_epsilon, b.spent_delta),
                  HINT = 'Train with a smaller epsilon or delta, or ask the owner of the table for more budget (dp_grant_budget).';
    END IF;
    RETURN true;
END
$$;

-- Charges a stored model: checks under the row lock, adds its (epsilon,
-- delta) to the budget (basic composition), logs the run. Runs in the
-- transaction that inserted the model, so both commit or neither does.
CREATE FUNCTION dptrain.ledger_charge(p_source regclass, p_source_name text, p_role regrole, p_reader boolean,
    p_model_id bigint, p_algorithm text, p_epsilon float8, p_delta float8, p_seeded boolean)
RETURNS void LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    budgeted boolean;
BEGIN
    budgeted := dptrain.ledger_check(p_source, p_role, p_reader, p_epsilon, p_delta, p_seeded, true);
    IF budgeted THEN
        UPDATE dptrain.budgets x
           SET spent_epsilon = trim_scale(x.spent_epsilon + p_epsilon::numeric),
               spent_delta = trim_scale(x.spent_delta + coalesce(p_delta, 0)::numeric)
         WHERE x.source = p_source AND x.role = p_role;
    END IF;
    INSERT INTO dptrain.ledger (source, source_name, role, session_role, model_id, algorithm, epsilon, delta, budgeted)
    VALUES (p_source, p_source_name, p_role, session_user, p_model_id, p_algorithm, p_epsilon::numeric,
            CASE WHEN p_epsilon IS NULL THEN NULL ELSE coalesce(p_delta, 0)::numeric END, budgeted);
END
$$;

-- Sets the budget of (source, role). What the role already spent on the
-- source stays spent: a new row starts from the sum of its budgeted runs
-- in the ledger, so revoking and granting again never refunds anything.
CREATE FUNCTION dptrain.ledger_grant(p_source regclass, p_role regrole, p_epsilon float8, p_delta float8,
    p_granted_by regrole)
RETURNS void LANGUAGE sql SET search_path = pg_catalog, pg_temp AS $$
    INSERT INTO dptrain.budgets AS b (source, role, epsilon, delta, spent_epsilon, spent_delta, granted_by)
    SELECT p_source, p_role, p_epsilon::numeric, p_delta::numeric,
           trim_scale(coalesce(sum(l.epsilon), 0)), trim_scale(coalesce(sum(l.delta), 0)), p_granted_by
      FROM dptrain.ledger l
     WHERE l.source = p_source AND l.role = p_role AND l.budgeted
    ON CONFLICT (source, role) DO UPDATE
       SET epsilon = EXCLUDED.epsilon, delta = EXCLUDED.delta,
           granted_by = EXCLUDED.granted_by, granted_at = now();
$$;

REVOKE EXECUTE ON FUNCTION
    dptrain.ledger_check(regclass, regrole, boolean, float8, float8, boolean, boolean),
    dptrain.ledger_charge(regclass, text, regrole, boolean, bigint, text, float8, float8, boolean),
    dptrain.ledger_grant(regclass, regrole, float8, float8, regrole)
FROM PUBLIC;

-- A dropped relation's budgets go with it: its OID may later be reused by an
-- unrelated table, which must not inherit them. (Its ledger rows stay: they
-- are history.)
CREATE FUNCTION dptrain.forget_dropped_sources()
RETURNS event_trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    DELETE FROM dptrain.budgets b
     USING pg_catalog.pg_event_trigger_dropped_objects() d
     WHERE d.classid = 'pg_catalog.pg_class'::pg_catalog.regclass AND d.objsubid = 0
       AND b.source = d.objid;
END
$$;
REVOKE EXECUTE ON FUNCTION dptrain.forget_dropped_sources() FROM PUBLIC;
CREATE EVENT TRIGGER dptrain_forget_dropped_sources ON sql_drop
    EXECUTE FUNCTION dptrain.forget_dropped_sources();

-- ---- user-facing: budgets ----------------------------------------------------

CREATE FUNCTION @extschema@.dp_grant_budget(source regclass, role name, epsilon float8, delta float8 DEFAULT 0)
RETURNS void AS 'MODULE_PATHNAME', 'dptrain_dp_grant_budget' LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION @extschema@.dp_grant_budget IS
'owner of source: let role train on source (even without SELECT) up to a total privacy budget (epsilon, delta)';

CREATE FUNCTION @extschema@.dp_revoke_budget(source regclass, role name)
RETURNS boolean AS 'MODULE_PATHNAME', 'dptrain_dp_revoke_budget' LANGUAGE C STRICT VOLATILE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION @extschema@.dp_revoke_budget IS
'owner of source: remove the budget of role on source (what it spent stays in the ledger); true if there was one';

CREATE FUNCTION @extschema@.dp_budget_remaining(source regclass, role name DEFAULT NULL,
    OUT epsilon float8, OUT delta float8)
RETURNS record AS 'MODULE_PATHNAME', 'dptrain_dp_budget_remaining' LANGUAGE C STABLE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION @extschema@.dp_budget_remaining IS
'privacy budget left to role (default: current_user) on source; NULLs if it has none';
