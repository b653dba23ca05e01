// Keyed shuffle of distributed epochs (src/core/sgd/shuffle_key.h):
//   dptrain.shuffle_run_key(seed)            the run's 256-bit key (8 words): CSPRNG, or from a test seed
//   dptrain.shuffle_epoch_key(run_key, e)    the 128-bit key of epoch e (4 words)
//   dptrain.shuffle_key(row_key, epoch_key)  the row's sort key (bigint)
//   dptrain.tuning_part(row_key, split_key, parts)  the row's part of a tuning split (1..parts)
// `ORDER BY dptrain.shuffle_key(id, <epoch key>)` in the subquery under the
// epoch aggregate is pushed down to every shard and gives the same
// permutation on every run with the same key.
#include <cmath>
#include <optional>
#include <string>

#include "core/privacy/random_source.h"
#include "core/sgd/shuffle_key.h"
#include "pg_glue.h"

namespace {

const double* key_words(ArrayType* a, int expected, const char* what,
                        const char* hint = "Use dptrain.shuffle_run_key() and dptrain.shuffle_epoch_key() to make keys.") {
  int len = 0;
  const double* w = dptrain::pg::float8_array_data(a, &len, what);
  if (len != expected)
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("%s must have %d elements", what, expected),
                    errdetail("Got %d.", len),
                    errhint("%s", hint)));
  return w;
}

}  // namespace

extern "C" {

PG_FUNCTION_INFO_V1(dptrain_shuffle_run_key);
PG_FUNCTION_INFO_V1(dptrain_shuffle_epoch_key);
PG_FUNCTION_INFO_V1(dptrain_shuffle_key);
PG_FUNCTION_INFO_V1(dptrain_tuning_part);

Datum dptrain_shuffle_run_key(PG_FUNCTION_ARGS) {
  const bool seeded = !PG_ARGISNULL(0);
  const int64 seed = seeded ? PG_GETARG_INT64(0) : 0;
  double words[8];
  DPT_CORE({
    std::optional<std::uint64_t> s;
    if (seeded) s = static_cast<std::uint64_t>(seed);
    const dptrain::privacy::KeyWords w = dptrain::privacy::key_to_words(dptrain::sgd::run_shuffle_key(s));
    for (int i = 0; i < 8; ++i) words[i] = w[i];
  });
  PG_RETURN_ARRAYTYPE_P(dptrain::pg::make_float8_array(words, 8));
}

Datum dptrain_shuffle_epoch_key(PG_FUNCTION_ARGS) {
  const double* run = key_words(PG_GETARG_ARRAYTYPE_P(0), 8, "a shuffle run key");
  const int64 epoch = PG_GETARG_INT64(1);
  if (epoch < 0)
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("the epoch must be non-negative"),
                    errhint("Number the epochs 0, 1, 2, ...")));
  double words[4];
  DPT_CORE({
    dptrain::privacy::KeyWords kw{};
    for (int i = 0; i < 8; ++i) {
      if (!(run[i] >= 0 && run[i] <= 4294967295.0 && std::floor(run[i]) == run[i]))
        dptrain::fail(dptrain::ErrorKind::InvalidParameter, "a shuffle run key word must be an integer in [0, 2^32)");
      kw[i] = static_cast<std::uint32_t>(run[i]);
    }
    const dptrain::sgd::EpochShuffleWords w = dptrain::sgd::epoch_key_to_words(
        dptrain::sgd::epoch_shuffle_key(dptrain::privacy::key_from_words(kw), static_cast<std::uint64_t>(epoch)));
    for (int i = 0; i < 4; ++i) words[i] = w[i];
  });
  PG_RETURN_ARRAYTYPE_P(dptrain::pg::make_float8_array(words, 4));
}

// Called once per row: the key words are checked on every call (four
// comparisons), the hash is one SipHash-2-4 of 8 bytes.
Datum dptrain_shuffle_key(PG_FUNCTION_ARGS) {
  const int64 row = PG_GETARG_INT64(0);
  const double* words = key_words(PG_GETARG_ARRAYTYPE_P(1), 4, "a shuffle epoch key");
  int64 out = 0;
  DPT_CORE({ out = dptrain::sgd::shuffle_key(row, dptrain::sgd::epoch_key_from_words(words, 4)); });
  PG_RETURN_INT64(out);
}

// Called once per row of every pass over a part of a distributed table
// (docs/tuning.md section 5): one SipHash-2-4 of 8 bytes, as shuffle_key.
Datum dptrain_tuning_part(PG_FUNCTION_ARGS) {
  const int64 row = PG_GETARG_INT64(0);
  const double* words = key_words(PG_GETARG_ARRAYTYPE_P(1), 4, "a tuning split key",
                                   "dp_tune draws the split key of its run (docs/tuning.md section 5).");
  const int32 parts = PG_GETARG_INT32(2);
  int out = 0;
  DPT_CORE({ out = dptrain::sgd::tuning_part(row, dptrain::sgd::epoch_key_from_words(words, 4), parts); });
  PG_RETURN_INT32(out);
}

}  // extern "C"
