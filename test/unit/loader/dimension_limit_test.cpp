// `dptrain load` refuses absurd dimensions before it allocates anything
// dense (issue 15, item 4): a LIBSVM file with feature index 999999999 made
// the loader allocate 18.5 GB. The limit (LoadOptions::max_features,
// `--max-features`, default kDefaultMaxFeatures) applies to every format and
// is checked where the dimension is first known: LIBSVM indices while
// parsing, IDX and scikit-learn CSV headers before their bodies, and the
// final feature count (one-hot columns included) before any row is built.
#include <gtest/gtest.h>

#include "core/error.h"
#include "loader/dataset.h"
#include "loader/idx_source.h"
#include "loader/libsvm_source.h"
#include "temp_file.h"

namespace dptrain::loader {
namespace {

using testing::TempFile;

std::string be32(std::uint32_t v) {
  return {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8), static_cast<char>(v)};
}

TEST(DimensionLimit, TheDefaultIsOneMillionFeatures) {
  EXPECT_EQ(kDefaultMaxFeatures, 1000000u);
  EXPECT_EQ(LoadOptions().max_features, kDefaultMaxFeatures);
}

TEST(DimensionLimit, LibsvmIndexBeyondTheLimitIsRefusedWhileParsing) {
  TempFile f("1 3:0.5 999999999:1\n-1 2:1\n");
  EXPECT_LOAD_ERROR(LibsvmSource(f.path(), std::nullopt, RowSplitter(), 0),
                    "feature index 999999999 at " + f.path() + ":1 exceeds the limit of 1000000 features");
  // overridable: the source is sparse, nothing dense is allocated yet
  const LibsvmSource wide(f.path(), std::nullopt, RowSplitter(), 0, 1000000000);
  EXPECT_EQ(wide.dims(), 999999999u);
  // a fixed --dims beyond the limit is refused too
  TempFile small("1 3:0.5\n");
  EXPECT_LOAD_ERROR(LibsvmSource(small.path(), std::nullopt, RowSplitter(), 2000000),
                    "--dims 2000000 exceeds the limit of 1000000 features");
}

TEST(DimensionLimit, DatasetRefusesBeforeBuildingARow) {
  TempFile f("1 3:0.5 999999999:1\n-1 2:1\n");
  LoadOptions o;
  o.file = f.path();
  EXPECT_LOAD_ERROR(Dataset{o}, "exceeds the limit of 1000000 features");
  o.max_features = 5;
  TempFile csv("a,b,y\nr,s,1\nt,u,0\nv,w,1\n");  // 3 + 3 one-hot features
  o.file = csv.path();
  EXPECT_LOAD_ERROR(Dataset{o}, "6 features exceed the limit of 5 (--max-features)");
  o.max_features = 6;
  EXPECT_EQ(Dataset{o}.dims(), 6u);
  // a random projection from d to k: k is checked as well
  o.project = 7;
  EXPECT_LOAD_ERROR(Dataset{o}, "--project 7 exceeds the limit of 6 features");
}

// --project K reduces the dimension: K beyond the input's d features is
// refused before the K x d matrix is drawn (K = 1000000 at d = 40 used to
// allocate 320 MB), and so is a matrix beyond 2^28 entries.
TEST(DimensionLimit, ProjectionBeyondTheInputWidthIsRefused) {
  std::string rows;
  for (int i = 0; i < 4; ++i) rows += std::string(i % 2 ? "1" : "-1") + " 1:0.5 40:1\n";
  TempFile f(rows);
  LoadOptions o;
  o.file = f.path();
  o.projection_seed = 1;
  for (const std::size_t k : {std::size_t{41}, std::size_t{1000000}})
    try {
      o.project = k;
      Dataset{o};
      ADD_FAILURE() << "--project " << k << " was accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::InvalidParameter);
      EXPECT_EQ(std::string(e.what()), "--project " + std::to_string(k) + " exceeds the input's 40 features");
    }
  o.project = 40;
  EXPECT_EQ(Dataset{o}.dims(), 40u);
  TempFile wide("1 1:0.5 20000:1\n-1 2:1\n");
  o.file = wide.path();
  o.project = 20000;  // K <= d, but 20000 x 20000 entries
  EXPECT_LOAD_ERROR(Dataset{o}, "random projection matrix too large");
}

TEST(DimensionLimit, IdxHeadersAreCheckedBeforeTheBody) {
  // 65536^4 = 2^64 bytes wraps around to 0 in 64 bits: the header must not
  // pass for an empty body (each item would claim 2^48 pixels).
  const std::string wrapping = be32(0x00000804) + be32(65536) + be32(65536) + be32(65536) + be32(65536);
  TempFile wrap(wrapping);
  EXPECT_LOAD_ERROR(read_idx(wrap.path()), "\"" + wrap.path() + "\" declares more data than any file can hold");
  // images of more pixels than the limit
  std::string img = be32(0x00000803) + be32(1) + be32(2) + be32(3) + std::string(6, '\1');
  std::string lab = be32(0x00000801) + be32(1) + std::string(1, '\1');
  TempFile images(img), labels(lab);
  EXPECT_LOAD_ERROR(IdxSource(images.path(), labels.path(), std::nullopt, "", RowSplitter(), 5),
                    "images of 6 pixels exceed the limit of 5 features");
  EXPECT_EQ(IdxSource(images.path(), labels.path(), std::nullopt, "", RowSplitter(), 6).dims(), 6u);
}

TEST(DimensionLimit, ScikitLearnHeaderIsCheckedBeforeColumnsAreMade) {
  TempFile f("3,20000000,a,b\n1,2,0\n");
  LoadOptions o;
  o.file = f.path();
  o.format = Format::Sklearn;
  EXPECT_LOAD_ERROR(Dataset{o}, "header declares 20000000 features, more than the limit of 1000000");
}

}  // namespace
}  // namespace dptrain::loader
