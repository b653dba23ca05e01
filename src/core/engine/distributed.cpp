#include "core/engine/distributed.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "core/algorithms/algorithm.h"
#include "core/engine/gradient_state.h"
#include "core/engine/run.h"
#include "core/error.h"
#include "core/joined.h"
#include "core/privacy/distributed_sensitivity.h"

namespace dptrain::distributed {
namespace {

namespace pd = privacy::distributed;

// The algorithms whose passes are all exact sums or per-shard SGD epochs
// (Algorithm::trains_on_shards) are named in every refusal's hint.
[[noreturn]] void refuse(const std::string& what, const std::string& detail) {
  fail(ErrorKind::NotImplemented, what + " cannot train on a distributed table", detail,
       "Use one of the algorithms that train on a distributed table (" +
           joined(algorithms_that(&Algorithm::trains_on_shards)) +
           "), or train on a local copy (CREATE TABLE ... AS SELECT ...).");
}

std::string number(double v) {
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%.17g", v);
  return buf;
}

std::string words_literal(const std::vector<double>& words) {
  std::string s = "'{";
  for (std::size_t i = 0; i < words.size(); ++i) s += (i ? "," : "") + number(words[i]);
  return s + "}'::pg_catalog.float8[]";
}

pd::ShardedShape shape_of(const TrainingConfig& c, int passes) {
  pd::ShardedShape s;
  s.shard_rows = c.shard_rows;
  s.batch_size = c.batch_size;
  s.epochs = c.epochs;
  s.local_passes = passes;
  return s;
}

// The per-shard bound equals the sequential one up to rounding (the convex
// constant step is shortened by 1e-12 so it never exceeds it).
bool equal_bounds(double shard, double sequential) { return shard >= sequential * (1 - 1e-9); }

}  // namespace

namespace {
// A part of a keyed split (private tuning, docs/tuning.md section 5): the
// rows whose key hashes to it, selected on every shard.
std::string part_filter(const Pass& pass, const Source& src) {
  if (pass.split_key.size() != 4 || pass.parts < 1 || pass.table < 1 || pass.table > pass.parts || src.row_key.empty())
    fail(ErrorKind::Internal, "a pass over a part of a distributed table needs its split key and a row key");
  return tuning_part_sql(src.row_key, pass.split_key, pass.parts) + " OPERATOR(pg_catalog.=) " +
         std::to_string(pass.table);
}

// The source's guard (it has constant arguments only: a one-time filter
// evaluated before any row is fetched) and, for a pass over a part, the
// part filter (it refers to the row key only, so PostgreSQL evaluates it in
// the scan, before the projection), as a WHERE clause.
std::string where(const Source& src, const Pass& pass) {
  std::string conditions = src.guard;
  if (pass.table != 0) conditions += (conditions.empty() ? "" : " AND ") + part_filter(pass, src);
  return conditions.empty() ? std::string() : " WHERE " + conditions;
}
}  // namespace

std::string pass_sql(const Pass& pass, const Source& src) {
  switch (pass.kind) {
    case PassKind::SgdEpoch: {
      if (pass.shuffle_key.size() != 4 || pass.local_passes < 1)
        fail(ErrorKind::Internal, "a distributed epoch needs its shuffle key and local passes");
      // Each shard's rows in the order of the keyed hash of their row key
      // (the ORDER BY is part of the shard query: Citus pushes it down with
      // the partial aggregate), P times over.
      const std::string order =
          "dptrain.shuffle_key(" + src.row_key + ", " + words_literal(pass.shuffle_key) + ")";
      const bool passes = pass.local_passes > 1;
      return "SELECT dptrain.sgd_epoch(s.x, s.y, $1::pg_catalog.float8[]) FROM (SELECT " + src.x + " AS x, " + src.y +
             " AS y FROM " + src.relation +
             (passes ? " CROSS JOIN pg_catalog.generate_series(1, " + std::to_string(pass.local_passes) +
                           ") AS dptrain_pass(p)" + where(src, pass) + " ORDER BY dptrain_pass.p, " + order
                     : where(src, pass) + " ORDER BY " + order) +
             ") s";
    }
    case PassKind::GradientLoss:
      return "SELECT dptrain.gradient_sum(" + src.x + ", " + src.y + ", $1::pg_catalog.float8[]) FROM " + src.relation +
             where(src, pass);
    case PassKind::Evaluate:
      return "SELECT dptrain.evaluate_agg(" + src.x + ", (" + src.y + ")::pg_catalog.int4, $1::pg_catalog.float8[]) FROM " +
             src.relation + where(src, pass);
    default: break;
  }
  refuse(std::string("a pass of kind \"") + pass_kind_name(pass.kind) + "\"",
         "Only SGD epochs and exact sums (gradients, losses, evaluations) are pushed down to the shards.");
}

std::string tuning_part_sql(const std::string& row_key, const std::vector<double>& split_key, int parts) {
  return "dptrain.tuning_part(" + row_key + ", " + words_literal(split_key) + ", " + std::to_string(parts) + ")";
}

std::vector<double> pass_input(Pass& pass) {
  if (pass.kind != PassKind::GradientLoss) return std::move(pass.input);
  return gradient_state::request_only(pass.input.data(), pass.input.size());
}

void check(const TrainingConfig& c) {
  if (!c.distributed()) fail(ErrorKind::Internal, "distributed::check on a plain table");
  // Everything but exact sums and per-shard SGD epochs needs rows one at a
  // time in one sequential order (noise per batch: SCS13, BST14, the DP-SGD
  // family) or a GROUP BY of rows (OPDisc).
  if (!make_algorithm(c.algorithm)->trains_on_shards())
    refuse("algorithm " + c.algorithm,
           "Its privacy analysis is of one sequential pass over sampled or permuted rows with noise per batch "
           "(or of grouped rows); a distributed table is trained shard by shard (docs/distributed.md).");
  // The plan, and for epoch algorithms the per-shard PSGD plan (EpochRun
  // calls plan_epochs): every refusal happens here, before any charge.
  start_run(c);
}

EpochPlan plan_epochs(const TrainingConfig& c, const TrainingPlan& plan) {
  if (plan.epoch.noise != privacy::BatchNoiseKind::None || plan.epoch.sampled_batches)
    refuse("algorithm " + c.algorithm, "Its noise is added per batch, inside one sequential run (docs/distributed.md section 8).");
  if (plan.epoch.averaging)
    refuse("averaging", "The shards' running averages are combined with the model's weights, a sum the per-shard "
                        "PSGD bound does not cover (docs/distributed.md section 2). Drop averaging.");
  if (plan.stop_tolerance > 0)
    refuse("options.tolerance", "The distributed bound is computed for a fixed number of epochs. Drop the tolerance.");

  EpochPlan e;
  e.schedule = plan.epoch.schedule;
  const LossConstants& k = plan.constants;
  // The convergence remedy (section 3): averaging S shard models moves the
  // model like one sequential epoch at step eta/S, so each shard takes the
  // step c eta in P local passes; for the convex constant step the bound
  // is then exactly the sequential 2 k L eta / b.
  const bool convex_constant = e.schedule.kind == ScheduleKind::Constant && !(k.strong_convexity > 0) &&
                               k.smoothness > 0 && e.schedule.eta > 0 && e.schedule.eta <= 2.0 / k.smoothness;
  if (convex_constant) {
    const pd::SequentialEquivalent q = pd::sequential_equivalent(e.schedule.eta, k.smoothness, shape_of(c, 1));
    // 1 - 1e-12: rounding in c eta / P or in max_s n_s/n must not lift the
    // bound above the sequential one the noise is calibrated to.
    e.schedule.eta = q.eta * (1.0 - 1e-12);
    e.local_passes = q.local_passes;
  }
  const pd::ShardedShape shape = shape_of(c, e.local_passes);
  e.updates_per_epoch = shape.updates_per_epoch();
  e.record = {{"shards", c.shard_rows.size()},
              {"local_passes", e.local_passes},
              {"updates_per_epoch", e.updates_per_epoch},
              {"shard_step", e.schedule.kind == ScheduleKind::Constant ? nlohmann::json(e.schedule.eta) : nlohmann::json()},
              {"remedy", convex_constant ? "sequential-equivalent step: P local passes at step c eta / P, "
                                           "c = n / max_s n_s (docs/distributed.md section 3)"
                                         : "none (the algorithm's schedule on every shard)"}};
  if (!plan.epsilon) return e;  // nothing to bound

  const privacy::bolton::Bound b = pd::sensitivity(e.schedule, k, shape);
  e.sensitivity = b.sensitivity;
  if (!plan.privacy.contains("sensitivity") || !plan.privacy["sensitivity"].is_number())
    refuse("algorithm " + c.algorithm, "Its plan has no output-perturbation sensitivity to check the per-shard bound against.");
  const double calibrated = plan.privacy["sensitivity"].get<double>();
  if (!(b.sensitivity <= calibrated))
    refuse("this schedule", "The per-shard PSGD sensitivity " + number(b.sensitivity) +
                                " exceeds the sequential one the noise is calibrated to (" + number(calibrated) +
                                "). Use the constant schedule.");
  e.record["sensitivity"] = b.sensitivity;
  e.record["sensitivity_rule"] = b.rule;
  e.record["noise_calibrated_to"] = calibrated;
  e.record["note"] = equal_bounds(b.sensitivity, calibrated)
                         ? "the noise is calibrated to the per-shard PSGD bound (equal to the sequential one)"
                         : "the noise is calibrated to the sequential bound, which is larger than the per-shard "
                           "PSGD bound: conservative";
  return e;
}

void calibrate_noise(const TrainingConfig& c, const EpochAlgorithm& algorithm, TrainingPlan& plan, EpochPlan& e) {
  if (!plan.epsilon || !e.record.contains("noise_calibrated_to")) return;  // no noise to calibrate
  const double sequential = e.record["noise_calibrated_to"].get<double>();
  if (equal_bounds(e.sensitivity, sequential)) return;  // the convex constant step: nothing to gain
  // The per-shard bound is a function of the shard sizes n_s, which are
  // public under the assumption of docs/distributed.md section 2 (the
  // distribution column is a surrogate key, so a neighbouring table has the
  // same n_s; section 9.3 says what the shard step already reveals of
  // them). Replace-one neighbours then differ by at most e.sensitivity in
  // the averaged model, so noise for it is private at the same (epsilon,
  // delta) (section 9.2).
  const std::string rule = e.record["sensitivity_rule"].get<std::string>();
  if (!algorithm.calibrate_output_noise(c, plan, e.sensitivity, rule)) return;  // stays conservative
  if (plan.privacy.value("sensitivity", -1.0) != e.sensitivity)
    fail(ErrorKind::Internal, "the re-calibrated plan does not record the per-shard bound");
  e.record["sequential_sensitivity"] = sequential;
  e.record["noise_calibrated_to"] = e.sensitivity;
  e.record["note"] =
      "the noise is calibrated to the per-shard PSGD bound, smaller than the sequential one (" + number(sequential) +
      "): it is computed from the shard sizes, public under the assumption of docs/distributed.md section 2";
}

nlohmann::json describe(const TrainingConfig& c, bool exact_sums) {
  if (exact_sums)
    return {{"kind", "citus hash-distributed table, trained in place (pushed-down passes, no coordinator copy)"},
            {"distribution_column", c.distribution_column},
            {"shard_rows", c.shard_rows},
            {"adjacency",
             "the algorithm's own (privacy.adjacency): every pass is an exact sum over the shards, the value one "
             "node computes, and the shard sizes enter nothing"}};
  return {{"kind", "citus hash-distributed table, trained in place (pushed-down passes, no coordinator copy)"},
          {"distribution_column", c.distribution_column},
          {"shard_rows", c.shard_rows},
          {"assumption",
           "the shard row counts are public: the distribution column is a surrogate key (not data), so a row "
           "replaced by its neighbour stays in its shard (docs/distributed.md section 2)"},
          {"adjacency", "replace-one keeping the row's distribution key (the set of keys is public)"}};
}

void redact_shard_rows(Model& m) {
  if (!m.details.contains("data") || !m.details["data"].contains("distribution")) return;
  nlohmann::json& d = m.details["data"]["distribution"];
  if (!d.contains("shard_rows") || !d["shard_rows"].is_array()) return;
  const std::vector<std::int64_t> rows = d["shard_rows"].get<std::vector<std::int64_t>>();
  d.erase("shard_rows");
  d["shards"] = rows.size();
  d["largest_shard_rows"] = rows.empty() ? 0 : *std::max_element(rows.begin(), rows.end());
}

void annotate(Model& m, const TrainingConfig& c) {
  if (!m.details.contains("data") || !m.details["data"].is_object()) m.details["data"] = nlohmann::json::object();
  if (!m.details["data"].contains("distribution"))
    m.details["data"]["distribution"] = describe(c, make_algorithm(c.algorithm)->reads_sums_only());
}

}  // namespace dptrain::distributed
