#include "core/training/intercept.h"

#include <cmath>
#include <utility>

#include "core/algorithms/algorithm.h"
#include "core/engine/run.h"
#include "core/error.h"

namespace dptrain::intercept {

bool default_on(const std::string& algorithm) {
  try {
    return make_algorithm(algorithm)->default_intercept();
  } catch (const Error&) {
    return true;  // an unknown name: the run's own checks report it
  }
}

double constant_feature(const TrainingConfig& user) { return user.feature_bound; }

double augmented_bound(const TrainingConfig& user) {
  return std::hypot(user.feature_bound, constant_feature(user));
}

TrainingConfig augmented_config(const TrainingConfig& user) {
  TrainingConfig c = user;
  c.intercept = false;
  c.augmented_for_intercept = true;
  c.dim = user.dim + 1;
  c.feature_bound = augmented_bound(user);
  return c;
}

void augment_row(const double* x, int d, double bound, double b, double* out) {
  double sq = 0;
  for (int j = 0; j < d; ++j) sq += x[j] * x[j];
  const double norm = std::sqrt(sq);
  // Non-finite rows are left as they are: the aggregates refuse them (or the
  // no-read copy has replaced them by the public row) exactly as without intercept.
  const double scale = std::isfinite(norm) && norm > bound ? bound / norm : 1.0;
  for (int j = 0; j < d; ++j) out[j] = x[j] * scale;
  out[d] = b;
}

std::vector<double> augment_row(const std::vector<double>& x, double bound, double b) {
  std::vector<double> out(x.size() + 1);
  augment_row(x.data(), static_cast<int>(x.size()), bound, b, out.data());
  return out;
}

Model finish_model(Model m, const TrainingConfig& user) {
  if (m.weights.cols() != user.dim + 1)
    fail(ErrorKind::Internal, "intercept: the released model does not have d + 1 weights");
  m.intercept = constant_feature(user);
  m.feature_bound = user.feature_bound;
  nlohmann::json& h = m.details["hyperparameters"];
  if (!h.is_object()) h = nlohmann::json::object();
  h["intercept"] = true;
  h["intercept_feature"] = m.intercept;
  h["feature_bound"] = user.feature_bound;
  h["augmented_feature_bound"] = augmented_bound(user);
  if (m.details.contains("data") && m.details["data"].is_object()) m.details["data"]["dim"] = user.dim;
  return m;
}

TrainingConfig planned_config(const TrainingConfig& user) {
  return user.intercept ? augmented_config(user) : user;
}

Model released_model(Model released, const TrainingConfig& user) {
  return user.intercept ? finish_model(std::move(released), user) : released;
}

namespace {

// Forwards everything to the run of the augmented problem; moves its
// progress messages up (Run::take_progress reads the outer run's list).
class InterceptRun final : public Run {
 public:
  InterceptRun(std::unique_ptr<Run> inner, TrainingConfig user) : inner_(std::move(inner)), user_(std::move(user)) {}

  std::optional<Pass> next() override {
    if (!interrupt_forwarded_) {
      inner_->set_interrupt_check(interrupt_check());
      interrupt_forwarded_ = true;
    }
    std::optional<Pass> p = inner_->next();
    lift_progress();
    return p;
  }
  void accept(const double* result, std::size_t len) override {
    inner_->accept(result, len);
    lift_progress();
  }
  Model release(double seconds) override {
    Model m = inner_->release(seconds);
    lift_progress();
    return finish_model(std::move(m), user_);
  }
  const std::vector<std::string>& warnings() const override { return inner_->warnings(); }
  const std::vector<std::string>& release_warnings() const override { return inner_->release_warnings(); }
  long progress_done() const override { return inner_->progress_done(); }
  long progress_total() const override { return inner_->progress_total(); }

 private:
  void lift_progress() {
    for (Progress& p : inner_->take_progress()) report(std::move(p.message), p.depends_on_data);
  }

  std::unique_ptr<Run> inner_;
  TrainingConfig user_;
  bool interrupt_forwarded_ = false;
};

}  // namespace

std::unique_ptr<Run> wrap_run(std::unique_ptr<Run> augmented_run, const TrainingConfig& user) {
  return std::make_unique<InterceptRun>(std::move(augmented_run), user);
}

}  // namespace dptrain::intercept
