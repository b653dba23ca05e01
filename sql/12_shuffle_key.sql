-- Reproducible permutations computed where the rows are (distributed
-- tables: every shard shuffles its own rows; src/core/sgd/shuffle_key.h):
--
--   SELECT dptrain.sgd_epoch(x, y, <state>)
--   FROM (SELECT x, y FROM t ORDER BY dptrain.shuffle_key(id, <epoch key>)) s;
--
-- The epoch key (4 words) is dptrain.shuffle_epoch_key(<run key>, epoch);
-- the run key (8 words) comes from the OS CSPRNG, or from a test seed. The
-- row key must be a surrogate key (not data), unique per row.
-- C functions: they resolve no names, so no search_path is involved (a SET
-- clause would also cost a GUC save/restore per row). The key makers are
-- internal to training, so not executable by PUBLIC. shuffle_key is: every
-- training copy orders its rows by it, in a query run with the rights of
-- whoever reads the table (its owner, for a caller with a budget only), and
-- it computes nothing from the data (a keyed hash of the key it is given).
CREATE FUNCTION dptrain.shuffle_run_key(seed bigint DEFAULT NULL)
RETURNS float8[] AS 'MODULE_PATHNAME', 'dptrain_shuffle_run_key' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE FUNCTION dptrain.shuffle_epoch_key(run_key float8[], epoch bigint)
RETURNS float8[] AS 'MODULE_PATHNAME', 'dptrain_shuffle_epoch_key' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dptrain.shuffle_key(row_key bigint, epoch_key float8[])
RETURNS bigint AS 'MODULE_PATHNAME', 'dptrain_shuffle_key' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- The keyed split of private tuning on a distributed table (docs/tuning.md
-- section 5): the part 1..parts of a row, SipHash-2-4 of its key under the
-- run's 128-bit split key, mod parts. Every pass of a candidate filters its
-- part with it on the shards, as the reader: executable by PUBLIC like
-- shuffle_key (a keyed hash of the key it is given, nothing from the data).
CREATE FUNCTION dptrain.tuning_part(row_key bigint, split_key float8[], parts int)
RETURNS int AS 'MODULE_PATHNAME', 'dptrain_tuning_part' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION dptrain.tuning_part IS
'internal: the part (1..parts) of a row in the keyed split of private tuning on a distributed table (SipHash-2-4 of row_key under a 128-bit split key, mod parts)';

COMMENT ON FUNCTION dptrain.shuffle_key IS
'internal: the sort key of a row in a keyed random permutation (SipHash-2-4 of row_key under a 128-bit epoch key)';

REVOKE EXECUTE ON FUNCTION
    dptrain.shuffle_run_key(bigint),
    dptrain.shuffle_epoch_key(float8[], bigint)
FROM PUBLIC;

-- Help for \dx+ dptrain: the COMMENTs of this file's objects not commented above
-- (test/regress/sql/comments.sql lists every member without one).
COMMENT ON FUNCTION dptrain.shuffle_run_key(bigint) IS
'internal: a run''s shuffle key (8 words) from the OS CSPRNG, or from a test seed (then not private)';
COMMENT ON FUNCTION dptrain.shuffle_epoch_key(float8[], bigint) IS
'internal: the shuffle key (4 words) of one epoch, derived from the run key';
