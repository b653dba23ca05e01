#include "core/sparse/support.h"

#include "core/algorithms/algorithm.h"
#include "core/error.h"
#include "core/joined.h"

namespace dptrain::sparse {
namespace {

const char* kDensifyHint =
    "Train on a dense copy (CREATE TABLE t_dense AS SELECT ..., x::float8[] AS x FROM t), or use one of the "
    "algorithms that read sparse rows.";

}  // namespace

std::vector<std::string> supported_algorithms() { return algorithms_that(&Algorithm::reads_sparse_rows); }

void check(const Algorithm& algorithm, const TrainingConfig& c) {
  if (!algorithm.reads_sparse_rows())
    fail(ErrorKind::NotImplemented, "algorithm " + algorithm.name() + " cannot train on sparse features",
         "Algorithms that train on dptrain.sparsevec rows: " + joined(supported_algorithms()) + ".", kDensifyHint);
  if (c.distributed())
    fail(ErrorKind::NotImplemented, "a distributed table with sparse features cannot be trained in place",
         "Distributed training reads float8[] rows on the shards.", kDensifyHint);
}

void check(const TrainingConfig& c) { check(*make_algorithm(c.algorithm), c); }

}  // namespace dptrain::sparse
