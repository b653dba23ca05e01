#include "core/model.h"

#include <cmath>

#include "core/error.h"

namespace dptrain {

std::optional<double> Model::binarize_threshold() const {
  const auto h = details.find("hyperparameters");
  if (h != details.end() && h->is_object()) {
    const auto t = h->find("binarize_threshold");
    if (t != h->end() && !t->is_null()) {
      if (!t->is_number() || !std::isfinite(t->get<double>()))
        fail(ErrorKind::InvalidState, "model has a bad binarize_threshold");
      return t->get<double>();
    }
  }
  // OPDisc models stored before the field: the grouping pass binarized at 1/2.
  if (algorithm == "opdisc") return 0.5;
  return std::nullopt;
}

nlohmann::json Model::to_json() const {
  nlohmann::json w = nlohmann::json::array();
  for (Eigen::Index k = 0; k < weights.rows(); ++k) {
    std::vector<double> row(weights.row(k).data(), weights.row(k).data() + weights.cols());
    w.push_back(row);
  }
  nlohmann::json j = {
      {"format", "dptrain-model"},
      {"version", 1},
      {"name", name},
      {"algorithm", algorithm},
      {"loss", loss_name(loss)},
      {"huber_h", huber_h},
      {"feature_bound", feature_bound},
      {"intercept", intercept},
      {"classes", classes},
      {"weights", w},
      {"seeded", seeded},
      {"details", details},
  };
  j["epsilon"] = epsilon ? nlohmann::json(*epsilon) : nlohmann::json();
  j["delta"] = delta ? nlohmann::json(*delta) : nlohmann::json();
  return j;
}

Model Model::from_json(const nlohmann::json& j) {
  try {
    if (j.at("format") != "dptrain-model" || j.at("version") != 1)
      fail(ErrorKind::InvalidState, "not a dptrain model (format/version)");
    Model m;
    m.name = j.value("name", "");
    m.algorithm = j.at("algorithm").get<std::string>();
    m.loss = parse_loss(j.at("loss").get<std::string>());
    m.huber_h = j.at("huber_h").get<double>();
    m.feature_bound = j.at("feature_bound").get<double>();
    m.intercept = j.value("intercept", 0.0);
    if (!(m.intercept >= 0) || !std::isfinite(m.intercept)) fail(ErrorKind::InvalidState, "model has a bad intercept");
    m.classes = j.at("classes").get<std::vector<std::string>>();
    const auto& w = j.at("weights");
    const auto rows = static_cast<Eigen::Index>(w.size());
    const auto cols = rows ? static_cast<Eigen::Index>(w[0].size()) : 0;
    if (rows < 1 || cols < 1) fail(ErrorKind::InvalidState, "model has no weights");
    const bool shape_ok = (rows == 1 && m.classes.size() == 2) ||
                          (rows >= 3 && static_cast<std::size_t>(rows) == m.classes.size());
    if (!shape_ok) fail(ErrorKind::InvalidState, "model weights do not match its classes");
    m.weights.resize(rows, cols);
    for (Eigen::Index k = 0; k < rows; ++k) {
      const auto row = w[k].get<std::vector<double>>();
      if (static_cast<Eigen::Index>(row.size()) != cols) fail(ErrorKind::InvalidState, "ragged model weights");
      for (Eigen::Index i = 0; i < cols; ++i) m.weights(k, i) = row[i];
    }
    if (!j.at("epsilon").is_null()) m.epsilon = j.at("epsilon").get<double>();
    if (!j.at("delta").is_null()) m.delta = j.at("delta").get<double>();
    m.seeded = j.at("seeded").get<bool>();
    m.details = j.value("details", nlohmann::json::object());
    m.binarize_threshold();  // refuses a malformed threshold now, not when scoring
    return m;
  } catch (const nlohmann::json::exception& e) {
    fail(ErrorKind::InvalidState, "malformed model JSON", e.what());
  }
}

}  // namespace dptrain
