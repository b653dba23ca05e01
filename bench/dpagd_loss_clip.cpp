// bench/dpagd_loss_clip: DP-AGD over a grid of epsilon x loss clip C_obj x
// seeds, in memory (engine/in_memory.h: the same run object, passes and noise
// stream as dp_train), on a table dumped from the database by
// bench/dpagd_loss_clip.sh. docs/dpagd.md "The loss clip over the epsilon grid"
// reports the numbers.
//
//   build/bench/dpagd_loss_clip --train T.csv --test T_test.csv --dataset adult --loss logistic
//       --epsilons 0.05,0.1 --clips default,1,2 --seeds 1,2,3,4,5 --delta 1e-8 [--delta-n2] >> results.csv
//
// CSV rows "y,x_1,...,x_d" (y = 1 for the positive class; rows as `dptrain load`
// stored them, 17 significant digits). --clips: numbers for options.loss_clip,
// "default" for no option (the default of the build), "margin:Z" for the
// loss's value at margin Z (loss/loss.h), e.g. margin:0 = ln 2 for logistic.
// --delta-n2: delta = 1/n^2 of the training table. --options: a JSON object of further
// DP-AGD options for every run, e.g. '{"selection": "exponential"}'. Output: one CSV line per
// run on stdout (the columns of bench/dpagd_loss_clip.sh's header), written as the runs end.
#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/engine/in_memory.h"
#include "core/loss/loss.h"
#include "core/training/config.h"

using namespace dptrain;

namespace {

InMemoryData read_csv(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  InMemoryData d;
  std::string line, field;
  while (std::getline(in, line)) {
    std::stringstream ss(line);
    std::getline(ss, field, ',');
    d.y.push_back(std::stod(field));
    std::vector<double> x;
    while (std::getline(ss, field, ',')) x.push_back(std::stod(field));
    d.x.push_back(std::move(x));
  }
  return d;
}

// Binary, no intercept (DP-AGD's default): positive iff <w, x> > 0, as dp_evaluate.
double accuracy(const Model& m, const InMemoryData& d) {
  long right = 0;
  for (std::size_t i = 0; i < d.x.size(); ++i) {
    double s = 0;
    for (int j = 0; j < m.dim(); ++j) s += m.weights(0, j) * d.x[i][static_cast<std::size_t>(j)];
    right += ((s > 0) ? 1.0 : 0.0) == d.y[i];
  }
  return static_cast<double>(right) / static_cast<double>(d.x.size());
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("DP-AGD over epsilon x loss clip x seeds, in memory");
  std::string train_path, test_path, dataset = "adult", loss = "logistic";
  std::vector<double> epsilons = {0.1};
  std::vector<std::string> clips = {"default"};
  std::vector<long> seeds = {1};
  double delta = 1e-8;
  bool delta_n2 = false;
  std::string options = "{}";
  app.add_option("--train", train_path)->required();
  app.add_option("--test", test_path)->required();
  app.add_option("--dataset", dataset);
  app.add_option("--loss", loss);
  app.add_option("--epsilons", epsilons)->delimiter(',');
  app.add_option("--clips", clips)->delimiter(',');
  app.add_option("--seeds", seeds)->delimiter(',');
  app.add_option("--delta", delta);
  app.add_flag("--delta-n2", delta_n2);
  app.add_option("--options", options);
  CLI11_PARSE(app, argc, argv);

  const InMemoryData train = read_csv(train_path), test = read_csv(test_path);
  const double n = static_cast<double>(train.rows());
  if (delta_n2) delta = 1 / (n * n);
  for (double eps : epsilons)
    for (const std::string& clip : clips)
      for (long seed : seeds) {
        TrainingConfig c;
        c.algorithm = "dpagd";
        c.loss = loss;
        c.epsilon = eps;
        c.delta = delta;
        c.lambda = 0.001;
        c.seed = seed;
        c.classes = {"f", "t"};
        c.options = nlohmann::json::parse(options);
        if (clip.rfind("margin:", 0) == 0) {
          const double z = std::stod(clip.substr(7));
          c.options["loss_clip"] = loss_value(parse_loss(loss), z, c.huber_h);
        } else if (clip != "default") {
          c.options["loss_clip"] = std::stod(clip);
        }
        const auto t0 = std::chrono::steady_clock::now();
        const Model m = train_in_memory(c, train, static_cast<std::uint64_t>(seed));
        const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        const auto& p = m.details.at("privacy");
        // The refinement warning (core/algorithms/dpagd_warning.h), as the model records it.
        const bool warned = m.details.contains("warnings") &&
                            m.details.at("warnings").dump().find("spent its budget on gradient refinements") !=
                                std::string::npos;
        std::printf("%s,%s,%g,%.6g,%s,%.6g,%ld,%.5f,%.2f,%lld,%lld,%.6g,%.6g,%lld,%d\n", dataset.c_str(), loss.c_str(), eps,
                    delta, clip.c_str(), m.details.at("privacy").at("score_sensitivity").get<double>(), seed,
                    accuracy(m, test), secs, p.at("iterations").get<long long>(),
                    p.at("gradient_refinements").get<long long>(), p.at("rho_spent").get<double>(),
                    p.at("rho").get<double>(), p.at("line_searches").get<long long>(), warned ? 1 : 0);
        std::fflush(stdout);
      }
  return 0;
}
