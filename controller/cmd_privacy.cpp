// dptrain privacy: the privacy accounting library on the command line (no database).
//   gaussian              sigma of the Gaussian mechanism for (epsilon, delta)
//   rdp                   epsilon of T steps of the Poisson-subsampled Gaussian (RDP accountant)
//   rdp-sigma             the smallest noise multiplier reaching a target epsilon
//   zcdp-to-dp            rho-zCDP as (epsilon, delta)-DP
//   dp-to-zcdp            the rho budget for an (epsilon, delta) target
//   advanced-composition  k-fold advanced composition of (epsilon, delta)-DP
//   advanced-composition-step  its inverse: the per-step epsilon for a total epsilon
// With --json each prints one object holding its inputs and results.
#include <iomanip>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "commands.h"
#include "core/error.h"
#include "core/privacy/composition.h"
#include "core/privacy/gaussian_calibration.h"
#include "core/privacy/rdp_sampled_gaussian.h"
#include "core/privacy/zcdp.h"
#include "number_flags.h"

namespace dptrain::cli {
namespace {

namespace pv = dptrain::privacy;
using nlohmann::json;

void print(const json& j, bool as_json, const std::string& text) {
  if (as_json) {
    std::cout << j.dump() << "\n";
  } else {
    std::cout << text << "\n";
  }
}

std::string fmt(double x) {
  std::ostringstream s;
  s << std::setprecision(8) << x;
  return s.str();
}

// --orders: "default" or a comma-separated list of orders > 1.
std::vector<double> parse_orders(const std::string& text) {
  if (text == "default") return pv::default_rdp_orders();
  std::vector<double> orders;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    std::size_t used = 0;
    double value = 0;
    try {
      value = std::stod(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != item.size())
      fail(ErrorKind::InvalidParameter, "invalid RDP order \"" + item + "\"", {},
           "--orders takes \"default\" or a comma-separated list of numbers > 1, e.g. 2,4,8,16.5");
    orders.push_back(value);
  }
  pv::validate_rdp_orders(orders);
  return orders;
}

// The CLI11 check of --orders: "default" or decimal numbers only, a usage
// error (exit code 2) otherwise -- std::stod read "0x10" as 16 and " 2" as 2.
std::string orders_flag_problem(const std::string& text) {
  if (text == "default") return "";
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    std::string number = item;
    const std::string problem = client::number_flag_problem(number, "FLOAT");
    if (!problem.empty()) return "invalid RDP order \"" + item + "\": " + problem;
  }
  return "";
}

json orders_json(const std::string& text, const std::vector<double>& orders) {
  return text == "default" ? json("default") : json(orders);
}

struct Options {
  double epsilon = 0, delta = 0, sensitivity = 1, q = 0, sigma = 0, rho = 0, delta_prime = 0, total_epsilon = 0;
  std::int64_t steps = 0, k = 0;
  std::string method = "analytic", orders = "default", rdp_conversion = "improved",
              zcdp_conversion = "cks", adjacency = "add-remove";
  bool json = false;
};

void run_gaussian(const Options& o) {
  const pv::GaussianCalibration method = pv::parse_gaussian_calibration(o.method);
  const double sigma = pv::gaussian_sigma(o.sensitivity, o.epsilon, o.delta, method);
  print({{"epsilon", o.epsilon}, {"delta", o.delta}, {"sensitivity", o.sensitivity}, {"method", o.method},
         {"sigma", sigma}},
        o.json,
        "sigma " + fmt(sigma) + " (" + o.method + " Gaussian mechanism, sensitivity " + fmt(o.sensitivity) +
            ", epsilon " + fmt(o.epsilon) + ", delta " + fmt(o.delta) + ")");
}

pv::RdpOptions rdp_options(const Options& o) {
  pv::RdpOptions r;
  r.conversion = pv::parse_rdp_conversion(o.rdp_conversion);
  r.adjacency = pv::parse_adjacency(o.adjacency);
  r.orders = parse_orders(o.orders);
  return r;
}

void run_rdp(const Options& o) {
  const pv::RdpOptions r = rdp_options(o);
  const pv::RdpEpsilon e = pv::sampled_gaussian_epsilon(o.q, o.sigma, o.steps, o.delta, r);
  print({{"q", o.q}, {"sigma", o.sigma}, {"steps", o.steps}, {"delta", o.delta},
         {"orders", orders_json(o.orders, r.orders)}, {"conversion", o.rdp_conversion},
         {"adjacency", o.adjacency}, {"epsilon", e.epsilon}, {"optimal_order", e.optimal_order}},
        o.json,
        "epsilon " + fmt(e.epsilon) + " at delta " + fmt(o.delta) + " (optimal order " + fmt(e.optimal_order) +
            ", " + o.rdp_conversion + " conversion, " + o.adjacency + " adjacency)");
}

void run_rdp_sigma(const Options& o) {
  const pv::RdpOptions r = rdp_options(o);
  const pv::RdpNoise n = pv::sampled_gaussian_noise_multiplier(o.q, o.steps, o.epsilon, o.delta, r);
  print({{"q", o.q}, {"steps", o.steps}, {"epsilon", o.epsilon}, {"delta", o.delta},
         {"orders", orders_json(o.orders, r.orders)}, {"conversion", o.rdp_conversion},
         {"adjacency", o.adjacency}, {"sigma", n.noise_multiplier}, {"achieved_epsilon", n.epsilon},
         {"optimal_order", n.optimal_order}},
        o.json,
        "sigma " + fmt(n.noise_multiplier) + " (achieves epsilon " + fmt(n.epsilon) + " at delta " + fmt(o.delta) +
            ", optimal order " + fmt(n.optimal_order) + ")");
}

void run_zcdp_to_dp(const Options& o) {
  const pv::ZcdpConversion conversion = pv::parse_zcdp_conversion(o.zcdp_conversion);
  const double epsilon = pv::zcdp_to_dp_epsilon(o.rho, o.delta, conversion);
  print({{"rho", o.rho}, {"delta", o.delta}, {"conversion", o.zcdp_conversion}, {"epsilon", epsilon}}, o.json,
        "epsilon " + fmt(epsilon) + " at delta " + fmt(o.delta) + " (" + o.zcdp_conversion + " conversion)");
}

void run_dp_to_zcdp(const Options& o) {
  const double rho = pv::dp_to_zcdp_rho(o.epsilon, o.delta);
  print({{"epsilon", o.epsilon}, {"delta", o.delta}, {"rho", rho}}, o.json,
        "rho " + fmt(rho) + " (rho-zCDP gives (" + fmt(o.epsilon) + ", " + fmt(o.delta) + ")-DP)");
}

void run_advanced_composition(const Options& o) {
  const pv::DpGuarantee total = pv::advanced_composition(o.epsilon, o.delta, o.k, o.delta_prime);
  print({{"epsilon", o.epsilon}, {"delta", o.delta}, {"k", o.k}, {"delta_prime", o.delta_prime},
         {"total_epsilon", total.epsilon}, {"total_delta", total.delta}},
        o.json, "(" + fmt(total.epsilon) + ", " + fmt(total.delta) + ")-DP after " + std::to_string(o.k) + " steps");
}

void run_advanced_composition_step(const Options& o) {
  const double step = pv::advanced_composition_step_epsilon(o.total_epsilon, o.k, o.delta_prime);
  const double achieved = pv::advanced_composition(step, 0.0, o.k, o.delta_prime).epsilon;
  print({{"total_epsilon", o.total_epsilon}, {"k", o.k}, {"delta_prime", o.delta_prime}, {"epsilon", step},
         {"achieved_total_epsilon", achieved}},
        o.json,
        "per-step epsilon " + fmt(step) + ": " + std::to_string(o.k) + " steps of (epsilon, delta) compose to (" +
            fmt(achieved) + ", k delta + " + fmt(o.delta_prime) + ")-DP");
}

}  // namespace

