// The audited configurations, shared by the CI audit
// (test/privacy/privacy_audit_test.cpp) and the long one
// (bench/privacy_audit.cpp). TEST CODE.
//
// Data: m = 100 rows of dimension 1 (in dimension 1 the L2-Laplace noise is
// the Laplace distribution, whose privacy loss reaches epsilon exactly: the
// tightest setting for an audit), 99 base rows with |x| = 1 and random labels
// (the model stays near 0), and the canary x* = 1 as the LAST row (the worst
// position for the strongly convex bounds, and as bad as any for the convex
// ones), with label positive in D and negative in D'.
//
// Loss: Huber SVM (h = 0.1). Near w = 0 every row is in its linear region
// (margin < 1 - h), where the gradient is -y x whatever w is: the canary's
// two versions then move the model by exactly 2 L_x eta / b per epoch, and
// the other rows move both runs identically, so the neighbouring models
// differ by exactly the convex sensitivity 2 k L eta / b (Corollary 1). In the
// strongly convex runs the radius is set to 1 (a user argument) so that
// L = L_x + lambda R = 1 + lambda is close to L_x = 1; with the paper's
// R = 1/lambda, L = 2 L_x and the bound carries a factor 2 of slack that no
// audit can see.
#pragma once

#include <string>
#include <vector>

#include "broken_algorithms.h"
#include "privacy_audit.h"

namespace dptrain::test::audit {

inline Neighbours standard_neighbours() {
  const InMemoryData base = noise_rows(99, 1, 1.0, 2024);
  return canary_neighbours(base, {1.0}, 99);
}

inline TrainingConfig bolton_config(double epsilon, double delta, double lambda) {
  TrainingConfig c;
  c.algorithm = "bolton";
  c.loss = "huber_svm";
  c.epsilon = epsilon;
  if (delta > 0) c.delta = delta;
  c.lambda = lambda;
  c.epochs = 5;
  c.batch_size = 10;
  if (lambda > 0) c.radius = 1.0;
  return c;
}

// The four scenarios of the paper (convex / strongly convex x eps-DP /
// (eps, delta)-DP) at the claimed epsilon = 1, delta = 1e-5.
inline std::vector<Scenario> bolton_scenarios() {
  return {
      {"bolton convex eps-DP", bolton_config(1.0, 0, 0), {}, noiseless_bolton()},
      {"bolton convex (eps,delta)-DP", bolton_config(1.0, 1e-5, 0), {}, noiseless_bolton()},
      {"bolton strongly convex eps-DP", bolton_config(1.0, 0, 0.01), {}, noiseless_bolton()},
      {"bolton strongly convex (eps,delta)-DP", bolton_config(1.0, 1e-5, 0.01), {}, noiseless_bolton()},
  };
}

// The white-box algorithms (noise on every mini-batch inside the epochs,
// docs/whitebox.md), audited by name on the same tables: SCS13 in the four
// scenarios, BST14 ((epsilon, delta)-DP only; the convex case needs a radius).
// Only the final model is released, so the canary's 5 noisy updates are
// diluted by the noise of all 50: expect bounds well below the claims.
inline std::vector<Scenario> whitebox_scenarios() {
  auto named = [](TrainingConfig c, const char* algorithm) {
    c.algorithm = algorithm;
    if (c.algorithm == "bst14" && c.lambda == 0) c.radius = 1.0;
    return c;
  };
  return {
      {"scs13 convex eps-DP", named(bolton_config(1.0, 0, 0), "scs13"), {}, {}},
      {"scs13 convex (eps,delta)-DP", named(bolton_config(1.0, 1e-5, 0), "scs13"), {}, {}},
      {"scs13 strongly convex eps-DP", named(bolton_config(1.0, 0, 0.01), "scs13"), {}, {}},
      {"scs13 strongly convex (eps,delta)-DP", named(bolton_config(1.0, 1e-5, 0.01), "scs13"), {}, {}},
      {"bst14 convex (eps,delta)-DP", named(bolton_config(1.0, 1e-5, 0), "bst14"), {}, {}},
      {"bst14 strongly convex (eps,delta)-DP", named(bolton_config(1.0, 1e-5, 0.01), "bst14"), {}, {}},
  };
}

// The broken variant (sensitivity divided by 10) at a small claimed epsilon.
inline std::vector<Scenario> broken_scenarios(double epsilon = 0.25) {
  std::vector<Scenario> s = {
      {"BROKEN bolton/10 convex eps-DP", bolton_config(epsilon, 0, 0), under_noised_bolton(10), noiseless_bolton()},
      {"BROKEN bolton/10 convex (eps,delta)-DP", bolton_config(epsilon, 1e-5, 0), under_noised_bolton(10), noiseless_bolton()},
      {"BROKEN bolton/10 strongly convex eps-DP", bolton_config(epsilon, 0, 0.01), under_noised_bolton(10), noiseless_bolton()},
      {"BROKEN bolton/10 strongly convex (eps,delta)-DP", bolton_config(epsilon, 1e-5, 0.01),
       under_noised_bolton(10), noiseless_bolton()},
  };
  return s;
}

}  // namespace dptrain::test::audit
