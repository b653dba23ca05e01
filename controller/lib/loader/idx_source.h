// IDX files (MNIST, Fashion-MNIST): an images file (magic 0x00000803:
// n x rows x cols unsigned bytes) and a labels file (magic 0x00000801: n
// unsigned bytes), big-endian header. Pixels become pixel / 255: the bounds
// 0..255 are those of the format, known before looking at any image, so the
// scaling is data-independent.
#pragma once

#include <array>
#include <optional>
#include <vector>

#include "loader/feature_limit.h"
#include "loader/feature_source.h"

namespace dptrain::loader {

struct IdxArray {
  std::vector<std::uint32_t> shape;
  std::vector<unsigned char> data;  // the bytes after the header
  std::size_t items() const { return shape.empty() ? 0 : shape[0]; }
  std::size_t item_size() const;
};

// Reads an IDX file of unsigned bytes (gzip-compressed or not); throws
// InvalidData naming `path` on a bad magic number, a truncated header, or a
// body of another size than the header declares. The header is checked
// before the body is read: a plain file whose size disagrees with it is
// refused without reading on, and a compressed body is never held beyond the
// declared size.
IdxArray read_idx(const std::string& path);

// The labels file next to an images file: "...-images-idx3-ubyte[.gz]" ->
// "...-labels-idx1-ubyte[.gz]"; empty if the name does not follow that pattern.
std::string idx_labels_path_for(const std::string& images_path);

class IdxSource : public FeatureSource {
 public:
  // Empty label paths: derived with idx_labels_path_for. Images of more
  // than max_features pixels are refused once the header is read.
  IdxSource(const std::string& train_images, std::string train_labels, const std::optional<std::string>& test_images,
            std::string test_labels, const RowSplitter& splitter, std::size_t max_features = kDefaultMaxFeatures);
  IdxSource(const IdxSource&) = delete;  // parts_ point into arrays_
  IdxSource& operator=(const IdxSource&) = delete;

  std::size_t dims() const override { return dims_; }
  std::size_t rows(Part p) const override { return part(p).index.size(); }
  void features(Part p, std::size_t i, double* out) const override;
  std::uint32_t label_code(Part p, std::size_t i) const override;
  RowOrigin origin(Part p, std::size_t i) const override;
  const std::string& file(Part p) const override { return part(p).file; }
  const Dictionary& labels() const override { return labels_; }
  nlohmann::json describe() const override;

 private:
  struct ImagePart {
    std::string file;
    const IdxArray* images = nullptr;
    const IdxArray* labels = nullptr;
    std::vector<std::uint32_t> index;  // item numbers of this part's rows
  };
  const ImagePart& part(Part p) const { return parts_[static_cast<int>(p)]; }

  std::array<IdxArray, 4> arrays_;  // train images, train labels, test images, test labels
  std::array<ImagePart, 2> parts_;
  Dictionary labels_;  // "0".."255"
  std::size_t dims_ = 0;
};

}  // namespace dptrain::loader
