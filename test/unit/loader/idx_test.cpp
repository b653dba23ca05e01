#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdlib>
#include <new>

#include "core/error.h"
#include "loader/dataset.h"
#include "loader/idx_source.h"
#include "temp_file.h"

namespace dptrain::loader {
namespace {

using testing::TempFile;

std::string be32(std::uint32_t v) {
  return {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8), static_cast<char>(v)};
}

// n images of 2 x 3 pixels: image i has pixels i*10 + k.
std::string images(std::uint32_t n) {
  std::string s = be32(0x00000803) + be32(n) + be32(2) + be32(3);
  for (std::uint32_t i = 0; i < n; ++i)
    for (int k = 0; k < 6; ++k) s.push_back(static_cast<char>(i * 10 + k));
  return s;
}

std::string labels(const std::vector<int>& v) {
  std::string s = be32(0x00000801) + be32(static_cast<std::uint32_t>(v.size()));
  for (int x : v) s.push_back(static_cast<char>(x));
  return s;
}

TEST(Idx, ParsesHeaderAndBody) {
  TempFile plain(images(4)), gz(images(4), ".gz", true);
  for (const TempFile* f : {&plain, &gz}) {
    const IdxArray a = read_idx(f->path());
    EXPECT_EQ(a.shape, (std::vector<std::uint32_t>{4, 2, 3}));
    EXPECT_EQ(a.items(), 4u);
    EXPECT_EQ(a.item_size(), 6u);
    EXPECT_EQ(a.data[6 + 1], 11);
  }
}

TEST(Idx, MalformedFilesAreErrors) {
  TempFile zip("PK\3\4....");
  EXPECT_LOAD_ERROR(read_idx(zip.path()), "\"" + zip.path() + "\" is not an IDX file (bad magic number)");
  std::string floats = images(1);
  floats[2] = 0x0D;
  TempFile f(floats);
  EXPECT_LOAD_ERROR(read_idx(f.path()), "not unsigned bytes");
  const std::string whole = images(3);
  const std::string promise = "is truncated or has trailing bytes: its header promises 18 bytes of data, the file has ";
  for (const bool gzip : {false, true}) {
    TempFile cut(whole.substr(0, whole.size() - 1), ".idx", gzip), longer(whole + "x", ".idx", gzip);
    EXPECT_LOAD_ERROR(read_idx(cut.path()), "\"" + cut.path() + "\" " + promise + "17");
    EXPECT_LOAD_ERROR(read_idx(longer.path()), "\"" + longer.path() + "\" " + promise + (gzip ? "more" : "19"));
    TempFile hdr(whole.substr(0, 9), ".idx", gzip);
    EXPECT_LOAD_ERROR(read_idx(hdr.path()), "truncated IDX header");
  }
}

// Reads `path` under a 64 MiB data limit: exit 0 if refused with `text`.
void read_idx_in_64_mib(const std::string& path, const std::string& text) {
  const rlimit lim{64u << 20, 64u << 20};
  if (setrlimit(RLIMIT_DATA, &lim) != 0) std::_Exit(3);
  try {
    read_idx(path);
  } catch (const Error& e) {
    std::_Exit(std::string(e.what()).find(text) != std::string::npos ? 0 : 1);
  } catch (const std::bad_alloc&) {
    std::_Exit(2);
  }
  std::_Exit(4);
}

// The header is checked before the body is read: a file that holds far
// more than its header declares is not read into memory first (the reader
// used to take the whole inflated file, then compare).
TEST(IdxDeathTest, AHeaderThatDisagreesWithTheFileIsRefusedBeforeItsBodyIsRead) {
  TempFile sparse(images(1));  // 6 bytes declared, 8 GiB of holes after them
  ASSERT_EQ(::truncate(sparse.path().c_str(), off_t{1} << 33), 0);
  EXPECT_EXIT(read_idx_in_64_mib(sparse.path(), "promises 6 bytes of data, the file has 8589934576"),
              ::testing::ExitedWithCode(0), "");
  TempFile bomb(images(1) + std::string(std::size_t{128} << 20, '\0'), ".gz", true);  // 128 MiB inflated
  EXPECT_EXIT(read_idx_in_64_mib(bomb.path(), "promises 6 bytes of data, the file has more"),
              ::testing::ExitedWithCode(0), "");
}

TEST(Idx, LabelsPathFollowsTheMnistNaming) {
  EXPECT_EQ(idx_labels_path_for("/d/t10k-images-idx3-ubyte.gz"), "/d/t10k-labels-idx1-ubyte.gz");
  EXPECT_EQ(idx_labels_path_for("train-images-idx3-ubyte"), "train-labels-idx1-ubyte");
  EXPECT_EQ(idx_labels_path_for("/images-idx3-ubyte.d/pixels.bin"), "");
}

TEST(IdxSource, PixelsOver255LabelsAndTestRows) {
  TempFile img(images(5), ".gz", true), lab(labels({7, 0, 3, 3, 9}), ".gz", true);
  const IdxSource s(img.path(), lab.path(), std::nullopt, "", RowSplitter({1, 4}, "list"));
  EXPECT_EQ(s.dims(), 6u);
  ASSERT_EQ(s.rows(Part::Train), 3u);
  ASSERT_EQ(s.rows(Part::Test), 2u);
  std::vector<double> x(6);
  s.features(Part::Train, 1, x.data());  // item 2
  EXPECT_EQ(x[0], 20 / 255.0);
  EXPECT_EQ(x[5], 25 / 255.0);
  EXPECT_EQ(s.labels().value(s.label_code(Part::Train, 1)), "3");
  EXPECT_EQ(s.origin(Part::Test, 1).row, 4u);
  EXPECT_EQ(s.labels().value(s.label_code(Part::Test, 1)), "9");
}

TEST(IdxSource, MismatchedOrMissingFilesAreErrors) {
  TempFile img(images(3)), lab(labels({1, 2})), lab3(labels({1, 2, 3}));
  EXPECT_LOAD_ERROR(IdxSource(img.path(), lab.path(), std::nullopt, "", RowSplitter()),
                    "holds 3 images but \"" + lab.path() + "\" 2 labels");
  EXPECT_LOAD_ERROR(IdxSource(lab3.path(), lab3.path(), std::nullopt, "", RowSplitter()),
                    "is not an IDX images file");
  EXPECT_LOAD_ERROR(IdxSource(img.path(), "", std::nullopt, "", RowSplitter()), "no labels file for IDX images");
  EXPECT_LOAD_ERROR(IdxSource(img.path(), "/nonexistent/labels", std::nullopt, "", RowSplitter()),
                    "cannot open input file \"/nonexistent/labels\"");
}

// An IDX load's classes are the format's documented digits 0..9, public
// (docs/loading-data.md, "Public classes"), not the labels its rows show.
TEST(IdxDataset, ClassesAreThePublicDigits) {
  TempFile img(images(3)), lab(labels({7, 0, 3}));
  LoadOptions o;
  o.file = img.path();
  o.format = Format::Idx;
  o.labels_file = lab.path();
  Dataset d(o);
  const nlohmann::json meta = d.metadata();
  EXPECT_EQ(meta["classes"], (std::vector<std::string>{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"}));
  EXPECT_EQ(meta["classes_public"], true);
  EXPECT_EQ(meta["label_type"], "integer");
}

TEST(IdxDataset, DeclaredClassesAndPositive) {
  TempFile img(images(3)), lab(labels({7, 0, 12}));
  LoadOptions o;
  o.file = img.path();
  o.format = Format::Idx;
  o.labels_file = lab.path();
  // 12 is no digit: refused, with the way out.
  EXPECT_LOAD_ERROR(Dataset{o}, "label \"12\" at");
  // --classes declares another public label set.
  o.label_classes = std::vector<std::string>{"0", "7", "12", "20"};
  o.public_classes = true;
  EXPECT_EQ(Dataset{o}.metadata()["classes"], (std::vector<std::string>{"0", "7", "12", "20"}));
  // --positive keeps its boolean label, without public classes.
  LoadOptions b;
  b.file = img.path();
  b.format = Format::Idx;
  b.labels_file = lab.path();
  b.labels.positive = "7";
  const nlohmann::json meta = Dataset{b}.metadata();
  EXPECT_EQ(meta["label_type"], "boolean");
  EXPECT_FALSE(meta.contains("classes_public"));
}

}  // namespace
}  // namespace dptrain::loader
