// Empirical privacy audit of OPDisc (algorithms/opdisc.h), end to end: the
// run, its grouping pass in memory, the CBC solve in its child process.
//
// Canary tables (audit/scenarios.h, whitebox_neighbours): nine rows x = 0
// (score 0 for every k: the same loss for every grid point) and the canary
// x* = 1, positive in D, negative in D'. d = 1, so B = 1, K = 1 and the grid
// is k in {-1, 0, 1} with pi(k) = (-1, 0), (0, 1), (1, 0): the canary adds
// one error to k = -1 in D and to k = 0, 1 in D' -- the largest change one
// row can make to a 0/1 loss. The distinguisher (harness) thresholds the
// released weight, e.g. "k = -1 means D'".
//
// Why sigma / 20 and not sigma / 10: Theorem 1's analysis is loose by ~4x
// (it shifts the noise by c = 4 G D^2 / tau where one loss changes by at most
// 1), so a variant with a tenth of the noise is only slightly beyond its claim:
// at the most favourable setting allowed (epsilon = 2 <= ln(1/delta), delta
// = 0.1) the best test on sigma / 10 shows 2.43 (Monte Carlo, 60,000 draws),
// which would take thousands of solves (~30 ms each) to certify; sigma / 20
// shows 5.8 and is caught with 150 runs per table. The authors' sigma / 2 is
// beyond any audit of this mechanism: its flaw is in the proof, which
// docs/opdisc.md explains.
#include <gtest/gtest.h>

#include <cstdio>

#include "audit/privacy_audit.h"
#include "audit/report.h"
#include "audit/scenarios.h"
#include "core/algorithms/opdisc.h"

namespace dptrain::test::audit {
namespace {

// OPDisc whose objective noise is `factor` times too small, still claiming
// the original (epsilon, delta). TEST CODE ONLY.
class UnderNoisedOpdisc : public Opdisc {
 public:
  explicit UnderNoisedOpdisc(double factor) : factor_(factor) {}
  std::unique_ptr<Run> start(const TrainingConfig& config) const override {
    opdisc::Plan p = opdisc::make_plan(config);
    p.sigma /= factor_;
    return std::make_unique<OpdiscRun>(config, p);
  }

 private:
  double factor_;
};

Scenario opdisc_scenario(const std::string& name, double factor) {
  Scenario s;
  s.name = name;
  s.config.algorithm = "opdisc";
  s.config.epsilon = 2;
  s.config.delta = 0.1;  // ln(1/delta) = 2.30 >= epsilon: Theorem 1's constant applies
  if (factor != 1) s.algorithm = [factor] { return std::make_unique<UnderNoisedOpdisc>(factor); };
  return s;
}

TEST(OpdiscAudit, StaysWithinItsClaimAndCatchesTheNoiseDividedByTwenty) {
  const Neighbours n = whitebox_neighbours(10);
  const Result ok = run_audit(opdisc_scenario("opdisc eps=2 delta=0.1", 1), n, ci_options(150, 50, 13));
  print_result(ok);
  EXPECT_LE(ok.bound.epsilon, ok.claimed_epsilon);
  const Result broken = run_audit(opdisc_scenario("opdisc with sigma / 20", 20), n, ci_options(150, 50, 13));
  print_result(broken);
  EXPECT_GT(broken.bound.epsilon, broken.claimed_epsilon) << "the under-noised variant was not caught";
}

}  // namespace
}  // namespace dptrain::test::audit
