// The tie warning of a released P-FW model (pfw_ties.h): by hand, on
// weights written out here.
#include <gtest/gtest.h>

#include "core/algorithms/pfw_ties.h"

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

}  // namespace
}  // namespace dptrain
