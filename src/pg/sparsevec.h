// The SQL type dptrain.sparsevec (docs/sparse.md): a varlena holding one
// sparse feature row, laid out as
//   int32 vl_len_, int32 dim, int32 nnz, int32 unused (0),
//   int32 index[nnz] (0-based, strictly increasing), padding to 8 bytes,
//   float8 value[nnz] (finite).
// Every value that exists was validated by the input or receive function
// (core/sparse/sparse_vector.h), so readers only map it.
#pragma once

#include "pg_glue.h"
#include "core/sparse/sparse_vector.h"

namespace dptrain::pg {

struct SparseVec {
  int32 vl_len_;
  int32 dim;
  int32 nnz;
  int32 unused;
  // int32 index[nnz]; padding; double value[nnz]
};

inline std::size_t sparsevec_values_offset(int32 nnz) {
  return MAXALIGN(sizeof(SparseVec) + sizeof(int32) * static_cast<std::size_t>(nnz));
}
inline std::size_t sparsevec_size(int32 nnz) {
  return sparsevec_values_offset(nnz) + sizeof(double) * static_cast<std::size_t>(nnz);
}
inline int32* sparsevec_index(SparseVec* v) { return reinterpret_cast<int32*>(v + 1); }
inline double* sparsevec_value(SparseVec* v) {
  return reinterpret_cast<double*>(reinterpret_cast<char*>(v) + sparsevec_values_offset(v->nnz));
}

// The row as the core reads it (no copy).
inline dptrain::sparse::RowView sparsevec_view(SparseVec* v) {
  return {v->dim, v->nnz, sparsevec_index(v), sparsevec_value(v)};
}

// A palloc'd value (not validated: the caller passes a valid row).
SparseVec* make_sparsevec(int32 dim, int32 nnz, const int32* index, const double* value);

// The detoasted argument i.
inline SparseVec* sparsevec_arg(FunctionCallInfo fcinfo, int i) {
  return reinterpret_cast<SparseVec*>(PG_DETOAST_DATUM(PG_GETARG_DATUM(i)));
}

// pg_type.oid of dptrain.sparsevec (InvalidOid if the extension's schema
// has none); looked up once per backend.
Oid sparsevec_type_oid();

}  // namespace dptrain::pg
