// PostgreSQL 15's node walkers (expression_tree_walker, query_tree_walker)
// take the walker as an old-style bool (*)(): walker(f) casts a typed one,
// bool f(Node*, void*), to it.
#pragma once

namespace dptrain::pg {

using Walker = bool (*)();

template <typename F>
Walker walker(F f) {
  return reinterpret_cast<Walker>(reinterpret_cast<void (*)()>(f));
}

}  // namespace dptrain::pg
