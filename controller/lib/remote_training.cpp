#include "remote_training.h"

#include <chrono>
#include <iostream>
#include <nlohmann/json.hpp>

#include "core/algorithms/algorithm.h"
#include "core/engine/distributed.h"
#include "core/engine/pass.h"
#include "core/error.h"
#include "core/sparse/support.h"
#include "core/training/intercept.h"
#include "extension.h"
#include "progress.h"
#include "transaction.h"

namespace dptrain::client {
namespace {

std::vector<std::string> parse_text_array(PgConnection& conn, const std::string& literal) {
  PgResult r = conn.exec("SELECT unnest($1::text[])", {literal});
  std::vector<std::string> out;
  for (int i = 0; i < r.rows(); ++i) out.push_back(r.get(i, 0));
  return out;
}


// Whether the server has dptrain.training_prepare_run and
// training_in_place_pass (src/pg/controller_in_place.cpp) and this role may
// execute them; an older extension (or a role without the grant) copies
// through dptrain.training_prepare as before.
bool server_reads_as_dp_train(PgConnection& conn) {
  PgResult r = conn.exec(
      "SELECT coalesce(bool_and(p IS NOT NULL AND has_function_privilege(p, 'EXECUTE')), false) FROM (VALUES "
      "(pg_catalog.to_regprocedure('dptrain.training_prepare_run(regclass,text,text,text,text[],bigint,float8,float8)')), "
      "(pg_catalog.to_regprocedure('dptrain.training_in_place_pass(regclass,text,float8[])'))) f(p)",
      {});
  return r.get(0, 0) == "t";
}

// The table of a run as dp_train reads it: in place (source set) or a copy.
struct RemoteRows {
  std::string shuffled;                         // the copy (empty in place)
  std::optional<distributed::Source> in_place;  // ONLY schema.table and the row expressions
  std::string source_oid;                       // the relation the passes must read
};

// dptrain.training_prepare_run: fills the public facts of `config` (rows,
// dim, classes, source) and what was read (recorded in the model).
RemoteRows prepare_remote_run(PgConnection& conn, const TrainingTarget& target, TrainingConfig& config) {
  PgResult prep = conn.exec(
      "SELECT shuffled, source_sql, source_oid, x_expr, y_expr, rows, dim, classes, classes_from_data, source_name, "
      "read FROM dptrain.training_prepare_run($1::regclass, $2, $3, $4, $5::text[], $6::bigint, $7::float8, "
      "$8::float8)",
      {target.table, target.label, target.features, config.algorithm,
       target.classes ? Param(to_text_array_literal(*target.classes)) : Param(),
       config.seed ? Param(std::to_string(*config.seed)) : Param(), Param(exact_number(config.feature_bound)),
       config.intercept ? Param(exact_number(intercept::constant_feature(config))) : Param()});
  config.rows = std::stoll(prep.get(0, 5));
  config.dim = std::stoi(prep.get(0, 6));
  config.classes = parse_text_array(conn, prep.get(0, 7));
  config.classes_from_data = prep.get(0, 8) == "t";
  config.source = prep.get(0, 9);
  const std::string read = prep.get(0, 10);
  config.read_in_place = read == "in place";
  config.unordered_copy = read == "unordered copy";
  RemoteRows rows;
  rows.source_oid = prep.get(0, 2);
  // A local table read in place: no row key (no shuffle) and no shard guard (no shards).
  if (config.read_in_place) rows.in_place = distributed::Source{prep.get(0, 1), prep.get(0, 3), prep.get(0, 4), "", ""};
  else rows.shuffled = prep.get(0, 0);
  return rows;
}

// The passes of `run` over a table read in place: each the statement
// dp_train runs (distributed::pass_sql over ONLY schema.table), executed by
// dptrain.training_in_place_pass, which checks that it reads that relation
// (by OID) and nothing else, under the transaction's one snapshot.
void drive_in_place(PgConnection& conn, Run& run, const RemoteRows& rows, ProgressBar* bar) {
  run.set_interrupt_check([] { return interrupted(); });
  while (std::optional<Pass> p = run.next()) {
    const std::vector<double> result =
        conn.exec_float8_array("SELECT dptrain.training_in_place_pass($1::oid::regclass, $2, $3)",
                               {rows.source_oid, distributed::pass_sql(*p, *rows.in_place)}, p->input,
                               std::string(pass_kind_name(p->kind)) + " pass");
    run.accept(result.data(), result.size());
    run.take_progress();
    if (bar) bar->update(static_cast<int>(run.progress_done()));
  }
}

}  // namespace

std::string exact_number(double v) {
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%.17g", v);
  return buf;
}

NamedCall::NamedCall(std::string function, const TrainingTarget& target, const TrainingConfig& c)
    : function_(std::move(function)) {
  add("source", "regclass", target.table);
  add("label", "text", target.label);
  if (target.columns) add("features", "text[]", to_text_array_literal(*target.columns));
  else add("features", "text", target.features);
  if (!c.algorithm.empty()) add("algorithm", "text", c.algorithm);  // empty: the function's default
  add("loss", "text", c.loss);
  if (c.epsilon) add("epsilon", "float8", exact_number(*c.epsilon));
  if (c.delta) add("delta", "float8", exact_number(*c.delta));
  if (c.learning_rate) add("learning_rate", "float8", exact_number(*c.learning_rate));
  if (!c.name.empty()) add("name", "text", c.name);
  if (c.seed) add("seed", "bigint", std::to_string(*c.seed));
  if (target.classes) add("classes", "text[]", to_text_array_literal(*target.classes));
  if (c.schedule) add("schedule", "text", *c.schedule);
  add("huber_h", "float8", exact_number(c.huber_h));
  add("averaging", "boolean", c.averaging ? "true" : "false");
  add("reshuffle", "boolean", c.reshuffle ? "true" : "false");
  if (c.radius) add("radius", "float8", exact_number(*c.radius));
  add("options", "jsonb", c.options.dump());
  add("intercept", "boolean", c.intercept ? "true" : "false");
  if (target.columns) {
    add("bounds", "jsonb", target.bounds);
    add("categories", "jsonb", target.categories);
    add("normalization", "text", target.normalization);
  }
}

void NamedCall::add(const std::string& name, const std::string& type, Param value) {
  params_.push_back(std::move(value));
  arguments_ += (arguments_.empty() ? "" : ", ") + name + " => $" + std::to_string(params_.size()) + "::" + type;
}

std::string NamedCall::sql(const std::string& columns) const {
  return "SELECT " + columns + " FROM " + function_ + "(" + arguments_ + ")";
}

std::string to_text_array_literal(const std::vector<std::string>& values) {
  std::string s = "{";
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i) s += ',';
    s += '"';
    for (char c : values[i]) {
      if (c == '"' || c == '\\') s += '\\';
      s += c;
    }
    s += '"';
  }
  return s + "}";
}

