// dp_tune(method => 'liu_talwar') in the core (tuning/liu_talwar_tuner.h,
// tuning/parameter_grid.h): the public budget split pinned to hand-computed
// values, the generic grid, the checks made before any charge, an end-to-end
// search in memory, and the law of the number of candidates it runs.
#include "core/tuning/liu_talwar_tuner.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/algorithms/algorithm.h"
#include "core/engine/in_memory.h"
#include "core/error.h"

namespace dptrain::tuning {
namespace {

TEST(LiuTalwarSplit, PinnedToTheoremThreeFourByHand) {
  // epsilon = 1, delta = 1e-5, gamma = 1/4 (a grid of 4 points):
  //   delta2 = delta / 2 = 5e-6
  //   T = ceil(4 ln(1 / 5e-6)) = ceil(4 * 12.206073) = ceil(48.824) = 49
  //   sqrt(2 delta1) = (1e-5 - 5e-6) / 49 = 1.0204082e-7, delta1 = 5.2061641e-15
  //   eps1 = (1 - 3 * 1.0204082e-7) / 3 = 0.33333323129
  //   eps_s = eps1 / 10 = 0.033333323129, training = 0.9 eps1 = 0.29999990816
  //   Theorem 3.4 total: 3 eps1 + 3 sqrt(2 delta1) = 1, sqrt(2 delta1) * 49 + 5e-6 = 1e-5.
  const LiuTalwarSplit s = liu_talwar_split(1.0, 1e-5, 0.25);
  EXPECT_EQ(s.search.max_candidates, 49);
  EXPECT_DOUBLE_EQ(s.search.delta2, 5e-6);
  EXPECT_NEAR(s.search.candidate_delta, 5.2061641e-15, 1e-21);
  EXPECT_NEAR(s.search.candidate_epsilon, 0.33333323129, 1e-11);
  EXPECT_NEAR(s.score_epsilon, 0.033333323129, 1e-12);
  EXPECT_NEAR(s.training_epsilon, 0.29999990816, 1e-11);
  EXPECT_NEAR(s.search.total.epsilon, 1.0, 1e-12);
  EXPECT_NEAR(s.search.total.delta, 1e-5, 1e-17);
  // gamma = 1: T = ceil(ln(2 / 0.01)) = ceil(5.2983) = 6; sqrt(2 delta1) = 0.005 / 6.
  const LiuTalwarSplit one = liu_talwar_split(3.0, 0.01, 1.0);
  EXPECT_EQ(one.search.max_candidates, 6);
  EXPECT_NEAR(one.search.candidate_delta, std::pow(0.005 / 6, 2) / 2, 1e-18);
  EXPECT_NEAR(one.search.candidate_epsilon, (3.0 - 3 * 0.005 / 6) / 3, 1e-12);
}

TEST(LiuTalwarSplit, RefusesWhatTheTheoremCannotGive) {
  EXPECT_THROW(liu_talwar_split(1.0, 0.0, 0.5), Error);    // hard stopping needs delta2 > 0
  EXPECT_THROW(liu_talwar_split(1.0, 1e-5, 0.0), Error);   // gamma in (0, 1]
  EXPECT_THROW(liu_talwar_split(1.0, 1e-5, 1.5), Error);
  EXPECT_THROW(liu_talwar_split(1e-9, 0.5, 1.0), Error);   // 3 sqrt(2 delta1) eats epsilon
}

TEST(ParameterGrid, PointsLastNameFastestAndApplied) {
  const ParameterGrid g = ParameterGrid::parse(
      nlohmann::json::parse(R"({"learning_rate": [0.01, 0.1], "clip_norm": [0.5, 1, 2], "epochs": [3]})"));
  ASSERT_EQ(g.size(), 6u);
  // nlohmann orders object keys: clip_norm, epochs, learning_rate (the last varies fastest).
  EXPECT_EQ(g.point(0), nlohmann::json::parse(R"({"clip_norm": 0.5, "epochs": 3, "learning_rate": 0.01})"));
  EXPECT_EQ(g.point(1), nlohmann::json::parse(R"({"clip_norm": 0.5, "epochs": 3, "learning_rate": 0.1})"));
  EXPECT_EQ(g.point(5), nlohmann::json::parse(R"({"clip_norm": 2, "epochs": 3, "learning_rate": 0.1})"));
  TrainingConfig base;
  base.options = {{"momentum", 0.5}};
  const TrainingConfig c = apply_point(base, g.point(3));
  EXPECT_EQ(c.epochs, 3);
  EXPECT_EQ(*c.learning_rate, 0.1);
  EXPECT_EQ(c.options.at("clip_norm"), 1);
  EXPECT_EQ(c.options.at("momentum"), 0.5);  // untouched options stay
  EXPECT_THROW(g.point(6), Error);
}

TEST(ParameterGrid, RejectsBadGrids) {
  auto parse = [](const char* s) { return ParameterGrid::parse(nlohmann::json::parse(s)); };
  EXPECT_THROW(parse("{}"), Error);
  EXPECT_THROW(parse("[1, 2]"), Error);
  EXPECT_THROW(parse(R"({"learning_rate": []})"), Error);
  EXPECT_THROW(parse(R"({"learning_rate": 0.1})"), Error);
  EXPECT_THROW(parse(R"({"learning_rate": [0.1, 0.1]})"), Error);
  EXPECT_THROW(parse(R"({"learning_rate": [null]})"), Error);
  EXPECT_THROW(parse(R"({"epsilon": [1, 2]})"), Error);      // the budget is not a hyperparameter
  EXPECT_THROW(parse(R"({"delta": [1e-6]})"), Error);
  EXPECT_THROW(parse(R"({"tolerance": [0.01]})"), Error);    // data-dependent stopping
  EXPECT_THROW(parse(R"({"a": [1,2,3,4,5,6,7,8,9,10], "b": [1,2,3,4,5,6,7,8,9,10], "c": [1,2,3,4,5,6,7,8,9,10],
                          "d": [1, 2]})"), Error);            // 2000 points
  const ParameterGrid g = parse(R"({"epochs": [2.5]})");
  EXPECT_THROW(apply_point(TrainingConfig{}, g.point(0)), Error);
}

TrainingConfig dpsgd_config(std::int64_t rows) {
  TrainingConfig c;
  c.algorithm = "dpsgd";
  c.epsilon = 1.0;
  c.delta = 1e-5;
  c.rows = rows;
  c.dim = 3;
  c.classes = {"neg", "pos"};
  c.batch_size = 20;
  c.epochs = 2;
  return c;
}

TEST(LiuTalwarTuner, ChecksEveryPointBeforeAnyData) {
  TrainingConfig c = dpsgd_config(0);
  auto grid = [](const char* s) { return ParameterGrid::parse(nlohmann::json::parse(s)); };
  EXPECT_NO_THROW(check_liu_talwar(c, grid(R"({"clip_norm": [0.5, 1]})"), std::nullopt));
  EXPECT_THROW(check_liu_talwar(c, grid(R"({"no_such_option": [1]})"), std::nullopt), Error);
  EXPECT_THROW(check_liu_talwar(c, grid(R"({"clip_norm": [1, -1]})"), std::nullopt), Error);
  EXPECT_THROW(check_liu_talwar(c, grid(R"({"clip_norm": [1]})"), 0.0), Error);
  EXPECT_THROW(check_liu_talwar(c, grid(R"({"clip_norm": [1]})"), 1.01), Error);
  EXPECT_THROW(check_liu_talwar(c, grid(R"({"clip_norm": [1]})"), 1e-4), Error);  // T > 10000
  try {
    check_liu_talwar(c, grid(R"({"clip_norm": [1, -1]})"), std::nullopt);
  } catch (const Error& e) {
    EXPECT_NE(e.detail().find("options.clip_norm = -1"), std::string::npos) << e.detail();
  }
  c.delta = std::nullopt;
  EXPECT_THROW(check_liu_talwar(c, grid(R"({"clip_norm": [1]})"), std::nullopt), Error);
  c = dpsgd_config(0);
  c.algorithm = "none";
  EXPECT_THROW(check_liu_talwar(c, grid(R"({"lambda": [0]})"), std::nullopt), Error);
}

TEST(DpSgdCheckArguments, RefusesWithoutFactsOfTheData) {
  const auto dpsgd = make_algorithm("dpadam");
  TrainingConfig c = dpsgd_config(0);
  c.algorithm = "dpadam";
  EXPECT_NO_THROW(dpsgd->check_arguments(c));
  c.options = {{"clip_norm", 0}};
  EXPECT_THROW(dpsgd->check_arguments(c), Error);
  c.options = {{"clip_norm", "big"}};
  EXPECT_THROW(dpsgd->check_arguments(c), Error);
  c.options = {{"steps", 1.5}};
  EXPECT_THROW(dpsgd->check_arguments(c), Error);
  c.options = {{"lots_per_query", 0}};
  EXPECT_THROW(dpsgd->check_arguments(c), Error);
  c.options = {{"beta1", 1.0}};
  EXPECT_THROW(dpsgd->check_arguments(c), Error);
  c.options = {{"unknown", 1}};
  EXPECT_THROW(dpsgd->check_arguments(c), Error);
  c.options = nlohmann::json::object();
  c.delta = std::nullopt;
  EXPECT_THROW(dpsgd->check_arguments(c), Error);
  c = dpsgd_config(0);
  c.algorithm = "dpmomentum";
  c.options = {{"momentum", 1.0}};
  EXPECT_THROW(make_algorithm("dpmomentum")->check_arguments(c), Error);
}

// Each member reads its own options: another member's is refused before the
// charge (it was accepted and ignored: dpsgd with a momentum ran plain SGD).
TEST(DpSgdCheckArguments, RefusesAnotherMembersOption) {
  const std::vector<std::pair<std::string, nlohmann::json>> own = {
      {"dpsgd", {{"clip_norm", 0.5}}},           {"psgd", {{"closed_form_noise", false}}},
      {"dpmomentum", {{"momentum", 0.5}}},       {"dpadam", {{"beta1", 0.8}, {"beta2", 0.99}, {"xi", 1e-7}}},
      {"dpadamwosm", {{"beta1", 0.8}}},           {"adadp", {{"adadp_tolerance", 0.5}}}};
  const std::vector<std::string> member_only = {"closed_form_noise", "momentum", "beta1", "beta2", "xi",
                                                "adadp_tolerance"};
  for (const auto& [algorithm, options] : own) {
    TrainingConfig c = dpsgd_config(0);
    c.algorithm = algorithm;
    c.options = options;
    EXPECT_NO_THROW(make_algorithm(algorithm)->check_arguments(c)) << algorithm << " " << options.dump();
    for (const std::string& key : member_only) {
      if (options.contains(key)) continue;
      c.options = {{key, 0.5}};
      try {
        make_algorithm(algorithm)->check_arguments(c);
        ADD_FAILURE() << algorithm << " accepted options." << key;
      } catch (const Error& e) {
        EXPECT_EQ(std::string(e.what()), "unknown option \"" + key + "\" for algorithm " + algorithm);
        EXPECT_EQ(e.kind(), ErrorKind::InvalidParameter);
      }
    }
  }
}

// closed_form_noise is P-SGD's (Iyengar et al. 2019, Alg. 2): dpsgd shares
// its optimizer but not the option. options.closed_form_noise = false was
// accepted and ignored by dpsgd, and true refused by the plan's own check
// ("only for algorithm psgd") instead of as an option dpsgd does not read.
TEST(DpSgdCheckArguments, DpsgdRefusesClosedFormNoiseWithItsOptions) {
  for (const bool value : {false, true}) {
    TrainingConfig c = dpsgd_config(0);
    c.algorithm = "dpsgd";
    c.options = {{"closed_form_noise", value}};
    try {
      make_algorithm("dpsgd")->check_arguments(c);
      ADD_FAILURE() << "dpsgd accepted options.closed_form_noise = " << value;
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()), "unknown option \"closed_form_noise\" for algorithm dpsgd");
      EXPECT_EQ(e.hint(), "Options of dpsgd: steps, clip_norm, conversion, lots_per_query.");
      EXPECT_EQ(e.kind(), ErrorKind::InvalidParameter);
    }
  }
  TrainingConfig c = dpsgd_config(0);
  c.algorithm = "psgd";
  c.options = {{"closed_form_noise", false}};
  EXPECT_NO_THROW(make_algorithm("psgd")->check_arguments(c));
}

