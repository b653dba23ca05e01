// What the white-box algorithms (SCS13, BST14; docs/whitebox.md) share:
// the per-batch noise goes on the SUM of the batch's loss gradients inside
// the epoch aggregate (epoch_state.h), the update is
//   w <- Pi_R(w - eta_t (lambda w + (sum_B grad l(w; x_i, y_i) + Z_t) / b)),
// and privacy never depends on the step sizes or the projection, only on the
// sensitivity of that sum and on how often each row is used.
#pragma once

#include <initializer_list>
#include <string>
#include <vector>

#include "core/privacy/gaussian_calibration.h"
#include "core/training/config.h"

namespace dptrain::whitebox {

// L2-sensitivity (Dwork & Roth 2014, Definition 3.8) of the gradient sum of one
// batch, jointly over the K one-vs-all models, under replace-one adjacency: the
// Delta = 2L of SCS13's per-batch noise and of BST14 as Bolt-on re-runs them
// (Wu et al. 2017, Algorithms 4-5). Each row's loss gradient
// is l'(z) y x with |l'| <= 1 (logistic and Huber) and ||x|| <= L_x (rows are
// clipped to the feature bound), so replacing one row moves each model's sum
// by at most 2 L_x, and the K-model vector by at most 2 L_x sqrt(K). The
// regularizer lambda w is not part of the noisy sum (it is a function of w
// only), so it does not enter.
double gradient_sum_sensitivity(const TrainingConfig& config);

// The step schedule of a white-box run (SCS13, BST14): the caller's, or
// strongly convex with lambda > 0, else the convex 1/sqrt(t) step.
ScheduleKind schedule_kind(const TrainingConfig& config);

// dptrain::base_plan plus the projection radius (0 = none) and the loss
// constants on that ball.
TrainingPlan base_plan(const TrainingConfig& config, double radius);

// Throws Error(InvalidParameter) if config.options has a key not in `allowed`.
void check_options(const TrainingConfig& config, const std::string& algorithm,
                   std::initializer_list<const char*> allowed);
void check_options(const TrainingConfig& config, const std::string& algorithm,
                   const std::vector<std::string>& allowed);

// options.<key> as a string (`fallback` if absent; Error if not a string).
std::string string_option(const TrainingConfig& config, const char* key, const std::string& fallback);

// options.<key> as one of `choices` (the first if absent): the index of the one given.
// Anything else: Error(InvalidParameter) 'options.<key> of <algorithm> must be "a" or "b"',
// detail the value given, and `hint`.
std::size_t choice_option(const TrainingConfig& config, const std::string& algorithm, const char* key,
                          const std::vector<std::string>& choices, const std::string& hint);

// options.gaussian_calibration (as for bolton): "analytic" (default, exact for every epsilon),
// "classic" (Dwork-Roth, epsilon < 1 only) or "amp".
privacy::GaussianCalibration calibration(const TrainingConfig& config);

// The warning bolton gives too: delta >= 1/n allows publishing a row.
void warn_if_delta_large(const TrainingConfig& config, double delta, TrainingPlan& plan);

// Throws unless epsilon is given (both algorithms are private only).
double required_epsilon(const TrainingConfig& config, const std::string& algorithm);

}  // namespace dptrain::whitebox