std::string controller_missing_privileges(PgConnection& conn, const TrainingTarget& target,
                                          const TrainingConfig& config) {
  // The aggregate of the run's passes: the gradient/loss sum for runs of
  // exact sums (AMP, optimum, P-FW, DP-AGD), the SGD epoch otherwise.
  bool sums = false;
  try {
    sums = make_algorithm(config.algorithm)->reads_sums_only();
  } catch (const Error&) {
    // unknown here: the run itself reports it
  }
  const std::string aggregate =
      sums ? "dptrain.gradient_sum(float8[], float8, float8[])" : "dptrain.sgd_epoch(float8[], float8, float8[])";
  PgResult r = conn.exec(
      "SELECT concat_ws(', ', "
      "CASE WHEN NOT has_function_privilege('dptrain.training_prepare(regclass, text, text, text[], bigint, float8, float8)', "
      "'EXECUTE') THEN 'EXECUTE on dptrain.training_prepare' END, "
      "CASE WHEN NOT has_function_privilege($5, 'EXECUTE') THEN 'EXECUTE on ' || split_part($5, '(', 1) END, "
      "CASE WHEN $4 AND NOT has_function_privilege('dptrain.training_reshuffle(text)', 'EXECUTE') "
      "THEN 'EXECUTE on dptrain.training_reshuffle' END, "
      "CASE WHEN NOT has_function_privilege('dptrain.training_drop(text)', 'EXECUTE') "
      "THEN 'EXECUTE on dptrain.training_drop' END, "
      "CASE WHEN NOT has_function_privilege('dptrain.store_model(jsonb)', 'EXECUTE') "
      "THEN 'EXECUTE on dptrain.store_model' END, "
      // A column that does not exist is no missing privilege (has_column_privilege raised a bare
      // "column does not exist" without the run's hint): the run's own check names it.
      "CASE WHEN NOT ((NOT EXISTS (SELECT FROM pg_catalog.pg_attribute WHERE attrelid = $1::regclass "
      "AND attname = $2 AND attnum > 0 AND NOT attisdropped) OR has_column_privilege($1::regclass, $2, 'SELECT')) "
      "AND (NOT EXISTS (SELECT FROM pg_catalog.pg_attribute WHERE attrelid = $1::regclass "
      "AND attname = $3 AND attnum > 0 AND NOT attisdropped) OR has_column_privilege($1::regclass, $3, 'SELECT'))) "
      "THEN 'SELECT on the label and feature columns' END)",
      {target.table, target.label, target.features, config.reshuffle ? "true" : "false", aggregate});
  return r.get(0, 0);
}

