// The epochs of one training run inside the backend, shared by dp_train and
// dp_tune: one aggregate query per epoch over a prepared (shuffled) table,
// the state handed out and taken back by the core's Trainer.
#pragma once

#include <vector>

#include "core/training/trainer.h"
#include "pg_glue.h"

namespace dptrain::pg {

// Runs every planned epoch of `trainer` over `shuffled` (reshuffling it
// between epochs if the plan says so). `input` is scratch space owned by the
// caller's session (no C++ object lives in this frame: it may ereport).
// Reports only public progress: "<progress>epoch e of k done" NOTICEs.
// Requires SPI_connect().
void run_training_epochs(dptrain::Trainer* trainer, const char* shuffled, std::vector<double>* input,
                         const char* progress);

}  // namespace dptrain::pg
