// The intercept (bias term) of every algorithm, implemented once (docs/intercept.md).
//
// A model with an intercept scores a row x as w.x' with x' = (clip_R(x), b):
// the row clipped to the public feature bound R, then one appended public
// constant feature b (b = R). The run never sees anything else: the driver
// prepares the augmented rows (dptrain.training_prepare, the in-memory
// driver), and the algorithm plans for the augmented problem -- dimension
// d + 1 and row-norm bound sqrt(R^2 + b^2) -- so every sensitivity, noise
// scale and clipping bound an algorithm derives from `feature_bound` holds
// for the rows it really gets. Privacy: the augmentation is one fixed public
// map applied to each row, so neighbouring tables stay neighbouring and the
// algorithm's guarantee for rows of norm <= sqrt(R^2 + b^2) carries over.
//
// The bias weight is the last weight of each model row; the regularizer of
// an algorithm (lambda ||w||^2, a projection radius, an L1 ball) covers it
// like any other weight (that keeps the objective strongly convex).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/model.h"
#include "core/training/config.h"

namespace dptrain {

class Run;

namespace intercept {

// Whether a run of `algorithm` gets an intercept when the caller does not
// say: Algorithm::default_intercept() (docs/intercept.md).
bool default_on(const std::string& algorithm);

// The public constant feature b of a run with an intercept: the feature bound R.
double constant_feature(const TrainingConfig& user);
// The bound on the augmented rows: sqrt(R^2 + b^2).
double augmented_bound(const TrainingConfig& user);

// The configuration the algorithm plans with: dim + 1, feature_bound =
// augmented_bound, intercept off (the rows already carry it).
TrainingConfig augmented_config(const TrainingConfig& user);

// out[0..d) = x scaled to norm <= R (unchanged if already within), out[d] = b.
void augment_row(const double* x, int d, double bound, double b, double* out);
std::vector<double> augment_row(const std::vector<double>& x, double bound, double b);

// The released model of the augmented run as the user's model: records the
// intercept (b) and the user's feature bound R (dp_predict clips rows to R
// before appending b, as in training) in the model and its metadata.
Model finish_model(Model released, const TrainingConfig& user);

// For runs started without start_run (the Tuner): the configuration to
// plan with (augmented_config if user.intercept, else user) and the model to
// release (finish_model if user.intercept, else `released`).
TrainingConfig planned_config(const TrainingConfig& user);
Model released_model(Model released, const TrainingConfig& user);

// A run of `user` (intercept on): the algorithm's run on the augmented
// problem, whose release() is finish_model'ed.
std::unique_ptr<Run> wrap_run(std::unique_ptr<Run> augmented_run, const TrainingConfig& user);

}  // namespace intercept
}  // namespace dptrain
