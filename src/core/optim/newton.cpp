#include "core/optim/newton.h"

#include <Eigen/Cholesky>
#include <cmath>

namespace dptrain::optim {

void Newton::step(const Evaluation& e) {
  if (!have_current_) {
    if (!finite(e)) return give_up("the objective is not finite at the start point");
    have_current_ = true;
    x_ = point();
    at_x_ = e;
    return next_direction();
  }
  switch (search_.judge(e)) {
    case Backtracking::Verdict::Accept:
      x_ = point();
      at_x_ = e;
      count_iteration();
      return next_direction();
    case Backtracking::Verdict::Retry: return propose(search_.trial());
    case Backtracking::Verdict::Stuck:
      return give_up("the line search made no progress before the gradient norm reached the tolerance");
  }
}

void Newton::next_direction() {
  const Eigen::VectorXd& g = at_x_.gradient;
  Eigen::LLT<Eigen::MatrixXd> llt(at_x_.hessian);
  Eigen::VectorXd p;
  if (llt.info() == Eigen::Success) p = -llt.solve(g);
  // Rounding can make a nearly singular H indefinite, or the solve useless:
  // fall back to a ridge that keeps the step a descent direction.
  if (llt.info() != Eigen::Success || !p.allFinite() || !(g.dot(p) < 0)) {
    Eigen::MatrixXd ridge = at_x_.hessian;
    ridge.diagonal().array() += 1e-8 * (1 + at_x_.hessian.diagonal().cwiseAbs().maxCoeff());
    Eigen::LDLT<Eigen::MatrixXd> ldlt(ridge);
    p = -ldlt.solve(g);
    if (!p.allFinite() || !(g.dot(p) < 0)) p = -g;
  }
  search_.start(x_, at_x_, std::move(p), 1.0);
  propose(search_.trial());
}

}  // namespace dptrain::optim
