// How many features `dptrain load` builds per row. Every row is built
// densely (8 bytes per feature) and every format can claim any width -- a
// LIBSVM index, an IDX or scikit-learn header, one-hot columns -- so the
// width is checked against a limit where it first becomes known, before
// anything of that size is allocated (--max-features raises it).
#pragma once

#include <cstddef>
#include <string>

namespace dptrain::loader {

inline constexpr std::size_t kDefaultMaxFeatures = 1000000;

// Throws dptrain::Error(InvalidData) "<message>" with the --max-features hint.
[[noreturn]] void refuse_feature_count(const std::string& message);

}  // namespace dptrain::loader
