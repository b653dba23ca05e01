// The SQL type dptrain.sparsevec: input/output (text and binary), casts
// from and to float8[], and the small functions the training copy uses on
// it (dimension, intercept, usable row). docs/sparse.md.
#include "sparsevec.h"
#include "intercept_rows.h"

#include <cmath>
#include <cstring>

extern "C" {
#include "catalog/namespace.h"
#include "libpq/pqformat.h"
}

namespace sp = dptrain::sparse;

namespace dptrain::pg {

SparseVec* make_sparsevec(int32 dim, int32 nnz, const int32* index, const double* value) {
  const std::size_t size = sparsevec_size(nnz);
  auto* v = static_cast<SparseVec*>(palloc0(size));
  SET_VARSIZE(v, size);
  v->dim = dim;
  v->nnz = nnz;
  if (nnz > 0) {
    std::memcpy(sparsevec_index(v), index, sizeof(int32) * nnz);
    std::memcpy(sparsevec_value(v), value, sizeof(double) * nnz);
  }
  return v;
}

Oid sparsevec_type_oid() {
  const Oid nsp = get_namespace_oid("dptrain", true);
  if (!OidIsValid(nsp)) return InvalidOid;
  return GetSysCacheOid2(TYPENAMENSP, Anum_pg_type_oid, CStringGetDatum("sparsevec"), ObjectIdGetDatum(nsp));
}

}  // namespace dptrain::pg

using dptrain::pg::make_sparsevec;
using dptrain::pg::SparseVec;
using dptrain::pg::sparsevec_arg;
using dptrain::pg::sparsevec_index;
using dptrain::pg::sparsevec_value;
using dptrain::pg::sparsevec_view;

