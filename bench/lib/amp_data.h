// In-memory train/test sets for bench/amp_prototype: the AMP paper's own
// Adult split (its preprocessing exactly), and any set `dptrain load` reads
// (the loader's standard pipeline: min-max scaling with training bounds, rows
// of unit norm), e.g. the official Adult split and KDD Cup 99's seeded split.
#pragma once

#include <string>
#include <vector>

#include "core/optim/in_memory_glm.h"
#include "loader/dataset.h"

namespace dptrain::bench {

struct LabeledRows {
  optim::RowMatrix x;
  std::vector<int> classes;  // binary: 1 = positive
};

struct TrainTest {
  LabeledRows train, test;
  int models = 1;  // 1 = binary, K >= 3 one-vs-all
  std::string description;
};

// shared/data/README.md "The AMP paper's own splits": the records of
// adult.data and adult.test without '?', each file minus its last such record
// (45,220), shuffled by splits/adult_amp_paper_order.txt.gz, first 36,176 rows
// train; numeric columns divided by their maximum over all 45,220 rows,
// categories one-hot (104 features), no row normalization.
TrainTest adult_amp_paper(const std::string& data_dir);

// shared/data/README.md "The AMP paper's own splits": the 70,000 lines of
// kddcup.data_10_percent.gz listed by splits/kddcup99_amp_paper_rows.txt.gz
// (drawn with replacement, in the paper's shuffled order), first 56,000 rows
// train; the three symbolic columns one-hot over the categories present in
// the 70,000 rows (first, as the paper's code), then the 38 numeric columns
// unscaled (113 features); label 1 = "normal.". No row normalization: rows
// have norms up to millions, the paper clips them to L inside training.
TrainTest kdd_amp_paper(const std::string& data_dir);

// A set through the loader pipeline (dataset.h): boolean labels give a
// binary task, integer or text labels K >= 3 one-vs-all classes (in the
// order of LabelEncoder::classes()).
TrainTest load_set(const loader::LoadOptions& options, const std::string& description);

}  // namespace dptrain::bench
