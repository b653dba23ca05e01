// A failed connection is one line with SQLSTATE 08001; libpq's questions go
// to the hint. libpq's text was printed whole: a line per address tried and a
// tab-indented question under each, the SQLSTATE after the last of them.
#include "pg_connection.h"

#include <gtest/gtest.h>

#include <string>

namespace {

using dptrain::client::connection_failure;

TEST(ConnectionFailure, OneLineWithTheQuestionAsHint) {
  const auto e = connection_failure(
      "connection to server on socket \"/nonexistent/.s.PGSQL.5432\" failed: No such file or directory\n"
      "\tIs the server running locally and accepting connections on that Unix domain socket?\n");
  EXPECT_STREQ(e.what(), "could not connect to the database: connection to server on socket "
                         "\"/nonexistent/.s.PGSQL.5432\" failed: No such file or directory");
  EXPECT_EQ(e.sqlstate, "08001");
  EXPECT_EQ(e.hint, "Is the server running locally and accepting connections on that Unix domain socket?");
}

TEST(ConnectionFailure, EveryAddressOnOneLineTheSameQuestionOnce) {
  const auto e = connection_failure(
      "connection to server at \"localhost\" (::1), port 1 failed: Connection refused\n"
      "\tIs the server running on that host and accepting TCP/IP connections?\n"
      "connection to server at \"localhost\" (127.0.0.1), port 1 failed: Connection refused\n"
      "\tIs the server running on that host and accepting TCP/IP connections?\n");
  const std::string what = e.what();
  EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  EXPECT_EQ(what, "could not connect to the database: connection to server at \"localhost\" (::1), port 1 failed: "
                  "Connection refused; connection to server at \"localhost\" (127.0.0.1), port 1 failed: "
                  "Connection refused");
  EXPECT_EQ(e.hint, "Is the server running on that host and accepting TCP/IP connections?");
}

TEST(ConnectionFailure, AServerRefusalKeepsItsText) {
  const auto e = connection_failure(
      "connection to server on socket \"/tmp/.s.PGSQL.5432\" failed: FATAL:  database \"d\" is not currently "
      "accepting connections\n");
  EXPECT_STREQ(e.what(), "could not connect to the database: connection to server on socket \"/tmp/.s.PGSQL.5432\" "
                         "failed: FATAL:  database \"d\" is not currently accepting connections");
  EXPECT_TRUE(e.hint.empty());
}

}  // namespace
