// What a client may see of the statements of a run's passes.
//
// Every pass carries the training state as its parameter ($1): between two
// epochs of SGD the model before any noise, in objective perturbation the
// optimizer's points. None of it is covered by the privacy guarantee, which
// covers the released model only. PostgreSQL and Citus print statements to
// the client on request of any role:
//   debug_print_parse / _rewritten / _plan (LOG: the parameter, planned as a
//     constant, byte by byte), Citus's DEBUG lines ("distributed statement:",
//     the shard queries with the parameter inlined), all under
//     client_min_messages < NOTICE;
//   citus.log_remote_commands / citus.log_local_commands (NOTICE: "issuing"
//     every shard query, the parameter inlined), citus.multi_task_query_log_level.
// debug_print_* also write to the server log (LOG passes the default
// log_min_messages), which an analyst may read where logs are shipped to a
// shared tool: the state would leave the run there even without a client.
// For a client that may not read the table, the passes run with these off
// (docs/governance.md, "What is visible to whom"), and so does dp_tune's count
// of the parts of a distributed table, which carries the split key kappa
// (distributed_source.h, count_part_rows).
#pragma once

extern "C" {
#include "postgres.h"
#include "executor/instrument.h"
}

namespace dptrain::pg {

// Whether the passes of a run whose caller reads the table iff
// `caller_reads` must be kept from the client: the caller cannot read the
// table, and the session's user is not a superuser (who could read it, and
// whose tests watch Citus's remote commands of such runs: test/citus/).
bool hide_pass_statements(bool caller_reads);

// Opens a GUC nest level in which client_min_messages is at least NOTICE,
// debug_print_* and Citus's statement logging are off; returns the level and
// the buffer usage counters for show_pass_statements_again (kept by the
// caller: a level left by an error is simply never shown again). Open it after begin_distributed_passes (so that
// Citus propagates nothing of it).
struct HiddenPasses {
  int level = 0;         // the GUC nest level opened (0: nothing hidden)
  BufferUsage buffers{};  // pgBufferUsage when it began
};
HiddenPasses hide_pass_statements_from_client();
// Inside a GUC nest level the caller opens and rolls back: the statements
// run from here on are counted in no statistics a role could read
// (track_counts, track_functions, pg_stat_statements when loaded).
void stop_statement_statistics();

// Puts back every setting of the level (also those set in it since), and
// the buffer usage counters (pgBufferUsage) as they were when it began: the
// blocks the passes read count in no EXPLAIN (ANALYZE, BUFFERS) or
// pg_stat_statements entry of the caller's statement.
void show_pass_statements_again(const HiddenPasses& hidden);

}  // namespace dptrain::pg
