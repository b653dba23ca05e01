// The defaults of a training run whose caller left the algorithm out
// (docs/defaults.md). They are public choices: they depend only on public
// inputs -- whether delta > 0 was given, the loss, the feature bound, the
// intercept, epsilon, n, d and the number of classes -- never on the data.
//
// * epsilon and delta > 0: dpsgd (Poisson lots, RDP accountant) with 5 epochs
//   of expected lot 50 and its own step 0.5, clip 1.
// * epsilon only (pure epsilon-DP): convex bolt-on (lambda = 0) with the step
//   eta = 1/beta, 5 epochs, and the batch b that keeps the release noise's
//   effect on a row's score at c = 1/4 on average:
//     E||v|| = d' Delta K / eps with Delta = 2 k L eta / b (Bolt-on, Corollary 1),
//     E|v.x| ~ E||v|| ||x|| / sqrt(d') <= 2 k K sqrt(d') L^2 eta / (b eps) = c
//     =>  b = ceil(2 k K sqrt(d') L^2 eta / (c eps)),  capped at n,
//   d' = d (+1 with an intercept), L the (augmented) row bound, K the models.
// * no epsilon: bolton as before (which asks for one).
//
// A run that names its algorithm keeps that algorithm's classic defaults
// (epochs 10, batch_size 50, its own step, lambda 0 -- dpagd: 0.001, its
// paper's; Algorithm::default_lambda).
#pragma once

#include <string>

#include "core/training/config.h"

namespace dptrain::defaults {

// Which arguments the caller left out.
struct Unset {
  bool algorithm = false, epochs = false, batch_size = false, lambda = false;
};

constexpr int kClassicEpochs = 10;
constexpr int kClassicBatchSize = 50;
constexpr int kEpochs = 5;
constexpr int kDpsgdLot = 50;
constexpr double kScoreNoise = 0.25;  // c above

// Before any data is read: the algorithm for a caller who left it out.
std::string algorithm(const TrainingConfig& c);

// Fills what the caller left out: before the public facts are known (rows
// = 0) the classic values, so that the arguments validate; once n and d are
// set the defaults above. Returns the NOTICE text when the algorithm was
// left out (which defaults were used and how to tune privately), else "".
std::string apply(TrainingConfig* c, const Unset& unset);

// Lambda for a caller who left it out: the algorithm's default_lambda()
// (0 for all but dpagd: 0.001, its paper's), 0 for an unknown name.
double default_lambda(const std::string& algorithm);

// The pure-epsilon bolt-on batch size of the formula above, and the same
// before the ceiling and the cap at n (the apply() NOTICE says when the cap
// leaves the noise above its target).
std::int64_t bolton_batch_size(const TrainingConfig& c, int epochs, double eta);
double bolton_batch_target(const TrainingConfig& c, int epochs, double eta);

}  // namespace dptrain::defaults
