// bench/distributed_convergence: how fast per-shard permutation SGD with
// count-weighted model averaging (a Citus-distributed epoch) converges on
// UCI Adult, and which remedy brings it back to the sequential run, at the
// same privacy. In memory (no database): the epochs run the engine's own
// epoch aggregate code as Citus runs it (core/sgd/sharded_epoch.h), the
// noise is bolt-on's (epsilon-DP L2-Laplace) with the distributed
// sensitivity (core/privacy/distributed_sensitivity.h).
//
//   build/bench/distributed_convergence [--data ../shared/data] [--shards 1,2,8,32]
//       [--epochs 1,2,5,10] [--etas 0.1,1] [--lambdas 1e-3] [--seeds 5] [--draws 20] [--epsilon 1]
//       [--csv FILE]
//
// Rows: Adult as `dptrain load --no-header --drop-missing --positive '>50K'`
// loads it (one-hot + min-max, rows scaled to norm 1): 30162 train, 15060
// test rows. Rows go to shards uniformly at random (like Citus's hash of a
// surrogate id), every shard reshuffles its rows every epoch. Convex
// (lambda = 0) variants, for every constant step eta of --etas (the paper's
// 1/sqrt(n) = 0.0058 does not train Adult in 10 epochs even sequentially,
// docs/bolton_experiments.md):
//   baseline      eta, 1 local pass (what the engine does today)
//   scaled        min(eta n / max_s n_s, 2/beta) (S eta for equal shards), 1 pass:
//                 the sequential run's sensitivity unless capped at 2/beta
//   equivalent    distributed::sequential_equivalent(eta): the step above split
//                 over P local passes so that it stays <= 2/beta; exactly the
//                 sequential run's sensitivity
//   passes=4      eta, 4 local passes per epoch (4 times the work per shard)
// and the strongly convex runs, lambda of --lambdas, step min(1/beta, 1/(gamma t)) with t
// advancing by max_s ceil(n_s/b) per epoch (Lemma 8). One shard = the sequential run.
// Prints one CSV line per (shards, variant, epochs): the sensitivity, the
// test accuracy of the noiseless model and of the released private model
// (mean over seeds x noise draws); for the strongly convex runs also the
// accuracy with the noise of the sequential Lemma 8 bound for n rows (the
// noise the engine added on shards before it calibrated to the per-shard
// bound, docs/distributed.md section 9.2), from the same noise draws.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "core/loss/loss.h"
#include "core/privacy/distributed_sensitivity.h"
#include "core/privacy/random_source.h"
#include "core/privacy/samplers.h"
#include "core/sgd/sharded_epoch.h"
#include "loader/dataset.h"

