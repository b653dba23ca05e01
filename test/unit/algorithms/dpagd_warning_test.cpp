// DP-AGD's refinement warning (dpagd_warning.h, docs/dpagd.md "When the budget
// goes to refinements"): the criterion on the released counts, the message's
// numbers, and that a run records it in details->'warnings' exactly when the
// criterion holds on its own released counts.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <random>
#include <string>

#include "core/algorithms/dpagd.h"
#include "core/algorithms/dpagd_warning.h"
#include "core/engine/in_memory.h"
#include "core/engine/run.h"
#include "sparse_problem.h"

namespace dptrain {
namespace {

DpagdPath path(long iterations, long refinements, long line_searches, double growth = 1) {
  DpagdPath p;
  p.iterations = iterations;
  p.refinements = refinements;
  p.line_searches = line_searches;
  p.rho_ng = 2e-6;
  p.rho_ng_final = 2e-6 * growth;
  return p;
}

TEST(DpagdWarning, FiresWhenFailedLineSearchesOutnumberSteps) {
  // refinements > iterations, a threshold fixed before any data.
  EXPECT_FALSE(dpagd_budget_went_to_refinements(path(0, 0, 0)));      // nothing ran (too small a budget)
  EXPECT_TRUE(dpagd_budget_went_to_refinements(path(0, 1, 2)));
  EXPECT_FALSE(dpagd_budget_went_to_refinements(path(5, 5, 10)));     // a tie is not a majority
  EXPECT_TRUE(dpagd_budget_went_to_refinements(path(5, 6, 11)));
  // docs/dpagd.md: healthy Adult runs (eps = 0.8: 195 steps / 47 refinements; eps = 1,
  // delta = 1/n^2: 81 / 52) and collapsed ones (eps = 1.6: 45 / 83; eps = 100: 2 / 77).
  EXPECT_FALSE(dpagd_budget_went_to_refinements(path(195, 47, 242)));
  EXPECT_FALSE(dpagd_budget_went_to_refinements(path(81, 52, 134)));
  EXPECT_TRUE(dpagd_budget_went_to_refinements(path(45, 83, 129)));
  EXPECT_TRUE(dpagd_budget_went_to_refinements(path(2, 77, 80)));
  DpagdSettings s;
  s.gamma = 0.1;
  s.loss_clip = 0.5;
  EXPECT_FALSE(dpagd_refinement_warning(s, path(195, 47, 242)));
}

TEST(DpagdWarning, SaysWhatHappenedInNumbersAndWhatToDo) {
  DpagdSettings s;
  s.gamma = 0.1;
  s.loss_clip = 0.5;
  // 77 refinements at gamma = 0.1: rho_ng grew by 1.1^77 = 1538.99 (rounded: 1539);
  // 80 line searches, 2 stepped: 78 found no step (the last one's refinement was not paid).
  const std::optional<std::string> w = dpagd_refinement_warning(s, path(2, 77, 80, std::pow(1.1, 77)));
  ASSERT_TRUE(w);
  for (const char* part : {"dpagd spent its budget on gradient refinements: 78 of its 80 line searches found no step",
                           "it took 2 steps", "77 refinements", "1 + gamma = 1.1, to 1539 times the first",
                           "majority class", "options.loss_clip (here 0.5)", "options => '{\"loss_clip\": 2}'",
                           "options.alpha_max", "docs/dpagd.md, \"When the budget goes to refinements\""})
    EXPECT_NE(w->find(part), std::string::npos) << part << " not in: " << *w;
  // One step, a small growth: singular, three digits.
  const std::optional<std::string> one = dpagd_refinement_warning(s, path(1, 3, 4, std::pow(1.1, 3)));
  ASSERT_TRUE(one);
  EXPECT_NE(one->find("it took 1 step ("), std::string::npos) << *one;
  EXPECT_NE(one->find("to 1.33 times the first"), std::string::npos) << *one;
}

TrainingConfig config(const InMemoryData& t, double epsilon, long seed) {
  TrainingConfig c;
  c.algorithm = "dpagd";
  c.rows = t.rows();
  c.dim = t.dim();
  c.epsilon = epsilon;
  c.delta = 1e-8;
  c.lambda = 1e-3;
  c.seed = seed;
  c.classes = {"c0", "c1"};
  return c;
}

// A seeded run in memory: its release warnings and the model.
Model run(const TrainingConfig& c, const InMemoryData& t, std::vector<std::string>* release_warnings) {
  std::unique_ptr<Run> r = start_run(c);
  std::vector<std::int64_t> order(static_cast<std::size_t>(c.rows));
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<std::int64_t>(i);
  Model m = drive_in_memory(*r, t, order);
  *release_warnings = r->release_warnings();
  return m;
}

DpagdPath released_path(const Model& m) {
  const nlohmann::json& p = m.details["privacy"];
  DpagdPath out;
  out.iterations = p["iterations"];
  out.refinements = p["gradient_refinements"];
  out.line_searches = p["line_searches"];
  out.rho_ng = p["rho_ng"];
  out.rho_ng_final = p["rho_ng_final"];
  return out;
}

TEST(DpagdWarning, ARunRecordsItExactlyWhenItsReleasedCountsMeetTheCriterion) {
  // 19% positive rows. Seeded (measured when this test was written): at eps = 0.5 every
  // seed steps 349-357 times with 11-15 refinements; at eps = 100 the spiral takes every
  // seed (10-17 steps, 68-74 refinements).
  const InMemoryData t = test::sparse_problem(500, 3, 0.9);
  for (double epsilon : {0.5, 100.0}) {
    for (long seed = 1; seed <= 3; ++seed) {
      std::vector<std::string> release_warnings;
      const TrainingConfig c = config(t, epsilon, seed);
      const Model m = run(c, t, &release_warnings);
      const DpagdPath p = released_path(m);
      const bool recorded = m.details.contains("warnings");
      EXPECT_EQ(recorded, dpagd_budget_went_to_refinements(p)) << "eps " << epsilon << " seed " << seed;
      EXPECT_EQ(recorded, epsilon == 100.0) << "eps " << epsilon << " seed " << seed;
      ASSERT_EQ(release_warnings.size(), recorded ? 1u : 0u);
      if (!recorded) continue;
      // The one recorded warning is the one shown, and says this run's counts.
      EXPECT_EQ(m.details["warnings"].size(), 1u);
      EXPECT_EQ(m.details["warnings"][0].get<std::string>(), release_warnings[0]);
      EXPECT_EQ(release_warnings[0], *dpagd_refinement_warning(Dpagd::settings(c), p));
      EXPECT_NE(release_warnings[0].find(" of its " + std::to_string(p.line_searches) + " line searches"),
                std::string::npos);
    }
  }
}

}  // namespace
}  // namespace dptrain
