#include "reading_settings.h"

extern "C" {
#include "postgres.h"
#include "utils/guc.h"
}

namespace dptrain::pg {
namespace {

struct Setting {
  const char* name;
  const char* value;
};

// Every setting a role may SET that changes whether or how a value parses,
// prints or compares, or what an error does: PostgreSQL 15's boot values.
// (Planner settings change plans, not values, except parallelism, below;
// timeouts are timing.)
constexpr Setting kReadingSettings[] = {
    {"exit_on_error", "off"},
    {"DateStyle", "ISO, MDY"},
    {"IntervalStyle", "postgres"},
    {"TimeZone", "GMT"},
    {"lc_monetary", "C"},
    {"lc_numeric", "C"},
    {"lc_time", "C"},
    {"xmloption", "content"},
    {"xmlbinary", "base64"},
    {"bytea_output", "hex"},
    {"array_nulls", "on"},
    {"standard_conforming_strings", "on"},
    {"backslash_quote", "safe_encoding"},
    {"escape_string_warning", "on"},
    {"transform_null_equals", "off"},
    {"extra_float_digits", "1"},
    {"default_text_search_config", "pg_catalog.simple"},
    {"gin_fuzzy_search_limit", "0"},
    // No parallel worker: one reports the statement it runs (the owner's
    // code's, a row's value inlined by EXECUTE format('%L')) in
    // pg_stat_activity to every session of the role that logged in
    // (test/tap/014_parallel_worker_query.pl).
    {"max_parallel_workers_per_gather", "0"},
    {"force_parallel_mode", "off"},
    // PL/pgSQL's, where its library is loaded (an unknown name would make a
    // placeholder): extra checks turn a row-dependent case into an error,
    // check_asserts switches the owner's ASSERTs on or off.
    {"plpgsql.extra_errors", "none"},
    {"plpgsql.extra_warnings", "none"},
    {"plpgsql.check_asserts", "on"},
};

bool is_plpgsql(const char* name) { return strncmp(name, "plpgsql.", 8) == 0; }

}  // namespace

void pin_reading_settings() {
  for (const Setting& s : kReadingSettings) {
    if (is_plpgsql(s.name) && GetConfigOption(s.name, true, false) == nullptr) continue;
    (void) set_config_option(s.name, s.value, PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE, true, 0, false);
  }
}

}  // namespace dptrain::pg
