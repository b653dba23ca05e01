// The data OPDisc's oracle needs, in the compact form the grouping pass
// returns (engine/pass.h, PassKind::GroupedRows): the rows grouped by their
// binarized feature vector, with the number of positive and negative labels
// of each group.
//
// Why grouping is exact: the 0/1 loss of a row depends on w only through
// sign(w.x) and its label, so rows with the same x have the same loss as a
// function of w, and the total loss is sum_g (p_g 1[x_g errs for +1] +
// m_g 1[x_g errs for -1]). One error indicator per group and label, weighted
// by its count, is the same objective as one per row (docs/opdisc.md); the
// MIP then has at most 2 G indicators instead of n.
//
// Features: the oracle's formulation needs binary features (one-hot or
// binned attributes). The pass maps every feature value v to 1 if v >= 1/2
// and to 0 otherwise -- a fixed function of each row, so neighbouring tables
// stay neighbouring -- and counts the rows it changed (reported to readers
// only). Prediction rule: +1 iff w.x >= 0 (the rule of dp_predict).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace dptrain::opdisc {

struct Group {
  std::vector<int> ones;         // the features j with x_j = 1
  std::int64_t positives = 0;    // rows of this x with label +1 (class index 1)
  std::int64_t negatives = 0;    // rows of this x with label -1 (class index 0)
};

struct GroupedRows {
  int dim = 0;
  std::vector<Group> groups;     // distinct x, in lexicographic order of x
  std::int64_t binarized = 0;    // rows with a feature value other than 0 or 1
};

// Layout of the pass result: [G, binarized, then G blocks of d + 2 values:
// x_1..x_d (0/1), positives, negatives]. If G exceeds the pass input's
// limit, the blocks are left out (the run then refuses).
constexpr std::size_t kHeader = 2;
// v -> 1 if v >= kBinarizeThreshold else 0 (the SQL statement spells it 0.5);
// the released model records it, so prediction reads rows the same way.
constexpr double kBinarizeThreshold = 0.5;

// Parses and checks a pass result against the public facts (d, n). Throws
// Error(ProgramLimit) if there were more than `max_groups` distinct vectors,
// Error(Internal) if the result is malformed.
GroupedRows parse_groups(const double* result, std::size_t len, int dim, std::int64_t rows, long max_groups);

// The grouping of in-memory rows (the in-memory twin of the pass):
// x binarized at 1/2, labels 1 = positive; the same layout and order as SQL.
std::vector<double> group_rows(const std::vector<std::vector<double>>& x, const std::vector<double>& y,
                               long max_groups);

// Number of misclassified rows of the integer weights k (w = tau k: the
// sign does not depend on tau) under the rule +1 iff k.x >= 0.
std::int64_t zero_one_errors(const GroupedRows& data, const std::vector<int>& k);

// The perturbed normalized objective of Algorithm 1 in grid units:
//   errors(k) - <eta, pi(k)>,  pi(k) = (k / sqrt(K), sqrt(1 - ||k||^2 / K)),
// which is L(D, w) - <eta, pi(w)> for w = tau k, D = tau sqrt(K).
double objective(const GroupedRows& data, const std::vector<int>& k, const std::vector<double>& eta,
                 int norm_squared);

}  // namespace dptrain::opdisc
