#include "pg_glue.h"

#include <string>

#include <cstring>

extern "C" {
PG_MODULE_MAGIC;
}

namespace dptrain::pg {
namespace {

void copy_text(char* dst, std::size_t cap, const std::string& s) {
  std::strncpy(dst, s.c_str(), cap - 1);
  dst[cap - 1] = '\0';
}

}  // namespace

void capture(CoreError* out, const dptrain::Error& e) {
  const std::string code = sqlstate_of(e);
  out->sqlstate = MAKE_SQLSTATE(code[0], code[1], code[2], code[3], code[4]);
  copy_text(out->message, sizeof(out->message), e.what());
  copy_text(out->detail, sizeof(out->detail), e.detail());
  copy_text(out->hint, sizeof(out->hint), e.hint());
}

void capture(CoreError* out, const char* what, bool out_of_memory) {
  out->sqlstate = out_of_memory ? ERRCODE_OUT_OF_MEMORY : ERRCODE_INTERNAL_ERROR;
  copy_text(out->message, sizeof(out->message), what);
  out->detail[0] = out->hint[0] = '\0';
}

void capture_json(CoreError* out, const char* what) {
  out->sqlstate = ERRCODE_INVALID_PARAMETER_VALUE;
  // nlohmann's "[json.exception.type_error.302] type must be number, ...": the text without its tag.
  std::string text = what;
  if (text.rfind("[json.exception.", 0) == 0 && text.find("] ") != std::string::npos)
    text.erase(0, text.find("] ") + 2);
  // A number beyond double range (jsonb writes 1e400 out in 401 digits): the text said
  // "[json.exception.out_of_range.406] number overflow parsing '10000...'" in full.
  if (text.rfind("number overflow parsing '", 0) == 0) {
    const std::string number = text.substr(25, text.size() > 26 ? text.size() - 26 : 0);
    copy_text(out->message, sizeof(out->message), "a number in the JSON argument is beyond the range of float8");
    copy_text(out->detail, sizeof(out->detail),
              ("The number " + (number.size() > 24 ? number.substr(0, 24) + "... (" + std::to_string(number.size()) +
                                                         " characters)"
                                                   : number) +
               ".")
                  .c_str());
    copy_text(out->hint, sizeof(out->hint), "JSON numbers of dptrain's arguments must be at most about 1.8e308.");
    return;
  }
  copy_text(out->message, sizeof(out->message), "invalid JSON value");
  copy_text(out->detail, sizeof(out->detail), text.c_str());
  copy_text(out->hint, sizeof(out->hint),
            "Check the types in the JSON argument, e.g. options => '{\"schedule_c\": 0.5}' takes a number.");
}

void report(const CoreError* err) {
  // A core computation that stopped because a cancel was pending (it polls
  // the flags, see drive_run): PostgreSQL reports the cancel itself.
  CHECK_FOR_INTERRUPTS();
  ereport(ERROR, (errcode(err->sqlstate), errmsg("%s", err->message),
                  err->detail[0] ? errdetail("%s", err->detail) : 0,
                  err->hint[0] ? errhint("%s", err->hint) : 0));
  pg_unreachable();
}

MemoryContext require_aggregate(FunctionCallInfo fcinfo, const char* fn, const char* aggregate) {
  MemoryContext aggcontext;
  if (!AggCheckCallContext(fcinfo, &aggcontext))
    ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                    errmsg("%s can only be called as part of the %s aggregate", fn, aggregate),
                    errhint("Train with dp_train (or dptrain train).")));
  return aggcontext;
}

namespace {

// The call sites of transition functions run without an FmgrInfo of their
// own (Citus's worker_partial_agg), each in its aggregate's memory context;
// a reset callback of that context unlinks it before its memory goes.
struct ContextCallSite {
  MemoryContext context;
  Oid function;
  void* site;
  ContextCallSite* next;
  MemoryContextCallback on_reset;
};
ContextCallSite* context_call_sites = nullptr;

void unlink_context_call_site(void* arg) {
  for (ContextCallSite** p = &context_call_sites; *p != nullptr; p = &(*p)->next)
    if (*p == arg) {
      *p = (*p)->next;
      return;
    }
}

void* context_call_site(MemoryContext context, Oid function, Size size, bool* created) {
  for (ContextCallSite* e = context_call_sites; e != nullptr; e = e->next)
    if (e->context == context && e->function == function) return e->site;
  auto* e = static_cast<ContextCallSite*>(MemoryContextAllocZero(context, sizeof(ContextCallSite)));
  e->context = context;
  e->function = function;
  e->site = MemoryContextAllocZero(context, size);
  e->on_reset.func = unlink_context_call_site;
  e->on_reset.arg = e;
  MemoryContextRegisterResetCallback(context, &e->on_reset);
  e->next = context_call_sites;
  context_call_sites = e;
  *created = true;
  return e->site;
}

}  // namespace

