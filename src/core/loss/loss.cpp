#include "core/loss/loss.h"

#include <cmath>

#include "core/error.h"

namespace dptrain {

LossKind parse_loss(const std::string& name) {
  if (name == "logistic") return LossKind::Logistic;
  if (name == "huber" || name == "huber_svm") return LossKind::HuberSvm;
  fail(ErrorKind::InvalidParameter, "unknown loss \"" + name + "\"", {},
       "Use loss => 'logistic' or loss => 'huber_svm'.");
}

std::string loss_name(LossKind kind) {
  return kind == LossKind::Logistic ? "logistic" : "huber_svm";
}

namespace {

// A margin y w.x that is NaN: finite weights and a finite row overflowed to
// inf - inf. Whether a row does that is the row's secret, and a NaN poisoned
// every sum the row entered, after the charge ("DP-SGD diverged" on a table
// with one row x = (1000, 1000), a model without it: docs/governance.md,
// "Hostile review of 2026-11-28"). Such a row counts as margin 0, a fixed
// function of the row and the weights, so its term stays bounded.
double defined(double z) { return std::isnan(z) ? 0.0 : z; }

}  // namespace

double loss_value(LossKind kind, double z, double h) {
  z = defined(z);
  if (kind == LossKind::Logistic) {
    // log(1 + e^{-z}) without overflow for large |z|
    return z > 0 ? std::log1p(std::exp(-z)) : -z + std::log1p(std::exp(z));
  }
  if (z > 1 + h) return 0.0;
  if (z < 1 - h) return 1 - z;
  const double u = 1 + h - z;
  return u * u / (4 * h);
}

double loss_derivative(LossKind kind, double z, double h) {
  z = defined(z);
  if (kind == LossKind::Logistic) {
    // -1 / (1 + e^{z}), computed on the stable side
    if (z > 0) {
      const double e = std::exp(-z);
      return -e / (1 + e);
    }
    return -1.0 / (1 + std::exp(z));
  }
  if (z > 1 + h) return 0.0;
  if (z < 1 - h) return -1.0;
  return -(1 + h - z) / (2 * h);
}

double loss_second_derivative(LossKind kind, double z, double h) {
  z = defined(z);
  if (kind == LossKind::Logistic) {
    // e^{-|z|} / (1 + e^{-|z|})^2, symmetric in z and free of overflow
    const double e = std::exp(-std::abs(z));
    return e / ((1 + e) * (1 + e));
  }
  return (z > 1 + h || z < 1 - h) ? 0.0 : 1 / (2 * h);
}

LossConstants loss_constants(LossKind kind, double feature_bound, double lambda, double radius,
                             double h) {
  if (!(feature_bound > 0) || !std::isfinite(feature_bound))
    fail(ErrorKind::InvalidParameter, "feature bound must be positive and finite");
  if (!(lambda >= 0) || !std::isfinite(lambda))
    fail(ErrorKind::InvalidParameter, "lambda must be non-negative and finite");
  if (kind == LossKind::HuberSvm && !(h > 0 && h < 1))
    fail(ErrorKind::InvalidParameter, "huber_h must be in (0, 1)");
  const double lx = feature_bound;
  LossConstants c{};
  c.lipschitz = lx + (lambda > 0 ? lambda * radius : 0.0);
  const double loss_beta = kind == LossKind::Logistic ? lx * lx : lx * lx / (2 * h);
  c.smoothness = loss_beta + lambda;
  c.strong_convexity = lambda;
  return c;
}

}  // namespace dptrain