InMemoryData separable(int m, unsigned seed) {
  std::mt19937_64 gen(seed);
  std::normal_distribution<double> g;
  InMemoryData t;
  for (int i = 0; i < m; ++i) {
    std::vector<double> x = {g(gen), g(gen), 0.3};
    const double norm = std::sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
    for (double& v : x) v /= norm;
    t.y.push_back(x[0] - 0.5 * x[1] > 0 ? 1.0 : 0.0);
    t.x.push_back(x);
  }
  return t;
}

double accuracy(const Model& m, const InMemoryData& d) {
  int correct = 0;
  for (std::size_t i = 0; i < d.x.size(); ++i) {
    double s = 0;
    for (int j = 0; j < 3; ++j) s += m.weights(0, j) * d.x[i][j];
    correct += (s > 0) == (d.y[i] > 0.5);
  }
  return static_cast<double>(correct) / static_cast<double>(d.x.size());
}

TEST(LiuTalwarTuner, EndToEndInMemoryReleasesTheBestScoredRunAndRecordsTheTotal) {
  const InMemoryData data = separable(2000, 3);
  TrainingConfig c = dpsgd_config(data.rows());
  c.epsilon = 3.0;
  c.seed = 17;
  c.name = "tuned";
  const ParameterGrid grid = ParameterGrid::parse(nlohmann::json::parse(R"({"learning_rate": [0.1, 1.0]})"));
  // gamma = 1/20: about 20 candidates are expected (P(only one) = 1/20; with this fixed
  // seed the search runs several, checked below), so both points are tried.
  LiuTalwarTuner t(c, grid, 0.05);
  for (std::size_t i = 0; i < 2; ++i) {
    const TrainingPlan p = make_algorithm("dpsgd")->plan(t.candidate_config(i));
    EXPECT_LE(*p.epsilon, t.split().training_epsilon * (1 + 1e-9));
    EXPECT_EQ(*p.delta, t.split().search.candidate_delta);
  }
  const Model m = drive_in_memory(t, data);
  // The released candidate is the best-scored run (ties: the earliest), its point and score recorded.
  ASSERT_EQ(static_cast<std::int64_t>(t.trace().size()), t.candidates_run());
  EXPECT_GE(t.candidates_run(), 2);
  std::size_t best = 0;
  for (std::size_t r = 1; r < t.trace().size(); ++r)
    if (t.trace()[r].second > t.trace()[best].second) best = r;
  EXPECT_EQ(t.chosen_point(), t.trace()[best].first);
  EXPECT_EQ(m.details.at("tuning").at("chosen").at("noisy_correct").get<double>(), t.trace()[best].second);
  EXPECT_GT(accuracy(m, data), 0.85);
  EXPECT_EQ(*m.epsilon, 3.0);  // the total of the search, what the ledger charges
  EXPECT_EQ(*m.delta, 1e-5);
  EXPECT_EQ(m.name, "tuned");
  const nlohmann::json& p = m.details.at("privacy");
  EXPECT_LE(p.at("bound").at("epsilon").get<double>(), 3.0 * (1 + 1e-12));
  EXPECT_LE(p.at("bound").at("delta").get<double>(), 1e-5 * (1 + 1e-12));
  EXPECT_EQ(p.at("gamma"), 0.05);
  EXPECT_EQ(p.at("max_candidates"), t.split().search.max_candidates);
  const nlohmann::json& tuning = m.details.at("tuning");
  EXPECT_EQ(tuning.at("method"), "liu_talwar");
  EXPECT_EQ(tuning.at("chosen").at("point"), grid.point(t.chosen_point()));
  // What is not released: the number of candidates run, the other scores, the time.
  EXPECT_FALSE(m.details.contains("seconds"));
  EXPECT_EQ(m.details.dump().find("candidates_run"), std::string::npos);
  // Nor through the progress: every message that numbers a candidate is for readers only.
  int started = 0;
  for (const Progress& p : t.take_progress()) {
    if (p.message.find("candidate") == std::string::npos) continue;
    EXPECT_TRUE(p.depends_on_data) << p.message;
    if (p.message.find(" started") != std::string::npos) ++started;
  }
  EXPECT_EQ(started, t.candidates_run());
}

