#include "loader/csv_source.h"

namespace dptrain::loader {

CsvSource::CsvSource(const std::string& train_file, const std::optional<std::string>& test_file,
                     const RowSplitter& splitter, const CsvOptions& csv, const SchemaOptions& schema)
    : table_(read_csv(train_file, test_file, splitter, csv)),
      schema_(std::make_unique<ColumnSchema>(table_, schema)) {
  notices_ = schema_->notices();
}

nlohmann::json CsvSource::describe() const {
  const char* header = table_.header == HeaderKind::Names     ? "names"
                       : table_.header == HeaderKind::Sklearn ? "scikit-learn"
                                                              : "none";
  nlohmann::json j = schema_->describe();
  j["format"] = table_.header == HeaderKind::Sklearn ? "sklearn" : "csv";
  j["header"] = header;
  j["columns"] = table_.names;
  // --columns renamed a header: scoring renames the same way and checks the
  // file's own header against this.
  if (table_.header == HeaderKind::Names && table_.file_header != table_.names) j["file_header"] = table_.file_header;
  j["label_column"] = table_.names[table_.label_column];
  if (!table_.sklearn_classes.empty()) j["class_names"] = table_.sklearn_classes;
  return j;
}

}  // namespace dptrain::loader
