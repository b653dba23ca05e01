// The tie warning of a released P-FW model (pfw_ties.h): by hand, on
// weights written out here; and a run's, shown as every release warning is.
#include <gtest/gtest.h>

#include <memory>

#include "core/algorithms/pfw_ties.h"
#include "core/engine/in_memory.h"
#include "core/engine/run.h"
#include "sparse_problem.h"

namespace dptrain {
namespace {

Model model(std::initializer_list<std::initializer_list<double>> rows, double intercept = 0) {
  Model m;
  m.intercept = intercept;
  m.weights.resize(static_cast<Eigen::Index>(rows.size()), static_cast<Eigen::Index>(rows.begin()->size()));
  Eigen::Index r = 0;
  for (const auto& row : rows) {
    Eigen::Index j = 0;
    for (double v : row) m.weights(r, j++) = v;
    ++r;
  }
  return m;
}

TEST(PfwTies, WarnsWhenAtMostHalfTheFeaturesAreWeighted) {
  // 2 of 4 features weighted: 2 * 2 <= 4.
  const auto w = pfw_tie_warning(model({{0.5, 0, 0, -0.25}}));
  ASSERT_TRUE(w.has_value());
  EXPECT_NE(w->find("only 2 of 4 features"), std::string::npos) << *w;
  EXPECT_NE(w->find("a score of 0 is the positive class"), std::string::npos) << *w;
}

TEST(PfwTies, SilentWhenMoreThanHalfAreWeighted) {
  EXPECT_FALSE(pfw_tie_warning(model({{0.5, 0.1, 0, -0.25}})).has_value());  // 3 of 4
}

TEST(PfwTies, TheSparsestClassOfAOneVsAllModelCounts) {
  const auto w = pfw_tie_warning(model({{1, 1, 1, 1}, {0, 0, 0, 1}, {1, 1, 1, 0}}));
  ASSERT_TRUE(w.has_value());
  EXPECT_NE(w->find("only 1 of 4 features"), std::string::npos) << *w;
}

TEST(PfwTies, SilentWithAnIntercept) {
  // intercept > 0: the last column is the bias weight, 1 of 3 features weighted.
  EXPECT_FALSE(pfw_tie_warning(model({{0.5, 0, 0, 0.1}}, 1.0)).has_value());
}

TEST(PfwTies, ARunShowsItsTieWarningAsAReleaseWarning) {
  // 2 iterations weight at most 2 of the 6 features: the warning fires. It is a
  // release warning (Run::release_warnings: dp_train raises it as a WARNING, the
  // CLI prints it), recorded in details.warnings as well; not a plan warning.
  const InMemoryData t = test::sparse_problem(400, 2);
  TrainingConfig c;
  c.algorithm = "pfw";
  c.rows = t.rows();
  c.dim = t.dim();
  c.epochs = 2;
  c.radius = 4;
  c.epsilon = 1;
  c.delta = 1e-6;
  c.seed = 5;
  c.classes = {"c0", "c1"};
  std::unique_ptr<dptrain::Run> r = start_run(c);  // (Run alone is gtest's Test::Run here)
  EXPECT_TRUE(r->warnings().empty());
  const Model m = drive_in_memory(*r, t);
  const std::optional<std::string> w = pfw_tie_warning(m);
  ASSERT_TRUE(w.has_value());
  ASSERT_EQ(r->release_warnings(), std::vector<std::string>{*w});
  ASSERT_TRUE(m.details.contains("warnings"));
  EXPECT_EQ(m.details["warnings"].back().get<std::string>(), *w);
}

}  // namespace
}  // namespace dptrain