void register_privacy(CLI::App& app) {
  auto o = std::make_shared<Options>();
  CLI::App* privacy = app.add_subcommand("privacy", "privacy accounting: noise calibration, composition, zCDP, RDP");
  privacy->require_subcommand(1);

  CLI::App* g = privacy->add_subcommand("gaussian", "sigma of the Gaussian mechanism for (epsilon, delta)-DP");
  g->add_option("--epsilon", o->epsilon, "epsilon > 0")->required();
  g->add_option("--delta", o->delta, "delta in (0, 1)")->required();
  g->add_option("--sensitivity", o->sensitivity, "L2 sensitivity of the query")->capture_default_str();
  g->add_option("--method", o->method, "analytic | classic (epsilon < 1) | amp")->capture_default_str();
  g->add_flag("--json", o->json, "print one JSON object");
  g->callback([o] { run_gaussian(*o); });

  auto add_rdp_common = [&](CLI::App* cmd) {
    cmd->add_option("--q", o->q, "Poisson sampling rate in (0, 1]")->required();
    cmd->add_option("--steps", o->steps, "number of steps T")->required();
    cmd->add_option("--delta", o->delta, "delta in (0, 1)")->required();
    cmd->add_option("--orders", o->orders, "default | comma-separated list of orders > 1")
        ->capture_default_str()
        ->check(CLI::Validator(orders_flag_problem, "", ""));
    cmd->add_option("--conversion", o->rdp_conversion, "improved | classic")->capture_default_str();
    cmd->add_option("--adjacency", o->adjacency, "add-remove | replace-one")->capture_default_str();
    cmd->add_flag("--json", o->json, "print one JSON object");
  };
  CLI::App* r = privacy->add_subcommand("rdp", "epsilon of T steps of the Poisson-subsampled Gaussian (RDP)");
  r->add_option("--sigma", o->sigma, "noise multiplier (noise std / clipping norm)")->required();
  add_rdp_common(r);
  r->callback([o] { run_rdp(*o); });

  CLI::App* rs = privacy->add_subcommand("rdp-sigma", "smallest noise multiplier reaching a target epsilon (RDP)");
  rs->add_option("--epsilon", o->epsilon, "target epsilon > 0")->required();
  add_rdp_common(rs);
  rs->callback([o] { run_rdp_sigma(*o); });

  CLI::App* z = privacy->add_subcommand("zcdp-to-dp", "rho-zCDP as (epsilon, delta)-DP");
  z->add_option("--rho", o->rho, "rho >= 0")->required();
  z->add_option("--delta", o->delta, "delta in (0, 1)")->required();
  z->add_option("--conversion", o->zcdp_conversion, "cks | bun-steinke")->capture_default_str();
  z->add_flag("--json", o->json, "print one JSON object");
  z->callback([o] { run_zcdp_to_dp(*o); });

  CLI::App* d = privacy->add_subcommand("dp-to-zcdp", "the rho-zCDP budget that guarantees (epsilon, delta)-DP");
  d->add_option("--epsilon", o->epsilon, "epsilon > 0")->required();
  d->add_option("--delta", o->delta, "delta in (0, 1)")->required();
  d->add_flag("--json", o->json, "print one JSON object");
  d->callback([o] { run_dp_to_zcdp(*o); });

  CLI::App* a = privacy->add_subcommand("advanced-composition", "k-fold advanced composition of (epsilon, delta)-DP");
  a->add_option("--epsilon", o->epsilon, "per-step epsilon > 0")->required();
  a->add_option("--delta", o->delta, "per-step delta in [0, 1)")->required();
  a->add_option("--k", o->k, "number of steps k >= 1")->required();
  a->add_option("--delta-prime", o->delta_prime, "slack delta' in (0, 1)")->required();
  a->add_flag("--json", o->json, "print one JSON object");
  a->callback([o] { run_advanced_composition(*o); });

  CLI::App* as = privacy->add_subcommand("advanced-composition-step",
                                         "the largest per-step epsilon whose k-fold advanced composition is at "
                                         "most a total epsilon");
  as->add_option("--total-epsilon", o->total_epsilon, "target total epsilon > 0")->required();
  as->add_option("--k", o->k, "number of steps k >= 1")->required();
  as->add_option("--delta-prime", o->delta_prime, "slack delta' in (0, 1)")->required();
  as->add_flag("--json", o->json, "print one JSON object");
  as->callback([o] { run_advanced_composition_step(*o); });
}

}  // namespace dptrain::cli
