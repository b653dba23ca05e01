// An OPDisc model is trained on binarized rows (x_j -> 1 if x_j >= 1/2, else
// 0; docs/opdisc.md §2) with the rule +1 iff w.x >= 0: prediction and
// evaluation must score the same binarized rows (packed_model.h, version 3),
// not the raw values.
#include <gtest/gtest.h>

#include <cmath>

#include "core/error.h"
#include "core/evaluation/metrics.h"
#include "core/model.h"
#include "core/packed_model.h"

namespace dptrain {
namespace {

// w = (2, -1): a grid point (tau = 1) of a d = 2 OPDisc run, as its release writes it.
Model opdisc_model(bool with_field) {
  Model m;
  m.algorithm = "opdisc";
  m.loss = LossKind::Logistic;
  m.classes = {"no", "yes"};
  m.weights.resize(1, 2);
  m.weights << 2.0, -1.0;
  m.epsilon = 1;
  m.delta = 1e-9;
  m.details = {{"hyperparameters", {{"tau", 1}}}};
  if (with_field) m.details["hyperparameters"]["binarize_threshold"] = 0.5;
  return m;
}

// Rows where the raw score and the binarized score disagree (and two that agree).
struct Row {
  double x[2];
  int raw;        // sign rule on the raw values: 2 x1 - x2 >= 0
  int binarized;  // sign rule on 1[x >= 1/2]
};
constexpr Row kRows[] = {
    {{0.3, 0.5}, 1, 0},  // raw 0.1; binarized (0, 1): -1
    {{0.1, 0.3}, 0, 1},  // raw -0.1; binarized (0, 0): 0, a tie, +1
    {{0.5, 1.3}, 0, 1},  // raw -0.3; binarized (1, 1): 1 (0.5 maps to 1)
    {{0.7, 1.0}, 1, 1},  // raw 0.4; binarized (1, 1): 1
    {{0.3, 0.7}, 0, 0},  // raw -0.1; binarized (0, 1): -1
};

TEST(OpdiscPredict, ScoresTheBinarizedRowTiesPositive) {
  for (bool with_field : {true, false}) {  // false: a model stored before the field
    const Model m = opdisc_model(with_field);
    ASSERT_EQ(m.binarize_threshold(), 0.5);
    const auto p = packed_model::pack(m);
    packed_model::validate(p.data(), p.size());
    for (const Row& r : kRows) {
      EXPECT_EQ(packed_model::predict_index(p.data(), r.x, 2), r.binarized)
          << r.x[0] << "," << r.x[1] << " field " << with_field;
    }
    EXPECT_EQ(packed_model::decision_score(p.data(), kRows[0].x, 2), -1.0);
    EXPECT_EQ(packed_model::decision_score(p.data(), kRows[1].x, 2), 0.0);
    EXPECT_EQ(packed_model::decision_score(p.data(), kRows[2].x, 2), 1.0);
  }
}

TEST(OpdiscPredict, OtherModelsScoreTheRawRow) {
  Model m = opdisc_model(false);
  m.algorithm = "dpsgd";
  EXPECT_FALSE(m.binarize_threshold().has_value());
  const auto p = packed_model::pack(m);
  for (const Row& r : kRows) EXPECT_EQ(packed_model::predict_index(p.data(), r.x, 2), r.raw);
  // The recorded field, not the name, is what binarizes.
  m.details["hyperparameters"]["binarize_threshold"] = 0.5;
  const auto q = packed_model::pack(m);
  for (const Row& r : kRows) EXPECT_EQ(packed_model::predict_index(q.data(), r.x, 2), r.binarized);
}

TEST(OpdiscPredict, EvaluationCountsTheBinarizedPredictions) {
  const auto p = packed_model::pack(opdisc_model(true));
  std::vector<double> totals(static_cast<std::size_t>(evaluation::totals_size(2)), 0.0);
  // Every row labelled with the binarized rule's class: all correct.
  for (const Row& r : kRows) packed_model::accumulate(p.data(), r.x, 2, r.binarized, totals.data());
  EXPECT_EQ(totals[0], 5);
  EXPECT_EQ(totals[1], 5);
  // The loss column: logistic loss of the binarized row (norm <= 1 here
  // except (1, 1), clipped to norm 1 by feature_bound 1): by hand,
  // row 1: y = -1, score -1 -> log(1 + e^-1); row 2: y = +1, score 0 ->
  // log 2; rows 3, 4: y = +1, score 1/sqrt(2) -> log(1 + e^-0.7071);
  // row 5: y = -1, score -1 -> log(1 + e^-1).
  const double expected = 2 * std::log1p(std::exp(-1.0)) + std::log(2.0) +
                          2 * std::log1p(std::exp(-1.0 / std::sqrt(2.0)));
  EXPECT_NEAR(totals[2], expected, 1e-12);
}

TEST(OpdiscPredict, GivesNoProbabilities) {
  const auto p = packed_model::pack(opdisc_model(false));
  double prob[2];
  try {
    packed_model::probabilities(p.data(), kRows[0].x, 2, prob);
    FAIL() << "probabilities of an OPDisc model";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidParameter);
    EXPECT_NE(std::string(e.what()).find("OPDisc"), std::string::npos);
  }
}

TEST(OpdiscPredict, MalformedThresholdsAndInterceptAreRefused) {
  Model m = opdisc_model(true);
  m.details["hyperparameters"]["binarize_threshold"] = "half";
  EXPECT_THROW(m.binarize_threshold(), Error);
  EXPECT_THROW(Model::from_json(m.to_json()), Error);
  Model b = opdisc_model(true);
  b.intercept = 1;
  b.weights.resize(1, 3);
  b.weights << 2.0, -1.0, 0.0;
  EXPECT_THROW(packed_model::pack(b), Error);
  // A packed binarized model with a non-finite threshold is malformed.
  auto p = packed_model::pack(opdisc_model(true));
  p[7] = std::nan("");
  EXPECT_THROW(packed_model::validate(p.data(), p.size()), Error);
}

TEST(OpdiscPredict, RoundTripKeepsTheBinarization) {
  const Model m = Model::from_json(opdisc_model(true).to_json());
  EXPECT_EQ(m.binarize_threshold(), 0.5);
  const auto p = packed_model::pack(m);
  EXPECT_TRUE(packed_model::binarized(p.data()));
  EXPECT_EQ(packed_model::intercept(p.data()), 0.0);
  EXPECT_EQ(packed_model::features(p.data()), 2);
}

}  // namespace
}  // namespace dptrain
