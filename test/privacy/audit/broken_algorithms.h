// Deliberately broken algorithms for the privacy audit. TEST CODE ONLY:
// nothing here is compiled into the core library, the extension or the CLI,
// so no SQL call or command line can reach it.
#pragma once

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>

#include "core/algorithms/amp.h"
#include "core/algorithms/bolton.h"
#include "core/algorithms/bst14.h"
#include "core/algorithms/scs13.h"

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
    divide(p);
    return p;
  }
  // On shards, the noise re-calibrated to the per-shard bound, likewise too small.
  bool calibrate_output_noise(const TrainingConfig& config, TrainingPlan& plan, double sensitivity,
                              const std::string& rule) const override {
    Bolton::calibrate_output_noise(config, plan, sensitivity, rule);
    divide(plan);
    return true;
  }

 private:
  void divide(TrainingPlan& p) const {
    BoltonNoise noise = BoltonNoise::from_json(p.privacy.at("noise"));
    noise.sensitivity /= factor_;
    noise.scale /= factor_;  // Gamma scale Delta/eps, or sigma (linear in Delta)
    p.privacy["noise"] = noise.to_json();
  }
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

// A white-box algorithm (Scs13, Bst14) whose per-batch noise scale (Gaussian
// sigma, or L2-Laplace scale) is divided by `factor`: every noisy update is
// `factor` times less noisy than its plan requires, while the model still
// claims the original (epsilon, delta). Only the scale the epochs use
// changes; the recorded plan says what a correct plan would say (the audit
// must catch the lie from the released models alone).
template <class Base>
class UnderNoisedWhiteBox : public Base {
 public:
  explicit UnderNoisedWhiteBox(double factor) : factor_(factor) {}
  TrainingPlan plan(const TrainingConfig& config) const override {
    TrainingPlan p = Base::plan(config);
    p.epoch.noise_scale /= factor_;
    return p;
  }

 private:
  double factor_;
};

// A white-box algorithm without its per-batch noise (the batch sampling of
// BST14 stays): for reports and for checking that the neighbouring noiseless
// models differ by what the scenario says.
template <class Base>
class NoiselessWhiteBox : public Base {
 public:
  TrainingPlan plan(const TrainingConfig& config) const override {
    TrainingPlan p = Base::plan(config);
    p.epoch.noise = privacy::BatchNoiseKind::None;
    p.epoch.noise_scale = 0;
    return p;
  }
};

// "scs13" or "bst14" -> the test-only variants above.
inline std::function<std::unique_ptr<Algorithm>()> under_noised_whitebox(const std::string& algorithm,
                                                                         double factor) {
  if (algorithm == "scs13") return [factor] { return std::make_unique<UnderNoisedWhiteBox<Scs13>>(factor); };
  if (algorithm == "bst14") return [factor] { return std::make_unique<UnderNoisedWhiteBox<Bst14>>(factor); };
  throw std::invalid_argument("under_noised_whitebox: not a white-box algorithm: " + algorithm);
}

inline std::function<std::unique_ptr<Algorithm>()> noiseless_whitebox(const std::string& algorithm) {
  if (algorithm == "scs13") return [] { return std::make_unique<NoiselessWhiteBox<Scs13>>(); };
  if (algorithm == "bst14") return [] { return std::make_unique<NoiselessWhiteBox<Bst14>>(); };
  throw std::invalid_argument("noiseless_whitebox: not a white-box algorithm: " + algorithm);
}

// AMP whose sigma1 and sigma2 are multiplied by the factors (the model still
// claims the original (epsilon, delta)). 0.1: broken; ~0: noiseless, for
// measuring the gap between the neighbouring minima.
class ScaledNoiseAmp : public Amp {
 public:
  ScaledNoiseAmp(double sigma1_factor, double sigma2_factor) : f1_(sigma1_factor), f2_(sigma2_factor) {}

 protected:
  amp::AmpPlan make_amp_plan(const TrainingConfig& config) const override {
    amp::AmpPlan p = Amp::make_amp_plan(config);
    p.sigma1 *= f1_;
    p.sigma2 *= f2_;
    return p;
  }

 private:
  double f1_, f2_;
};

}  // namespace dptrain::test::audit
