#include "core/evaluation/metrics.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/error.h"

namespace dptrain::evaluation {
namespace {

// Binary, 10 rows: confusion [true][predicted] = {{5, 1}, {2, 2}}, and one
// more row with a label the model does not know, predicted positive (an
// error and a false positive, not in the matrix).
std::vector<double> binary_totals() { return {11, 7, 5.5, 5, 1, 2, 2, 0, 1}; }

TEST(EvaluationMetrics, BinaryByHand) {
  const Metrics m = metrics_from_totals(binary_totals(), 2);
  EXPECT_EQ(m.rows, 11);
  EXPECT_DOUBLE_EQ(m.accuracy, 7.0 / 11);
  EXPECT_DOUBLE_EQ(m.mean_loss, 0.5);
  EXPECT_DOUBLE_EQ(m.majority_rate, 6.0 / 11);  // 6 true negatives of 11 rows
  // positive class 1: tp 2, fp 1 + 1 (the unknown label), fn 2
  EXPECT_DOUBLE_EQ(*m.precision, 2.0 / 4);
  EXPECT_DOUBLE_EQ(*m.recall, 0.5);
  EXPECT_DOUBLE_EQ(*m.f1, 4.0 / 8);  // 2 tp / (2 tp + fp + fn)
  // class 0: tp 5, fp 2, fn 1 -> 10/13; class 1: 4/8
  EXPECT_DOUBLE_EQ(*m.macro_f1, (10.0 / 13 + 4.0 / 8) / 2);
  EXPECT_EQ(m.confusion[1][0], 2);
  EXPECT_EQ(m.unknown_labels, 1);  // the row no class of the model names
}

TEST(EvaluationMetrics, UndefinedRatiosAreEmpty) {
  // A model that always predicts the negative class: precision undefined.
  const Metrics m = metrics_from_totals({4, 3, 1, 3, 0, 1, 0, 0, 0}, 2);
  EXPECT_FALSE(m.precision.has_value());
  EXPECT_DOUBLE_EQ(*m.recall, 0.0);
  EXPECT_DOUBLE_EQ(*m.f1, 0.0);
  EXPECT_DOUBLE_EQ(m.accuracy, m.majority_rate);  // the useless model is visible
}

TEST(EvaluationMetrics, MulticlassMacroF1) {
  // 3 classes, [true][predicted] = {{3,0,0},{1,1,0},{0,0,0}}: class 2 never
  // occurs and is never predicted, so it is left out of the mean.
  const Metrics m = metrics_from_totals({5, 4, 0, 3, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0}, 3);
  EXPECT_FALSE(m.precision.has_value());
  // class 0: tp 3, fp 1, fn 0 -> 6/7; class 1: tp 1, fp 0, fn 1 -> 2/3
  EXPECT_DOUBLE_EQ(*m.macro_f1, (6.0 / 7 + 2.0 / 3) / 2);
  EXPECT_DOUBLE_EQ(m.majority_rate, 3.0 / 5);
  EXPECT_EQ(m.unknown_labels, 0);
}

TEST(EvaluationMetrics, EveryLabelUnknown) {
  // A boolean model evaluated on a 0/1 integer column: '0' and '1' are no
  // class of {false, true}, so all 3 rows are unknown (2 predicted false, 1 true).
  const Metrics m = metrics_from_totals({3, 0, 2.1, 0, 0, 0, 0, 2, 1}, 2);
  EXPECT_EQ(m.unknown_labels, 3);
  EXPECT_DOUBLE_EQ(m.accuracy, 0.0);
  EXPECT_DOUBLE_EQ(m.majority_rate, 0.0);
}

TEST(EvaluationMetrics, MalformedTotalsAreRefused) {
  EXPECT_THROW(metrics_from_totals({1, 1, 0}, 2), Error);
  EXPECT_THROW(metrics_from_totals(binary_totals(), 3), Error);
  auto t = binary_totals();
  t[4] = std::nan("");
  EXPECT_THROW(metrics_from_totals(t, 2), Error);
  // Only the loss sum may be infinite (a row whose score overflowed).
  t = binary_totals();
  t[2] = HUGE_VAL;
  EXPECT_EQ(metrics_from_totals(t, 2).mean_loss, HUGE_VAL);
  t[2] = -HUGE_VAL;
  EXPECT_THROW(metrics_from_totals(t, 2), Error);
  t = binary_totals();
  t[1] = HUGE_VAL;
  EXPECT_THROW(metrics_from_totals(t, 2), Error);
}

TEST(EvaluationMetrics, RocAucByHand) {
  // Ascending scores: {neg}, {pos, neg} (tie), {pos}, {pos}:
  // pairs won = 1*(1 + 0.5) + 1*2 + 1*2 = 5.5 of 3 * 2 = 6.
  EXPECT_DOUBLE_EQ(*roc_auc({{0, 1}, {1, 1}, {1, 0}, {1, 0}}), 5.5 / 6);
  EXPECT_DOUBLE_EQ(*roc_auc({{1, 0}, {0, 1}}), 0.0);  // perfectly inverted
  EXPECT_DOUBLE_EQ(*roc_auc({{2, 3}}), 0.5);          // all tied
  EXPECT_FALSE(roc_auc({{2, 0}, {1, 0}}).has_value());
  EXPECT_FALSE(roc_auc({}).has_value());
}

}  // namespace
}  // namespace dptrain::evaluation
