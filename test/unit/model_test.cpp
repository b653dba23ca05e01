#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <vector>

#include "core/error.h"
#include "core/evaluation/metrics.h"
#include "core/model.h"
#include "core/packed_model.h"

namespace dptrain {
namespace {

Model sample_model(int K) {
  Model m;
  m.name = "m";
  m.algorithm = "none";
  m.loss = LossKind::HuberSvm;
  m.huber_h = 0.2;
  m.classes = K == 1 ? std::vector<std::string>{"no", "yes"} : std::vector<std::string>{"a", "b", "c"};
  m.weights.resize(K, 2);
  for (int k = 0; k < K; ++k) {
    m.weights(k, 0) = 0.1 * (k + 1);
    m.weights(k, 1) = -1.0 / 3.0 * (k + 1);
  }
  m.epsilon = 0.5;
  m.seeded = true;
  m.details = {{"hyperparameters", {{"epochs", 3}}}};
  return m;
}

TEST(Model, JsonRoundTripIsExact) {
  for (int K : {1, 3}) {
    const Model m = sample_model(K);
    const Model back = Model::from_json(nlohmann::json::parse(m.to_json().dump()));
    EXPECT_EQ(back.name, m.name);
    EXPECT_EQ(back.algorithm, m.algorithm);
    EXPECT_EQ(back.loss, m.loss);
    EXPECT_EQ(back.huber_h, m.huber_h);
    EXPECT_EQ(back.classes, m.classes);
    EXPECT_TRUE(back.weights == m.weights);  // bit-exact doubles through JSON
    EXPECT_EQ(back.epsilon, m.epsilon);
    EXPECT_FALSE(back.delta.has_value());
    EXPECT_TRUE(back.seeded);
    EXPECT_EQ(back.details, m.details);
  }
}

TEST(Model, MalformedJsonIsRejected) {
  nlohmann::json j = sample_model(1).to_json();
  j["format"] = "other";
  EXPECT_THROW(Model::from_json(j), Error);
  j = sample_model(1).to_json();
  j["classes"] = {"a", "b", "c"};  // 3 classes but one weight row
  EXPECT_THROW(Model::from_json(j), Error);
  j = sample_model(3).to_json();
  j["weights"][1] = {1.0};  // ragged
  EXPECT_THROW(Model::from_json(j), Error);
  EXPECT_THROW(Model::from_json(nlohmann::json::object()), Error);
}

TEST(PackedModel, PredictsAndEvaluates) {
  Model m = sample_model(1);
  m.loss = LossKind::Logistic;
  m.weights << 1.0, -1.0;
  const auto p = packed_model::pack(m);
  packed_model::validate(p.data(), p.size());
  const double pos[2] = {0.8, 0.1}, neg[2] = {0.1, 0.8};
  EXPECT_EQ(packed_model::predict_index(p.data(), pos, 2), 1);
  EXPECT_EQ(packed_model::predict_index(p.data(), neg, 2), 0);
  double totals[9] = {};  // header + 2 x 2 confusion + 2 unknown
  packed_model::accumulate(p.data(), pos, 2, 1, totals);
  packed_model::accumulate(p.data(), neg, 2, 1, totals);
  packed_model::accumulate(p.data(), neg, 2, -1, totals);  // a label the model does not know
  EXPECT_EQ(totals[0], 3);
  EXPECT_EQ(totals[1], 1);
  // the unknown label counts as negative in every one-vs-rest loss: y = -1, y w.x = 0.7
  EXPECT_NEAR(totals[2], 2 * loss_value(LossKind::Logistic, 0.7) + loss_value(LossKind::Logistic, -0.7), 1e-15);
  // [true][predicted]: one (1 -> 1), one (1 -> 0); the unknown label is not in it.
  EXPECT_EQ(totals[3], 0);
  EXPECT_EQ(totals[4], 0);
  EXPECT_EQ(totals[5], 1);
  EXPECT_EQ(totals[6], 1);
  EXPECT_EQ(totals[7], 1);  // the unknown label's row, predicted class 0
  EXPECT_EQ(totals[8], 0);
  EXPECT_THROW(packed_model::predict_index(p.data(), pos, 3), Error);
}

TEST(PackedModel, MulticlassArgmax) {
  Model m = sample_model(3);
  m.weights << 1, 0, 0, 1, -1, -1;
  const auto p = packed_model::pack(m);
  const double x1[2] = {0.9, 0.1}, x2[2] = {0.1, 0.9}, x3[2] = {-0.5, -0.5};
  EXPECT_EQ(packed_model::predict_index(p.data(), x1, 2), 0);
  EXPECT_EQ(packed_model::predict_index(p.data(), x2, 2), 1);
  EXPECT_EQ(packed_model::predict_index(p.data(), x3, 2), 2);
}

TEST(PackedModel, MalformedIsRejected) {
  auto p = packed_model::pack(sample_model(3));
  EXPECT_THROW(packed_model::validate(p.data(), p.size() - 1), Error);
  p[2] = 2;  // two one-vs-all models is not a valid shape
  EXPECT_THROW(packed_model::validate(p.data(), p.size()), Error);
}

// NaN or infinite weights used to score as class 0 everywhere (100% accuracy
// on a table of class-0 labels); they are refused wherever a score is taken.
TEST(PackedModel, NonFiniteWeightsAreRefused) {
  const double x[2] = {0.8, 0.1}, zero[2] = {0, 0};
  const double bads[] = {std::nan(""), HUGE_VAL, -HUGE_VAL};
  for (const double bad : bads) {
    for (const int K : {1, 3}) {
      Model m = sample_model(K);
      m.weights(K - 1, 0) = bad;
      const auto p = packed_model::pack(m);
      packed_model::validate(p.data(), p.size());  // a shape check only
      EXPECT_THROW(packed_model::predict_index(p.data(), x, 2), Error) << bad << " K=" << K;
      EXPECT_THROW(packed_model::predict_index(p.data(), zero, 2), Error) << bad << " K=" << K;  // 0 * inf = NaN
      double totals[12] = {};
      EXPECT_THROW(packed_model::accumulate(p.data(), x, 2, 0, totals), Error);
      EXPECT_EQ(totals[0], 0);
    }
  }
}


// Finite weights whose w.x overflows on a large row used to fail as "the
// model's weights are not finite", a fact of the row: a private tuning run
// (Liu-Talwar, pfw with radius 1e306) scored its candidate on a table with one
// row x = -500 and failed after the charge where a table of rows +-1 released
// a model (docs/governance.md, "Hostile review of 2026-11-28"). The class now
// comes from the weights scaled by a power of two: the sign and the argmax of
// unbounded arithmetic; the loss of such a row is infinite.
TEST(PackedModel, FiniteWeightsWhoseScoreOverflowsStillDecide) {
  Model m = sample_model(1);
  m.loss = LossKind::Logistic;
  m.weights.resize(1, 2);
  m.weights << 1e306, 0.5;
  auto p = packed_model::pack(m);
  const double small[2] = {-1, 0}, big[2] = {-500, 0}, big_pos[2] = {500, 0};
  EXPECT_EQ(packed_model::predict_index(p.data(), small, 2), 0);
  EXPECT_EQ(packed_model::predict_index(p.data(), big, 2), 0);
  EXPECT_EQ(packed_model::predict_index(p.data(), big_pos, 2), 1);
  double totals[9] = {};
  packed_model::accumulate(p.data(), big, 2, 1, totals);  // true class 1, predicted 0
  EXPECT_EQ(totals[0], 1);
  EXPECT_EQ(totals[1], 0);
  EXPECT_EQ(totals[2], HUGE_VAL);
  const evaluation::Metrics metrics = evaluation::metrics_from_totals({totals, totals + 9}, 2);
  EXPECT_EQ(metrics.mean_loss, HUGE_VAL);
  // One-vs-all: w_a.x = -5e308 and w_b.x = 1e309 overflow, w_c.x = 5: b.
  Model k3 = sample_model(3);
  k3.weights << -1e306, 0, 2e306, 0, 0.01, 0;
  p = packed_model::pack(k3);
  EXPECT_EQ(packed_model::predict_index(p.data(), big_pos, 2), 1);
  EXPECT_EQ(packed_model::predict_index(p.data(), big, 2), 0);
  // With an intercept: w.(x, b) = 0.85e308 + 1.7e308 on a row of norm 0.5.
  m.weights.resize(1, 3);
  m.weights << 1.7e308, 0, 1.7e308;
  m.intercept = 1.0;
  p = packed_model::pack(m);
  const double half[2] = {0.5, 0};
  EXPECT_EQ(packed_model::predict_index(p.data(), half, 2), 1);
  packed_model::accumulate(p.data(), half, 2, 0, totals);
  EXPECT_EQ(totals[2], HUGE_VAL);
}

// A row of finite values whose squared norm overflows (1e308, 1e308) was
// clipped by bound / ||x|| = 1 / inf = 0 to the zero row: a model with an
// intercept predicted, gave probabilities and evaluated from its intercept
// alone (w = (1, -1): w.x = 0, the score of (0, 0), silently), or failed as
// "the model's weights are not finite" where w.x overflowed. Training
// refuses such a row; scoring refuses it with training's error. A row of
// large values whose square is finite is clipped and scores; a binarized
// model reads 0/1 values and scores the huge row too.
TEST(PackedModel, RowsWhoseNormOverflowsAreRefused) {
  Model m = sample_model(1);
  m.loss = LossKind::Logistic;
  m.weights.resize(1, 3);
  m.weights << 1.0, -1.0, 0.5;
  m.intercept = 1.0;
  const auto p = packed_model::pack(m);
  const double huge[2] = {1e308, 1e308}, zero[2] = {0, 0};
  double prob[2], totals[9] = {};
  for (const auto& call : std::vector<std::function<void()>>{
           [&] { packed_model::predict_index(p.data(), huge, 2); },
           [&] { packed_model::probabilities(p.data(), huge, 2, prob); },
           [&] { packed_model::decision_score(p.data(), huge, 2); },
           [&] { packed_model::accumulate(p.data(), huge, 2, 1, totals); }}) {
    try {
      call();
      ADD_FAILURE() << "scored a row whose squared norm overflows";
    } catch (const Error& e) {
      EXPECT_STREQ(e.what(), "feature values are too large");
      EXPECT_EQ(e.sqlstate(), sqlstate::kFloatingPointException);
    }
  }
  EXPECT_EQ(totals[0], 0);
  // What the huge row scored before: the zero row's w_b * b = 0.5.
  EXPECT_NEAR(packed_model::decision_score(p.data(), zero, 2), 0.5, 1e-15);
  const double large[2] = {2e150, 1e150};  // ||x|| = sqrt(5) 1e150: clipped to norm 1, w.x = 1 / sqrt(5)
  EXPECT_NEAR(packed_model::decision_score(p.data(), large, 2), 0.5 + 1 / std::sqrt(5.0), 1e-15);
  Model o = sample_model(1);
  o.algorithm = "opdisc";
  o.weights << 1.0, -1.0;
  o.details["hyperparameters"]["binarize_threshold"] = 0.5;
  const auto b = packed_model::pack(o);
  EXPECT_EQ(packed_model::predict_index(b.data(), huge, 2), 1);  // w.(1, 1) = 0 >= 0
}

// Probabilities by hand: binary w.x = 0.7 -> s(0.7) = 1 / (1 + e^-0.7) = 0.668187772168166.
TEST(PackedModel, BinaryProbabilitiesAreTheLogisticLikelihood) {
  Model m = sample_model(1);
  m.loss = LossKind::Logistic;
  m.weights << 1.0, -1.0;
  const auto p = packed_model::pack(m);
  const double x[2] = {0.8, 0.1};
  double prob[2];
  packed_model::probabilities(p.data(), x, 2, prob);
  EXPECT_NEAR(prob[1], 0.668187772168166, 1e-15);
  EXPECT_NEAR(prob[0], 1 - 0.668187772168166, 1e-15);
  EXPECT_NEAR(packed_model::decision_score(p.data(), x, 2), 0.7, 1e-15);
}

// One-vs-all: scores (0.9, 0.1, -1.0) -> s = (0.710949502625004, 0.524979187478940,
// 0.268941421369995), normalized by their sum 1.504870111473939.
TEST(PackedModel, OneVsAllProbabilitiesAreNormalizedScores) {
  Model m = sample_model(3);
  m.loss = LossKind::Logistic;
  m.weights << 1, 0, 0, 1, -1, -1;
  const auto p = packed_model::pack(m);
  const double x[2] = {0.9, 0.1};
  double prob[3];
  packed_model::probabilities(p.data(), x, 2, prob);
  EXPECT_NEAR(prob[0], 0.710949502625004 / 1.504870111473939, 1e-14);
  EXPECT_NEAR(prob[1], 0.524979187478940 / 1.504870111473939, 1e-14);
  EXPECT_NEAR(prob[2], 0.268941421369995 / 1.504870111473939, 1e-14);
  EXPECT_THROW(packed_model::decision_score(p.data(), x, 2), Error);
  // Scores far below -745 (where s underflows) still give a distribution. The
  // row is clipped to the feature bound first, as in training ((-2, -1)/sqrt(5)),
  // so the weights make the scores large: 1000 w gives (-894, -447, +1342).
  m.weights *= 1000;
  const auto q = packed_model::pack(m);
  const double far[2] = {-2000, -1000};
  packed_model::probabilities(q.data(), far, 2, prob);
  EXPECT_NEAR(prob[0] + prob[1] + prob[2], 1.0, 1e-12);
  EXPECT_GT(prob[2], 0.99);  // score +1342
}

TEST(PackedModel, HuberModelsHaveNoProbabilities) {
  Model m = sample_model(1);
  m.loss = LossKind::HuberSvm;
  m.weights << 1.0, -1.0;
  const auto p = packed_model::pack(m);
  const double x[2] = {0.8, 0.1};
  double prob[2];
  EXPECT_THROW(packed_model::probabilities(p.data(), x, 2, prob), Error);
}

}  // namespace
}  // namespace dptrain
