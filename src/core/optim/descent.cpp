#include "core/optim/descent.h"

namespace dptrain::optim {

void DescentMinimizer::step(const Evaluation& e) {
  if (!have_current_) {
    if (!finite(e)) return give_up("the objective is not finite at the start point");
    have_current_ = true;
    x_ = point();
    at_x_ = e;
    return search_from_current();
  }
  switch (search_.judge(e)) {
    case Backtracking::Verdict::Accept:
      accepted(point(), e);
      x_ = point();
      at_x_ = e;
      count_iteration();
      return search_from_current();
    case Backtracking::Verdict::Retry: return propose(search_.trial());
    case Backtracking::Verdict::Stuck:
      if (!restart_when_stuck())
        give_up("the line search made no progress before the gradient norm reached the tolerance");
      return;
  }
}

void DescentMinimizer::search(Eigen::VectorXd direction, double initial_step) {
  search_.start(x_, at_x_, std::move(direction), initial_step);
  propose(search_.trial());
}

}  // namespace dptrain::optim
