// A model flattened into one float8[] for the evaluation aggregate and
// dp_predict: [magic, version, K, d, loss, huber_h, feature_bound, w (K*d)].
// Row-level functions work on raw pointers: no allocation per tuple.
#pragma once

#include <cstddef>
#include <vector>

#include "core/model.h"

namespace dptrain::packed_model {

constexpr double kMagicValue = 1146115181.0;  // "DPTm"
constexpr int kHeaderSize = 7;

std::vector<double> pack(const Model& m);
// Throws Error(InvalidState) unless `p` is a well-formed packed model.
void validate(const double* p, std::size_t len);

inline int models(const double* p) { return static_cast<int>(p[2]); }
inline int dim(const double* p) { return static_cast<int>(p[3]); }

// Predicted class index (binary: 0 = negative, 1 = positive).
int predict_index(const double* p, const double* x, int len);

// Adds one labelled row (label_index < 0: a label the model does not know,
// counted as an error) to totals = {rows, correct, loss_sum}.
void accumulate(const double* p, const double* x, int len, int label_index, double totals[3]);

}  // namespace dptrain::packed_model