bool is_distributed_table(PgConnection& conn, const std::string& table) {
  PgResult citus = conn.exec("SELECT 1 FROM pg_catalog.pg_extension WHERE extname = 'citus'", {});
  if (citus.rows() == 0) return false;
  PgResult r = conn.exec("SELECT 1 FROM pg_catalog.pg_dist_partition WHERE logicalrelid = $1::regclass "
                         "AND partmethod = 'h'",
                         {table});
  return r.rows() == 1;
}

std::string prepare_remote_table(PgConnection& conn, const TrainingTarget& target, TrainingConfig& config) {
  PgResult prep = conn.exec(
      "SELECT shuffled, rows, dim, classes, classes_from_data, source_name "
      "FROM dptrain.training_prepare($1::regclass, $2, $3, $4::text[], $5::bigint, $6::float8, $7::float8)",
      {target.table, target.label, target.features,
       target.classes ? Param(to_text_array_literal(*target.classes)) : Param(),
       config.seed ? Param(std::to_string(*config.seed)) : Param(), Param(exact_number(config.feature_bound)),
       // with an intercept the rows are prepared as (clip(x), b): training/intercept.h
       config.intercept ? Param(exact_number(intercept::constant_feature(config))) : Param()});
  config.rows = std::stoll(prep.get(0, 1));
  config.dim = std::stoi(prep.get(0, 2));
  config.classes = parse_text_array(conn, prep.get(0, 3));
  config.classes_from_data = prep.get(0, 4) == "t";
  config.source = prep.get(0, 5);
  return prep.get(0, 0);
}

void drive_remote(PgConnection& conn, Run& run, const std::string& prepared, ProgressBar* bar) {
  int parts = 0;
  // Ctrl-C also stops work the run does in the controller (OPDisc's solve).
  run.set_interrupt_check([] { return interrupted(); });
  while (std::optional<Pass> p = run.next()) {
    if (p->kind == PassKind::Split) parts = p->parts;
    // The same SQL dp_train runs (decided by the core).
    const std::vector<double> result = conn.exec_float8_array(pass_sql(*p, pass_table_name(*p, prepared)), {},
                                                              p->input, std::string(pass_kind_name(p->kind)) + " pass");
    run.accept(result.data(), result.size());
    run.take_progress();  // the bar shows the progress (this caller may read the data)
    if (bar) bar->update(static_cast<int>(run.progress_done()));
  }
  for (int part = 1; part <= parts; ++part) conn.exec("SELECT dptrain.training_drop($1)", {part_table_name(prepared, part)});
  conn.exec("SELECT dptrain.training_drop($1)", {prepared});
}

Model fetch_model(PgConnection& conn, std::int64_t id) {
  PgResult m = conn.exec(
      "SELECT json_build_object('format','dptrain-model','version',1,'name',coalesce(name,''),"
      "'algorithm',algorithm,'loss',loss,'epsilon',epsilon,'delta',delta,'classes',classes,"
      "'weights',CASE WHEN array_ndims(weights) = 1 THEN to_jsonb(ARRAY[weights]) ELSE to_jsonb(weights) END,"
      "'seeded',seeded,'details',details,'huber_h',coalesce((details->'hyperparameters'->>'huber_h')::float8,0.1),"
      "'feature_bound',(details->'hyperparameters'->>'feature_bound')::float8,"
      "'intercept',CASE WHEN (details->'hyperparameters'->>'intercept')::boolean "
      "THEN (details->'hyperparameters'->>'intercept_feature')::float8 ELSE 0 END) FROM dptrain.models WHERE id = $1",
      {std::to_string(id)});
  if (m.rows() != 1) throw PgError("model " + std::to_string(id) + " is not in dptrain.models");
  return Model::from_json(nlohmann::json::parse(m.get(0, 0)));
}

