// Deliberately broken algorithms for the privacy audit. TEST CODE ONLY:
// nothing here is compiled into the core library, the extension or the CLI,
// so no SQL call or command line can reach it.
#pragma once

#include <functional>
#include <memory>

#include "core/algorithms/bolton.h"

namespace dptrain::test::audit {

// Bolt-on with its L2-sensitivity divided by `factor`: the noise is `factor`
// times too small, so the true epsilon is about factor x the claimed one
// (when the neighbouring models really differ by the sensitivity). The model
// still claims the original (epsilon, delta): the audit must catch it.
class UnderNoisedBolton : public Bolton {
 public:
  explicit UnderNoisedBolton(double factor) : factor_(factor) {}
  TrainingPlan plan(const TrainingConfig& config) const override {
    TrainingPlan p = Bolton::plan(config);
    BoltonNoise noise = BoltonNoise::from_json(p.privacy.at("noise"));
    noise.sensitivity /= factor_;
    noise.scale /= factor_;  // Gamma scale Delta/eps, or sigma (linear in Delta)
    p.privacy["noise"] = noise.to_json();
    return p;
  }

 private:
  double factor_;
};

// Bolt-on without its noise: not a privacy mechanism at all. Only used to
// measure the distance between the noiseless neighbouring models for reports.
class NoiselessBolton : public Bolton {
 public:
  void release(const TrainingConfig&, const TrainingPlan&, WeightMatrix&, privacy::RandomSource&) const override {}
};

inline std::function<std::unique_ptr<Algorithm>()> noiseless_bolton() {
  return [] { return std::make_unique<NoiselessBolton>(); };
}

inline std::function<std::unique_ptr<Algorithm>()> under_noised_bolton(double factor) {
  return [factor] { return std::make_unique<UnderNoisedBolton>(factor); };
}

}  // namespace dptrain::test::audit