namespace {

// Memory for use inside DPT_CORE: never ereports (a longjmp must not cross
// the C++ frames there), throws instead. MCXT_ALLOC_NO_OOM does not cover a
// size beyond MaxAllocSize: palloc_extended raised XX000 "invalid memory
// alloc request size" for it, across the frames (a dense row of 10^8
// non-zeros cast to dptrain.sparsevec needs 1.2 GB).
void* palloc_in_core(std::size_t size) {
  if (!AllocSizeIsValid(size))
    throw dptrain::Error(dptrain::ErrorKind::ProgramLimit, "dptrain.sparsevec value too large",
                         "It needs " + std::to_string(size) + " bytes; PostgreSQL allows at most 1 GB per value.",
                         "Use fewer non-zero entries per row: a value, and its text form, holds at most 1 GB.");
  void* p = palloc_extended(size, MCXT_ALLOC_NO_OOM | MCXT_ALLOC_ZERO);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

// A validated core row as a palloc'd SQL value (call inside DPT_CORE).
SparseVec* row_to_sparsevec(const sp::Row& row) {
  const int32 nnz = static_cast<int32>(row.index.size());
  const std::size_t size = dptrain::pg::sparsevec_size(nnz);
  auto* v = static_cast<SparseVec*>(palloc_in_core(size));
  SET_VARSIZE(v, size);
  v->dim = row.dim;
  v->nnz = nnz;
  if (nnz > 0) {
    std::memcpy(sparsevec_index(v), row.index.data(), sizeof(int32) * nnz);
    std::memcpy(sparsevec_value(v), row.value.data(), sizeof(double) * nnz);
  }
  return v;
}

}  // namespace

extern "C" {

PG_FUNCTION_INFO_V1(dptrain_sparsevec_in);
PG_FUNCTION_INFO_V1(dptrain_sparsevec_out);
PG_FUNCTION_INFO_V1(dptrain_sparsevec_recv);
PG_FUNCTION_INFO_V1(dptrain_sparsevec_send);
PG_FUNCTION_INFO_V1(dptrain_sparsevec_to_float8);
PG_FUNCTION_INFO_V1(dptrain_float8_to_sparsevec);
PG_FUNCTION_INFO_V1(dptrain_sparsevec_dims);
PG_FUNCTION_INFO_V1(dptrain_sparsevec_nnz);
PG_FUNCTION_INFO_V1(dptrain_sparsevec_norm);
PG_FUNCTION_INFO_V1(dptrain_sparse_intercept_row);
PG_FUNCTION_INFO_V1(dptrain_sparse_usable_row);

Datum dptrain_sparsevec_in(PG_FUNCTION_ARGS) {
  const char* text = PG_GETARG_CSTRING(0);
  SparseVec* v = nullptr;
  DPT_CORE({ v = row_to_sparsevec(sp::parse(text)); });
  PG_RETURN_POINTER(v);
}

Datum dptrain_sparsevec_out(PG_FUNCTION_ARGS) {
  SparseVec* v = sparsevec_arg(fcinfo, 0);
  char* out = nullptr;
  DPT_CORE({
    const std::string text = sp::format(sparsevec_view(v));
    out = static_cast<char*>(palloc_in_core(text.size() + 1));
    std::memcpy(out, text.c_str(), text.size() + 1);
  });
  PG_RETURN_CSTRING(out);
}

// Binary form: int32 dim, int32 nnz, nnz int32 indices (0-based), nnz float8 values.
Datum dptrain_sparsevec_recv(PG_FUNCTION_ARGS) {
  StringInfo buf = reinterpret_cast<StringInfo>(PG_GETARG_POINTER(0));
  const int32 dim = pq_getmsgint(buf, 4);
  const int32 nnz = pq_getmsgint(buf, 4);
  if (nnz < 0 || nnz > dim || dim < 1 || dim > dptrain::sparse::kMaxDim)
    ereport(ERROR, (errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
                    errmsg("invalid dptrain.sparsevec: dimension %d with %d entries", dim, nnz),
                    errhint("The binary form is int32 dim (1 to %d), int32 nnz (0 to dim), nnz int32 indices, "
                            "nnz float8 values.", static_cast<int>(dptrain::sparse::kMaxDim))));
  // The entries must be in the message before their memory is allocated: a
  // header alone claiming 10^8 entries asked palloc0 for 1.2 GB (XX000), or
  // for up to 1 GB before "insufficient data left in message".
  const int64 left = buf->len - buf->cursor;
  const int64 needed = static_cast<int64>(nnz) * static_cast<int64>(sizeof(int32) + sizeof(double));
  if (left < needed)
    ereport(ERROR, (errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
                    errmsg("invalid dptrain.sparsevec: %d entries need %lld bytes, the value has %lld", nnz,
                           static_cast<long long>(needed), static_cast<long long>(left)),
                    errhint("The binary form is int32 dim, int32 nnz, nnz int32 indices, nnz float8 values.")));
  const std::size_t size = dptrain::pg::sparsevec_size(nnz);
  auto* v = static_cast<SparseVec*>(palloc0(size));
  SET_VARSIZE(v, size);
  v->dim = dim;
  v->nnz = nnz;
  int32* index = sparsevec_index(v);
  double* value = sparsevec_value(v);
  for (int32 k = 0; k < nnz; ++k) index[k] = pq_getmsgint(buf, 4);
  for (int32 k = 0; k < nnz; ++k) value[k] = pq_getmsgfloat8(buf);
  DPT_CORE({ sp::validate(sparsevec_view(v)); });
  PG_RETURN_POINTER(v);
}

Datum dptrain_sparsevec_send(PG_FUNCTION_ARGS) {
  SparseVec* v = sparsevec_arg(fcinfo, 0);
  StringInfoData buf;
  pq_begintypsend(&buf);
  pq_sendint32(&buf, v->dim);
  pq_sendint32(&buf, v->nnz);
  const int32* index = sparsevec_index(v);
  const double* value = sparsevec_value(v);
  for (int32 k = 0; k < v->nnz; ++k) pq_sendint32(&buf, index[k]);
  for (int32 k = 0; k < v->nnz; ++k) pq_sendfloat8(&buf, value[k]);
  PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

// sparsevec -> float8[] (the dense row: dim values).
Datum dptrain_sparsevec_to_float8(PG_FUNCTION_ARGS) {
  SparseVec* v = sparsevec_arg(fcinfo, 0);
  double* out = static_cast<double*>(palloc(sizeof(double) * v->dim));
  DPT_CORE({ sp::to_dense(sparsevec_view(v), out); });
  PG_RETURN_ARRAYTYPE_P(dptrain::pg::make_float8_array(out, v->dim));
}

// float8[] -> sparsevec (the non-zero values; refuses NULL elements and NaN/infinity).
Datum dptrain_float8_to_sparsevec(PG_FUNCTION_ARGS) {
  ArrayType* a = PG_GETARG_ARRAYTYPE_P(0);
  if (ARR_NDIM(a) != 1)
    ereport(ERROR, (errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
                    errmsg("only a one-dimensional, non-empty float8[] can become a dptrain.sparsevec"),
                    errhint("Cast one feature row at a time.")));
  int len = 0;
  const double* x = dptrain::pg::float8_array_data(a, &len, "feature array");
  SparseVec* v = nullptr;
  DPT_CORE({ v = row_to_sparsevec(sp::from_dense(x, len)); });
  PG_RETURN_POINTER(v);
}

Datum dptrain_sparsevec_dims(PG_FUNCTION_ARGS) { PG_RETURN_INT32(sparsevec_arg(fcinfo, 0)->dim); }

Datum dptrain_sparsevec_nnz(PG_FUNCTION_ARGS) { PG_RETURN_INT32(sparsevec_arg(fcinfo, 0)->nnz); }

Datum dptrain_sparsevec_norm(PG_FUNCTION_ARGS) {
  SparseVec* v = sparsevec_arg(fcinfo, 0);
  PG_RETURN_FLOAT8(std::sqrt(sp::squared_norm(sparsevec_view(v))));
}

// dptrain.intercept_row(x sparsevec, bound float8, b float8) -> sparsevec
// (STRICT): the sparse twin of the float8[] function (training/intercept.h).
Datum dptrain_sparse_intercept_row(PG_FUNCTION_ARGS) {
  SparseVec* v = sparsevec_arg(fcinfo, 0);
  const double bound = PG_GETARG_FLOAT8(1), b = PG_GETARG_FLOAT8(2);
  dptrain::pg::require_intercept_arguments(bound, b);
  SparseVec* out = nullptr;
  DPT_CORE({ out = row_to_sparsevec(sp::augment(sparsevec_view(v), bound, b)); });
  PG_RETURN_POINTER(out);
}

// dptrain.usable_row(x sparsevec, y float8, dim int) -> boolean (STRICT):
// whether the epoch aggregate takes the row as it is (dimension dim and a
// finite squared norm; the type already refuses NaN and infinity).
Datum dptrain_sparse_usable_row(PG_FUNCTION_ARGS) {
  SparseVec* v = sparsevec_arg(fcinfo, 0);
  const int dim = PG_GETARG_INT32(2);
  PG_RETURN_BOOL(v->dim == dim && std::isfinite(sp::squared_norm(sparsevec_view(v))));
}

}  // extern "C"