namespace {

using namespace dptrain;

struct Split {
  std::vector<std::vector<double>> x;
  std::vector<double> y;  // -1 / +1
};

void load_adult(const std::string& data, Split& train, Split& test) {
  loader::LoadOptions o;
  o.file = data + "/adult/adult.data.gz";
  o.test_file = data + "/adult/adult.test.gz";
  o.csv.header = false;
  o.csv.drop_missing = true;
  o.labels.positive = ">50K";
  loader::Dataset ds(o);
  for (loader::Part p : {loader::Part::Train, loader::Part::Test}) {
    Split& s = p == loader::Part::Train ? train : test;
    for (std::size_t i = 0; i < ds.rows(p); ++i) {
      std::vector<double> x(ds.dims());
      s.y.push_back(ds.row(p, i, x.data()).boolean ? 1.0 : -1.0);
      s.x.push_back(std::move(x));
    }
  }
}

double accuracy(const std::vector<double>& w, const Split& t) {
  std::size_t ok = 0;
  for (std::size_t i = 0; i < t.x.size(); ++i) {
    double z = 0;
    for (std::size_t j = 0; j < w.size(); ++j) z += w[j] * t.x[i][j];
    ok += (z >= 0 ? 1.0 : -1.0) == t.y[i];
  }
  return static_cast<double>(ok) / static_cast<double>(t.x.size());
}

enum class Step { Given, Scaled, Equivalent };

struct Variant {
  std::string name;
  double eta = 0;  // constant step (convex)
  int passes = 1;
  Step step = Step::Given;
  double lambda = 0;  // > 0: strongly convex schedule
};

std::vector<int> parse_list(const std::string& s) {
  std::vector<int> v;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');) v.push_back(std::stoi(item));
  return v;
}

struct Result {
  double sensitivity = 0, noiseless = 0, released = 0;
  double sequential = 0, released_sequential = 0;  // strongly convex: noise of the sequential bound
  double step = 0;  // the step the shards used (of the last run)
  int passes = 1, runs = 0, draws = 0;
};

// One run (one shard assignment, one sequence of permutations): the
// checkpoints' noiseless accuracy and released accuracies.
void run(const Split& train, const Split& test, int shards, const Variant& v, const std::vector<int>& checkpoints,
         std::uint64_t seed, int draws, double epsilon, std::vector<Result>& out) {
  const std::int64_t n = static_cast<std::int64_t>(train.x.size());
  const int d = static_cast<int>(train.x[0].size());
  std::mt19937_64 gen(seed);
  std::vector<std::vector<int>> members(shards);
  for (int i = 0; i < n; ++i) members[std::uniform_int_distribution<int>(0, shards - 1)(gen)].push_back(i);

  privacy::distributed::ShardedShape shape;
  for (const auto& m : members) shape.shard_rows.push_back(static_cast<std::int64_t>(m.size()));
  shape.batch_size = 50;
  shape.local_passes = v.passes;
  const std::int64_t largest = *std::max_element(shape.shard_rows.begin(), shape.shard_rows.end());

  epoch_state::EpochConfig c;
  c.dim = d;
  c.batch_size = 50;
  c.lambda = v.lambda;
  const bool strongly = v.lambda > 0;
  c.radius = strongly ? 1.0 / v.lambda : 0.0;
  const LossConstants lc = loss_constants(c.loss, 1.0, c.lambda, c.radius, c.huber_h);
  if (strongly) {
    c.schedule.kind = ScheduleKind::StronglyConvex;
    c.schedule.beta = lc.smoothness;
    c.schedule.gamma = lc.strong_convexity;
  } else {
    c.schedule.kind = ScheduleKind::Constant;
    c.schedule.eta = v.eta;
    if (v.step == Step::Scaled)
      c.schedule.eta = std::min(v.eta * static_cast<double>(n) / static_cast<double>(largest), 2.0 / lc.smoothness);
    if (v.step == Step::Equivalent) {
      const auto m = privacy::distributed::sequential_equivalent(v.eta, lc.smoothness, shape);
      c.schedule.eta = m.eta;
      shape.local_passes = m.local_passes;
    }
  }

  std::vector<double> w(d, 0.0), scratch(d);
  std::uint64_t updates = 0;
  const int last = *std::max_element(checkpoints.begin(), checkpoints.end());
  for (int e = 1; e <= last; ++e) {
    std::vector<std::vector<int>> streams(shards);
    for (int s = 0; s < shards; ++s)
      for (int p = 0; p < shape.local_passes; ++p) {
        std::vector<int> order = members[s];
        std::shuffle(order.begin(), order.end(), gen);
        streams[s].insert(streams[s].end(), order.begin(), order.end());
      }
    const std::vector<double> state =
        epoch_state::sharded_epoch(epoch_state::make_state(c, w.data(), updates), {&train.x, &train.y}, streams);
    updates = epoch_state::updates(state.data());
    std::copy(epoch_state::weights(state.data()), epoch_state::weights(state.data()) + d, w.begin());

    const auto at = std::find(checkpoints.begin(), checkpoints.end(), e);
    if (at == checkpoints.end()) continue;
    Result& r = out[at - checkpoints.begin()];
    shape.epochs = e;
    r.sensitivity = privacy::distributed::sensitivity(c.schedule, lc, shape).sensitivity;
    r.step = c.schedule.eta;
    r.passes = shape.local_passes;
    r.noiseless += accuracy(w, test);
    ++r.runs;
    if (strongly) {
      privacy::bolton::RunShape seq;
      seq.rows = n;
      seq.batch_size = shape.batch_size;
      seq.epochs = e;
      r.sequential = privacy::bolton::sensitivity(c.schedule, lc, seq, privacy::bolton::Output::LastIterate).sensitivity;
    }
    auto rng = privacy::RandomSource::seeded(seed, static_cast<std::uint64_t>(e));
    auto rng_sequential = privacy::RandomSource::seeded(seed, static_cast<std::uint64_t>(e));
    for (int k = 0; k < draws; ++k) {
      std::vector<double> noisy = w;
      privacy::add_l2_laplace_noise(rng, noisy.data(), d, r.sensitivity / epsilon, scratch.data());
      r.released += accuracy(noisy, test);
      if (strongly) {
        noisy = w;
        privacy::add_l2_laplace_noise(rng_sequential, noisy.data(), d, r.sequential / epsilon, scratch.data());
        r.released_sequential += accuracy(noisy, test);
      }
      ++r.draws;
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"distributed (per-shard PSGD + averaging) convergence on Adult, in memory"};
  std::string data = "../shared/data", shards_arg = "1,2,8,32", epochs_arg = "1,2,5,10", etas_arg = "0.1,1",
              lambdas_arg = "1e-3", csv;
  int seeds = 5, draws = 20;
  double epsilon = 1.0;
  app.add_option("--data", data, "the shared data folder");
  app.add_option("--shards", shards_arg, "shard counts");
  app.add_option("--epochs", epochs_arg, "epoch checkpoints");
  app.add_option("--etas", etas_arg, "constant steps of the convex runs");
  app.add_option("--lambdas", lambdas_arg, "lambdas of the strongly convex runs");
  app.add_option("--seeds", seeds, "shard assignments x permutation sequences per configuration");
  app.add_option("--draws", draws, "noise draws per run");
  app.add_option("--epsilon", epsilon, "epsilon of the released model (epsilon-DP)");
  app.add_option("--csv", csv, "also write the CSV here");
  CLI11_PARSE(app, argc, argv);

  Split train, test;
  try {
    load_adult(data, train, test);
  } catch (const std::exception& e) {
    std::cerr << "cannot load Adult from " << data << ": " << e.what() << "\n";
    return 1;
  }
  const std::vector<int> shard_counts = parse_list(shards_arg), checkpoints = parse_list(epochs_arg);
  std::vector<double> etas, lambdas;
  for (auto [arg, out] : {std::pair{&etas_arg, &etas}, std::pair{&lambdas_arg, &lambdas}}) {
    std::stringstream in(*arg);
    for (std::string item; std::getline(in, item, ',');) out->push_back(std::stod(item));
  }
  std::ostringstream table;
  table << "shards,variant,eta,step,passes,epochs,sensitivity,accuracy_noiseless,accuracy_eps" << epsilon
        << ",sequential_sensitivity,accuracy_eps" << epsilon << "_sequential_noise\n";
  std::fprintf(stderr, "Adult: %zu train, %zu test rows, %zu features\n", train.x.size(), test.x.size(),
               train.x[0].size());
  for (int S : shard_counts) {
    std::vector<Variant> variants;
    for (double eta : etas) {
      variants.push_back({"baseline", eta, 1, Step::Given, 0});
      if (S == 1) continue;  // the other convex variants are the sequential run again, or more work
      variants.push_back({"scaled", eta, 1, Step::Scaled, 0});
      variants.push_back({"equivalent", eta, 1, Step::Equivalent, 0});
      variants.push_back({"passes=4", eta, 4, Step::Given, 0});
    }
    for (double lambda : lambdas) {
      char name[64];
      std::snprintf(name, sizeof(name), "strongly convex lambda=%g", lambda);
      variants.push_back({name, 0, 1, Step::Given, lambda});
    }
    for (const Variant& v : variants) {
      std::vector<Result> results(checkpoints.size());
      for (int seed = 1; seed <= seeds; ++seed)
        run(train, test, S, v, checkpoints, static_cast<std::uint64_t>(seed), draws, epsilon, results);
      for (std::size_t i = 0; i < checkpoints.size(); ++i) {
        const Result& r = results[i];
        char line[320];
        std::snprintf(line, sizeof(line), "%d,%s,%g,%.4g,%d,%d,%.6g,%.4f,%.4f,%.6g,%.4f\n", S, v.name.c_str(), v.eta,
                      r.step, r.passes, checkpoints[i], r.sensitivity, r.noiseless / r.runs,
                      r.released / std::max(1, r.draws), r.sequential, r.released_sequential / std::max(1, r.draws));
        table << line;
        std::fputs(line, stdout);
        std::fflush(stdout);
      }
    }
  }
  if (!csv.empty()) std::ofstream(csv) << table.str();
  return 0;
}
