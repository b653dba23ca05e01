-- Help inside the database: every user-facing function (all a role without
-- grants may execute, except aggregate support functions and type I/O) and
-- every table of the extension carries a COMMENT, so that \df+ and \dt+
-- explain the API without leaving psql.
CREATE ROLE regress_comment_reader;
SELECT p.oid::regprocedure AS function_without_comment
FROM pg_depend d JOIN pg_proc p ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid
WHERE d.refclassid = 'pg_extension'::regclass
  AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'dptrain')
  AND has_function_privilege('regress_comment_reader', p.oid, 'EXECUTE')
  AND NOT EXISTS (SELECT FROM pg_aggregate a
                  WHERE p.oid IN (a.aggtransfn, a.aggfinalfn, a.aggcombinefn, a.aggserialfn, a.aggdeserialfn))
  AND NOT EXISTS (SELECT FROM pg_type t WHERE p.oid IN (t.typinput, t.typoutput, t.typreceive, t.typsend))
  AND obj_description(p.oid, 'pg_proc') IS NULL
ORDER BY p.oid::regprocedure::text COLLATE "C";
SELECT c.oid::regclass AS table_without_comment
FROM pg_depend d JOIN pg_class c ON d.classid = 'pg_class'::regclass AND d.objid = c.oid
WHERE d.refclassid = 'pg_extension'::regclass
  AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'dptrain')
  AND c.relkind IN ('r', 'v', 'p') AND obj_description(c.oid, 'pg_class') IS NULL
ORDER BY c.oid::regclass::text COLLATE "C";
DROP ROLE regress_comment_reader;
-- And every member object \dx+ dptrain lists (internal functions, aggregate
-- support and type I/O functions, sequences, types, casts, event triggers):
-- the list of those without a COMMENT is empty.
SELECT pg_describe_object(d.classid, d.objid, 0) AS member_without_comment
FROM pg_depend d
WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
  AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'dptrain')
  AND obj_description(d.objid, d.classid::regclass::text) IS NULL
ORDER BY 1;
-- The help of the prediction and evaluation functions, as written (it must
-- say what they refuse: dp_predict_proba has no probabilities for Huber SVM
-- or OPDisc models).
SELECT p.oid::regprocedure AS function, obj_description(p.oid, 'pg_proc') AS comment
FROM pg_proc p
WHERE p.proname IN ('dp_predict', 'dp_predict_proba', 'dp_evaluate', 'decision_score')
ORDER BY p.oid::regprocedure::text COLLATE "C";
