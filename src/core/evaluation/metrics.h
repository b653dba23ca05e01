// Classification metrics of a stored model on a labelled table, computed from
// the evaluation aggregate's totals (packed_model::accumulate): the row count,
// the correct predictions, the loss sum and the confusion matrix. Evaluation
// runs on a table the caller can read; nothing here is private.
#pragma once

#include <optional>
#include <vector>

namespace dptrain::evaluation {

// The evaluation aggregate's state for a model with C classes: {rows, correct,
// loss_sum, confusion (C x C, row-major, [true class][predicted class]),
// unknown (C: predictions for rows whose label the model does not know)}.
// Such rows are errors: they count in rows and loss_sum, and as false
// positives of the class predicted for them, but have no row in the matrix.
constexpr int kTotalsHeader = 3;
inline int totals_size(int classes) { return kTotalsHeader + classes * classes + classes; }

struct Metrics {
  long long rows = 0;
  // Rows whose label is none of the model's classes (errors, outside the
  // confusion matrix): dp_evaluate warns about them.
  long long unknown_labels = 0;
  double accuracy = 0;
  double mean_loss = 0;
  // Accuracy of always predicting the most frequent true class of the table:
  // a model no better than this has learned nothing useful.
  double majority_rate = 0;
  // Binary models, positive class = class index 1 (the model's second class).
  // Empty when undefined (no predicted / no true positives).
  std::optional<double> precision, recall, f1;
  // Unweighted mean over the model's classes of the per-class F1 (a class
  // that never occurs and is never predicted is left out).
  std::optional<double> macro_f1;
  std::vector<std::vector<long long>> confusion;  // [true][predicted]
};

// Throws Error(InvalidState) when `totals` is not a well-formed state for
// `classes` classes.
Metrics metrics_from_totals(const std::vector<double>& totals, int classes);

// One group of rows with the same decision score: how many are positive and
// how many negative.
struct ScoreGroup {
  double positives = 0, negatives = 0;
};

// ROC AUC from score groups sorted by ascending score (the Mann-Whitney
// statistic: the probability that a random positive scores above a random
// negative, ties counting one half). Empty without both classes.
std::optional<double> roc_auc(const std::vector<ScoreGroup>& ascending);

}  // namespace dptrain::evaluation
