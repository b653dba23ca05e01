-- The keyed shuffle of distributed epochs: dptrain.shuffle_run_key,
-- shuffle_epoch_key and shuffle_key (src/core/sgd/shuffle_key.h).

-- The run key bytes 00 01 .. 1f as eight little-endian 32-bit words, epoch 3:
-- the epoch key is BLAKE2b-128 keyed by the run key (computed independently
-- with Python's hashlib: 40220324 b4fba26b 55128467 e18b977f).
SELECT dptrain.shuffle_epoch_key(
    '{50462976,117835012,185207048,252579084,319951120,387323156,454695192,522067228}', 3) AS epoch_key;
-- SipHash-2-4 of rows 1, 42, -5 under that key (independent implementation).
SELECT r, dptrain.shuffle_key(r, '{604185152,1805843380,1736708693,2140638177}') AS shuffle_key
FROM unnest(ARRAY[1, 42, -5]::bigint[]) r;

-- The same seed gives the same key, hence the same permutation; another
-- seed or another epoch a different one; without a seed, a fresh key.
SELECT dptrain.shuffle_run_key(7) = dptrain.shuffle_run_key(7) AS same_seed,
       dptrain.shuffle_run_key(7) <> dptrain.shuffle_run_key(8) AS other_seed,
       dptrain.shuffle_run_key() <> dptrain.shuffle_run_key() AS fresh,
       cardinality(dptrain.shuffle_run_key()) AS words;
CREATE TABLE shuffled_rows AS SELECT i::bigint AS id FROM generate_series(1, 1000) i;
CREATE FUNCTION pg_temp.order_of(seed bigint, epoch bigint) RETURNS bigint[] LANGUAGE sql AS $$
  SELECT array_agg(id ORDER BY dptrain.shuffle_key(id, dptrain.shuffle_epoch_key(dptrain.shuffle_run_key(seed), epoch)))
  FROM shuffled_rows $$;
SELECT pg_temp.order_of(1, 0) = pg_temp.order_of(1, 0) AS reproducible,
       pg_temp.order_of(1, 0) <> pg_temp.order_of(1, 1) AS new_epoch,
       pg_temp.order_of(1, 0) <> pg_temp.order_of(2, 0) AS new_seed,
       (SELECT array_agg(v ORDER BY v) FROM unnest(pg_temp.order_of(1, 0)) v) =
           (SELECT array_agg(id ORDER BY id) FROM shuffled_rows) AS permutation;
-- A shuffled order is not the identity nor near it: Spearman's footrule
-- sum |position - id| is about n^2/3 = 333333 for a random permutation
-- (2/3 of it is far beyond chance for n = 1000).
SELECT sum(abs(p - v)) > 222222 AS shuffled
FROM unnest(pg_temp.order_of(1, 0)) WITH ORDINALITY AS o(v, p);

-- Bad keys.
SELECT dptrain.shuffle_key(1, '{1,2,3}');
SELECT dptrain.shuffle_key(1, '{1,2,3,4294967296}');
SELECT dptrain.shuffle_key(1, '{1,2,3,0.5}');
SELECT dptrain.shuffle_key(1, '{1,2,NULL,4}');
SELECT dptrain.shuffle_epoch_key('{1,2,3,4,5,6,7,-1}', 0);
SELECT dptrain.shuffle_epoch_key('{1,2,3,4,5,6,7,8}', -1);
SELECT dptrain.shuffle_key(NULL, '{1,2,3,4}') IS NULL AS strict;

-- The keyed split of private tuning on a distributed table (docs/tuning.md
-- section 5): the part of rows 1, 42, -5 under kappa = BLAKE2b-128(key =
-- bytes 00..1f, "dptrain-split:"), the values the unit test pins from an
-- independent implementation (SQL and the in-memory model share the core's
-- sgd::tuning_part): 7, 6, 10 of 10 and 30, 10, 55 of 101.
SELECT r, dptrain.tuning_part(r, '{1868802292,741281027,4163011405,3696143168}', 10) AS of_10,
       dptrain.tuning_part(r, '{1868802292,741281027,4163011405,3696143168}', 101) AS of_101
FROM unnest(ARRAY[1, 42, -5]::bigint[]) r;
SELECT dptrain.tuning_part(1, '{1,2,3,4}', 0);
SELECT dptrain.tuning_part(1, '{1,2,3}', 10);

-- The key makers are internal to training: not executable by PUBLIC;
-- shuffle_key and tuning_part are (a training copy orders its rows by the
-- first, a tuning candidate's pass on a distributed table filters its part
-- by the second, with the rights of the table's reader, sql/12_shuffle_key.sql).
SELECT p.oid::regprocedure AS function, has_function_privilege('public', p.oid, 'EXECUTE') AS public_execute
FROM pg_proc p WHERE (p.proname LIKE 'shuffle%' OR p.proname = 'tuning_part') AND p.pronamespace = 'dptrain'::regnamespace ORDER BY p.oid::regprocedure::text;
DROP TABLE shuffled_rows;
