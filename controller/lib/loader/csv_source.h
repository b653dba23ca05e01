// Delimited text input as a FeatureSource: csv_table reads the cells,
// column_schema turns them into scaled / one-hot features.
#pragma once

#include <memory>
#include <optional>

#include "loader/column_schema.h"
#include "loader/csv_table.h"
#include "loader/feature_source.h"

namespace dptrain::loader {

class CsvSource : public FeatureSource {
 public:
  CsvSource(const std::string& train_file, const std::optional<std::string>& test_file, const RowSplitter& splitter,
            const CsvOptions& csv, const SchemaOptions& schema);

  std::size_t dims() const override { return schema_->dims(); }
  std::size_t rows(Part p) const override { return table_.part(p).rows(); }
  void features(Part p, std::size_t i, double* out) const override {
    schema_->encode(table_.part(p).codes.data() + i * table_.width(), out);
  }
  std::uint32_t label_code(Part p, std::size_t i) const override { return table_.part(p).label[i]; }
  RowOrigin origin(Part p, std::size_t i) const override { return table_.part(p).origin[i]; }
  const std::string& file(Part p) const override { return table_.part(p).file; }
  const Dictionary& labels() const override { return table_.labels; }
  std::vector<std::string> feature_names() const override { return schema_->feature_names(); }
  nlohmann::json describe() const override;
  std::uint64_t dropped(Part p) const override { return table_.part(p).dropped; }

  const CsvTable& table() const { return table_; }
  const ColumnSchema& schema() const { return *schema_; }

 private:
  CsvTable table_;
  std::unique_ptr<ColumnSchema> schema_;
};

}  // namespace dptrain::loader
