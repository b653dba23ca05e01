#include "raw_file.h"

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "loader/copy_rows.h"
#include "loader/load_spec.h"
#include "model_reference.h"

namespace dptrain::cli {

namespace {

constexpr const char* kTable = "pg_temp.dptrain_raw_file_rows";

// The model's load spec, as the caller may see the model (row-level security).
nlohmann::json model_load_spec(client::PgConnection& conn, const std::string& model) {
  client::PgResult r = conn.exec(
      std::string("SELECT m.details->'load_spec' FROM dptrain.models m WHERE ") + kModelByReference, {model});
  if (r.rows() != 1) throw client::PgError("model \"" + model + "\" does not exist", "42704");
  if (r.is_null(0, 0))
    fail(ErrorKind::InvalidParameter, "model \"" + model + "\" has no load spec",
         "Only models trained on a table made by dptrain load (since load specs are recorded) know how to read a "
         "raw file.",
         "Score a table instead (--table), e.g. the test table dptrain load made.");
  return nlohmann::json::parse(r.get(0, 0));
}

}  // namespace

std::string load_raw_file(client::PgConnection& conn, const std::string& model, const RawFile& file) {
  const nlohmann::json spec = model_load_spec(conn, model);
  loader::Dataset data = loader::scoring_dataset(spec, file.path, file.labels_file);
  const bool sparse = spec.value("features_type", std::string("float8[]")) == "sparsevec";
  conn.exec(std::string("CREATE TEMP TABLE ") + kTable + " (id bigint NOT NULL, x " +
            (sparse ? "dptrain.sparsevec" : "float8[]") + " NOT NULL, y " +
            loader::label_sql_type(data.labels().type()) + " NOT NULL) ON COMMIT DROP");
  loader::copy_part(conn, data, loader::Part::Train, kTable, /*show_progress=*/true, sparse);
  return kTable;
}

}  // namespace dptrain::cli
