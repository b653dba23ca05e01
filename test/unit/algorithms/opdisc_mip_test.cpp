// OPDisc's oracle (algorithms/opdisc_mip.h) against brute force over the
// whole grid: on tiny problems the MIP's argmin must be THE argmin of the
// perturbed normalized objective, normalization term included (privacy
// rests on the exact argmin: Neel et al. 2020, Theorem 1).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>

#include "core/algorithms/opdisc_groups.h"
#include "core/algorithms/opdisc_mip.h"
#include "core/algorithms/opdisc_start.h"
#include "core/error.h"

namespace dptrain::opdisc {
namespace {

// Every k in {-B..B}^d with ||k||^2 <= K, in odometer order.
template <typename F>
void for_each_grid_point(int d, int B, int K, F f) {
  std::vector<int> k(static_cast<std::size_t>(d), -B);
  for (;;) {
    long s = 0;
    for (int v : k) s += static_cast<long>(v) * v;
    if (s <= K) f(k);
    int j = 0;
    while (j < d && k[static_cast<std::size_t>(j)] == B) k[static_cast<std::size_t>(j++)] = -B;
    if (j == d) return;
    ++k[static_cast<std::size_t>(j)];
  }
}

std::vector<int> brute_force(const GroupedRows& data, int B, int K, const std::vector<double>& eta) {
  double best = std::numeric_limits<double>::infinity();
  std::vector<int> arg;
  for_each_grid_point(data.dim, B, K, [&](const std::vector<int>& k) {
    const double o = objective(data, k, eta, K);
    if (o < best) {
      best = o;
      arg = k;
    }
  });
  return arg;
}

// n random binary rows whose label follows a random halfspace with noise.
GroupedRows random_problem(std::mt19937_64& gen, int d, int n) {
  std::vector<std::vector<double>> x;
  std::vector<double> y;
  std::normal_distribution<double> normal;
  std::vector<double> truth(static_cast<std::size_t>(d));
  for (double& t : truth) t = normal(gen);
  std::bernoulli_distribution bit(0.4), flip(0.15);
  for (int i = 0; i < n; ++i) {
    std::vector<double> row(static_cast<std::size_t>(d));
    double score = 0;
    for (int j = 0; j < d; ++j) {
      row[static_cast<std::size_t>(j)] = bit(gen) ? 1 : 0;
      score += row[static_cast<std::size_t>(j)] * truth[static_cast<std::size_t>(j)];
    }
    const bool positive = (score >= 0) != flip(gen);
    x.push_back(row);
    y.push_back(positive ? 1 : 0);
  }
  const std::vector<double> r = group_rows(x, y, 1000000);
  return parse_groups(r.data(), r.size(), d, n, 1000000);
}

TEST(OpdiscMip, ArgminEqualsBruteForceOnTinyProblems) {
  std::mt19937_64 gen(20200713);
  std::normal_distribution<double> normal;
  int checked = 0;
  for (int d = 1; d <= 4; ++d) {
    const int B = d >= 4 ? 2 : 1;  // floor(sqrt(d))
    for (double sigma : {0.3, 3.0, 30.0}) {
      for (int trial = 0; trial < 3; ++trial) {
        const GroupedRows data = random_problem(gen, d, 40);
        std::vector<double> eta(static_cast<std::size_t>(d) + 1);
        for (double& e : eta) e = sigma * normal(gen);
        const MipSolution mip = solve_exact(data, B, d, eta, {});
        const std::vector<int> expected = brute_force(data, B, d, eta);
        EXPECT_EQ(mip.k, expected) << "d=" << d << " sigma=" << sigma << " trial=" << trial;
        EXPECT_NEAR(mip.objective, objective(data, expected, eta, d), 1e-9);
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, 36);
}

// Wider grids than the defaults (B^2 d > K: the norm bound binds) and
// larger K: the normalization term sqrt(1 - ||k||^2/K) decides.
TEST(OpdiscMip, NormBoundAndNormalizationTermAreExact) {
  std::mt19937_64 gen(7);
  std::normal_distribution<double> normal;
  for (int trial = 0; trial < 6; ++trial) {
    const int d = 3, B = 3, K = trial % 2 == 0 ? 5 : 14;
    const GroupedRows data = random_problem(gen, d, 30);
    std::vector<double> eta(static_cast<std::size_t>(d) + 1);
    for (double& e : eta) e = 5 * normal(gen);
    // A large last coordinate rewards (eta_{d+1} > 0) or punishes a small norm.
    eta[static_cast<std::size_t>(d)] = trial < 3 ? 40 : -40;
    const MipSolution mip = solve_exact(data, B, K, eta, {});
    EXPECT_EQ(mip.k, brute_force(data, B, K, eta)) << "trial " << trial;
  }
}

TEST(OpdiscMip, ZeroNoiseFindsTheZeroOneOptimum) {
  // Separable: x = (1,0) positive, (0,1) negative. k = (1, -1) or anything
  // with k1 >= 0 > k2 has 0 errors; tiny noise only breaks ties.
  const std::vector<std::vector<double>> x = {{1, 0}, {1, 0}, {0, 1}, {0, 1}, {0, 1}};
  const std::vector<double> y = {1, 1, 0, 0, 0};
  const std::vector<double> r = group_rows(x, y, 100);
  const GroupedRows data = parse_groups(r.data(), r.size(), 2, 5, 100);
  const MipSolution mip = solve_exact(data, 1, 2, {1e-3, -2e-3, 1e-3}, {});
  EXPECT_EQ(zero_one_errors(data, mip.k), 0);
}

// The argmax of the objective over the grid: the worst possible start.
std::vector<int> brute_force_worst(const GroupedRows& data, int B, int K, const std::vector<double>& eta) {
  double worst = -std::numeric_limits<double>::infinity();
  std::vector<int> arg;
  for_each_grid_point(data.dim, B, K, [&](const std::vector<int>& k) {
    const double o = objective(data, k, eta, K);
    if (o > worst) {
      worst = o;
      arg = k;
    }
  });
  return arg;
}

bool on_grid(const std::vector<int>& k, int d, int B, int K) {
  long s = 0;
  for (int v : k) {
    if (v < -B || v > B) return false;
    s += static_cast<long>(v) * v;
  }
  return static_cast<int>(k.size()) == d && s <= K;
}

// The local search (CBC's first incumbent) returns a grid point, never
// better than the argmin (brute force), and here mostly the argmin itself.
TEST(OpdiscStart, LocalSearchReturnsAGridPoint) {
  std::mt19937_64 gen(11);
  std::normal_distribution<double> normal;
  int optimal = 0, total = 0;
  for (int d = 2; d <= 5; ++d) {
    const int B = 2, K = d + 1;  // the norm bound binds (B^2 d > K)
    for (double sigma : {0.0, 3.0, 30.0}) {
      for (int trial = 0; trial < 3; ++trial) {
        const GroupedRows data = random_problem(gen, d, 60);
        std::vector<double> eta(static_cast<std::size_t>(d) + 1);
        for (double& e : eta) e = sigma * normal(gen);
        const std::vector<int> k = local_search_start(data, B, K, eta);
        ASSERT_TRUE(on_grid(k, d, B, K)) << "d=" << d;
        const double best = objective(data, brute_force(data, B, K, eta), eta, K);
        EXPECT_GE(objective(data, k, eta, K), best - 1e-9);
        optimal += objective(data, k, eta, K) <= best + 1e-9;
        ++total;
      }
    }
  }
  EXPECT_EQ(total, 36);
  EXPECT_GE(optimal, total / 2);  // a useful incumbent, not a random point
}

// The start only speeds up the proof: the worst grid point, or points that
// are not on the grid (ignored), as the start give the same argmin.
TEST(OpdiscMip, TheStartDoesNotChangeTheArgmin) {
  std::mt19937_64 gen(5);
  std::normal_distribution<double> normal;
  for (int trial = 0; trial < 8; ++trial) {
    const int d = 3 + trial % 2, B = 2, K = d;
    const GroupedRows data = random_problem(gen, d, 40);
    std::vector<double> eta(static_cast<std::size_t>(d) + 1);
    for (double& e : eta) e = (trial < 4 ? 3.0 : 30.0) * normal(gen);
    const std::vector<int> expected = brute_force(data, B, K, eta);
    std::vector<int> too_long(static_cast<std::size_t>(d) + 1, 0), off_box(static_cast<std::size_t>(d), 0),
        off_norm(static_cast<std::size_t>(d), B);  // d B^2 > K
    off_box[0] = B + 1;
    for (const std::vector<int>& start : {brute_force_worst(data, B, K, eta), too_long, off_box, off_norm}) {
      MipOptions o;
      o.start = start;
      const MipSolution mip = solve_exact(data, B, K, eta, o);
      EXPECT_EQ(mip.k, expected) << "trial " << trial;
      EXPECT_NEAR(mip.objective, objective(data, expected, eta, K), 1e-9);
    }
  }
}

TEST(OpdiscMip, AnInterruptReleasesNothing) {
  std::mt19937_64 gen(3);
  const GroupedRows data = random_problem(gen, 6, 200);
  MipOptions o;
  o.interrupted = [] { return true; };
  try {
    solve_exact(data, 2, 6, std::vector<double>(7, 1.0), o);
    FAIL() << "an interrupted solve returned a solution";
  } catch (const Error& e) {
    EXPECT_EQ(e.sqlstate(), "57014");
  }
}

TEST(OpdiscGroups, GroupingIsExactAndCanonical) {
  // Rows (x, y): two copies of (1,0,+), one (1,0,-), one (0.7,0,+) (binarized
  // to (1,0)), one (0,1,-).
  const std::vector<std::vector<double>> x = {{1, 0}, {0, 1}, {1, 0}, {0.7, 0}, {1, 0}};
  const std::vector<double> y = {1, 0, 0, 1, 1};
  const std::vector<double> r = group_rows(x, y, 100);
  // Two groups in lexicographic order: (0,1): 0+, 1-; (1,0): 3+, 1-.
  EXPECT_EQ(r, (std::vector<double>{2, 1, 0, 1, 0, 1, 1, 0, 3, 1}));
  const GroupedRows g = parse_groups(r.data(), r.size(), 2, 5, 100);
  ASSERT_EQ(g.groups.size(), 2u);
  EXPECT_EQ(g.binarized, 1);
  // k = (1, -1): (1,0) scores 1 >= 0 -> +1 (1 error: the negative copy);
  // (0,1) scores -1 -> -1 (correct). k = (0, 0): everything +1: 2 errors.
  EXPECT_EQ(zero_one_errors(g, {1, -1}), 1);
  EXPECT_EQ(zero_one_errors(g, {0, 0}), 2);
  // The objective: errors - <eta, (k/sqrt(K), sqrt(1 - ||k||^2/K))>, K = 2:
  // k = (1,-1), eta = (0.5, 0.25, 3): 1 - (0.5/sqrt2 - 0.25/sqrt2 + 3*0) = 1 - 0.1767767
  EXPECT_NEAR(objective(g, {1, -1}, {0.5, 0.25, 3}, 2), 1 - 0.25 / std::sqrt(2.0), 1e-12);
  // k = (0,0): 2 - 3 * 1 = -1
  EXPECT_NEAR(objective(g, {0, 0}, {0.5, 0.25, 3}, 2), -1, 1e-12);
  EXPECT_THROW(parse_groups(r.data(), r.size(), 2, 6, 100), Error);          // a row missing
  EXPECT_THROW(parse_groups(r.data(), r.size(), 2, 5, 1), Error);            // too many groups
  const std::vector<double> capped = group_rows(x, y, 1);
  EXPECT_EQ(capped, (std::vector<double>{2, 1}));
}

// The SQL pass marks a NULL element -1 and a NaN or infinite one NaN: both are
// refused with the epoch aggregates' SQLSTATEs, not binarized (NaN >= 0.5 is
// true in SQL, a NULL element fell to 0: a reader's garbage trained silently).
std::string grouping_error(const std::vector<double>& r) {
  try {
    parse_groups(r.data(), r.size(), 2, 1, 100);
  } catch (const Error& e) {
    return e.sqlstate() + " " + e.what();
  }
  return "no error";
}

TEST(OpdiscGroups, RefusesNullAndNonFiniteFeatures) {
  const double nan = std::nan("");
  EXPECT_EQ(grouping_error({1, 0, 1, 0, 1, 0}), "no error");
  EXPECT_EQ(grouping_error({1, 1, 1, nan, 1, 0}), "22P01 feature array contains a non-finite value (NaN or infinity)");
  EXPECT_EQ(grouping_error({1, 1, -1, 0, 1, 0}), "22004 feature array must not contain NULL elements");
  // Anything else cannot come from the statement: still an internal error.
  EXPECT_NE(grouping_error({1, 1, 2, 0, 1, 0}).find("malformed grouping-pass result"), std::string::npos);
  const std::vector<double> y = {1, 0};
  for (double bad : {nan, HUGE_VAL, -HUGE_VAL}) {
    try {
      group_rows({{0, 1}, {bad, 0}}, y, 100);
      ADD_FAILURE() << "group_rows binarized " << bad;
    } catch (const Error& e) {
      EXPECT_EQ(e.sqlstate(), "22P01");
    }
  }
}

}  // namespace
}  // namespace dptrain::opdisc