TEST(LiuTalwarTuner, NumberOfCandidatesIsAGeometricTruncatedAtT) {
  // gamma = 1/2, delta = 0.2: delta2 = 0.1, T = ceil(2 ln 10) = ceil(4.605) = 5.
  // P(K = k) = 2^-k for k < 5, P(K = 5) = 2^-4. 400 searches with seeds 1..400 (each
  // seed fixes the tuner's coin stream); chi-square with 4 degrees of freedom, 0.999
  // quantile 18.47.
  const InMemoryData data = separable(40, 5);
  TrainingConfig c = dpsgd_config(data.rows());
  c.epsilon = 3.0;
  c.delta = 0.2;
  c.batch_size = 10;
  c.options = {{"steps", 1}};
  const ParameterGrid grid = ParameterGrid::parse(nlohmann::json::parse(R"({"learning_rate": [0.1, 1]})"));
  std::vector<double> count(6, 0.0);
  const int searches = 400;
  for (int s = 1; s <= searches; ++s) {
    c.seed = s * 1000;
    LiuTalwarTuner t(c, grid, 0.5);
    ASSERT_EQ(t.split().search.max_candidates, 5);
    drive_in_memory(t, data);
    count[static_cast<std::size_t>(t.candidates_run())] += 1;
  }
  double chi2 = 0;
  for (int k = 1; k <= 5; ++k) {
    const double p = k < 5 ? std::pow(0.5, k) : std::pow(0.5, 4);
    chi2 += std::pow(count[k] - searches * p, 2) / (searches * p);
  }
  EXPECT_LT(chi2, 18.47) << count[1] << " " << count[2] << " " << count[3] << " " << count[4] << " " << count[5];
  EXPECT_GT(count[5], 0);  // the cap is reached sometimes
}

}  // namespace
}  // namespace dptrain::tuning
