// The prepared tables of a session (pg_temp.dptrain_shuffled_N, made by
// copy_training_data, and their parts pg_temp.dptrain_shuffled_N_pP):
// reshuffled per epoch, split for private tuning, dropped. Require
// SPI_connect().
#pragma once

#include "pg_glue.h"

namespace dptrain::pg {

// The copy number N of a seeded run (tests only): its reshuffles keep
// ORDER BY random(), as its copy had it.
void remember_seeded_copy(int copy);

// A fresh permutation of an already prepared table (per-epoch reshuffle).
void reshuffle_training_data(const char* shuffled);
void drop_training_data(const char* shuffled);

// Private tuning: deals the rows of a prepared table out into `parts` new
// prepared tables by position (row r, 0-based in the table's random order,
// goes to part r mod parts; each part keeps the order, so it is a uniformly
// random permutation of a uniformly random part, with its rows numbered
// 1..m_p in column i). The parts belong to the current role (call it as the
// runner). Returns the names (palloc'd) and the row counts in `rows` (parts
// entries). The source table is left as it is.
char** split_training_data(const char* shuffled, int parts, int64* rows);

}  // namespace dptrain::pg
