// LIBSVM / svmlight sparse text ("label index:value index:value ...",
// 1-based increasing indices, "# comment" allowed, "qid:N" ignored) as a
// FeatureSource with dense rows. Values are used as given (no scaling: the
// format's values are usually already in [0, 1], like Reuters' tf-idf rows);
// the pipeline still normalizes each row.
#pragma once

#include <array>
#include <optional>

#include "loader/feature_limit.h"
#include "loader/feature_source.h"

namespace dptrain::loader {

struct LibsvmEntry {
  std::uint32_t index = 0;  // 0-based
  double value = 0;
};

struct LibsvmRow {
  std::string_view label;
  std::vector<LibsvmEntry> entries;
};

// Parses one non-blank line; `where` ("file:line") goes into errors.
void parse_libsvm_line(std::string_view line, LibsvmRow& row, const std::string& where);

class LibsvmSource : public FeatureSource {
 public:
  // dims = 0: the largest index of the train and test files. An index (or
  // dims) beyond max_features is refused while the files are read.
  LibsvmSource(const std::string& train_file, const std::optional<std::string>& test_file,
               const RowSplitter& splitter, std::size_t dims, std::size_t max_features = kDefaultMaxFeatures);

  std::size_t dims() const override { return dims_; }
  std::size_t rows(Part p) const override { return part(p).label.size(); }
  void features(Part p, std::size_t i, double* out) const override;
  std::uint32_t label_code(Part p, std::size_t i) const override { return part(p).label[i]; }
  RowOrigin origin(Part p, std::size_t i) const override { return part(p).origin[i]; }
  const std::string& file(Part p) const override { return part(p).file; }
  const Dictionary& labels() const override { return labels_; }
  nlohmann::json describe() const override;

 private:
  struct SparsePart {
    std::string file;
    std::vector<std::size_t> start{0};  // CSR row starts
    std::vector<LibsvmEntry> entries;
    std::vector<std::uint32_t> label;
    std::vector<RowOrigin> origin;
  };
  const SparsePart& part(Part p) const { return parts_[static_cast<int>(p)]; }
  std::uint64_t read_file(const std::string& path, bool is_test_file, const RowSplitter& splitter);

  std::array<SparsePart, 2> parts_;
  Dictionary labels_;
  std::size_t dims_ = 0;
  std::size_t max_index_ = 0;
  std::size_t max_features_ = kDefaultMaxFeatures;
};

}  // namespace dptrain::loader
