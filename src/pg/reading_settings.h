// The settings under which the source is read for a role without read access
// (docs/governance.md, "The caller's settings").
//
// The owner's code in the source (a view's or a policy's functions) runs in
// the caller's session. Settings the caller chooses change how that code
// parses and computes values: under DateStyle 'ISO, DMY' a view's
// `seen::date` fails on the row '12/31/2020' that 'ISO, MDY' reads; with
// exit_on_error on, any error of it ends the session as FATAL, before
// dptrain can charge the failure or hide it. Each was a bit about the rows
// that the caller chose to ask for. While such a run reads, these settings
// take fixed values (PostgreSQL's built-in defaults; exit_on_error off), the
// same for every caller. And no parallel worker runs it: a worker shows the
// statement it runs in pg_stat_activity to the caller's other sessions.
#pragma once

namespace dptrain::pg {

// Sets them at the current GUC nest level (GUC_ACTION_SAVE): the caller's
// AtEOXact_GUC of that level puts the caller's values back.
void pin_reading_settings();

}  // namespace dptrain::pg
