// dptrain.sgd_state_with_noise(state, noise, scale, sampled, seed): a copy of
// an epoch state (dptrain.sgd_state) with white-box noise and/or sampled
// batches switched on, for running SCS13/BST14-style epochs by hand and for
// tests. The key is fresh from the OS CSPRNG, or derived from `seed` (then
// the state is flagged as seeded: reproducible, not private).
#include <vector>

#include "core/privacy/random_source.h"
#include "core/sgd/epoch_state.h"
#include "pg_glue.h"

namespace es = dptrain::epoch_state;

extern "C" {

PG_FUNCTION_INFO_V1(dptrain_sgd_state_with_noise);

Datum dptrain_sgd_state_with_noise(PG_FUNCTION_ARGS) {
  for (int i = 0; i < 4; ++i)
    if (PG_ARGISNULL(i))
      ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("only the seed may be NULL"),
                    errhint("Pass the state, the noise ('none', 'gaussian' or 'l2_laplace'), its scale and sampled; a NULL seed draws noise from the secure generator.")));
  int len = 0;
  const double* in = dptrain::pg::float8_array_data(PG_GETARG_ARRAYTYPE_P(0), &len, "training state");
  const char* noise = text_to_cstring(PG_GETARG_TEXT_PP(1));
  const double scale = PG_GETARG_FLOAT8(2);
  const bool sampled = PG_GETARG_BOOL(3);
  const bool has_seed = !PG_ARGISNULL(4);
  const int64 seed = has_seed ? PG_GETARG_INT64(4) : 0;
  std::vector<double>* out = nullptr;
  DPT_CORE({
    es::validate(in, static_cast<std::size_t>(len));
    es::EpochConfig c = es::config_of(in);
    const std::string kind(noise);
    if (kind == "none") c.noise = dptrain::privacy::BatchNoiseKind::None;
    else if (kind == "gaussian") c.noise = dptrain::privacy::BatchNoiseKind::Gaussian;
    else if (kind == "l2_laplace") c.noise = dptrain::privacy::BatchNoiseKind::L2Laplace;
    else
      dptrain::fail(dptrain::ErrorKind::InvalidParameter, "unknown noise \"" + kind + "\"", {},
                    "Use 'none', 'gaussian' or 'l2_laplace'.");
    c.noise_scale = c.noise == dptrain::privacy::BatchNoiseKind::None ? 0.0 : scale;
    c.sampled_batches = sampled;
    const bool keyed = c.noise != dptrain::privacy::BatchNoiseKind::None || sampled;
    c.noise_seeded = keyed && has_seed;
    c.noise_key = {};
    if (keyed) {
      auto rng = has_seed ? dptrain::privacy::RandomSource::seeded(static_cast<std::uint64_t>(seed))
                          : dptrain::privacy::RandomSource::secure();
      c.noise_key = dptrain::privacy::key_to_words(dptrain::privacy::draw_key(rng));
    }
    const double* avg = es::averaging(in) ? es::average(in) : nullptr;
    out = new std::vector<double>(es::make_state(c, es::weights(in), es::updates(in), avg, es::averaged(in)));
  });
  dptrain::pg::delete_on_reset(CurrentMemoryContext, out);
  PG_RETURN_ARRAYTYPE_P(dptrain::pg::make_float8_array(out->data(), static_cast<int>(out->size())));
}

}  // extern "C"