void* transition_call_site(FunctionCallInfo fcinfo, Size size, bool* created) {
  *created = false;
  if (fcinfo->flinfo->fn_extra != nullptr) return fcinfo->flinfo->fn_extra;
  MemoryContext aggcontext;
  if (fcinfo->flinfo->fn_expr == nullptr && AggCheckCallContext(fcinfo, &aggcontext))
    return fcinfo->flinfo->fn_extra = context_call_site(aggcontext, fcinfo->flinfo->fn_oid, size, created);
  *created = true;
  return fcinfo->flinfo->fn_extra = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, size);
}

double* state_data(ArrayType* state, std::size_t* len) {
  *len = static_cast<std::size_t>(ARR_DIMS(state)[0]);
  return reinterpret_cast<double*>(ARR_DATA_PTR(state));
}

const double* float8_array_data(ArrayType* a, int* length, const char* what) {
  // Feature arrays come from the user's rows; everything else (training
  // states, packed models, evaluation states) is produced by dptrain itself.
  const bool features = strncmp(what, "feature", 7) == 0;
  const char* hint = features ? "Remove or repair rows with NULL features before training."
                              : "dptrain produces these arrays itself; do not construct them by hand.";
  if (ARR_ELEMTYPE(a) != FLOAT8OID)
    ereport(ERROR, (errcode(ERRCODE_DATATYPE_MISMATCH), errmsg("%s must be a float8[] array", what),
                    errhint("%s", features ? "Cast the features to float8[]." : hint)));
  if (ARR_NDIM(a) > 1)
    ereport(ERROR, (errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR), errmsg("%s must be a one-dimensional array", what),
                    errhint("%s", features ? "Pass the features of one row as a one-dimensional array." : hint)));
  if (ARR_HASNULL(a) && array_contains_nulls(a))
    ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("%s must not contain NULL elements", what),
                    errhint("%s", hint)));
  *length = ARR_NDIM(a) == 0 ? 0 : ARR_DIMS(a)[0];
  return reinterpret_cast<const double*>(ARR_DATA_PTR(a));
}

ArrayType* make_float8_array(const double* values, int n) {
  ArrayType* a = construct_array(nullptr, 0, FLOAT8OID, sizeof(float8), FLOAT8PASSBYVAL, TYPALIGN_DOUBLE);
  if (n == 0) return a;
  Size bytes = ARR_OVERHEAD_NONULLS(1) + sizeof(double) * static_cast<Size>(n);
  a = static_cast<ArrayType*>(palloc0(bytes));
  SET_VARSIZE(a, bytes);
  a->ndim = 1;
  a->dataoffset = 0;
  a->elemtype = FLOAT8OID;
  ARR_DIMS(a)[0] = n;
  ARR_LBOUND(a)[0] = 1;
  std::memcpy(ARR_DATA_PTR(a), values, sizeof(double) * static_cast<Size>(n));
  return a;
}

ArrayType* make_float8_matrix(const double* values, int rows, int cols) {
  Size bytes = ARR_OVERHEAD_NONULLS(2) + sizeof(double) * static_cast<Size>(rows) * cols;
  auto* a = static_cast<ArrayType*>(palloc0(bytes));
  SET_VARSIZE(a, bytes);
  a->ndim = 2;
  a->dataoffset = 0;
  a->elemtype = FLOAT8OID;
  ARR_DIMS(a)[0] = rows;
  ARR_DIMS(a)[1] = cols;
  ARR_LBOUND(a)[0] = 1;
  ARR_LBOUND(a)[1] = 1;
  std::memcpy(ARR_DATA_PTR(a), values, sizeof(double) * static_cast<Size>(rows) * cols);
  return a;
}

ArrayType* make_text_array(const std::string* values, int n) {
  Datum* items = static_cast<Datum*>(palloc(sizeof(Datum) * (n > 0 ? n : 1)));
  for (int i = 0; i < n; ++i) items[i] = PointerGetDatum(cstring_to_text_with_len(values[i].data(), values[i].size()));
  return construct_array(items, n, TEXTOID, -1, false, TYPALIGN_INT);
}

double seconds_since(TimestampTz start) {
  long secs;
  int usecs;
  TimestampDifference(start, GetCurrentTimestamp(), &secs, &usecs);
  return static_cast<double>(secs) + usecs / 1e6;
}

}  // namespace dptrain::pg
