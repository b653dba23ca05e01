#include "core/evaluation/metrics.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "core/error.h"

namespace dptrain::evaluation {
namespace {

void check_totals(const std::vector<double>& totals, int classes) {
  if (classes < 2 || totals.size() != static_cast<std::size_t>(totals_size(classes)))
    fail(ErrorKind::InvalidState, "malformed evaluation state",
         "Expected " + std::to_string(classes < 2 ? 0 : totals_size(classes)) + " values, got " +
             std::to_string(totals.size()) + ".",
         "The evaluation aggregate's state is {rows, correct, loss_sum, confusion matrix, unknown labels}.");
  // loss_sum may be +inf: a row whose score overflows has an infinite loss.
  for (std::size_t i = 0; i < totals.size(); ++i)
    if (!std::isfinite(totals[i]) && !(i == 2 && totals[i] == std::numeric_limits<double>::infinity()))
      fail(ErrorKind::InvalidState, "malformed evaluation state", "Non-finite value.",
           "The evaluation aggregate's state is {rows, correct, loss_sum, confusion matrix, unknown labels}.");
}

std::optional<double> ratio(double num, double den) {
  if (den <= 0) return std::nullopt;
  return num / den;
}

std::optional<double> f1_of(long long tp, long long fp, long long fn) {
  return ratio(2.0 * static_cast<double>(tp), static_cast<double>(2 * tp + fp + fn));
}

}  // namespace

Metrics metrics_from_totals(const std::vector<double>& totals, int classes) {
  check_totals(totals, classes);
  Metrics m;
  m.rows = static_cast<long long>(totals[0]);
  m.confusion.assign(classes, std::vector<long long>(classes, 0));
  std::vector<long long> true_count(classes, 0), predicted_count(classes, 0);
  for (int t = 0; t < classes; ++t)
    for (int p = 0; p < classes; ++p) {
      const auto c = static_cast<long long>(totals[kTotalsHeader + t * classes + p]);
      m.confusion[t][p] = c;
      true_count[t] += c;
      predicted_count[p] += c;
    }
  for (int p = 0; p < classes; ++p) {
    const auto u = static_cast<long long>(totals[kTotalsHeader + classes * classes + p]);
    predicted_count[p] += u;
    m.unknown_labels += u;
  }
  if (m.rows == 0) return m;
  const double n = static_cast<double>(m.rows);
  m.accuracy = totals[1] / n;
  m.mean_loss = totals[2] / n;
  m.majority_rate = static_cast<double>(*std::max_element(true_count.begin(), true_count.end())) / n;
  double f1_sum = 0;
  int f1_classes = 0;
  for (int k = 0; k < classes; ++k) {
    const long long tp = m.confusion[k][k];
    const auto f1 = f1_of(tp, predicted_count[k] - tp, true_count[k] - tp);
    if (f1) f1_sum += *f1, ++f1_classes;
  }
  if (f1_classes > 0) m.macro_f1 = f1_sum / f1_classes;
  if (classes == 2) {
    const long long tp = m.confusion[1][1];
    m.precision = ratio(static_cast<double>(tp), static_cast<double>(predicted_count[1]));
    m.recall = ratio(static_cast<double>(tp), static_cast<double>(true_count[1]));
    m.f1 = f1_of(tp, predicted_count[1] - tp, true_count[1] - tp);
  }
  return m;
}

std::optional<double> roc_auc(const std::vector<ScoreGroup>& ascending) {
  double positives = 0, negatives = 0, pairs_won = 0;
  for (const ScoreGroup& g : ascending) {
    // Each positive of this group beats every negative below it and ties
    // with the negatives of its own group.
    pairs_won += g.positives * (negatives + 0.5 * g.negatives);
    positives += g.positives;
    negatives += g.negatives;
  }
  if (positives <= 0 || negatives <= 0) return std::nullopt;
  return pairs_won / (positives * negatives);
}

}  // namespace dptrain::evaluation
