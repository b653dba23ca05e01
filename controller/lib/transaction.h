// BEGIN now, ROLLBACK on destruction unless committed: a failed or
// interrupted client-side run leaves no trace in the database.
#pragma once

#include "pg_connection.h"

namespace dptrain::client {

class Transaction {
 public:
  // repeatable_read: one snapshot for every statement of the transaction
  // (a run that reads its table in place: remote_training.cpp).
  explicit Transaction(PgConnection& c, bool repeatable_read = false) : c_(c) {
    c_.exec(repeatable_read ? "BEGIN ISOLATION LEVEL REPEATABLE READ" : "BEGIN");
  }
  ~Transaction() {
    if (!done_) {
      try {
        c_.exec("ROLLBACK");
      } catch (...) {
      }
    }
  }
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  void commit() {
    c_.exec("COMMIT");
    done_ = true;
  }

 private:
  PgConnection& c_;
  bool done_ = false;
};

}  // namespace dptrain::client
