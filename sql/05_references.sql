-- References to relations and roles in dptrain's own tables (models,
-- budgets, table budgets, ledger), which pg_dump keeps as extension data
-- (src/pg/references.cpp). Stored as an OID and printed as a name, like
-- regclass and regrole; but a name that does not resolve reads as "-" (0)
-- with a WARNING instead of failing, so that a dump restored without one of
-- the tables or roles it names (pg_dump -T) still restores every other row.
-- Like regclass's, their input resolves a relation name through the
-- caller's search_path (a dump names them schema-qualified); they run no SQL
-- and call no function by name, so they are the type I/O functions the
-- search_path rule exempts (test/regress/sql/security_search_path.sql).
CREATE TYPE dptrain.relation_ref;
CREATE FUNCTION dptrain.relation_ref_in(cstring) RETURNS dptrain.relation_ref
AS 'MODULE_PATHNAME', 'dptrain_relation_ref_in' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dptrain.relation_ref_out(dptrain.relation_ref) RETURNS cstring
AS 'MODULE_PATHNAME', 'dptrain_relation_ref_out' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE TYPE dptrain.relation_ref (INPUT = dptrain.relation_ref_in, OUTPUT = dptrain.relation_ref_out,
    LIKE = pg_catalog.oid);
COMMENT ON TYPE dptrain.relation_ref IS
'a relation, stored as its OID, printed schema-qualified; a name that does not resolve reads as "-"';

CREATE TYPE dptrain.role_ref;
CREATE FUNCTION dptrain.role_ref_in(cstring) RETURNS dptrain.role_ref
AS 'MODULE_PATHNAME', 'dptrain_role_ref_in' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dptrain.role_ref_out(dptrain.role_ref) RETURNS cstring
AS 'MODULE_PATHNAME', 'dptrain_role_ref_out' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE TYPE dptrain.role_ref (INPUT = dptrain.role_ref_in, OUTPUT = dptrain.role_ref_out,
    LIKE = pg_catalog.oid);
COMMENT ON TYPE dptrain.role_ref IS 'a role, stored as its OID; a name that does not resolve reads as "-"';

-- Compared, indexed and passed to pg_catalog's functions as OIDs (an
-- implicit binary cast, like regclass and regrole; no operators of their
-- own). regclass / regrole values are stored in them by assignment.
CREATE CAST (dptrain.relation_ref AS pg_catalog.oid) WITHOUT FUNCTION AS IMPLICIT;
CREATE CAST (pg_catalog.regclass AS dptrain.relation_ref) WITHOUT FUNCTION AS ASSIGNMENT;
CREATE CAST (dptrain.relation_ref AS pg_catalog.regclass) WITHOUT FUNCTION AS ASSIGNMENT;
CREATE CAST (dptrain.role_ref AS pg_catalog.oid) WITHOUT FUNCTION AS IMPLICIT;
CREATE CAST (pg_catalog.regrole AS dptrain.role_ref) WITHOUT FUNCTION AS ASSIGNMENT;
CREATE CAST (dptrain.role_ref AS pg_catalog.regrole) WITHOUT FUNCTION AS ASSIGNMENT;

-- Help for \dx+ dptrain: the COMMENTs of this file's objects not commented above
-- (test/regress/sql/comments.sql lists every member without one).
COMMENT ON FUNCTION dptrain.relation_ref_in(cstring) IS
'internal: input function of type dptrain.relation_ref (a relation name; "-" if it does not resolve)';
COMMENT ON FUNCTION dptrain.relation_ref_out(dptrain.relation_ref) IS
'internal: output function of type dptrain.relation_ref (the relation''s name, as regclass prints it)';
COMMENT ON FUNCTION dptrain.role_ref_in(cstring) IS
'internal: input function of type dptrain.role_ref (a role name; "-" if it does not resolve)';
COMMENT ON FUNCTION dptrain.role_ref_out(dptrain.role_ref) IS
'internal: output function of type dptrain.role_ref (the role''s name, as regrole prints it)';
COMMENT ON CAST (dptrain.relation_ref AS pg_catalog.oid) IS
'the relation''s OID (implicit: relation references compare and index as OIDs)';
COMMENT ON CAST (pg_catalog.regclass AS dptrain.relation_ref) IS
'a regclass stored as a relation reference (by assignment)';
COMMENT ON CAST (dptrain.relation_ref AS pg_catalog.regclass) IS
'a relation reference as a regclass (by assignment)';
COMMENT ON CAST (dptrain.role_ref AS pg_catalog.oid) IS
'the role''s OID (implicit: role references compare and index as OIDs)';
COMMENT ON CAST (pg_catalog.regrole AS dptrain.role_ref) IS
'a regrole stored as a role reference (by assignment)';
COMMENT ON CAST (dptrain.role_ref AS pg_catalog.regrole) IS
'a role reference as a regrole (by assignment)';
