#include "core/optim/newton.h"

#include <Eigen/Cholesky>

namespace dptrain::optim {

void Newton::search_from_current() {
  const Eigen::VectorXd& g = at_x().gradient;
  const Eigen::MatrixXd& h = at_x().hessian;
  Eigen::LLT<Eigen::MatrixXd> llt(h);
  Eigen::VectorXd p;
  if (llt.info() == Eigen::Success) p = -llt.solve(g);
  // Rounding can make a nearly singular H indefinite, or the solve useless:
  // fall back to a ridge that keeps the step a descent direction.
  if (llt.info() != Eigen::Success || !p.allFinite() || !(g.dot(p) < 0)) {
    Eigen::MatrixXd ridge = h;
    ridge.diagonal().array() += 1e-8 * (1 + h.diagonal().cwiseAbs().maxCoeff());
    p = -Eigen::LDLT<Eigen::MatrixXd>(ridge).solve(g);
    if (!p.allFinite() || !(g.dot(p) < 0)) p = -g;
  }
  search(std::move(p), 1.0);
}

}  // namespace dptrain::optim
