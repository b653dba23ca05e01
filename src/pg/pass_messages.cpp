#include "pass_messages.h"

extern "C" {
#include "postgres.h"
#include "executor/instrument.h"
#include "miscadmin.h"
#include "utils/guc.h"
}

namespace dptrain::pg {

namespace {

void set_local(const char* name, const char* value) {
  (void) set_config_option(name, value, PGC_USERSET, PGC_S_SESSION, GUC_ACTION_LOCAL, true, 0, false);
}

// A Citus setting, only where Citus defines it (setting an unknown
// "citus.*" would create a placeholder).
void set_citus_local(const char* name, const char* value) {
  if (GetConfigOption(name, true, false) != nullptr) set_local(name, value);
}

// An extension's superuser setting, only where its library defined it
// (setting an unknown "pg_stat_statements.*" would create a placeholder).
void set_suset_if_defined(const char* name, const char* value) {
  if (GetConfigOption(name, true, false) != nullptr)
    (void) set_config_option(name, value, PGC_SUSET, PGC_S_SESSION, GUC_ACTION_SAVE, true, 0, false);
}

}  // namespace

void stop_statement_statistics() {
  (void) set_config_option("track_counts", "off", PGC_SUSET, PGC_S_SESSION, GUC_ACTION_SAVE, true, 0, false);
  (void) set_config_option("track_functions", "none", PGC_SUSET, PGC_S_SESSION, GUC_ACTION_SAVE, true, 0, false);
  // pg_stat_statements (track = all) counts every nested statement in a view
  // PUBLIC may read: its calls, rows, blocks and times, with the text hidden
  // from other roles but not the numbers. A run's passes are statements of
  // the runner (the extension owner): one entry's calls grew by the number of
  // passes AMP's optimizer made; the statements of an owner's view or policy
  // function run while the source is read count the rows they find
  // (test/tap/010_statement_statistics_hidden.pl). Not counted either.
  set_suset_if_defined("pg_stat_statements.track", "none");
  // Citus's citus_stat_counters (an operator's citus.enable_stat_counters;
  // the view is PUBLIC's) counts every distributed statement of the
  // database, live: query_execution_multi_shard grew by one per pass, AMP's
  // data-dependent count (test/citus/worker_logs_hidden.sh). Not counted.
  set_suset_if_defined("citus.enable_stat_counters", "off");
}

bool hide_pass_statements(bool caller_reads) { return !caller_reads && !superuser_arg(GetSessionUserId()); }

HiddenPasses hide_pass_statements_from_client() {
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
  stop_statement_statistics();
  // An operator's auto_explain (log_nested_statements) explains every pass;
  // with log_verbose the plan shows the state, planned as a constant, and at
  // log_level = notice the client gets it whatever we do above; the server
  // log gets it at any level, as debug_print_* did
  // (test/tap/011_auto_explain_passes.pl). The passes are not explained.
  set_suset_if_defined("auto_explain.log_min_duration", "-1");
  set_citus_local("citus.log_remote_commands", "off");
  set_citus_local("citus.log_local_commands", "off");
  set_citus_local("citus.multi_task_query_log_level", "off");
  return {level, pgBufferUsage};
}

// Restored as on an abort: the settings above are GUC_ACTION_LOCAL, which a
// committed nest level (AtEOXact_GUC(true, level)) hands down to the level
// below, so they lasted to the end of the caller's transaction wherever no
// identity switch (restore_identity) popped them: after dp_tune's count of a
// distributed table's parts (distributed_source.h, count_part_rows), the
// caller's own statements ran with its client_min_messages raised and
// track_counts off.
//
// The blocks the passes read are not counted either: pgBufferUsage goes back
// to its value when the level began. EXPLAIN (ANALYZE, BUFFERS) of the
// caller's own statement, and pg_stat_statements' blocks of it (also with
// the default track = top), add up the buffers of everything the statement
// ran: "local hit" grew by 4 per pass of the temp copy, the number of passes
// (test/tap/010_statement_statistics_hidden.pl).
void show_pass_statements_again(const HiddenPasses& hidden) {
  AtEOXact_GUC(false, hidden.level);
  pgBufferUsage = hidden.buffers;
}

}  // namespace dptrain::pg