TrainingOutcome train_with_controller(PgConnection& conn, const TrainingTarget& target, TrainingConfig config,
                                      bool show_progress, const defaults::Unset& unset) {
  validate_arguments(config);
  const std::unique_ptr<Algorithm> algorithm = make_algorithm(config.algorithm);
  algorithm->check_arguments(config);  // fail before touching the server
  // The run's own step, radius and schedule (Algorithm::check_run_arguments), as
  // dp_train: before the table is copied, when the defaults that wait for n and d
  // cannot change them (the algorithm named, or the step given).
  if (!unset.algorithm || config.learning_rate) {
    TrainingConfig own = config;
    (void) defaults::apply(&own, unset);
    algorithm->check_run_arguments(intercept::planned_config(own));
  }
  api_schema(conn);
  // An order-free run reads the table as dp_train does (docs/performance.md,
  // "Reading in place", "Order-free copies"): in place under one snapshot
  // (REPEATABLE READ) when its passes are all exact sums, else a copy
  // without shuffle. Every other run takes the shuffled copy.
  const bool as_dp_train = algorithm->order_free() && server_reads_as_dp_train(conn);
  const auto start = std::chrono::steady_clock::now();
  Transaction tx(conn, as_dp_train && algorithm->reads_sums_only());
  conn.exec("SET LOCAL jit = off");  // as dp_train: JIT only adds compile time to epoch queries

  // A sparse feature column (docs/sparse.md): only runs whose passes read
  // sparse rows, refused before any data is copied (as dp_train does).
  PgResult type = conn.exec("SELECT atttypid = to_regtype('dptrain.sparsevec') FROM pg_catalog.pg_attribute "
                            "WHERE attrelid = $1::regclass AND attname = $2 AND NOT attisdropped",
                            {target.table, target.features});
  if (type.rows() == 1 && type.get(0, 0) == "t") sparse::check(config);

  RemoteRows rows;
  if (as_dp_train) rows = prepare_remote_run(conn, target, config);
  else rows.shuffled = prepare_remote_table(conn, target, config);
  // what the caller left out, from the public facts (core/training/defaults.h)
  const std::string notice = defaults::apply(&config, unset);
  if (!notice.empty()) std::cerr << "NOTICE:  " << notice << "\n";

  std::unique_ptr<Run> run = start_run(config);
  for (const auto& w : run->warnings()) std::cerr << "WARNING:  " << w << "\n";
  if (config.classes_from_data && config.algorithm != "none")
    std::cerr << "NOTICE:  the classes were read from the data: the list of classes is outside the privacy "
                 "guarantee (declare them with --classes)\n";

  ProgressBar bar("training", show_progress ? static_cast<int>(run->progress_total()) : 0);
  if (rows.in_place) drive_in_place(conn, *run, rows, show_progress ? &bar : nullptr);
  else drive_remote(conn, *run, rows.shuffled, show_progress ? &bar : nullptr);
  if (show_progress) bar.finish_at(static_cast<int>(run->progress_done()));

  TrainingOutcome out;
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  out.model = run->release(out.seconds);
  for (const auto& w : run->release_warnings()) std::cerr << "WARNING:  " << w << "\n";
  out.epochs = static_cast<int>(run->progress_done());
  PgResult stored = conn.exec("SELECT dptrain.store_model($1::jsonb)", {out.model.to_json().dump()});
  out.model_id = std::stoll(stored.get(0, 0));
  tx.commit();
  return out;
}

TrainingOutcome train_in_server(PgConnection& conn, const TrainingTarget& target, const TrainingConfig& c,
                                const defaults::Unset& unset) {
  validate_arguments(c);
  const std::string schema = api_schema(conn);
  // What the caller left out stays NULL: dp_train fills it (core/training/defaults.h).
  TrainingConfig named = c;
  if (unset.algorithm) named.algorithm.clear();
  NamedCall call(schema + ".dp_train", target, named);
  if (!unset.epochs) call.add("epochs", "int", std::to_string(c.epochs));
  if (!unset.batch_size) call.add("batch_size", "int", std::to_string(c.batch_size));
  if (!unset.lambda) call.add("lambda", "float8", exact_number(c.lambda));
  const auto start = std::chrono::steady_clock::now();
  PgResult r = conn.exec(call.sql("model_id"), call.params());
  TrainingOutcome out;
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  out.model_id = std::stoll(r.get(0, 0));
  out.model = fetch_model(conn, out.model_id);
  const int planned = out.model.details.value("/hyperparameters/epochs"_json_pointer, c.epochs);
  out.epochs = out.model.details.contains("stopping") ? out.model.details["stopping"].value("epochs_run", planned)
                                                      : planned;
  return out;
}

}  // namespace dptrain::client
