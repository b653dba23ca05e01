// Shared helpers of the PostgreSQL glue (src/pg). Rules of the boundary:
//
// * C++ exceptions never cross into PostgreSQL frames: every call into the
//   core goes through DPT_CORE(...), which catches and turns the exception
//   into a plain struct, and only then (outside any C++ scope) ereports.
// * PostgreSQL's ereport/longjmp never crosses C++ frames that own
//   resources: fmgr functions keep only POD locals and palloc'd memory; a
//   C++ object that must live across SPI calls is heap-allocated and freed
//   by a memory-context reset callback, which also runs on error.
#pragma once

// Before PostgreSQL's headers, whose port.h redefines snprintf & co.
#include <nlohmann/json.hpp>

extern "C" {
#include "postgres.h"

#include "access/htup_details.h"
#include "access/table.h"
#include "access/tableam.h"
#include "catalog/pg_class.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"
}

#include <exception>
#include <new>
#include <string>

#include "core/error.h"

// DP003, the core's sqlstate::kTableChanged: a table written during a run.
#define DPTRAIN_ERRCODE_TABLE_CHANGED MAKE_SQLSTATE('D', 'P', '0', '0', '3')

namespace dptrain::pg {

// An exception caught at the boundary, as plain data.
struct CoreError {
  int sqlstate;
  char message[1024];
  char detail[1024];
  char hint[1024];
};

void capture(CoreError* out, const dptrain::Error& e);
void capture(CoreError* out, const char* what, bool out_of_memory);
void capture_json(CoreError* out, const char* what);
pg_attribute_noreturn() void report(const CoreError* err);

// A core interrupt check: only reads the flags (report() raises the cancel).
inline bool cancel_pending() { return InterruptPending && (QueryCancelPending || ProcDiePending); }

template <typename F>
bool run_core(CoreError* err, F&& body) noexcept {
  try {
    body();
    return true;
  } catch (const dptrain::Error& e) {
    capture(err, e);
  } catch (const nlohmann::json::exception& e) {
    // A JSON value of the wrong shape or type from the caller (options,
    // a model passed to store_model): bad input, not an internal error.
    capture_json(err, e.what());
  } catch (const std::bad_alloc&) {
    capture(err, "out of memory", true);
  } catch (const std::exception& e) {
    capture(err, e.what(), false);
  } catch (...) {
    capture(err, "unknown C++ exception", false);
  }
  return false;
}

// Runs `body` (a lambda body in braces) in the core; on exception, reports
// it as an ERROR with the mapped SQLSTATE after the C++ scope has ended.
#define DPT_CORE(...)                                                   \
  do {                                                                  \
    ::dptrain::pg::CoreError dpt_err_;                                  \
    if (!::dptrain::pg::run_core(&dpt_err_, [&]() __VA_ARGS__))         \
      ::dptrain::pg::report(&dpt_err_);                                 \
  } while (0)

// Deletes a C++ object when `context` is reset or deleted (also on error).
template <typename T>
void delete_on_reset(MemoryContext context, T* object) {
  auto* cb = static_cast<MemoryContextCallback*>(MemoryContextAlloc(context, sizeof(MemoryContextCallback)));
  cb->func = [](void* arg) { delete static_cast<T*>(arg); };
  cb->arg = object;
  MemoryContextRegisterResetCallback(context, cb);
}

// A 1-D float8[] without NULLs, or ERROR. Returns the element pointer.
const double* float8_array_data(ArrayType* a, int* length, const char* what);

// The aggregate memory context of a support function `fn` of `aggregate`,
// or an ERROR (with a hint) when it is called outside an aggregate.
MemoryContext require_aggregate(FunctionCallInfo fcinfo, const char* fn, const char* aggregate);
// The call-site cache (`size` bytes, zeroed when *created) of an aggregate's
// transition function: fn_extra, as for any function. But Citus runs a
// pushed-down user aggregate's transition function through
// worker_partial_agg, with a new FmgrInfo for every row (no fn_expr, and
// fn_extra always empty): there the cache is kept per aggregate memory
// context and function, until that context is reset. Without it every row
// paid the full validation of its state (a Hessian state: O(d^2) per row).
void* transition_call_site(FunctionCallInfo fcinfo, Size size, bool* created);
// The elements of an aggregate's own float8[] state (validated when it was
// made: one dimension, no NULLs), updated in place.
double* state_data(ArrayType* state, std::size_t* len);
ArrayType* make_float8_array(const double* values, int n);
ArrayType* make_float8_matrix(const double* values, int rows, int cols);
ArrayType* make_text_array(const std::string* values, int n);

// Wall-clock seconds from `start` to now (the timings a model records).
double seconds_since(TimestampTz start);

}  // namespace dptrain::pg
