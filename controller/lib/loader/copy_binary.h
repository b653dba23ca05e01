// PostgreSQL's binary COPY format for rows (id bigint, x float8[], y),
// built in memory without libpq (so it is unit-testable). Binary COPY sends
// every double exactly and spares the server from parsing text numbers.
// Layout (PostgreSQL docs, "COPY ... Binary Format"): signature, flags and
// header-extension length; per tuple an int16 field count and, per field,
// an int32 byte length and the type's binary (send/recv) representation;
// a trailer int16 -1. All integers big-endian.
#pragma once

#include <cstdint>
#include <string>

#include "loader/labels.h"

namespace dptrain::loader {

void copy_binary_header(std::string& out);
void copy_binary_trailer(std::string& out);
// Appends one tuple (id, x[0..n), y) with y of `type`.
void copy_binary_row(std::string& out, std::int64_t id, const double* x, std::size_t n, LabelType type,
                     const LabelValue& y);
// The same tuple with x as a dptrain.sparsevec of dimension n holding the
// non-zero values of x[0..n) (docs/sparse.md).
void copy_binary_sparse_row(std::string& out, std::int64_t id, const double* x, std::size_t n, LabelType type,
                            const LabelValue& y);

}  // namespace dptrain::loader
