// The intercept (training/intercept.h): rows (clip_R(x), b) with b = R, and
// every algorithm planning for the augmented bound sqrt(R^2 + b^2) = sqrt(2) R.
// For each algorithm a seeded in-memory run with an intercept records the
// sensitivity / noise scale of the plan it really used; each is pinned here
// to the value computed by hand from the algorithm's formula at the
// augmented bound (R = 1 unless told: L = sqrt(2)).
#include "core/training/intercept.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/engine/in_memory.h"
#include "core/engine/run.h"
#include "core/error.h"
#include "core/packed_model.h"
#include "core/privacy/gaussian_calibration.h"

namespace dptrain {
namespace {

const double kSqrt2 = std::sqrt(2.0);

// n rows of d features with norm <= 1 (the first ones beyond it, to exercise
// the clipping), labels from a linear rule with an offset.
InMemoryData synthetic(int n, int d, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::normal_distribution<double> z;
  InMemoryData data;
  for (int i = 0; i < n; ++i) {
    std::vector<double> x(static_cast<std::size_t>(d));
    double norm = 0;
    for (double& v : x) v = 0.5 * z(g), norm += v * v;
    norm = std::sqrt(norm);
    if (i >= 5)
      for (double& v : x) v /= std::max(1.0, norm);
    data.x.push_back(x);
    data.y.push_back(x[0] + 0.3 > 0 ? 1 : 0);
  }
  return data;
}

TrainingConfig config(const std::string& algorithm, const InMemoryData& data) {
  TrainingConfig c;
  c.algorithm = algorithm;
  c.classes = {"neg", "pos"};
  c.rows = data.rows();
  c.dim = data.dim();
  c.epsilon = 1;
  c.epochs = 2;
  c.batch_size = 10;
  c.seed = 7;
  c.intercept = true;
  return c;
}

// The model of `c` on `data`, with the shape checks every intercept model passes.
Model trained(const TrainingConfig& c, const InMemoryData& data) {
  const Model m = train_in_memory(c, data, 3);
  EXPECT_EQ(m.weights.cols(), data.dim() + 1) << c.algorithm;
  EXPECT_EQ(m.features(), data.dim()) << c.algorithm;
  EXPECT_EQ(m.intercept, c.feature_bound) << c.algorithm;
  EXPECT_EQ(m.feature_bound, c.feature_bound) << c.algorithm;
  const auto& h = m.details["hyperparameters"];
  EXPECT_TRUE(h["intercept"].get<bool>()) << c.algorithm;
  EXPECT_EQ(h["intercept_feature"].get<double>(), c.feature_bound) << c.algorithm;
  EXPECT_DOUBLE_EQ(h["augmented_feature_bound"].get<double>(), kSqrt2 * c.feature_bound) << c.algorithm;
  return m;
}

TEST(Intercept, AugmentedRowIsTheClippedRowThenB) {
  // ||(3, 4)|| = 5 > R = 2: scaled by 2/5 to (1.2, 1.6), then b = 2.
  const std::vector<double> a = intercept::augment_row({3, 4}, 2, 2);
  ASSERT_EQ(a.size(), 3u);
  EXPECT_DOUBLE_EQ(a[0], 1.2);
  EXPECT_DOUBLE_EQ(a[1], 1.6);
  EXPECT_EQ(a[2], 2);
  // Within the bound: unchanged.
  const std::vector<double> in = intercept::augment_row({0.3, -0.4}, 1, 1);
  EXPECT_EQ(in, (std::vector<double>{0.3, -0.4, 1}));
}

TEST(Intercept, AugmentedConfigHasOneMoreDimensionAndTheAugmentedBound) {
  TrainingConfig c;
  c.dim = 5;
  c.feature_bound = 3;
  c.intercept = true;
  const TrainingConfig a = intercept::augmented_config(c);
  EXPECT_EQ(a.dim, 6);
  EXPECT_DOUBLE_EQ(a.feature_bound, std::sqrt(9.0 + 9.0));  // sqrt(R^2 + b^2), b = R = 3
  EXPECT_FALSE(a.intercept);
  EXPECT_EQ(intercept::constant_feature(c), 3);
}

TEST(Intercept, BoltonConvexSensitivityAtTheAugmentedBound) {
  const InMemoryData data = synthetic(200, 2, 1);
  TrainingConfig c = config("bolton", data);
  c.learning_rate = 0.1;
  const Model m = trained(c, data);
  // Convex bolt-on (Wu et al. 2017, Corollary 1 with batches): Delta = 2 k L eta / b,
  // L = ||x'|| bound = sqrt(2): 2 * 2 * sqrt(2) * 0.1 / 10 = 0.0565685...
  EXPECT_NEAR(m.details["privacy"]["sensitivity"].get<double>(), 2 * 2 * kSqrt2 * 0.1 / 10, 1e-12);
  // L2-Laplace: Gamma scale Delta / epsilon.
  EXPECT_NEAR(m.details["privacy"]["noise"]["gamma_scale"].get<double>(), 2 * 2 * kSqrt2 * 0.1 / 10, 1e-12);
}

TEST(Intercept, BoltonStronglyConvexSensitivityAtTheAugmentedBound) {
  const InMemoryData data = synthetic(200, 2, 2);
  TrainingConfig c = config("bolton", data);
  c.lambda = 0.1;
  const Model m = trained(c, data);
  // Strongly convex bolt-on (Lemma 8): Delta = 2 L / (lambda n) with the
  // projection radius R_w = 1/lambda = 10 and L = L_x + lambda R_w =
  // sqrt(2) + 0.1 * 10 (docs/pitfalls.md §P17): 2 (sqrt(2) + 1) / (0.1 * 200).
  EXPECT_NEAR(m.details["privacy"]["sensitivity"].get<double>(), 2 * (kSqrt2 + 1) / (0.1 * 200), 1e-12);
}

TEST(Intercept, Scs13AndBst14GradientSensitivityAtTheAugmentedBound) {
  const InMemoryData data = synthetic(200, 2, 3);
  TrainingConfig c = config("scs13", data);
  const Model s = trained(c, data);
  // A batch gradient sum changes by at most 2 L_x = 2 sqrt(2) when one row is replaced.
  EXPECT_NEAR(s.details["privacy"]["sensitivity"].get<double>(), 2 * kSqrt2, 1e-12);
  // Pure epsilon: per pass epsilon/k = 0.5, L2-Laplace scale Delta / (epsilon/k) = 4 sqrt(2).
  EXPECT_NEAR(s.details["privacy"]["noise_scale"].get<double>(), 4 * kSqrt2, 1e-12);

  c.algorithm = "bst14";
  c.delta = 1e-5;
  c.lambda = 0.1;
  const Model b = trained(c, data);
  EXPECT_NEAR(b.details["privacy"]["sensitivity"].get<double>(), 2 * kSqrt2, 1e-12);
}

TEST(Intercept, AmpObjectiveNoiseAtTheAugmentedBound) {
  const InMemoryData data = synthetic(200, 2, 4);
  TrainingConfig c = config("amp", data);
  c.delta = 1e-5;
  const Model m = trained(c, data);
  // AMP (Iyengar et al. 2019, Alg. 1): the objective noise's sensitivity 2 L / n,
  // L = sqrt(2) the rows' norm bound: 2 sqrt(2) / 200.
  EXPECT_NEAR(m.details["privacy"]["objective_noise"]["sensitivity"].get<double>(), 2 * kSqrt2 / 200, 1e-15);
}

TEST(Intercept, PfwScoreSensitivityAtTheAugmentedBound) {
  const InMemoryData data = synthetic(200, 2, 5);
  TrainingConfig c = config("pfw", data);
  c.delta = 1e-5;
  c.radius = 10;
  const Model m = trained(c, data);
  // Report-noisy-min scores <grad, +-c e_j>: one row moves a score by at most
  // 2 * (coordinate bound) * c / n, the coordinate bound min(c_inf, L) =
  // sqrt(2) by default: 2 * sqrt(2) * 10 / 200 (sound: |x'_j| <= 1 <= sqrt(2)).
  EXPECT_NEAR(m.details["privacy"]["score_sensitivity"].get<double>(), 2 * kSqrt2 * 10 / 200, 1e-12);
}

TEST(Intercept, DpagdClipsAtTheAugmentedBound) {
  const InMemoryData data = synthetic(200, 2, 6);
  TrainingConfig c = config("dpagd", data);
  c.delta = 1e-5;
  const Model m = trained(c, data);
  // DP-AGD's default loss clip C_obj = L / 2 = sqrt(2) / 2; the candidate-loss score moves by C_obj K = sqrt(2)/2.
  EXPECT_NEAR(m.details["privacy"]["score_sensitivity"].get<double>(), kSqrt2 / 2, 1e-12);
}

TEST(Intercept, DpsgdNoiseDoesNotDependOnTheRows) {
  // DP-SGD clips every per-example gradient to C (Abadi et al. 2016, Alg. 1):
  // its sensitivity is C whatever the rows, so the intercept leaves the
  // noise and the accountant unchanged.
  const InMemoryData data = synthetic(200, 2, 7);
  TrainingConfig c = config("dpsgd", data);
  c.delta = 1e-5;
  const Model with = trained(c, data);
  c.intercept = false;
  const Model without = train_in_memory(c, data, 3);
  EXPECT_EQ(with.details["privacy"], without.details["privacy"]);
}

TEST(Intercept, OnByDefaultButForTheFullGradientMethodsAndOpdisc) {
  // docs/intercept.md, "Which algorithms have one by default".
  for (const char* on : {"none", "optimum", "bolton", "scs13", "bst14", "dpsgd", "psgd", "dpadam"})
    EXPECT_TRUE(intercept::default_on(on)) << on;
  for (const char* off : {"amp", "pfw", "dpagd", "opdisc"}) EXPECT_FALSE(intercept::default_on(off)) << off;
  EXPECT_TRUE(intercept::default_on("no such algorithm"));  // its own checks report the name
}

TEST(Intercept, OpdiscRefusesItAndIsOffByDefault) {
  // OPDisc binarizes x_j >= 1/2; scaling rows to R first would change that
  // binarization, so it takes no intercept (docs/intercept.md).
  EXPECT_FALSE(intercept::default_on("opdisc"));
  EXPECT_TRUE(intercept::default_on("bolton"));
  const InMemoryData data = synthetic(100, 3, 8);
  TrainingConfig c = config("opdisc", data);
  c.epsilon = 20;
  c.delta = 1e-9;
  try {
    train_in_memory(c, data, 3);
    ADD_FAILURE() << "opdisc trained with an intercept";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidParameter);
    EXPECT_NE(std::string(e.what()).find("opdisc takes no intercept"), std::string::npos) << e.what();
  }
  c.intercept = false;
  EXPECT_EQ(train_in_memory(c, data, 3).weights.cols(), 3);
}

TEST(Intercept, NonPrivateOptimumFitsTheOffset) {
  // Labels y = [x_0 > -0.3]: without an intercept a linear rule through 0
  // misclassifies the rows with x_0 in (-0.3, 0); with one it fits them.
  const InMemoryData data = synthetic(400, 2, 9);
  TrainingConfig c = config("optimum", data);
  c.epsilon.reset();
  c.lambda = 1e-4;
  const Model with = trained(c, data);
  c.intercept = false;
  const Model without = train_in_memory(c, data, 3);
  auto errors = [&](const Model& m) {
    const std::vector<double> p = packed_model::pack(m);
    int e = 0;
    for (std::size_t i = 0; i < data.x.size(); ++i)
      e += packed_model::predict_index(p.data(), data.x[i].data(), data.dim()) != data.y[i];
    return e;
  };
  EXPECT_LT(errors(with), errors(without));
  EXPECT_LE(errors(with), 4);
}

TEST(Intercept, PackedModelScoresTheClippedRowPlusBias) {
  Model m;
  m.classes = {"a", "b"};
  m.feature_bound = 1;
  m.intercept = 1;
  m.weights = WeightMatrix(1, 3);
  m.weights << 1, 0, -0.5;
  const std::vector<double> p = packed_model::pack(m);
  EXPECT_EQ(packed_model::features(p.data()), 2);
  const double x[2] = {0.4, 0};
  // 0.4 - 0.5 = -0.1 < 0: class 0
  EXPECT_EQ(packed_model::predict_index(p.data(), x, 2), 0);
  EXPECT_NEAR(packed_model::decision_score(p.data(), x, 2), -0.1, 1e-15);
  // (3, 0) is clipped to (1, 0): 1 - 0.5 = 0.5 (not 3 - 0.5)
  const double far[2] = {3, 0};
  EXPECT_NEAR(packed_model::decision_score(p.data(), far, 2), 0.5, 1e-15);
  // rows of d + 1 values are refused: the bias is the model's
  const double three[3] = {0.4, 0, 1};
  EXPECT_THROW(packed_model::predict_index(p.data(), three, 3), Error);
}

// Without an intercept the class does not depend on the row's scale, but the
// probabilities and the ROC AUC ranking do: they score the row clipped to the
// feature bound, as it was trained (they scored the raw row: (10, 0) had
// P(b) = s(10) = 0.99995 where the model trained on (1, 0) says s(1)).
TEST(Intercept, WithoutOneProbabilitiesAndDecisionScoresClipTheRowToo) {
  Model m;
  m.classes = {"a", "b"};
  m.feature_bound = 1;
  m.weights = WeightMatrix(1, 2);
  m.weights << 1, 0;
  const std::vector<double> p = packed_model::pack(m);
  ASSERT_EQ(packed_model::intercept(p.data()), 0.0);
  const double far[2] = {10, 0}, unit[2] = {1, 0}, inside[2] = {0.5, 0};
  double proba[2];
  packed_model::probabilities(p.data(), far, 2, proba);
  // s(1) = 1 / (1 + e^-1) = 0.7310585786300049
  EXPECT_NEAR(proba[1], 0.7310585786300049, 1e-15);
  EXPECT_NEAR(proba[0], 0.2689414213699951, 1e-15);
  EXPECT_NEAR(packed_model::decision_score(p.data(), far, 2), 1.0, 1e-15);
  EXPECT_NEAR(packed_model::decision_score(p.data(), unit, 2), 1.0, 1e-15);
  // inside the bound nothing changes: s(0.5) = 0.6224593312018546
  packed_model::probabilities(p.data(), inside, 2, proba);
  EXPECT_NEAR(proba[1], 0.6224593312018546, 1e-15);
  EXPECT_NEAR(packed_model::decision_score(p.data(), inside, 2), 0.5, 1e-15);
  EXPECT_EQ(packed_model::predict_index(p.data(), far, 2), 1);
  // one-vs-all alike: rows (1, 0), (0, 1), (-1, -1) on x = (0, 20), clipped to (0, 1):
  // logistic scores s(0), s(1), s(-1), normalized to sum 1
  Model k3;
  k3.classes = {"a", "b", "c"};
  k3.feature_bound = 1;
  k3.weights = WeightMatrix(3, 2);
  k3.weights << 1, 0, 0, 1, -1, -1;
  const std::vector<double> q = packed_model::pack(k3);
  const double up[2] = {0, 20};
  double p3[3];
  packed_model::probabilities(q.data(), up, 2, p3);
  const double s0 = 0.5, s1 = 0.7310585786300049, s2 = 0.2689414213699951, t = s0 + s1 + s2;
  EXPECT_NEAR(p3[0], s0 / t, 1e-15);
  EXPECT_NEAR(p3[1], s1 / t, 1e-15);
  EXPECT_NEAR(p3[2], s2 / t, 1e-15);
}

}  // namespace
}  // namespace dptrain
