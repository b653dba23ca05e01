// dptrain load: a data file -> a table (id bigint, x float8[], y) ready for
// training, with the standard preprocessing of shared/data/README.md
// (controller/lib/loader/ does the work; this file is options and SQL).
#include <chrono>
#include <iostream>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "core/error.h"
#include "loader/copy_rows.h"
#include "loader/dataset.h"
#include "loader/idx_source.h"
#include "loader/load_spec.h"
#include "loader/text_input.h"
#include "pg_connection.h"

namespace dptrain::cli {
namespace {

using loader::Part;

struct LoadCliOptions {
  std::string db, table, test_table, format, normalize = "l2", delimiter = ",", comment = "|";
  std::string file, test_file, test_rows, label, positive, labels_file, test_labels_file;
  std::vector<std::string> classes, columns, categorical, numeric, bounds, categories, missing;
  bool header = false, no_header = false, drop_missing = false, replace = false, json = false, sparse = false;
  std::size_t max_classes = 100, dims = 0, project = 0, max_features = loader::kDefaultMaxFeatures;
  std::uint64_t projection_seed = 0;
};

char parse_delimiter(const std::string& d) {
  if (d == "tab" || d == "\\t" || d == "\t") return '\t';
  if (d == "space") return ' ';
  if (d.size() != 1 || d == "\"")
    fail(ErrorKind::InvalidParameter, "bad --delimiter \"" + d + "\"", {}, "Give one character, or tab / space.");
  return d[0];
}

loader::LoadOptions to_load_options(const LoadCliOptions& c, const CLI::App& cmd) {
  loader::LoadOptions o;
  o.file = c.file;
  if (!c.format.empty()) o.format = loader::parse_format(c.format);
  if (cmd.count("--test-file")) o.test_file = c.test_file;
  if (cmd.count("--test-rows")) o.test_rows = c.test_rows;
  o.labels_file = c.labels_file;
  o.test_labels_file = c.test_labels_file;
  o.csv.dialect.delimiter = parse_delimiter(c.delimiter);
  o.csv.dialect.comment_prefixes = c.comment;
  if (c.header && c.no_header) fail(ErrorKind::InvalidParameter, "give --header or --no-header, not both");
  if (c.header) o.csv.header = true;
  if (c.no_header) o.csv.header = false;
  o.csv.column_names = c.columns;
  o.csv.label = c.label;
  if (cmd.count("--missing")) o.csv.missing = c.missing;
  o.csv.drop_missing = c.drop_missing;
  o.schema.categorical = c.categorical;
  o.schema.numeric = c.numeric;
  for (const auto& b : c.bounds) loader::parse_bounds_spec(b, o.schema.bounds);
  for (const auto& s : c.categories) loader::parse_categories_spec(s, o.schema.categories);
  if (cmd.count("--positive")) o.labels.positive = c.positive;
  o.labels.max_classes = c.max_classes;
  if (cmd.count("--classes")) {
    o.label_classes = c.classes;
    o.public_classes = true;
  }
  o.libsvm_dims = c.dims;
  o.max_features = c.max_features;
  o.normalize = preprocessing::parse_row_normalization(c.normalize);
  if (cmd.count("--project")) {
    if (c.project == 0) fail(ErrorKind::InvalidParameter, "--project needs a target dimension K >= 1");
    o.project = c.project;
  }
  if (cmd.count("--projection-seed")) o.projection_seed = c.projection_seed;
  return o;
}

// --table (and --test-table) is an SQL name, read as every other command
// reads one (dptrain train --table, dp_train's regclass): unquoted parts fold
// to lower case, "..." keeps case and special characters. It used to be
// quoted verbatim, so `load --table Patients` made "Patients" and
// `train --table Patients` then looked for patients. Returns the quoted,
// schema-qualified name (a bare name goes to the schema where the user's
// search_path creates tables); `suffix` extends the table part (the default
// test table, <table>_test).
std::string qualified(client::PgConnection& conn, const std::string& name, const std::string& suffix = {}) {
  std::vector<std::string> parts;
  try {
    client::PgResult r = conn.exec("SELECT pg_catalog.unnest(pg_catalog.parse_ident($1))", {name});
    for (int i = 0; i < r.rows(); ++i) parts.push_back(r.get(i, 0));
  } catch (const client::PgError& e) {
    fail(ErrorKind::InvalidParameter, "\"" + name + "\" is not a valid SQL table name", e.what(),
         client::kQuoteTableNameHint);
  }
  if (parts.empty() || parts.size() > 2)
    fail(ErrorKind::InvalidParameter, "\"" + name + "\" is not a table name of the form table or schema.table");
  parts.back() += suffix;
  if (parts.size() == 1) return conn.creation_schema() + "." + conn.quote_ident(parts[0]);
  return conn.quote_ident(parts[0]) + "." + conn.quote_ident(parts[1]);
}


// lz4 TOAST compression when the server has it: wide rows (MNIST's 784 or
// Reuters' 8,315 features) are compressed on insert and decompressed on
// every epoch, and lz4 is ~10x faster than the default pglz at both (Reuters
// loads in ~1 s instead of ~6 s of compression) for a similar size.
std::string feature_column_compression(client::PgConnection& conn) {
  client::PgResult r = conn.exec(
      "SELECT coalesce(bool_or('lz4' = ANY (enumvals)), false) FROM pg_settings "
      "WHERE name = 'default_toast_compression'");
  return r.get(0, 0) == "t" ? " COMPRESSION lz4" : "";
}

void refuse_existing(client::PgConnection& conn, const std::string& quoted, const std::string& shown) {
  client::PgResult r = conn.exec("SELECT to_regclass($1) IS NOT NULL", {quoted});
  if (r.get(0, 0) == "t")
    fail(ErrorKind::InvalidParameter, "table " + shown + " already exists", {},
         "Pass --replace to drop and recreate it, or choose another --table.");
}

// The share of positive rows of a part with a boolean label.
double positive_rate(const loader::PartStats& s) {
  return s.rows ? static_cast<double>(s.positives) / static_cast<double>(s.rows) : 0.0;
}

// Creates the table `t` (id, x, y) of one part, copies the part's rows into
// it and records its load spec: in the table's comment, and beside the table
// when the extension is there (`registry`).
loader::PartStats load_part(client::PgConnection& conn, loader::Dataset& data, const LoadCliOptions& c, int p,
                            const std::string& t, const std::string& columns, const nlohmann::json& meta,
                            bool registry) {
  if (c.replace && conn.exec("SELECT to_regclass($1) IS NOT NULL", {t}).get(0, 0) == "t")
    conn.exec("DROP TABLE " + t);
  conn.exec("CREATE TABLE " + t + " (" + columns + ")");
  const loader::PartStats stats = loader::copy_part(conn, data, static_cast<Part>(p), t, !c.json, c.sparse);
  conn.exec("ALTER TABLE " + t + " ADD PRIMARY KEY (id)");
  nlohmann::json m = meta;
  m["part"] = p == 0 ? "train" : "test";
  // With the extension, the spec goes beside the table, for the models
  // trained on it, and the comment (which every role can read) keeps the
  // public part (docs/loading-data.md, docs/governance.md).
  const nlohmann::json comment = registry ? loader::public_comment(m) : m;
  conn.exec("COMMENT ON TABLE " + t + " IS " + conn.quote_literal(comment.dump()));
  if (registry)
    conn.exec("SELECT dptrain.register_load_spec($1::regclass, $2::jsonb)", {t, loader::registered_spec(m).dump()});
  return stats;
}

// Planner statistics of a committed table. The load is done whatever
// happens here, so a failure is a warning: a lost connection exited 1 with
// the error, and Ctrl-C said "cancelled ... (nothing was stored)", though
// the tables were there (a script's retry then found them "already exists").
void analyze(client::PgConnection& conn, const std::string& table) {
  try {
    conn.exec("ANALYZE " + table);
  } catch (const client::PgError& e) {
    std::cerr << "WARNING:  " << table << " is loaded, but ANALYZE failed: " << e.what() << "\n";
  }
}

// What was loaded, as one line of JSON (--json).
void print_summary_json(const LoadCliOptions& c, const loader::Dataset& data, const loader::PartStats* stats,
                        const nlohmann::json& meta, const std::string& y_type, const std::string& test_name,
                        bool with_test, double seconds) {
  nlohmann::json j = {{"table", c.table},
                      {"train_rows", stats[0].rows},
                      {"features", data.dims()},
                      {"label_type", y_type},
                      {"classes", data.labels().stored_classes()},
                      {"feature_sum", stats[0].feature_sum},
                      {"max_row_norm", std::max(stats[0].max_norm, stats[1].max_norm)},
                      {"dropped_rows", meta["dropped_rows"]},
                      {"format", meta["format"]},
                      {"sparse", c.sparse},
                      {"seconds", seconds}};
  if (with_test) {
    j["test_table"] = test_name;
    j["test_rows"] = stats[1].rows;
  }
  if (data.labels().type() == loader::LabelType::Boolean) {
    j["positive"] = data.labels().positive();
    j["negative_labels"] = data.labels().negative_labels();
    j["positive_rate_train"] = positive_rate(stats[0]);
    if (with_test) j["positive_rate_test"] = positive_rate(stats[1]);
  }
  if (data.projection()) j["projection"] = meta["projection"];
  std::cout << j.dump() << "\n";
}

// What was loaded, as one line of text.
void print_summary_text(const LoadCliOptions& c, const loader::Dataset& data, const loader::PartStats* stats,
                        const std::string& test_name, bool with_test, double seconds) {
  std::cout << "loaded " << c.table << ": " << stats[0].rows << " rows";
  if (with_test) std::cout << ", " << test_name << ": " << stats[1].rows << " rows";
  std::cout << "; " << data.dims() << " features; " << data.labels().class_count() << " classes (y "
            << data.labels().describe_type();
  if (data.labels().type() == loader::LabelType::Boolean) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%.2f%%", 100.0 * positive_rate(stats[0]));
    std::cout << ", " << buf << " positive in train";
  }
  char secs[32];
  std::snprintf(secs, sizeof(secs), "%.1f", seconds);
  std::cout << "); " << secs << " s\n";
}

void run(const LoadCliOptions& c, const CLI::App& cmd) {
  const auto started = std::chrono::steady_clock::now();
  const loader::LoadOptions options = to_load_options(c, cmd);
  const bool with_test = options.test_file || options.test_rows;
  const std::string test_name = c.test_table.empty() ? c.table + "_test" : c.test_table;

  client::PgConnection conn(c.db);
  const std::string table = qualified(conn, c.table);
  const std::string test_table = c.test_table.empty() ? qualified(conn, c.table, "_test") : qualified(conn, c.test_table);
  // One table for both parts: the test part's CREATE failed on the train
  // part's table, and with --replace it dropped it, so the load "succeeded"
  // with a table of the test rows alone (--table t --test-table public.t).
  if (with_test && conn.exec("SELECT pg_catalog.parse_ident($1) = pg_catalog.parse_ident($2)", {table, test_table})
                           .get(0, 0) == "t")
    fail(ErrorKind::InvalidParameter, "--test-table " + c.test_table + " is the table of --table " + c.table, {},
         "Give the test rows a table of their own (default: <table>_test).");
  if (!c.replace) {
    refuse_existing(conn, table, c.table);
    if (with_test) refuse_existing(conn, test_table, test_name);
  }

  loader::Dataset data(options);
  for (const auto& n : data.notices()) std::cerr << "NOTICE:  " << n << "\n";

  const std::string y_type = loader::label_sql_type(data.labels().type());
  // Sparse rows (--sparse, docs/sparse.md) are small: no TOAST compression.
  const std::string compression = c.sparse ? "" : feature_column_compression(conn);
  const std::string x_type = c.sparse ? "dptrain.sparsevec" : "float8[]";
  if (c.sparse && conn.exec("SELECT to_regtype('dptrain.sparsevec') IS NOT NULL").get(0, 0) != "t")
    fail(ErrorKind::InvalidParameter, "--sparse needs the dptrain extension in the database", {},
         "CREATE EXTENSION dptrain first (it defines the type dptrain.sparsevec), or load dense rows.");
  nlohmann::json meta = data.metadata();
  meta["loaded_by"] = "dptrain load";
  meta["features_type"] = c.sparse ? "sparsevec" : "float8[]";
  // Without the extension (a plain database) the table comment is the only record.
  const bool registry =
      conn.exec("SELECT to_regprocedure('dptrain.register_load_spec(regclass, jsonb)') IS NOT NULL").get(0, 0) == "t";
  const std::string columns =
      "id bigint NOT NULL, x " + x_type + compression + " NOT NULL, y " + y_type + " NOT NULL";
  conn.exec("BEGIN");
  try {
    loader::PartStats stats[2];
    for (int p = 0; p < (with_test ? 2 : 1); ++p)
      stats[p] = load_part(conn, data, c, p, p == 0 ? table : test_table, columns, meta, registry);
    conn.exec("COMMIT");
    analyze(conn, table);
    if (with_test) analyze(conn, test_table);

    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (c.json)
      print_summary_json(c, data, stats, meta, y_type, test_name, with_test, seconds);
    else
      print_summary_text(c, data, stats, test_name, with_test, seconds);
  } catch (...) {
    try {
      conn.exec("ROLLBACK");
    } catch (...) {
    }
    throw;
  }
}

// A test file that is the training file (the same device and inode): the
// test rows would be the training rows, no held-out evaluation. For IDX also
// its labels: separate test images labelled by the training labels file
// (given, or derived from the names), which check_pair let through when the
// counts matched.
void refuse_training_files_as_test(const LoadCliOptions& o, const CLI::App& cmd) {
  if (!cmd.count("--test-file")) return;
  if (loader::same_file(o.test_file, o.file))
    throw CLI::ValidationError("--test-file", "\"" + o.test_file + "\" is the training file \"" + o.file +
                                                  "\". Give a separate test file, or --test-rows LIST to "
                                                  "hold out rows of this one.");
  const std::string labels = o.labels_file.empty() ? loader::idx_labels_path_for(o.file) : o.labels_file;
  const std::string test_labels =
      o.test_labels_file.empty() ? loader::idx_labels_path_for(o.test_file) : o.test_labels_file;
  if (!labels.empty() && !test_labels.empty() && loader::same_file(test_labels, labels))
    throw CLI::ValidationError(o.test_labels_file.empty() ? "--test-file" : "--test-labels-file",
                               "the test labels \"" + test_labels + "\" are the training labels file \"" + labels +
                                   "\". Give the test images' own labels with --test-labels-file.");
}

}  // namespace

