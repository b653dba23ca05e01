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
-- clause would also cost a GUC save/restore per row). Internal to training,
-- so not executable by PUBLIC, although they compute nothing from the data.
CREATE FUNCTION dptrain.shuffle_run_key(seed bigint DEFAULT NULL)
RETURNS float8[] AS 'MODULE_PATHNAME', 'dptrain_shuffle_run_key' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE FUNCTION dptrain.shuffle_epoch_key(run_key float8[], epoch bigint)
RETURNS float8[] AS 'MODULE_PATHNAME', 'dptrain_shuffle_epoch_key' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dptrain.shuffle_key(row_key bigint, epoch_key float8[])
RETURNS bigint AS 'MODULE_PATHNAME', 'dptrain_shuffle_key' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

REVOKE EXECUTE ON FUNCTION
    dptrain.shuffle_run_key(bigint),
    dptrain.shuffle_epoch_key(float8[], bigint),
    dptrain.shuffle_key(bigint, float8[])
FROM PUBLIC;
