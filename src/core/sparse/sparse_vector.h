// Sparse feature rows (docs/sparse.md): the value of the SQL type
// dptrain.sparsevec and the per-row work on it, PostgreSQL-free.
//
// A sparse row of dimension d holds nnz (index, value) pairs with 0-based,
// strictly increasing indices in [0, d) and finite values; every other
// feature is 0. The text form is 1-based, like LIBSVM files and pgvector's
// sparsevec: {1:0.5,7:0.25}/8315 is the row with x_0 = 0.5, x_6 = 0.25 and
// 8,313 zeros. Explicit zeros are allowed (they change nothing).
//
// Every row-norm check and clipping of the dense path applies unchanged: a
// sparse row is the same vector, only stored without its zeros, and its
// squared norm is the sum over its stored values (the zeros add nothing),
// so the privacy bounds that assume ||x|| <= R hold alike.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace dptrain::sparse {

// The largest dimension a sparse row may declare (a model of this many
// weights is refused later anyway: epoch_state::kMaxParameters).
inline constexpr std::int64_t kMaxDim = 100'000'000;

// A read-only view of one row (the storage belongs to the caller).
struct RowView {
  std::int32_t dim = 0;
  std::int32_t nnz = 0;
  const std::int32_t* index = nullptr;  // 0-based, strictly increasing, < dim
  const double* value = nullptr;        // finite
};

// An owned row (parser output, tests).
struct Row {
  std::int32_t dim = 0;
  std::vector<std::int32_t> index;
  std::vector<double> value;
  RowView view() const { return {dim, static_cast<std::int32_t>(index.size()), index.data(), value.data()}; }
};

// Throws Error(InvalidData) unless the row is well formed: 1 <= dim <=
// kMaxDim, 0 <= nnz <= dim, indices in [0, dim) strictly increasing, values
// finite. Called by the type's input and binary receive functions.
void validate(const RowView& row);

// "{1:0.5,7:0.25}/8315" (1-based indices; blanks allowed between tokens)
// -> Row, validated. Malformed text: Error(InvalidData) with the offending
// position and a hint showing the form.
Row parse(std::string_view text);
// The text form of a row (values printed exactly: %.17g round-trips).
std::string format(const RowView& row);

// From / to dense values. from_dense keeps the non-zero values only
// (refuses non-finite ones like validate).
Row from_dense(const double* x, std::int64_t len);
void to_dense(const RowView& row, double* out);  // out[0..dim)

// sum_j x_j^2 over the stored values (the dense squared norm exactly up to
// the order of summation).
double squared_norm(const RowView& row);
// w . x for dense w[0..dim).
double dot(const double* w, const RowView& row);
// w += a * x for dense w[0..dim).
void axpy(double a, const RowView& row, double* w);

// The sparse twin of intercept::augment_row (training/intercept.h): x
// scaled to norm <= bound (the same sum in the same index order, so the
// same scale bit for bit), then the constant feature b at index dim. A row
// whose norm is not finite is left unscaled, as there.
Row augment(const RowView& x, double bound, double b);

}  // namespace dptrain::sparse
