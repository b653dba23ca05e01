#include "core/sparse/support.h"

#include <algorithm>

#include "core/error.h"

namespace dptrain::sparse {
namespace {

const char* kDensifyHint =
    "Train on a dense copy (CREATE TABLE t_dense AS SELECT ..., x::float8[] AS x FROM t), or use one of the "
    "algorithms that read sparse rows.";

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

}  // namespace

const std::vector<std::string>& supported_algorithms() {
  // Every pass kind reads a sparse prepared table: permutation-SGD epochs
  // (SCS13's white-box noise included), reshuffles, splits, gradient/loss
  // sums and evaluations through sparse overloads of their aggregates in
  // O(nnz) per row; sampled batches (BST14) and Poisson lots (the DP-SGD
  // family) receive each sampled row densified (prepared_rows.h) and OPDisc's
  // grouped rows read x::float8[]: O(d) per row, the dense path's work. Only
  // a distributed table (in place) is refused below.
  static const std::vector<std::string> algorithms = {
      "none", "bolton", "scs13", "bst14", "amp", "optimum", "pfw", "dpagd",
      "dpsgd", "psgd", "dpmomentum", "dpadam", "dpadamwosm", "adadp", "opdisc"};
  return algorithms;
}

void check(const TrainingConfig& c) {
  const auto& ok = supported_algorithms();
  if (std::find(ok.begin(), ok.end(), c.algorithm) == ok.end())
    fail(ErrorKind::NotImplemented, "algorithm " + c.algorithm + " cannot train on sparse features",
         "Algorithms that train on dptrain.sparsevec rows: " + joined(ok) + ".", kDensifyHint);
  if (c.distributed())
    fail(ErrorKind::NotImplemented, "a distributed table with sparse features cannot be trained in place",
         "Distributed training reads float8[] rows on the shards.", kDensifyHint);
}

}  // namespace dptrain::sparse
