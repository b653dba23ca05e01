// A model flattened into one float8[] for the evaluation aggregate and
// dp_predict. Version 1 (no intercept): [magic, 1, K, d, loss, huber_h,
// feature_bound, w (K*d)]; version 2 (an intercept b > 0): [magic, 2, K, d,
// loss, huber_h, feature_bound, b, w (K*d)]. With an intercept the last of the d weights of a row is
// the bias weight and a row to score has d - 1 features: it is scored as
// (x clipped to feature_bound, b), as in training (training/intercept.h).
// Version 3 (binarized features, no intercept: OPDisc, docs/opdisc.md):
// [magic, 3, K, d, loss, huber_h, feature_bound, t, w (K*d)]; every feature
// x_j is read as 1 if x_j >= t, else 0, before anything else (scores,
// clipping, the loss column), as the training pass read it.
// Row-level functions work on raw pointers: no allocation per tuple.
#pragma once

#include <cstddef>
#include <vector>

#include "core/model.h"

namespace dptrain::packed_model {

constexpr double kMagicValue = 1146115181.0;  // "DPTm"
constexpr int kHeaderSize = 7;  // version 1; version 2 adds b, version 3 adds t

std::vector<double> pack(const Model& m);
// Throws Error(InvalidState) unless `p` is a well-formed packed model.
void validate(const double* p, std::size_t len);

inline int models(const double* p) { return static_cast<int>(p[2]); }
inline int dim(const double* p) { return static_cast<int>(p[3]); }
inline int header_size(const double* p) { return p[1] == 1 ? kHeaderSize : kHeaderSize + 1; }
inline double intercept(const double* p) { return p[1] == 2 ? p[7] : 0.0; }
// Version 3: features are binarized at threshold(p) before scoring.
inline bool binarized(const double* p) { return p[1] == 3; }
inline double threshold(const double* p) { return p[7]; }
// The number of features of a row to score (dim without the bias column).
inline int features(const double* p) { return dim(p) - (intercept(p) > 0 ? 1 : 0); }
// Number of classes: 2 for a binary model (one weight vector), else K.
inline int classes(const double* p) { return models(p) == 1 ? 2 : models(p); }

// Predicted class index (binary: 0 = negative, 1 = positive).
int predict_index(const double* p, const double* x, int len);

// Binary models: the decision score w.x (positive class when >= 0), for ROC AUC,
// on the row clipped to the feature bound as in training (of a binarized
// model: w.x with x binarized).
double decision_score(const double* p, const double* x, int len);

// Class probabilities, in the order of the model's classes (out has
// classes(p) entries), x clipped to the feature bound as in training.
// Logistic loss only: binary [1 - s(w.x), s(w.x)] with
// s the logistic function (the model's own likelihood); one-vs-all the K
// one-vs-rest probabilities s(w_k.x) normalized to sum 1 (as scikit-learn's
// one-vs-rest LogisticRegression). Huber SVM models and binarized (OPDisc,
// 0/1-loss) models have no probabilities: throws Error(InvalidParameter).
void probabilities(const double* p, const double* x, int len, double* out);

// Adds one labelled row (label_index < 0: a label the model does not know,
// counted as an error) to the evaluation totals of
// core/evaluation/metrics.h (evaluation::totals_size(classes(p)) values).
void accumulate(const double* p, const double* x, int len, int label_index, double* totals);

}  // namespace dptrain::packed_model
