#include "core/sparse/sparse_vector.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "core/error.h"

namespace dptrain::sparse {
namespace {

constexpr const char* kFormHint =
    "Write a sparse vector as {index:value,...}/dimension with 1-based, strictly increasing indices, "
    "e.g. {1:0.5,7:0.25}/8315 (an all-zero row: {}/8315).";

[[noreturn]] void malformed(std::string_view text, std::size_t at, const std::string& why) {
  throw Error(ErrorKind::InvalidData, "invalid input syntax for type dptrain.sparsevec: \"" + std::string(text) + "\"",
              why + " (at character " + std::to_string(at + 1) + ").", kFormHint, "22P02");
}

// A cursor over the text with the few token readers the form needs.
struct Cursor {
  std::string_view text;
  std::size_t at = 0;

  void blanks() {
    while (at < text.size() && (text[at] == ' ' || text[at] == '\t' || text[at] == '\n' || text[at] == '\r')) ++at;
  }
  bool take(char c) {
    blanks();
    if (at < text.size() && text[at] == c) {
      ++at;
      return true;
    }
    return false;
  }
  void expect(char c, const char* what) {
    if (!take(c)) malformed(text, at, std::string("expected ") + what);
  }
  // A decimal integer (no sign, no blanks inside).
  std::int64_t integer(const char* what) {
    blanks();
    const std::size_t start = at;
    std::int64_t v = 0;
    while (at < text.size() && text[at] >= '0' && text[at] <= '9') {
      if (v > kMaxDim * 10) malformed(text, start, std::string(what) + " is too large");
      v = v * 10 + (text[at] - '0');
      ++at;
    }
    if (at == start) malformed(text, start, std::string("expected ") + what);
    return v;
  }
  // A float8 as strtod reads it (NaN and infinity are read, then refused by
  // validate), from a copy of the token alone: up to the next separator, so
  // that the whole text is copied once, however many numbers it holds.
  double number() {
    blanks();
    const std::size_t end_of_token = std::min(text.find_first_of(",} \t\n\r", at), text.size());
    const std::string rest(text.substr(at, end_of_token - at));
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(rest.c_str(), &end);
    if (end == rest.c_str()) malformed(text, at, "expected a number");
    if (errno == ERANGE && std::isinf(v))
      throw Error(ErrorKind::InvalidData, "value out of range for type dptrain.sparsevec",
                  "A value at character " + std::to_string(at + 1) + " overflows float8.",
                  "Scale the features (dptrain load normalizes rows to norm 1).", "22003");
    at += static_cast<std::size_t>(end - rest.c_str());
    return v;
  }
};

}  // namespace

void validate(const RowView& row) {
  if (row.dim < 1 || row.dim > kMaxDim)
    throw Error(ErrorKind::InvalidData, "sparse vector dimension must be between 1 and " + std::to_string(kMaxDim),
                "Got " + std::to_string(row.dim) + ".", kFormHint, "22023");
  if (row.nnz < 0 || row.nnz > row.dim)
    throw Error(ErrorKind::InvalidData, "sparse vector has more entries than its dimension",
                std::to_string(row.nnz) + " entries for dimension " + std::to_string(row.dim) + ".", kFormHint,
                "22023");
  for (std::int32_t k = 0; k < row.nnz; ++k) {
    const std::int32_t i = row.index[k];
    if (i < 0 || i >= row.dim)
      throw Error(ErrorKind::InvalidData, "sparse vector index out of range",
                  "Index " + std::to_string(static_cast<std::int64_t>(i) + 1) + " (1-based) is outside 1.." +
                      std::to_string(row.dim) + ".",
                  "Indices are 1-based and at most the dimension after the /.", sqlstate::kArraySubscriptError);
    if (k > 0 && i <= row.index[k - 1])
      throw Error(ErrorKind::InvalidData,
                  i == row.index[k - 1] ? "sparse vector index appears twice" : "sparse vector indices are not increasing",
                  "Index " + std::to_string(static_cast<std::int64_t>(i) + 1) + " follows index " +
                      std::to_string(static_cast<std::int64_t>(row.index[k - 1]) + 1) + ".",
                  "List every index once, in increasing order.", "22023");
    if (!std::isfinite(row.value[k]))
      throw Error(ErrorKind::InvalidData, "sparse vector contains a non-finite value (NaN or infinity)",
                  "At index " + std::to_string(static_cast<std::int64_t>(i) + 1) + ".",
                  "Remove or repair rows with NaN or infinite features before training.",
                  sqlstate::kFloatingPointException);
  }
}

Row parse(std::string_view text) {
  Cursor c{text};
  Row row;
  std::vector<std::int64_t> raw;
  c.expect('{', "\"{\"");
  if (!c.take('}')) {
    do {
      const std::int64_t i = c.integer("an index");
      if (i < 1) malformed(text, c.at, "indices are 1-based");
      c.expect(':', "\":\" after an index");
      raw.push_back(i);
      row.value.push_back(c.number());
    } while (c.take(','));
    c.expect('}', "\",\" or \"}\"");
  }
  c.expect('/', "\"/\" and the dimension");
  const std::int64_t dim = c.integer("the dimension");
  c.blanks();
  if (c.at != text.size()) malformed(text, c.at, "unexpected text after the dimension");
  if (dim < 1 || dim > kMaxDim)
    throw Error(ErrorKind::InvalidData, "sparse vector dimension must be between 1 and " + std::to_string(kMaxDim),
                "Got " + std::to_string(dim) + ".", kFormHint, "22023");
  row.dim = static_cast<std::int32_t>(dim);
  row.index.reserve(raw.size());
  for (std::int64_t i : raw) {
    if (i > dim)
      throw Error(ErrorKind::InvalidData, "sparse vector index out of range",
                  "Index " + std::to_string(i) + " (1-based) is outside 1.." + std::to_string(dim) + ".",
                  "Indices are 1-based and at most the dimension after the /.", sqlstate::kArraySubscriptError);
    row.index.push_back(static_cast<std::int32_t>(i - 1));
  }
  validate(row.view());
  return row;
}

std::string format(const RowView& row) {
  std::string out = "{";
  char buf[64];
  for (std::int32_t k = 0; k < row.nnz; ++k) {
    std::snprintf(buf, sizeof(buf), "%s%d:%.17g", k > 0 ? "," : "", row.index[k] + 1, row.value[k]);
    out += buf;
  }
  out += "}/" + std::to_string(row.dim);
  return out;
}

Row from_dense(const double* x, std::int64_t len) {
  Row row;
  if (len < 1 || len > kMaxDim)
    throw Error(ErrorKind::InvalidData, "sparse vector dimension must be between 1 and " + std::to_string(kMaxDim),
                "Got " + std::to_string(len) + ".", kFormHint, "22023");
  row.dim = static_cast<std::int32_t>(len);
  for (std::int64_t j = 0; j < len; ++j) {
    if (x[j] == 0.0) continue;
    row.index.push_back(static_cast<std::int32_t>(j));
    row.value.push_back(x[j]);
  }
  validate(row.view());
  return row;
}

void to_dense(const RowView& row, double* out) {
  std::fill(out, out + row.dim, 0.0);
  for (std::int32_t k = 0; k < row.nnz; ++k) out[row.index[k]] = row.value[k];
}

double squared_norm(const RowView& row) {
  double sq = 0;
  for (std::int32_t k = 0; k < row.nnz; ++k) sq += row.value[k] * row.value[k];
  return sq;
}

double dot(const double* w, const RowView& row) {
  double s = 0;
  for (std::int32_t k = 0; k < row.nnz; ++k) s += w[row.index[k]] * row.value[k];
  return s;
}

void axpy(double a, const RowView& row, double* w) {
  for (std::int32_t k = 0; k < row.nnz; ++k) w[row.index[k]] += a * row.value[k];
}

Row augment(const RowView& x, double bound, double b) {
  const double norm = std::sqrt(squared_norm(x));
  const double scale = std::isfinite(norm) && norm > bound ? bound / norm : 1.0;
  Row out;
  out.dim = x.dim + 1;
  out.index.assign(x.index, x.index + x.nnz);
  out.value.resize(static_cast<std::size_t>(x.nnz));
  for (std::int32_t k = 0; k < x.nnz; ++k) out.value[k] = x.value[k] * scale;
  out.index.push_back(x.dim);
  out.value.push_back(b);
  return out;
}

}  // namespace dptrain::sparse
