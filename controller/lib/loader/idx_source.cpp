#include "loader/idx_source.h"

#include <algorithm>
#include <cstdio>

#include "core/error.h"
#include "loader/text_input.h"

namespace dptrain::loader {

std::size_t IdxArray::item_size() const {
  std::size_t s = 1;
  for (std::size_t k = 1; k < shape.size(); ++k) s *= shape[k];
  return s;
}

namespace {

constexpr std::size_t kBodyChunk = std::size_t{1} << 20;

// The shape in the header of `in`, read up to the body; throws on a bad
// magic number, another type than unsigned bytes or a truncated header.
std::vector<std::uint32_t> read_idx_shape(BinaryInput& in) {
  const std::string& path = in.path();
  unsigned char m[4];
  if (in.read(m, 4) < 4 || m[0] != 0 || m[1] != 0)
    fail(ErrorKind::InvalidData, "\"" + path + "\" is not an IDX file (bad magic number)", {},
         "IDX files start with 0x00 0x00 <type> <dimensions> (MNIST: 0x00000803 images, 0x00000801 labels).");
  if (m[2] != 0x08) {
    char type[8];
    std::snprintf(type, sizeof(type), "0x%02x", m[2]);
    fail(ErrorKind::InvalidData, "\"" + path + "\" holds IDX type " + type + ", not unsigned bytes",
         {}, "Only unsigned-byte IDX files (type 0x08, as MNIST) are supported.");
  }
  const std::size_t ndims = m[3];
  std::vector<unsigned char> dims(4 * ndims);
  if (ndims == 0 || in.read(dims.data(), dims.size()) < dims.size())
    fail(ErrorKind::InvalidData, "\"" + path + "\" has a truncated IDX header");
  std::vector<std::uint32_t> shape;
  for (std::size_t k = 0; k < ndims; ++k) {
    const unsigned char* p = dims.data() + 4 * k;
    shape.push_back((std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) | p[3]);
  }
  return shape;
}

// The body size the shape declares. A header can claim up to 2^(32 * 255)
// bytes; past 2^63 it would wrap around and might pass for the body the file has.
std::size_t declared_bytes(const std::vector<std::uint32_t>& shape, const std::string& path) {
  std::size_t total = 1;
  for (const std::uint32_t d : shape) {
    if (d != 0 && total > (std::size_t{1} << 62) / d)
      fail(ErrorKind::InvalidData, "\"" + path + "\" declares more data than any file can hold", {},
           "Is it an IDX file? Its header gives the size of every dimension.");
    total *= d;
  }
  return total;
}

[[noreturn]] void refuse_body_size(const std::string& path, std::size_t declared, const std::string& has) {
  fail(ErrorKind::InvalidData, "\"" + path + "\" is truncated or has trailing bytes: its header promises " +
                                   std::to_string(declared) + " bytes of data, the file has " + has);
}

}  // namespace

IdxArray read_idx(const std::string& path) {
  BinaryInput in(path);
  IdxArray a;
  a.shape = read_idx_shape(in);
  const std::size_t total = declared_bytes(a.shape, path);
  const std::uint64_t header = 4 + 4 * std::uint64_t{a.shape.size()};
  // A plain file's size is known: a header that disagrees with it is refused
  // before anything of the declared size is allocated or read.
  if (in.size() && *in.size() - header != total) refuse_body_size(path, total, std::to_string(*in.size() - header));
  // A compressed body grows with the bytes actually inflated, never beyond
  // the declared size, and a byte past it is an error (a gzip bomb is not
  // inflated into memory).
  while (a.data.size() < total) {
    const std::size_t used = a.data.size(), want = std::min(total - used, kBodyChunk);
    a.data.resize(used + want);
    const std::size_t got = in.read(a.data.data() + used, want);
    if (got < want) refuse_body_size(path, total, std::to_string(used + got));
  }
  unsigned char extra;
  if (in.read(&extra, 1) > 0) refuse_body_size(path, total, "more");
  return a;
}

std::string idx_labels_path_for(const std::string& images_path) {
  const std::string from = "images-idx3-ubyte", to = "labels-idx1-ubyte";
  const auto slash = images_path.rfind('/');
  const auto pos = images_path.rfind(from);
  if (pos == std::string::npos || (slash != std::string::npos && pos < slash)) return {};
  return images_path.substr(0, pos) + to + images_path.substr(pos + from.size());
}

namespace {

std::string labels_path(const std::string& images, std::string given) {
  if (!given.empty()) return given;
  std::string derived = idx_labels_path_for(images);
  if (derived.empty())
    fail(ErrorKind::InvalidParameter, "no labels file for IDX images \"" + images + "\"", {},
         "Pass --labels-file (and --test-labels-file) for IDX input.");
  return derived;
}

void check_pair(const IdxArray& images, const IdxArray& labels, const std::string& ipath, const std::string& lpath) {
  if (images.shape.size() < 2)
    fail(ErrorKind::InvalidData, "\"" + ipath + "\" is not an IDX images file (it has " +
                                     std::to_string(images.shape.size()) + " dimension)", {},
         "Is it a labels file? Give the images file as FILE and the labels with --labels-file.");
  if (labels.shape.size() != 1)
    fail(ErrorKind::InvalidData, "\"" + lpath + "\" is not an IDX labels file (one dimension expected)");
  if (images.items() != labels.items())
    fail(ErrorKind::InvalidData,
         "\"" + ipath + "\" holds " + std::to_string(images.items()) + " images but \"" + lpath + "\" " +
             std::to_string(labels.items()) + " labels");
}

}  // namespace

IdxSource::IdxSource(const std::string& train_images, std::string train_labels,
                     const std::optional<std::string>& test_images, std::string test_labels,
                     const RowSplitter& splitter, std::size_t max_features) {
  if (test_images && splitter.active())
    fail(ErrorKind::InvalidParameter, "give either a test file or a test-row list, not both");
  train_labels = labels_path(train_images, train_labels);
  arrays_[0] = read_idx(train_images);
  arrays_[1] = read_idx(train_labels);
  check_pair(arrays_[0], arrays_[1], train_images, train_labels);
  dims_ = arrays_[0].item_size();
  if (dims_ == 0) fail(ErrorKind::InvalidData, "\"" + train_images + "\" holds empty images");
  if (dims_ > max_features)
    refuse_feature_count("images of " + std::to_string(dims_) + " pixels exceed the limit of " +
                         std::to_string(max_features) + " features");
  splitter.check_complete(arrays_[0].items(), train_images);
  for (std::uint32_t v = 0; v < 256; ++v) labels_.intern(std::to_string(v));

  parts_[0] = ImagePart{train_images, &arrays_[0], &arrays_[1], {}};
  if (test_images) {
    test_labels = labels_path(*test_images, test_labels);
    arrays_[2] = read_idx(*test_images);
    arrays_[3] = read_idx(test_labels);
    check_pair(arrays_[2], arrays_[3], *test_images, test_labels);
    if (arrays_[2].item_size() != dims_)
      fail(ErrorKind::InvalidData, "test images have " + std::to_string(arrays_[2].item_size()) +
                                       " pixels, training images " + std::to_string(dims_));
    parts_[1] = ImagePart{*test_images, &arrays_[2], &arrays_[3], {}};
    for (std::uint32_t i = 0; i < arrays_[2].items(); ++i) parts_[1].index.push_back(i);
  } else {
    parts_[1] = ImagePart{splitter.active() ? train_images : std::string(), &arrays_[0], &arrays_[1], {}};
  }
  for (std::uint32_t i = 0; i < arrays_[0].items(); ++i)
    parts_[static_cast<int>(splitter.part_of(i))].index.push_back(i);
  if (parts_[0].index.empty()) fail(ErrorKind::InvalidData, "no training images in \"" + train_images + "\"");
  notices_.push_back("pixels scaled by 1/255 (the bounds of the IDX byte format: data-independent)");
}

void IdxSource::features(Part p, std::size_t i, double* out) const {
  const ImagePart& s = part(p);
  const unsigned char* px = s.images->data.data() + static_cast<std::size_t>(s.index[i]) * dims_;
  for (std::size_t k = 0; k < dims_; ++k) out[k] = px[k] / 255.0;
}

std::uint32_t IdxSource::label_code(Part p, std::size_t i) const {
  const ImagePart& s = part(p);
  return s.labels->data[s.index[i]];  // labels_ interned "0".."255" in order: code = value
}

RowOrigin IdxSource::origin(Part p, std::size_t i) const {
  const std::uint64_t item = part(p).index[i];
  return RowOrigin{item, item + 1};
}

nlohmann::json IdxSource::describe() const {
  return {{"format", "idx"}, {"scaling", "pixel / 255 (format bounds)"}, {"image_shape", arrays_[0].shape}};
}

}  // namespace dptrain::loader
