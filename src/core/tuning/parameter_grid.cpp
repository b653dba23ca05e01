#include "core/tuning/parameter_grid.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"

namespace dptrain::tuning {
namespace {

[[noreturn]] void bad(const std::string& message, const std::string& hint, const std::string& detail = {}) {
  fail(ErrorKind::InvalidParameter, message, detail, hint);
}

// The dp_train arguments a grid may set; anything else goes into options.
const std::vector<std::string>& argument_names() {
  static const std::vector<std::string> names = {"lambda", "epochs", "batch_size", "learning_rate",
                                                 "schedule", "huber_h", "radius"};
  return names;
}

bool is_argument(const std::string& name) {
  const auto& a = argument_names();
  return std::find(a.begin(), a.end(), name) != a.end();
}

// Choices that are the privacy budget, the data or the loss: never searched over.
// options.tolerance stops after a data-dependent number of epochs.
bool untunable(const std::string& name) {
  static const std::vector<std::string> names = {"epsilon", "delta", "seed", "algorithm", "loss", "classes",
                                                 "name", "label", "features", "source", "tolerance",
                                                 "averaging", "reshuffle", "options"};
  return std::find(names.begin(), names.end(), name) != names.end();
}

double number(const nlohmann::json& v, const std::string& name) {
  if (!v.is_number()) bad("grid value of \"" + name + "\" must be a number", "E.g. {\"" + name + "\": [0.01, 0.1]}.");
  return v.get<double>();
}

std::int64_t whole(const nlohmann::json& v, const std::string& name) {
  const double d = number(v, name);
  if (!(std::floor(d) == d && std::fabs(d) < 9e15))
    bad("grid value of \"" + name + "\" must be a whole number", "E.g. {\"" + name + "\": [1, 5]}.");
  return static_cast<std::int64_t>(d);
}

}  // namespace

ParameterGrid ParameterGrid::parse(const nlohmann::json& grid) {
  if (!grid.is_object() || grid.empty())
    bad("the tuning grid must be a non-empty JSON object of lists",
        "E.g. grid => '{\"learning_rate\": [0.001, 0.01], \"clip_norm\": [0.5, 1]}'.");
  ParameterGrid g;
  g.size_ = 1;
  for (auto it = grid.begin(); it != grid.end(); ++it) {
    const std::string& name = it.key();
    if (untunable(name))
      bad("\"" + name + "\" cannot be tuned", "The grid may name hyperparameters only: lambda, epochs, batch_size, "
          "learning_rate, schedule, huber_h, radius and the algorithm's options (e.g. clip_norm).",
          "Privacy budget, data, loss and data-dependent stopping are fixed by the caller.");
    const nlohmann::json& list = it.value();
    if (!list.is_array() || list.empty())
      bad("grid entry \"" + name + "\" must be a non-empty list", "E.g. {\"" + name + "\": [1, 2]}.");
    std::vector<nlohmann::json> values;
    for (const nlohmann::json& v : list) {
      if (!(v.is_number() || v.is_string() || v.is_boolean()))
        bad("grid entry \"" + name + "\" must list numbers, strings or booleans", "Drop null, list and object values.");
      if (std::find(values.begin(), values.end(), v) != values.end())
        bad("grid entry \"" + name + "\" lists a value twice", "Each candidate value must appear once.");
      values.push_back(v);
    }
    g.size_ *= values.size();
    if (g.size_ > kMaxGridPoints)
      bad("the tuning grid has more than " + std::to_string(kMaxGridPoints) + " points", "Use fewer values.");
    g.names_.push_back(name);
    g.values_.push_back(std::move(values));
  }
  return g;
}

nlohmann::json ParameterGrid::point(std::size_t i) const {
  if (i >= size_) fail(ErrorKind::Internal, "no such grid point");
  nlohmann::json p = nlohmann::json::object();
  for (std::size_t k = names_.size(); k-- > 0;) {
    const std::size_t m = values_[k].size();
    p[names_[k]] = values_[k][i % m];
    i /= m;
  }
  return p;
}

nlohmann::json ParameterGrid::to_json() const {
  nlohmann::json j = nlohmann::json::object();
  for (std::size_t k = 0; k < names_.size(); ++k) j[names_[k]] = values_[k];
  return j;
}

TrainingConfig apply_point(const TrainingConfig& base, const nlohmann::json& point) {
  TrainingConfig c = base;
  if (!c.options.is_object()) c.options = nlohmann::json::object();
  for (auto it = point.begin(); it != point.end(); ++it) {
    const std::string& name = it.key();
    const nlohmann::json& v = it.value();
    if (!is_argument(name)) {
      c.options[name] = v;
      continue;
    }
    if (name == "lambda") c.lambda = number(v, name);
    else if (name == "epochs") {
      const std::int64_t e = whole(v, name);
      if (e < 1 || e > 100000) bad("grid value of \"epochs\" must be in [1, 100000]", "Use fewer epochs.");
      c.epochs = static_cast<int>(e);
    } else if (name == "batch_size") c.batch_size = whole(v, name);
    else if (name == "learning_rate") c.learning_rate = number(v, name);
    else if (name == "huber_h") c.huber_h = number(v, name);
    else if (name == "radius") c.radius = number(v, name);
    else if (name == "schedule") {
      if (!v.is_string()) bad("grid value of \"schedule\" must be a string", "E.g. [\"constant\", \"inverse_sqrt\"].");
      c.schedule = v.get<std::string>();
    }
  }
  return c;
}

std::string describe_point(const nlohmann::json& point) {
  std::string out;
  for (auto it = point.begin(); it != point.end(); ++it) {
    if (!out.empty()) out += ", ";
    out += (is_argument(it.key()) ? "" : "options.") + it.key() + " = " + it.value().dump();
  }
  return out;
}

}  // namespace dptrain::tuning
