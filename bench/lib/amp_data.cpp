#include "amp_data.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <map>
#include <set>

#include "core/error.h"
#include "loader/csv.h"
#include "loader/text_input.h"

namespace dptrain::bench {
namespace {

// Adult's columns: which are numeric (the other 8 are categorical); the 15th is the label.
constexpr bool kNumeric[14] = {true, false, true, false, true, false, false, false, false, false, true, true, true, false};

using Record = std::vector<std::string>;  // 14 fields and the label

// The records of one Adult file without a '?' field, in file order.
std::vector<Record> complete_records(const std::string& path) {
  loader::LineReader in(path);
  loader::CsvDialect dialect;
  std::string line;
  std::vector<std::string_view> fields;
  std::deque<std::string> scratch;
  std::vector<Record> out;
  while (in.next(line)) {
    if (loader::is_skipped_line(line, dialect)) continue;
    loader::split_fields(line, dialect, fields, scratch, path);
    if (fields.size() != 15) fail(ErrorKind::InvalidData, "adult: expected 15 fields", loader::file_line(path, in.line_number()));
    if (std::any_of(fields.begin(), fields.end(), [](std::string_view f) { return f == "?"; })) continue;
    Record r(fields.begin(), fields.end());
    r[14] = std::string(loader::normalize_label(r[14]));
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<std::size_t> read_order(const std::string& path) {
  loader::LineReader in(path);
  std::string line;
  std::vector<std::size_t> order;
  while (in.next(line))
    if (!line.empty()) order.push_back(static_cast<std::size_t>(std::stoull(line)));
  return order;
}

// KDD Cup 99: 41 fields and the label; fields 1-3 (protocol, service, flag) are symbolic.
constexpr int kKddFields = 41;
bool kdd_symbolic(int c) { return c >= 1 && c <= 3; }

// The fields of the 0-based `wanted` lines of a KDD file, by line number.
std::map<std::size_t, Record> kdd_lines(const std::string& path, const std::set<std::size_t>& wanted) {
  loader::LineReader in(path);
  loader::CsvDialect dialect;
  std::string line;
  std::vector<std::string_view> fields;
  std::deque<std::string> scratch;
  std::map<std::size_t, Record> out;
  while (in.next(line)) {
    const std::size_t k = static_cast<std::size_t>(in.line_number() - 1);
    if (!wanted.count(k)) continue;
    loader::split_fields(line, dialect, fields, scratch, path);
    if (fields.size() != kKddFields + 1)
      fail(ErrorKind::InvalidData, "kddcup99: expected 42 fields", loader::file_line(path, in.line_number()));
    out.emplace(k, Record(fields.begin(), fields.end()));
  }
  if (out.size() != wanted.size()) fail(ErrorKind::InvalidData, "kddcup99: the row file names lines past the end");
  return out;
}

}  // namespace

TrainTest kdd_amp_paper(const std::string& data_dir) {
  const std::vector<std::size_t> rows = read_order(data_dir + "/splits/kddcup99_amp_paper_rows.txt.gz");
  if (rows.size() != 70000) fail(ErrorKind::InvalidData, "kddcup99: the row file must list 70,000 lines");
  const std::map<std::size_t, Record> line =
      kdd_lines(data_dir + "/kddcup99/kddcup.data_10_percent.gz", std::set<std::size_t>(rows.begin(), rows.end()));

  // One-hot over the categories of the 70,000 drawn rows (sorted, as a label
  // encoder does), symbolic columns first, then the numeric ones, as the
  // paper's code stacks them (the order does not change a linear model).
  std::vector<std::map<std::string, int>> slot(kKddFields);
  for (std::size_t k : rows)
    for (int c = 0; c < kKddFields; ++c)
      if (kdd_symbolic(c)) slot[c][line.at(k)[c]] = 0;
  std::vector<int> offset(kKddFields);
  int dim = 0;
  for (int c = 0; c < kKddFields; ++c)
    if (kdd_symbolic(c)) {
      offset[c] = dim;
      for (auto& [value, index] : slot[c]) index = dim++ - offset[c];
    }
  for (int c = 0; c < kKddFields; ++c)
    if (!kdd_symbolic(c)) offset[c] = dim++;

  const std::size_t n_train = 56000;
  TrainTest t;
  t.description = "kddcup99 10%, the AMP paper's 70,000 rows drawn with replacement (56,000 / 14,000), "
                  "numeric unscaled, no row normalization";
  t.train.x = optim::RowMatrix::Zero(static_cast<Eigen::Index>(n_train), dim);
  t.test.x = optim::RowMatrix::Zero(static_cast<Eigen::Index>(rows.size() - n_train), dim);
  t.train.classes.resize(n_train);
  t.test.classes.resize(rows.size() - n_train);
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const Record& r = line.at(rows[k]);
    LabeledRows& part = k < n_train ? t.train : t.test;
    const Eigen::Index i = static_cast<Eigen::Index>(k < n_train ? k : k - n_train);
    for (int c = 0; c < kKddFields; ++c) {
      if (kdd_symbolic(c)) part.x(i, offset[c] + slot[c].at(r[c])) = 1.0;
      else part.x(i, offset[c]) = std::stod(r[c]);
    }
    part.classes[static_cast<std::size_t>(i)] = loader::normalize_label(r[kKddFields]) == "normal" ? 1 : 0;
  }
  return t;
}

TrainTest adult_amp_paper(const std::string& data_dir) {
  // The pool P: each file's complete records minus the last one (the paper's code drops it).
  std::vector<Record> pool = complete_records(data_dir + "/adult/adult.data.gz");
  pool.pop_back();
  std::vector<Record> test = complete_records(data_dir + "/adult/adult.test.gz");
  test.pop_back();
  pool.insert(pool.end(), test.begin(), test.end());
  if (pool.size() != 45220) fail(ErrorKind::InvalidData, "adult: expected 45,220 complete records");

  // Encoding fitted on P: numeric / max, one-hot over the sorted categories.
  std::vector<double> max(14, 0);
  std::vector<std::map<std::string, int>> slot(14);
  for (const Record& r : pool)
    for (int c = 0; c < 14; ++c) {
      if (kNumeric[c]) max[c] = std::max(max[c], std::stod(r[c]));
      else slot[c][r[c]] = 0;
    }
  std::vector<int> offset(14);
  int dim = 0;
  for (int c = 0; c < 14; ++c) {
    offset[c] = dim;
    if (kNumeric[c]) { ++dim; continue; }
    int k = 0;
    for (auto& [value, index] : slot[c]) index = k++;
    dim += k;
  }

  const std::vector<std::size_t> order = read_order(data_dir + "/splits/adult_amp_paper_order.txt.gz");
  if (order.size() != pool.size()) fail(ErrorKind::InvalidData, "adult: the order file must list 45,220 rows");
  const std::size_t n_train = 36176;
  TrainTest t;
  t.description = "adult, the AMP paper's split (36,176 / 9,044), numeric / max, no row normalization";
  for (LabeledRows* part : {&t.train, &t.test}) {
    const std::size_t rows = part == &t.train ? n_train : pool.size() - n_train;
    part->x = optim::RowMatrix::Zero(static_cast<Eigen::Index>(rows), dim);
    part->classes.resize(rows);
  }
  for (std::size_t k = 0; k < order.size(); ++k) {
    const Record& r = pool.at(order[k]);
    LabeledRows& part = k < n_train ? t.train : t.test;
    const Eigen::Index i = static_cast<Eigen::Index>(k < n_train ? k : k - n_train);
    for (int c = 0; c < 14; ++c) {
      if (kNumeric[c]) part.x(i, offset[c]) = max[c] > 0 ? std::stod(r[c]) / max[c] : 0.0;
      else part.x(i, offset[c] + slot[c].at(r[c])) = 1.0;
    }
    part.classes[static_cast<std::size_t>(i)] = r[14] == ">50K" ? 1 : 0;
  }
  return t;
}

TrainTest load_set(const loader::LoadOptions& options, const std::string& description) {
  loader::Dataset data(options);
  const bool binary = data.labels().type() == loader::LabelType::Boolean;
  const std::vector<std::string>& names = data.labels().classes();
  if (!binary && names.size() < 3) fail(ErrorKind::InvalidParameter, "load_set: need 2 boolean or >= 3 classes");
  const auto class_of = [&](const loader::LabelValue& v) {
    if (binary) return v.boolean ? 1 : 0;
    const std::string name = data.labels().type() == loader::LabelType::Integer ? std::to_string(v.integer) : v.text;
    const auto it = std::find(names.begin(), names.end(), name);
    if (it == names.end()) fail(ErrorKind::InvalidData, "load_set: unknown class " + name);
    return static_cast<int>(it - names.begin());
  };
  TrainTest t;
  t.description = description;
  t.models = binary ? 1 : static_cast<int>(names.size());
  const Eigen::Index d = static_cast<Eigen::Index>(data.dims());
  for (loader::Part p : {loader::Part::Train, loader::Part::Test}) {
    LabeledRows& part = p == loader::Part::Train ? t.train : t.test;
    const std::size_t rows = data.rows(p);
    part.x.resize(static_cast<Eigen::Index>(rows), d);
    part.classes.resize(rows);
    for (std::size_t i = 0; i < rows; ++i)
      part.classes[i] = class_of(data.row(p, i, part.x.row(static_cast<Eigen::Index>(i)).data()));
  }
  return t;
}

}  // namespace dptrain::bench
