// bench/optional/lbfgsb_comparison: Debian's L-BFGS-B 3.0 (setulb, reverse
// communication; liblbfgsb-dev) against dptrain's own optim::Lbfgs (and
// optim::Newton) on AMP objectives, each asked to reach ||grad|| <= gamma =
// 1/n^2 on exact evaluations. The measurement behind the choice of our own
// L-BFGS (docs/amp.md). Not built by CMake (the project does not link
// L-BFGS-B); build and run by hand after `make`:
//
//   apt-get install liblbfgsb-dev
//   g++ -O2 -std=c++17 -Isrc -Itest/unit/optim -I/usr/include/eigen3 bench/optional/lbfgsb_comparison.cpp \
//       build/libdptrain_core.a -llbfgsb -lsodium -o build/bench/lbfgsb_comparison
//   build/bench/lbfgsb_comparison
//
// setulb runs with factr = 0 and pgtol = 0 (no stopping of its own); it
// still stops once F stops changing in double precision.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>
#include "core/optim/in_memory_glm.h"
#include "core/optim/lbfgs.h"
#include "core/optim/newton.h"
#include "core/privacy/random_source.h"
#include "core/privacy/samplers.h"
#include "synthetic_glm.h"

using namespace dptrain;
using namespace dptrain::optim;

extern "C" void setulb_(int* n, int* m, double* x, double* l, double* u, int* nbd, double* f, double* g,
                        double* factr, double* pgtol, double* wa, int* iwa, char* task, int* iprint, char* csave,
                        int* lsave, int* isave, double* dsave, size_t task_len, size_t csave_len);

void run_setulb(const InMemoryGlm& glm, const RegularizedObjective& obj, double gamma, int max_evals) {
  int n = glm.dim(), m = 10, iprint = -1;
  std::vector<double> x(n, 0.0), l(n, 0.0), u(n, 0.0), g(n), wa(2 * m * n + 5 * n + 11 * m * m + 8 * m);
  std::vector<int> nbd(n, 0), iwa(3 * n), isave(44), lsave(4);
  std::vector<double> dsave(29);
  double f = 0, factr = 0, pgtol = 0;
  char task[61], csave[61];
  std::memset(task, ' ', 60); std::memcpy(task, "START", 5); task[60] = 0;
  std::memset(csave, ' ', 60); csave[60] = 0;
  int evals = 0; double gn = 0; std::string why = "max evaluations";
  while (evals < max_evals) {
    setulb_(&n, &m, x.data(), l.data(), u.data(), nbd.data(), &f, g.data(), &factr, &pgtol, wa.data(), iwa.data(),
            task, &iprint, csave, lsave.data(), isave.data(), dsave.data(), 60, 60);
    if (std::strncmp(task, "FG", 2) == 0) {
      Eigen::Map<Eigen::VectorXd> theta(x.data(), n);
      Evaluation e = obj.evaluate(theta, glm.sums(0, theta, false));
      ++evals;
      f = e.value;
      Eigen::Map<Eigen::VectorXd>(g.data(), n) = e.gradient;
      gn = e.gradient.norm();
      if (gn + e.gradient_error <= gamma) { why = "converged"; break; }
    } else if (std::strncmp(task, "NEW_X", 5) == 0) {
      continue;
    } else {
      why = std::string(task, 60);
      while (!why.empty() && why.back() == ' ') why.pop_back();
      break;
    }
  }
  std::printf("  setulb : %4d evaluations, |g| = %.3g (%s)\n", evals, gn, why.c_str());
}

template <class M>
void run_own(const char* name, const InMemoryGlm& glm, const RegularizedObjective& obj, double gamma, int max_evals) {
  M m(Eigen::VectorXd::Zero(glm.dim()), StopRule{gamma, max_evals});
  while (m.status() == Status::Evaluate) m.accept(obj.evaluate(m.point(), glm.sums(0, m.point(), m.needs_hessian())));
  std::printf("  %-7s: %4d evaluations, |g| = %.3g (%s)\n", name, m.evaluations(), m.last_gradient_norm(),
              m.status() == Status::Converged ? "converged" : m.failure().c_str());
}

void problem(const char* title, const testing::Rows& r, LossKind loss, double beta_over_gap, double sigma1) {
  const int n = r.x.rows(), d = r.x.cols();
  const double lambda = 2 * beta_over_gap;
  auto rng = privacy::RandomSource::seeded(3);
  Eigen::VectorXd b1 = Eigen::VectorXd::Zero(d);
  privacy::add_gaussian_noise(rng, b1.data(), d, sigma1);
  const InMemoryGlm glm(r.x, r.classes, 1, loss, 0.1, 1.0);
  const RegularizedObjective obj(n, lambda / n, b1, 1.0);
  const double gamma = 1.0 / (double(n) * n);
  std::printf("%s (n=%d, d=%d, Lambda=%.1f, gamma=%.3g)\n", title, n, d, lambda, gamma);
  run_setulb(glm, obj, gamma, 3000);
  run_own<Lbfgs>("lbfgs", glm, obj, gamma, 3000);
  if (d <= 300) run_own<Newton>("newton", glm, obj, gamma, 100);
}

// beta / (eps1 - eps3) and sigma1 of each problem: AMP's at the stated budget.
int main() {
  const auto adult = testing::adult_like(36176, 5);
  problem("adult-like logistic, H-F Lambda", adult, LossKind::Logistic, 1 / (0.099 * (1 - 0.9320175)), 4.48e-3);
  problem("adult-like huber, H-F Lambda", adult, LossKind::HuberSvm, 5 / (0.099 * (1 - 0.9320175)), 4.48e-3);
  problem("adult-like logistic, eps=1 (weaker Lambda)", adult, LossKind::Logistic, 1 / (0.99 * 0.1), 4.48e-4);
  const auto dense = testing::small_dense(8000, 784, 7);
  problem("dense d=784 logistic, H-F Lambda (eps = 0.1)", dense, LossKind::Logistic, 1 / (0.099 * 0.03), 2e-2);
  problem("dense d=784 logistic, eps = 10", dense, LossKind::Logistic, 1 / (9.9 * 0.1), 2e-4);
  const auto big = testing::adult_like(300000, 11);
  problem("adult-like n=300000 logistic, eps = 10 (mu = 7e-6)", big, LossKind::Logistic, 1 / (9.9 * 0.0991), 4e-6);
  problem("adult-like n=300000 huber, eps = 10", big, LossKind::HuberSvm, 5 / (9.9 * 0.0991), 4e-6);
  return 0;
}
