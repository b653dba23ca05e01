#include "core/optim/in_memory_glm.h"

#include <gtest/gtest.h>

#include "core/error.h"
#include "core/optim/regularized_objective.h"
#include "synthetic_glm.h"

namespace dptrain::optim {
namespace {

// The sums against a direct long-double loop over the rows.
TEST(InMemoryGlm, SumsMatchADirectLoop) {
  for (LossKind loss : {LossKind::Logistic, LossKind::HuberSvm}) {
    testing::Rows r = testing::small_dense(500, 6, 11);
    const InMemoryGlm glm(r.x, r.classes, 1, loss, 0.1, 0);
    Eigen::VectorXd theta(6);
    theta << 0.5, -1, 2, 0.1, -0.3, 1.5;
    const DataSums s = glm.sums(0, theta, true);
    long double loss_sum = 0;
    Eigen::Matrix<long double, Eigen::Dynamic, 1> grad = Eigen::Matrix<long double, Eigen::Dynamic, 1>::Zero(6);
    Eigen::MatrixXd hess = Eigen::MatrixXd::Zero(6, 6);
    for (int i = 0; i < 500; ++i) {
      const double y = r.classes[i] == 1 ? 1 : -1;
      const double z = y * r.x.row(i).dot(theta);
      loss_sum += loss_value(loss, z, 0.1);
      for (int j = 0; j < 6; ++j) grad[j] += static_cast<long double>(loss_derivative(loss, z, 0.1)) * y * r.x(i, j);
      hess += loss_second_derivative(loss, z, 0.1) * r.x.row(i).transpose() * r.x.row(i);
    }
    EXPECT_EQ(s.rows, 500);
    EXPECT_NEAR(s.loss_sum, static_cast<double>(loss_sum), 1e-12);
    for (int j = 0; j < 6; ++j) EXPECT_NEAR(s.gradient_sum[j], static_cast<double>(grad[j]), 1e-12);
    EXPECT_LT((s.hessian_sum - hess).norm(), 1e-10);
  }
}

// Gradient = d(loss sum), Hessian = d(gradient sum), by central differences (logistic).
TEST(InMemoryGlm, DerivativesAreConsistent) {
  testing::Rows r = testing::small_dense(300, 4, 3);
  const InMemoryGlm glm(r.x, r.classes, 1, LossKind::Logistic, 0.1, 0);
  const Eigen::Vector4d theta(0.3, -0.7, 1.1, 0.2);
  const DataSums s = glm.sums(0, theta, true);
  const double h = 1e-5;
  for (int j = 0; j < 4; ++j) {
    Eigen::VectorXd up = theta, down = theta;
    up[j] += h;
    down[j] -= h;
    const DataSums su = glm.sums(0, up, false), sd = glm.sums(0, down, false);
    EXPECT_NEAR(s.gradient_sum[j], (su.loss_sum - sd.loss_sum) / (2 * h), 1e-6);
    const Eigen::VectorXd column = (su.gradient_sum - sd.gradient_sum) / (2 * h);
    EXPECT_LT((s.hessian_sum.col(j) - column).norm(), 1e-6);
  }
}

TEST(InMemoryGlm, ClipsRowsOnce) {
  RowMatrix x(3, 2);
  x << 3, 4, 0.3, 0.4, 0, 0;
  const InMemoryGlm glm(x, {0, 1, 1}, 1, LossKind::Logistic, 0.1, 1.0);
  EXPECT_NEAR(glm.features().row(0).norm(), 1.0, 1e-15);  // 5 -> 1
  EXPECT_NEAR(glm.features()(0, 0), 0.6, 1e-15);
  EXPECT_EQ(glm.features()(1, 1), 0.4);  // within the bound: untouched
  EXPECT_EQ(glm.features().row(2).norm(), 0.0);
}

TEST(InMemoryGlm, OneVsAllLabels) {
  RowMatrix x = RowMatrix::Ones(4, 2);
  const InMemoryGlm glm(x, {0, 2, 1, 2}, 3, LossKind::Logistic, 0.1, 0);
  EXPECT_EQ(glm.label(0, 0), 1.0);
  EXPECT_EQ(glm.label(1, 0), -1.0);
  EXPECT_EQ(glm.label(1, 2), 1.0);
  EXPECT_EQ(glm.label(3, 1), -1.0);
  const InMemoryGlm binary(x, {0, 1, 1, 0}, 1, LossKind::Logistic, 0.1, 0);
  EXPECT_EQ(binary.label(0, 0), -1.0);
  EXPECT_EQ(binary.label(1, 0), 1.0);
  EXPECT_THROW(InMemoryGlm(x, {0, 3, 1, 2}, 3, LossKind::Logistic, 0.1, 0), Error);
}

TEST(RegularizedObjective, AddsTheDataIndependentTerms) {
  DataSums s;
  s.rows = 4;
  s.loss_sum = 2.0;
  s.gradient_sum = Eigen::Vector2d(4, -8);
  s.hessian_sum = Eigen::Matrix2d::Identity() * 2;
  const RegularizedObjective f(4, 0.5, Eigen::Vector2d(0.1, 0.2), 1.0);
  const Eigen::Vector2d theta(1, 2);
  const Evaluation e = f.evaluate(theta, s);
  // 2/4 + 0.25 * 5 + (0.1 + 0.4) = 0.5 + 1.25 + 0.5
  EXPECT_DOUBLE_EQ(e.value, 2.25);
  // (1, -2) + 0.5 (1, 2) + (0.1, 0.2) = (1.6, -0.8)
  EXPECT_DOUBLE_EQ(e.gradient[0], 1.6);
  EXPECT_DOUBLE_EQ(e.gradient[1], -0.8);
  // 2/4 + 0.5 on the diagonal
  EXPECT_DOUBLE_EQ(e.hessian(0, 0), 1.0);
  EXPECT_DOUBLE_EQ(e.hessian(0, 1), 0.0);
  // a few ulps of the gradient's scale, far below any tolerance we use
  EXPECT_GT(e.gradient_error, 0.0);
  EXPECT_LT(e.gradient_error, 1e-14);
  EXPECT_GT(e.value_error, 0.0);
  EXPECT_LT(e.value_error, 1e-13);
  // no Hessian asked: none given
  s.hessian_sum.resize(0, 0);
  EXPECT_EQ(f.evaluate(theta, s).hessian.size(), 0);
}

TEST(RegularizedObjective, RefusesAChangedTable) {
  DataSums s;
  s.rows = 5;
  s.gradient_sum = Eigen::Vector2d::Zero();
  const RegularizedObjective f(4, 0.5, Eigen::VectorXd(), 1.0);
  try {
    f.evaluate(Eigen::Vector2d::Zero(), s);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidState);
    EXPECT_STREQ(e.what(), "the table changed during training");
    // Not 40001, which clients retry by themselves (each retry charged).
    EXPECT_EQ(e.sqlstate(), "DP003");
    // Names no count (a role that may not read learns no n from it).
    EXPECT_EQ(e.detail().find('5'), std::string::npos) << e.detail();
    EXPECT_EQ(e.detail().find('4'), std::string::npos) << e.detail();
  }
}

}  // namespace
}  // namespace dptrain::optim
