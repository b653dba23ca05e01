#include "core/optim/lockstep.h"

#include "core/error.h"
#include "core/optim/lbfgs.h"
#include "core/optim/newton.h"

namespace dptrain::optim {

Lockstep::Lockstep(std::vector<std::unique_ptr<Minimizer>> problems) : problems_(std::move(problems)) {
  if (problems_.empty()) fail(ErrorKind::Internal, "lockstep: no problems");
  for (const auto& p : problems_)
    if (p->point().size() != problems_[0]->point().size()) fail(ErrorKind::Internal, "lockstep: mixed dimensions");
}

bool Lockstep::failed() const {
  for (const auto& p : problems_)
    if (p->status() == Status::Failed) return true;
  return false;
}

bool Lockstep::converged() const {
  for (const auto& p : problems_)
    if (p->status() != Status::Converged) return false;
  return true;
}

bool Lockstep::running() const { return !failed() && !converged(); }

bool Lockstep::needs_hessian() const {
  for (int k = 0; k < size(); ++k)
    if (pending(k) && problems_[k]->needs_hessian()) return true;
  return false;
}

WeightMatrix Lockstep::points() const {
  WeightMatrix w(size(), problems_[0]->point().size());
  for (int k = 0; k < size(); ++k)
    w.row(k) = problems_[k]->status() == Status::Converged ? problems_[k]->solution().transpose()
                                                           : problems_[k]->point().transpose();
  return w;
}

void Lockstep::accept(const std::vector<Evaluation>& evaluations) {
  if (!running()) fail(ErrorKind::Internal, "lockstep: evaluation given after the end");
  if (static_cast<int>(evaluations.size()) != size()) fail(ErrorKind::Internal, "lockstep: one evaluation per problem");
  ++passes_;
  for (int k = 0; k < size(); ++k)
    if (pending(k)) problems_[k]->accept(evaluations[k]);
}

WeightMatrix Lockstep::solutions() const {
  if (!converged()) fail(ErrorKind::Internal, "lockstep: not every problem converged");
  return points();
}

std::string Lockstep::failure() const {
  for (int k = 0; k < size(); ++k)
    if (problems_[k]->status() == Status::Failed) return "model " + std::to_string(k) + ": " + problems_[k]->failure();
  return {};
}

std::vector<std::unique_ptr<Minimizer>> make_minimizers(const SolverSettings& s, int models, int dim,
                                                        double gradient_tolerance) {
  const StopRule rule{gradient_tolerance, s.max_evaluations};
  std::vector<std::unique_ptr<Minimizer>> v;
  for (int k = 0; k < models; ++k) {
    Eigen::VectorXd start = Eigen::VectorXd::Zero(dim);
    if (s.method == Method::Newton) v.push_back(std::make_unique<Newton>(std::move(start), rule));
    else v.push_back(std::make_unique<Lbfgs>(std::move(start), rule, s.lbfgs_memory));
  }
  return v;
}

}  // namespace dptrain::optim
