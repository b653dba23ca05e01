// The run of an SGD-epoch algorithm asks for the passes the first engine's
// epoch loop ran, in the same order: epoch, (training loss), (reshuffle),
// epoch, ... and the SQL of each pass kind is decided once, here in the core.
#include "core/engine/epoch_run.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/engine/pass.h"
#include "core/error.h"

namespace dptrain {
namespace {

TrainingConfig config(const std::string& algorithm) {
  TrainingConfig c;
  c.algorithm = algorithm;
  c.epochs = 3;
  c.batch_size = 10;
  c.rows = 100;
  c.dim = 2;
  c.classes = {"neg", "pos"};
  c.seed = 1;
  if (algorithm != "none") {
    c.epsilon = 1;
    c.delta = 1e-6;
  }
  return c;
}

// The kinds a run asks for when every pass "succeeds" with its input
// unchanged but counted as a full epoch (rows and updates as planned).
std::vector<PassKind> kinds(EpochRun& run, double loss_per_epoch[] = nullptr) {
  std::vector<PassKind> out;
  int epoch = 0;
  while (std::optional<Pass> p = run.next()) {
    out.push_back(p->kind);
    std::vector<double> r = p->input;
    if (p->kind == PassKind::SgdEpoch || p->kind == PassKind::SampledEpoch) {
      r[epoch_state::kRows] = static_cast<double>(run.rows_per_epoch());
      r[epoch_state::kUpdates] += static_cast<double>(run.config().updates_per_epoch());
      ++epoch;
    } else if (p->kind == PassKind::Evaluate) {
      r = {100, 50, 100 * loss_per_epoch[epoch - 1]};
    }
    run.accept(r.data(), r.size());
  }
  return out;
}

TEST(EpochRun, AsksForOneEpochPerPlannedEpoch) {
  EpochRun run(config("bolton"));
  EXPECT_EQ(kinds(run), std::vector<PassKind>(3, PassKind::SgdEpoch));
  EXPECT_EQ(run.progress_done(), 3);
  EXPECT_EQ(run.progress_total(), 3);
  const std::vector<Progress> msgs = run.take_progress();
  ASSERT_EQ(msgs.size(), 3u);
  EXPECT_EQ(msgs[2].message, "epoch 3 of 3 done");
  EXPECT_FALSE(msgs[2].depends_on_data);
  EXPECT_TRUE(run.take_progress().empty());
}

TEST(EpochRun, ReshufflesBeforeEveryEpochButTheFirst) {
  TrainingConfig c = config("none");
  c.reshuffle = true;
  EpochRun run(c);
  EXPECT_EQ(kinds(run), (std::vector<PassKind>{PassKind::SgdEpoch, PassKind::Reshuffle, PassKind::SgdEpoch,
                                               PassKind::Reshuffle, PassKind::SgdEpoch}));
}

TEST(EpochRun, Bst14AsksForSampledEpochs) {
  TrainingConfig c = config("bst14");
  c.radius = 5;  // convex BST14 projects onto a ball
  EpochRun run(c);
  EXPECT_EQ(kinds(run), std::vector<PassKind>(3, PassKind::SampledEpoch));
}

TEST(EpochRun, ToleranceMeasuresTheLossAfterEveryEpochAndStops) {
  TrainingConfig c = config("bolton");
  c.lambda = 0.01;
  c.epochs = 5;
  c.options = {{"tolerance", 0.1}};
  EpochRun run(c);
  // Objective ~ mean loss (weights stay 0 here): 1.0, 0.5, 0.48 -> the third
  // epoch improves by 4% < 10%: stop after it.
  double losses[] = {1.0, 0.5, 0.48, 0.1, 0.1};
  EXPECT_EQ(kinds(run, losses),
            (std::vector<PassKind>{PassKind::SgdEpoch, PassKind::Evaluate, PassKind::SgdEpoch, PassKind::Evaluate,
                                   PassKind::SgdEpoch, PassKind::Evaluate}));
  EXPECT_TRUE(run.stopped_early());
  const std::vector<Progress> msgs = run.take_progress();
  ASSERT_EQ(msgs.size(), 4u);
  EXPECT_TRUE(msgs.back().depends_on_data);  // "stopped after epoch 3 of 5"
  EXPECT_EQ(run.release(0).details["stopping"]["epochs_run"], 3);
}

TEST(EpochRun, EnforcesTheProtocol) {
  EpochRun run(config("none"));
  EXPECT_THROW(run.accept(nullptr, 0), Error);  // nothing asked for
  std::optional<Pass> p = run.next();
  ASSERT_TRUE(p);
  EXPECT_THROW(run.next(), Error);  // the pass is not done yet
  std::vector<double> wrong = p->input;  // saw no rows
  EXPECT_THROW(run.accept(wrong.data(), wrong.size()), Error);
  EXPECT_THROW(run.release(0), Error);  // epochs missing
}

TEST(PassSql, EveryKindIsOneStatementOverTheNamedTable) {
  Pass p;
  const std::string t = "pg_temp.dptrain_shuffled_3";
  p.kind = PassKind::SgdEpoch;
  EXPECT_EQ(pass_sql(p, t), "SELECT dptrain.sgd_epoch(x, y, $1::pg_catalog.float8[]) FROM pg_temp.dptrain_shuffled_3");
  p.kind = PassKind::SampledEpoch;
  p.rows = 1001;
  EXPECT_EQ(pass_sql(p, t),
            "SELECT dptrain.sampled_epoch($1::pg_catalog.float8[], 'pg_temp.dptrain_shuffled_3'::pg_catalog.regclass, "
            "1001)");
  p.kind = PassKind::GradientLoss;
  EXPECT_EQ(pass_sql(p, t),
            "SELECT dptrain.gradient_sum(x, y, $1::pg_catalog.float8[]) FROM pg_temp.dptrain_shuffled_3");
  p.kind = PassKind::Split;
  p.parts = 4;
  EXPECT_NE(pass_sql(p, t).find("dptrain.training_split('pg_temp.dptrain_shuffled_3', 4)"), std::string::npos);
  p.table = 2;
  EXPECT_EQ(pass_table_name(p, t), "pg_temp.dptrain_shuffled_3_p2");
  p.table = 0;
  EXPECT_EQ(pass_table_name(p, t), t);
  EXPECT_THROW(part_table_name(t, 0), Error);
}

}  // namespace
}  // namespace dptrain
