#include "core/tuning/private_tuning.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include "core/algorithms/algorithm.h"
#include "core/engine/distributed.h"
#include "core/engine/model_details.h"
#include "core/error.h"
#include "core/evaluation/metrics.h"
#include "core/packed_model.h"
#include "core/privacy/exponential_mechanism.h"
#include "core/privacy/messages.h"

namespace dptrain::tuning {
namespace {

using privacy::show;

[[noreturn]] void bad(const std::string& message, const std::string& hint = {}, const std::string& detail = {}) {
  fail(ErrorKind::InvalidParameter, message, detail, hint);
}

template <typename T>
void require_distinct(const std::vector<T>& v, const std::string& what) {
  if (v.empty()) bad("the tuning grid needs at least one " + what, "Pass a non-empty list, or omit it for the default.");
  if (std::set<T>(v.begin(), v.end()).size() != v.size())
    bad("the tuning grid lists a " + what + " twice", "Each candidate value must appear once.");
}

std::string describe(const Candidate& c) {
  return "lambda = " + show(c.lambda) + ", epochs = " + std::to_string(c.epochs) +
         ", batch_size = " + std::to_string(c.batch_size);
}

}  // namespace

nlohmann::json Grid::to_json() const {
  return {{"lambdas", lambdas}, {"epochs", epochs}, {"batch_sizes", batch_sizes}};
}

nlohmann::json Candidate::to_json() const {
  return {{"lambda", lambda}, {"epochs", epochs}, {"batch_size", batch_size}};
}

std::vector<Candidate> expand(const Grid& g) {
  require_distinct(g.lambdas, "lambda");
  require_distinct(g.epochs, "number of epochs");
  require_distinct(g.batch_sizes, "batch size");
  for (double l : g.lambdas)
    if (!std::isfinite(l) || l < 0) bad("every lambda of the tuning grid must be a non-negative finite number", "E.g. lambdas => '{0.0001,0.001,0.01}'.");
  for (int e : g.epochs)
    if (e < 1 || e > 100000) bad("every number of epochs in the tuning grid must be between 1 and 100000", "E.g. epochs => '{1,5,10}'.");
  for (std::int64_t b : g.batch_sizes)
    if (b < 1) bad("every batch size in the tuning grid must be at least 1", "E.g. batch_sizes => '{50}'.");
  const std::size_t l = g.lambdas.size() * g.epochs.size() * g.batch_sizes.size();
  if (l > static_cast<std::size_t>(kMaxCandidates))
    bad("the tuning grid has " + std::to_string(l) + " candidates, more than " + std::to_string(kMaxCandidates),
        "Each candidate trains on 1/(l+1) of the table: use fewer values.");
  std::vector<Candidate> out;
  for (double lambda : g.lambdas)
    for (int epochs : g.epochs)
      for (std::int64_t b : g.batch_sizes) out.push_back({lambda, epochs, b});
  return out;
}

std::vector<std::int64_t> part_sizes(std::int64_t rows, int parts) {
  if (parts < 1) fail(ErrorKind::InvalidParameter, "the number of parts must be at least 1");
  if (rows < parts)
    fail(ErrorKind::InvalidData,
         "the table has " + std::to_string(rows) + " rows, fewer than the " + std::to_string(parts) +
             " parts private tuning needs",
         {}, "Tune on a larger table or with fewer candidates.");
  std::vector<std::int64_t> sizes(static_cast<std::size_t>(parts));
  for (int p = 0; p < parts; ++p) sizes[p] = (rows - 1 - p) / parts + 1;
  return sizes;
}

std::vector<std::int64_t> part_sizes(const KeyedSplit& split, const std::vector<std::int64_t>& shard_rows, int parts) {
  if (parts < 1 || split.rows.size() != static_cast<std::size_t>(parts))
    fail(ErrorKind::Internal, "a keyed tuning split has the wrong number of parts");
  std::vector<std::int64_t> sizes(static_cast<std::size_t>(parts), 0), per_shard(shard_rows.size(), 0);
  for (int p = 0; p < parts; ++p) {
    const std::vector<std::int64_t>& r = split.rows[static_cast<std::size_t>(p)];
    if (r.size() != shard_rows.size()) fail(ErrorKind::Internal, "a keyed tuning split has the wrong number of shards");
    for (std::size_t s = 0; s < r.size(); ++s) {
      if (r[s] < 0) fail(ErrorKind::Internal, "a negative row count in a keyed tuning split");
      sizes[static_cast<std::size_t>(p)] += r[s];
      per_shard[s] += r[s];
    }
  }
  for (std::size_t s = 0; s < shard_rows.size(); ++s)
    if (per_shard[s] != shard_rows[s])
      fail(ErrorKind::InvalidData,
           "the tuning parts of shard " + std::to_string(s + 1) + " hold " + std::to_string(per_shard[s]) +
               " rows, the shard " + std::to_string(shard_rows[s]),
           {}, "Was the table modified during tuning? Try again.");
  return sizes;
}

// The default batch 50 on a table of fewer than 50 rows per part (n < 500 with the
// default 9 candidates) refused every call that named no batch_sizes; a part's rows
// floor(n / parts) are a function of n and the grid's size, both public, so the
// default becomes min(50, floor(n / parts)), as dp_train's DP-SGD default lot is
// min(50, n). Batch sizes the caller gives are kept (and checked per part), {50} too.
void fit_default_batch(std::int64_t rows, Grid* g) {
  if (g->batch_sizes_given) return;
  const std::int64_t parts = static_cast<std::int64_t>(g->lambdas.size() * g->epochs.size()) + 1;
  g->batch_sizes = {std::clamp<std::int64_t>(rows / parts, 1, Grid{}.batch_sizes.front())};
}

sgd::SplitKey draw_split_key(const TrainingConfig& config) {
  return sgd::tuning_split_key(config.seed ? std::optional<std::uint64_t>(static_cast<std::uint64_t>(*config.seed))
                                           : std::nullopt);
}

void redact_part_rows(Model& m) {
  if (!m.details.contains("tuning") || !m.details["tuning"].contains("part_shard_rows")) return;
  nlohmann::json& t = m.details["tuning"];
  const std::vector<std::int64_t> rows = t.at("part_rows").get<std::vector<std::int64_t>>();
  t.erase("part_shard_rows");
  t.erase("part_rows");
  t["smallest_part_rows"] = rows.empty() ? 0 : *std::min_element(rows.begin(), rows.end());
}

void refuse_step_grid_for_opdisc(const std::string& algorithm, const std::vector<std::string>& names) {
  if (algorithm != "opdisc") return;
  for (const std::string& name : names)
    if (name == "lambda" || name == "epochs" || name == "batch_size")
      bad("the tuning grid sets " + name + ", which opdisc does not have",
          "Tune its own options with method => 'liu_talwar', e.g. grid => '{\"tau\": [0.5, 1]}' (docs/opdisc.md).",
          "OPDisc minimizes the 0/1 loss exactly over a grid of its own; lambda, epochs and batch_size (method "
          "holdout's parameters and dp_tune's default grid) do not apply to it.");
}

void check_tunable(const TrainingConfig& config) {
  if (non_private_algorithm(config.algorithm))
    bad("private tuning needs a private algorithm; \"" + config.algorithm + "\" is not private",
        "Tune a private algorithm (e.g. algorithm => 'bolton'); without privacy, tune on the data directly.");
  refuse_step_grid_for_opdisc(config.algorithm, {"lambda", "epochs", "batch_size"});
  // Algorithm 3's split deals rows out by position: its argument needs
  // replace-one candidates (an added row would move rows between parts).
  if (random_stopping_by_default(config.algorithm))
    fail(ErrorKind::NotImplemented,
         "method holdout does not tune algorithm \"" + config.algorithm + "\"",
         "Bolt-on's Algorithm 3 is analysed under replace-one adjacency with every candidate spending exactly "
         "(epsilon, delta); \"" + config.algorithm + "\" is accounted under add/remove-one.",
         "Use method => 'liu_talwar' (random stopping, any private algorithm; docs/tuning.md section 4).");
  if (!config.epsilon)
    bad("private tuning needs epsilon", "Pass epsilon => ... (and delta => ... for (epsilon, delta)-DP).");
}

bool random_stopping_by_default(const std::string& algorithm) {
  return make_algorithm(algorithm)->adjacency() != privacy::Adjacency::ReplaceOne;
}

namespace {

// The plan of a candidate's run; its errors say which candidate failed.
TrainingPlan plan_candidate(const TrainingConfig& c, const Candidate& k) {
  TrainingPlan p;
  try {
    p = make_algorithm(c.algorithm)->plan(c);
    // Algorithms and schedules that cannot train shard by shard, and the
    // per-shard PSGD plan of epoch runs: refused here, before the charge.
    if (c.distributed()) distributed::check(c);
  } catch (const Error& e) {
    throw Error(e.kind(), e.what(),
                "In the tuning candidate " + describe(k) + ", trained on " + std::to_string(c.rows) + " rows." +
                    (e.detail().empty() ? "" : " " + e.detail()),
                e.hint(), e.sqlstate());
  }
  return p;
}

}  // namespace

Tuner::Tuner(TrainingConfig config, Grid grid, std::optional<KeyedSplit> split)
    : config_(std::move(config)), grid_(std::move(grid)), split_(std::move(split)) {
  validate_arguments(config_);
  check_tunable(config_);
  if (stops_on_data(config_))
    bad("options.tolerance is not available in private tuning",
        "Each candidate's number of epochs is a value of the grid, fixed in advance (Bolt-on Algorithm 3).");
  make_algorithm(config_.algorithm);  // unknown / not implemented: fail now
  if (!split_) fit_default_batch(config_.rows, &grid_);
  candidates_ = expand(grid_);
  if (config_.distributed() != split_.has_value())
    fail(ErrorKind::Internal, "a distributed table is split by its row keys, a prepared table by position");
  if (split_) {
    part_rows_ = part_sizes(*split_, config_.shard_rows, parts());
    split_done_ = true;  // the parts are read where the rows are: no Split pass
  } else {
    part_rows_ = part_sizes(config_.rows, parts());
  }
  held_out_rows_ = part_rows_.back();
  if (held_out_rows_ < 1)
    fail(ErrorKind::InvalidData,
         "the held-out part " + std::to_string(parts()) + " of the tuning split has no rows",
         "The table's " + std::to_string(config_.rows) + " rows were split by a keyed hash of \"" +
             config_.distribution_column + "\" into " + std::to_string(parts()) + " parts.",
         "Tune on a larger table or with fewer candidates.");
  // The selection's exponent -epsilon * errors / 2 must be representable for every score it
  // can see (errors are counts in [0, held-out rows], sensitivity 1): refused now, before the
  // charge, not by the exponential mechanism after the candidates ran.
  privacy::require_exponential_mechanism_range(*config_.epsilon, 1.0, static_cast<double>(held_out_rows_));

  for (int i = 0; i < candidates(); ++i) {
    const Candidate& k = candidates_[i];
    TrainingConfig c = make_candidate_config(i);
    const TrainingPlan p = plan_candidate(c, k);
    if (!p.epsilon || *p.epsilon != *config_.epsilon || p.delta.value_or(0.0) != config_.delta.value_or(0.0))
      fail(ErrorKind::Internal, "a tuning candidate does not spend exactly the requested (epsilon, delta)");
    for (const std::string& w : p.warnings)
      if (std::find(warnings_.begin(), warnings_.end(), w) == warnings_.end()) warnings_.push_back(w);
    epochs_total_ += k.epochs;
    configs_.push_back(std::move(c));
  }
  models_.resize(candidates_.size());
  release_warnings_of_.resize(candidates_.size());
  errors_.assign(candidates_.size(), -1);
}

TrainingConfig Tuner::make_candidate_config(int i) const {
  const Candidate& k = candidates_[i];
  TrainingConfig c = config_;
  c.lambda = k.lambda;
  c.epochs = k.epochs;
  c.batch_size = k.batch_size;
  c.rows = part_rows_[i];  // every bound for the part the candidate sees (Algorithm 3)
  // On shards: the per-shard PSGD bound and step for the part's n_{s,i}.
  if (split_) c.shard_rows = split_->rows[static_cast<std::size_t>(i)];
  c.name.clear();
  if (config_.seed) c.seed = candidate_seed(*config_.seed, static_cast<std::uint64_t>(i));
  if (k.batch_size > c.rows)
    bad("batch size " + std::to_string(k.batch_size) + " is larger than the " + std::to_string(c.rows) +
            " rows of a tuning part (part " + std::to_string(i + 1) + " of " + std::to_string(parts()) + ")",
        "With " + std::to_string(candidates()) + " candidates the table is split into " +
            std::to_string(parts()) + " parts; use fewer candidates or smaller batch sizes.",
        "The candidate " + describe(k) + " trains on part " + std::to_string(i + 1) + "." +
            (split_ ? " The parts of a distributed table are a keyed hash of \"" + config_.distribution_column +
                          "\", so their sizes vary (docs/tuning.md section 5)."
                    : ""));
  return c;
}

const Candidate& Tuner::candidate(int i) const {
  if (i < 0 || i >= candidates()) fail(ErrorKind::Internal, "no such tuning candidate");
  return candidates_[i];
}

const TrainingConfig& Tuner::candidate_config(int i) const {
  candidate(i);
  return configs_[i];
}

std::unique_ptr<Run> Tuner::start_candidate(int i) const { return start_run(candidate_config(i)); }

std::optional<Pass> Tuner::next() {
  if (awaiting_ != Awaiting::Nothing) fail(ErrorKind::Internal, "next() before the last pass was accepted");
  if (!split_done_) {
    // The l + 1 disjoint parts, by position in the random order.
    Pass split;
    split.kind = PassKind::Split;
    split.parts = parts();
    awaiting_ = Awaiting::Split;
    return split;
  }
  if (current_ == candidates()) return std::nullopt;
  if (!run_ && !models_[current_]) run_ = start_candidate(current_);
  if (run_) {
    if (std::optional<Pass> p = next_of_candidate()) return p;
  }
  // Score the released candidate on the held-out part.
  Pass evaluate;
  evaluate.kind = PassKind::Evaluate;
  on_part(evaluate, held_out_part());
  evaluate.rows = held_out_rows_;
  evaluate.input = packed_model::pack(*models_[current_]);
  awaiting_ = Awaiting::Evaluation;
  return evaluate;
}

// `pass` reads part `part` (1..parts()): the table the Split made, or on a
// distributed table the rows of that part of the keyed split.
void Tuner::on_part(Pass& pass, int part) const {
  pass.table = part;
  if (!split_) return;
  const sgd::EpochShuffleWords w = sgd::epoch_key_to_words(split_->key);
  pass.split_key.assign(w.begin(), w.end());
  pass.parts = parts();
}

// The candidate's next pass, on its own part; once it is done, its release.
std::optional<Pass> Tuner::next_of_candidate() {
  std::optional<Pass> p = run_->next();
  if (p) {
    if (p->table != 0 || p->kind == PassKind::Split)
      fail(ErrorKind::Internal, "a tuning candidate asked for a pass outside its part");
    on_part(*p, current_ + 1);
    awaiting_ = Awaiting::Candidate;
    return p;
  }
  models_[current_] = run_->release(0.0);
  release_warnings_of_[current_] = run_->release_warnings();
  run_.reset();
  return std::nullopt;
}

void Tuner::accept(const double* result, std::size_t len) {
  const Awaiting what = awaiting_;
  awaiting_ = Awaiting::Nothing;
  switch (what) {
    case Awaiting::Split:
      if (len != part_rows_.size()) fail(ErrorKind::Internal, "the split made an unexpected number of parts");
      for (std::size_t p = 0; p < len; ++p)
        if (result[p] != static_cast<double>(part_rows_[p]))
          fail(ErrorKind::Internal, "a tuning part has an unexpected size", {}, "Was the table modified during tuning?");
      split_done_ = true;
      return;
    case Awaiting::Candidate: {
      const long before = run_->progress_done();
      run_->accept(result, len);
      epochs_done_ += run_->progress_done() - before;
      const std::string prefix =
          "candidate " + std::to_string(current_ + 1) + " of " + std::to_string(candidates()) + ": ";
      for (Progress& m : run_->take_progress()) report(prefix + m.message, m.depends_on_data);
      return;
    }
    case Awaiting::Evaluation: return accept_evaluation(result, len);
    case Awaiting::Nothing: break;
  }
  fail(ErrorKind::Internal, "accept() without a pass");
}

// The evaluation totals (core/evaluation/metrics.h) of candidate current_ on
// the held-out part; the score uses only {rows, correct}.
void Tuner::accept_evaluation(const double* totals, std::size_t len) {
  if (len < evaluation::kTotalsHeader)
    fail(ErrorKind::Internal, "malformed held-out evaluation");
  const auto rows = static_cast<std::int64_t>(totals[0]), correct = static_cast<std::int64_t>(totals[1]);
  if (rows != held_out_rows_)
    fail(ErrorKind::Internal, "the held-out part does not have the planned number of rows",
         std::to_string(rows) + " rows instead of " + std::to_string(held_out_rows_) + ".",
         "Was the table modified during tuning?");
  if (correct < 0 || correct > rows) fail(ErrorKind::Internal, "impossible number of held-out errors");
  errors_[current_] = rows - correct;
  ++current_;
}

Model Tuner::release(double seconds) {
  if (chosen_ >= 0) fail(ErrorKind::Internal, "Tuner::release called twice");
  for (std::size_t i = 0; i < models_.size(); ++i)
    if (!models_[i] || errors_[i] < 0) fail(ErrorKind::Internal, "Tuner::release before every candidate was scored");
  const double epsilon = *config_.epsilon;
  const double delta = config_.delta.value_or(0.0);

  privacy::RandomSource rng =
      config_.seed ? privacy::RandomSource::seeded(static_cast<std::uint64_t>(*config_.seed), kSelectionStream)
                   : privacy::RandomSource::secure();
  const std::vector<double> scores(errors_.begin(), errors_.end());
  // Score sensitivity 1: replacing one held-out row changes each count by at most 1.
  chosen_ = static_cast<int>(privacy::exponential_mechanism(scores, epsilon, 1.0, rng));

  Model m = std::move(*models_[chosen_]);
  const nlohmann::json candidate_privacy = m.details.at("privacy");
  m.name = config_.name;
  m.epsilon = epsilon;
  m.delta = delta;
  m.seeded = config_.seed.has_value();

  nlohmann::json data = m.details.at("data");
  data["rows"] = config_.rows;
  data["training_rows"] = part_rows_[chosen_];
  data["held_out_rows"] = held_out_rows_;
  m.details["data"] = data;

  m.details["privacy"] = privacy_details(candidate_privacy, epsilon, delta);
  m.details["tuning"] = tuning_details();
  if (split_) {
    // The table's distribution (n_s per shard) and every part's n_{s,i}, as
    // public as the set of keys; redacted for a role without read access.
    m.details["tuning"]["split"] = split_metadata();
    m.details["tuning"]["part_shard_rows"] = split_->rows;
    m.details["data"]["distribution"] = distributed::describe(config_);
    m.details["privacy"]["adjacency"] = m.details["data"]["distribution"]["adjacency"];
  }
  m.details["seconds"] = seconds;
  m.details.erase("seed");
  m.details.erase("warnings");
  add_seed_and_warnings(m, config_, warnings_);  // the plans' (public), not the candidate's copy of its own
  // The released candidate's release warnings are post-processing of its
  // model, which this release outputs; the others' read models (and counts)
  // that are not released, and are dropped (docs/tuning.md, "Warnings").
  for (const std::string& w : release_warnings_of_[static_cast<std::size_t>(chosen_)]) warn_on_release(m, w);
  return m;
}

nlohmann::json Tuner::privacy_details(const nlohmann::json& candidate_privacy, double epsilon, double delta) const {
  return {
      {"private", true},
      {"notion", candidate_privacy.value("notion", delta > 0 ? "(epsilon, delta)-DP" : "epsilon-DP")},
      {"epsilon", epsilon},
      {"delta", delta},
      {"adjacency", candidate_privacy.value("adjacency", "replace-one: neighbouring tables differ in one row")},
      {"n_public", true},
      {"mechanism",
       "private tuning, Bolt-on Algorithm 3 (Chaudhuri, Monteleoni, Sarwate 2011): every candidate trained on "
       "its own disjoint part of the table, one released candidate chosen by the exponential mechanism on its "
       "misclassifications of a held-out part"},
      {"composition",
       "parallel composition over the l + 1 disjoint parts: a replaced row lies in one part only; in a training "
       "part it changes one candidate, an (epsilon, delta)-DP release; in the held-out part it moves every score "
       "by at most 1 and the exponential mechanism is epsilon-DP; total (epsilon, delta) = the candidates' "
       "(epsilon, delta), spent once"},
      {"candidate_epsilon", epsilon},
      {"candidate_delta", delta},
      {"selection",
       {{"mechanism", "exponential"},
        {"epsilon", epsilon},
        {"score", "misclassifications of the released candidate on the held-out part"},
        {"score_sensitivity", 1},
        {"probability", "proportional to exp(-epsilon * errors / 2)"},
        {"held_out_rows", held_out_rows_}}},
      {"split", split_ ? "partition into l + 1 parts by a keyed hash of the row key (the distribution column, a "
                         "surrogate key): part(r) = SipHash-2-4(kappa, key(r)) mod (l + 1), kappa a fresh 128-bit key "
                         "per run; independent of the rows' contents; sizes depend on the set of keys and kappa only, "
                         "the same on neighbouring tables (docs/tuning.md section 5)"
                       : "uniformly random partition (independent of the data) into l + 1 parts by position in a random "
                         "permutation; sizes depend on n and l only"},
      {"epochs_fixed_in_advance", true},
      {"candidate", candidate_privacy},
  };
}

nlohmann::json Tuner::tuning_details() const {
  nlohmann::json chosen = candidates_[chosen_].to_json();
  chosen["index"] = chosen_;
  return {
      {"algorithm", "Bolt-on Algorithm 3 (held-out tuning with the exponential mechanism)"},
      {"grid", grid_.to_json()},
      {"candidates", candidates()},
      {"parts", parts()},
      {"part_rows", part_rows_},
      {"chosen", chosen},
  };
}

nlohmann::json Tuner::split_metadata() const {
  return {{"kind", "keyed hash of the row key, computed on the shards (no row copied to the coordinator)"},
          {"key_column", config_.distribution_column},
          {"rule", "part(r) = SipHash-2-4(kappa, key(r)) mod (l + 1) + 1; kappa a fresh 128-bit key per run"},
          {"candidate_sensitivity",
           "each candidate planned for its own part: m_i rows, n_{s,i} on shard s (per-shard PSGD bound)"}};
}

}  // namespace dptrain::tuning
