#include "pass_messages.h"

extern "C" {
#include "postgres.h"
#include "miscadmin.h"
#include "utils/guc.h"
}

namespace dptrain::pg {

namespace {

void set_local(const char* name, const char* value) {
  (void) set_config_option(name, value, PGC_USERSET, PGC_S_SESSION, GUC_ACTION_LOCAL, true, 0, false);
}

// A superuser's setting, set by dptrain for the passes only (restored with
// the nest level).
void set_suset_local(const char* name, const char* value) {
  (void) set_config_option(name, value, PGC_SUSET, PGC_S_SESSION, GUC_ACTION_LOCAL, true, 0, false);
}

// A Citus setting, only where Citus defines it (setting an unknown
// "citus.*" would create a placeholder).
void set_citus_local(const char* name, const char* value) {
  if (GetConfigOption(name, true, false) != nullptr) set_local(name, value);
}

}  // namespace

bool hide_pass_statements(bool caller_reads) { return !caller_reads && !superuser_arg(GetSessionUserId()); }

int hide_pass_statements_from_client() {
  const int level = NewGUCNestLevel();
  // DEBUG and LOG (debug_print_*, Citus's DEBUG lines) rank below NOTICE for
  // the client; a caller's warning or error stays.
  if (client_min_messages < NOTICE) set_local("client_min_messages", "notice");
  // The server log takes LOG whatever the client's level: the parse trees
  // and plans would write the parameter there, at the caller's request.
  set_local("debug_print_parse", "off");
  set_local("debug_print_rewritten", "off");
  set_local("debug_print_plan", "off");
  // The statistics of the run's own relations count every pass: in the
  // caller's transaction, pg_stat_get_xact_numscans(oid) of the (dropped)
  // temp copy, or its tuples and blocks read, gave the number of passes,
  // which AMP's and the optimum's optimizers choose from the data
  // (test/tap/009_pass_count_hidden.pl). The passes are not counted.
  set_suset_local("track_counts", "off");
  set_suset_local("track_functions", "none");
  set_citus_local("citus.log_remote_commands", "off");
  set_citus_local("citus.log_local_commands", "off");
  set_citus_local("citus.multi_task_query_log_level", "off");
  return level;
}

// Restored as on an abort: the settings above are GUC_ACTION_LOCAL, which a
// committed nest level (AtEOXact_GUC(true, level)) hands down to the level
// below, so they lasted to the end of the caller's transaction wherever no
// identity switch (restore_identity) popped them: after dp_tune's count of a
// distributed table's parts (distributed_source.h, count_part_rows), the
// caller's own statements ran with its client_min_messages raised and
// track_counts off.
void show_pass_statements_again(int level) { AtEOXact_GUC(false, level); }

}  // namespace dptrain::pg