void register_load(CLI::App& app) {
  auto o = std::make_shared<LoadCliOptions>();
  CLI::App* cmd = app.add_subcommand(
      "load", "load a data file (CSV, UCI, scikit-learn CSV, LIBSVM, IDX) into a table (id, x float8[], y)");
  cmd->add_option("FILE", o->file, "data file (gzip is read directly); IDX: the images file")->required();
  cmd->add_option("--db", o->db, "libpq connection string (default: PG* environment)");
  cmd->add_option("--table", o->table, "table to create (and <table>_test for test rows)")->required();
  cmd->add_option("--test-table", o->test_table, "name of the test table (default: <table>_test)");
  cmd->add_option("--format", o->format, "csv | sklearn | libsvm | idx (default: from the file name and content)");
  cmd->add_option("--test-file", o->test_file, "a separate test file (same format)");
  cmd->add_option("--test-rows", o->test_rows, "file of 0-based data-row numbers that form the test set");
  cmd->add_option("--label", o->label, "CSV label column: name or 1-based number (default: the last column)");
  cmd->add_option("--positive", o->positive, "label value of the positive class: y becomes boolean");
  cmd->add_option("--classes", o->classes,
                  "the data set's public label set (comma-separated; IDX default 0..9): models are private "
                  "without declaring them again")
      ->delimiter(',');
  cmd->add_option("--max-classes", o->max_classes, "refuse more distinct labels than this")->capture_default_str();
  cmd->add_option("--normalize", o->normalize, "per-row: l2 (x/||x||) | clip (x/max(1,||x||)) | none")
      ->capture_default_str();
  cmd->add_flag("--header", o->header, "CSV: the first line holds column names");
  cmd->add_flag("--no-header", o->no_header, "CSV: the first line is data");
  cmd->add_option("--columns", o->columns, "CSV: names of all columns, label included")
      ->delimiter(',')
      ->allow_extra_args(false);
  cmd->add_option("--delimiter", o->delimiter, "CSV field delimiter (a character, tab or space)")
      ->capture_default_str();
  cmd->add_option("--comment", o->comment, "CSV: lines starting with one of these characters are skipped")
      ->capture_default_str();
  cmd->add_option("--categorical", o->categorical, "CSV: columns to one-hot encode even if numeric")
      ->delimiter(',')
      ->allow_extra_args(false);
  cmd->add_option("--numeric", o->numeric, "CSV: columns that must be numeric")
      ->delimiter(',')
      ->allow_extra_args(false);
  cmd->add_option("--bounds", o->bounds, "CSV: public bounds col=min:max,... (*=min:max: every numeric column)")
      ->allow_extra_args(false);
  cmd->add_option("--categories", o->categories, "CSV: public category list col=a|b|c (repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("--missing", o->missing, "CSV: marker of a missing value (repeatable; default ?)")
      ->allow_extra_args(false);
  cmd->add_flag("--drop-missing", o->drop_missing, "CSV: skip rows holding a missing value");
  cmd->add_option("--labels-file", o->labels_file, "IDX: labels of FILE (default: derived from its name)");
  cmd->add_option("--test-labels-file", o->test_labels_file, "IDX: labels of the test file");
  cmd->add_option("--dims", o->dims, "LIBSVM: number of features (default: the largest index)");
  cmd->add_option("--max-features", o->max_features,
                  "refuse inputs of more features per row (LIBSVM index, IDX / scikit-learn header, one-hot columns)")
      ->capture_default_str();
  cmd->add_option("--project", o->project, "Gaussian random projection to K dimensions (data-independent; K <= the input's features)");
  cmd->add_option("--projection-seed", o->projection_seed, "seed of the projection matrix (public; default: random)");
  cmd->add_flag("--sparse", o->sparse,
                "store x as dptrain.sparsevec (its non-zero values; for LIBSVM and other high-dimensional sparse data)");
  cmd->add_flag("--replace", o->replace, "drop the tables first if they exist");
  cmd->add_flag("--json", o->json, "print one JSON object");
  cmd->callback([o, cmd] {
    refuse_training_files_as_test(*o, *cmd);
    run(*o, *cmd);
  });
}

}  // namespace dptrain::cli
