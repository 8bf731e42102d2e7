#include "plan/speed_calibration.h"

#include <ceres/ceres.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>

#include "base/parallel_for.h"
#include "plan/calibration_summary.h"
#include "plan/prediction_band.h"

namespace openrecipes {
namespace {

// Huber scale on a row's log error: rows within about 50% count quadratically, only the grossest
// (a release measured twice as slow as the next with the same layout) linearly. Chosen by the
// leave-one-model-out MAPE (docs/planner.md, "Where it stands"): the data's large errors are
// mostly systematic, and a tighter loss that discounts them fits the rest worse (0.1: 14.8%,
// 0.25: 13.4%, 0.5: 12.2%, 1 and 3: 12.3%).
constexpr double kHuberScale = 0.5;
// Weight of the pull of each parameter's log towards its prior's.
constexpr double kPriorWeight = 0.1;

using Bounds = std::vector<SpeedParameterBound>;

double to_u(const SpeedParameterBound& b, double value) {
  return b.logarithmic ? std::log(value) : value;
}
double from_u(const SpeedParameterBound& b, double u) { return b.logarithmic ? std::exp(u) : u; }

SpeedParameters parameters_from(const std::vector<double>& u, const SpeedParameters& prior) {
  SpeedParameters p = prior;
  const Bounds& bounds = speed_parameter_bounds();
  for (std::size_t i = 0; i < bounds.size(); ++i) p.*bounds[i].field = from_u(bounds[i], u[i]);
  return p;
}

double predict(const MeasuredLayout& r, const SpeedParameters& p) {
  return predict_tokens_per_s_per_gpu(r.model, r.cluster, r.workload, r.layout, p);
}

// The predictions for one set of planner inputs (model, cluster, workload, layout), remembered by
// the coordinates they were made at. Ceres evaluates every row at the same points (each iterate and
// its central differences), and rows often share their inputs: the published tables repeat a
// layout over releases (202 rows held 76 distinct inputs), so each distinct one is predicted once
// per point. The value is the one predict() returns; the fit is unchanged. One per fit: not shared
// between threads.
class PredictionMemo {
 public:
  PredictionMemo(const MeasuredLayout* inputs, const SpeedParameters* prior)
      : inputs_(inputs), prior_(prior) {}

  // The predicted tokens/s per GPU at coordinates `u` (n of them).
  double at(double const* u, std::size_t n) {
    // Keyed by the bytes, so that any point, NaN included, is looked up exactly.
    std::string key(reinterpret_cast<const char*>(u), n * sizeof(double));
    if (auto it = values_.find(key); it != values_.end()) return it->second;
    // One iterate and its differences are a few dozen points; older ones are not asked again.
    if (values_.size() >= kMaxPoints) values_.clear();
    double value = predict(*inputs_, parameters_from(std::vector<double>(u, u + n), *prior_));
    values_.emplace(std::move(key), value);
    return value;
  }

  // Whether `row` has the same planner inputs as this memo's.
  bool predicts(const MeasuredLayout& row) const {
    return row.model == inputs_->model && row.cluster == inputs_->cluster &&
           row.workload == inputs_->workload && row.layout == inputs_->layout;
  }

 private:
  static constexpr std::size_t kMaxPoints = 256;
  const MeasuredLayout* inputs_;
  const SpeedParameters* prior_;
  std::unordered_map<std::string, double> values_;
};

// One row's log error, as Ceres evaluates it (its model's weight is applied by the loss).
struct RowResidual {
  PredictionMemo* memo;  // the row's inputs
  double measured;       // tokens/s per GPU
  bool operator()(double const* const* u, double* residual) const {
    double predicted = memo->at(u[0], speed_parameter_bounds().size());
    if (!(predicted > 0) || !std::isfinite(predicted)) return false;
    residual[0] = std::log(predicted / measured);
    return true;
  }
};

// The pull of every parameter towards its prior.
struct PriorResidual {
  std::vector<double> prior_u;
  bool operator()(double const* const* u, double* residual) const {
    for (std::size_t i = 0; i < prior_u.size(); ++i)
      residual[i] = kPriorWeight * (u[0][i] - prior_u[i]);
    return true;
  }
};

// Fits the parameters on `rows`; returns the fitted coordinates.
std::vector<double> fit(const std::vector<const MeasuredLayout*>& rows,
                        const SpeedParameters& prior) {
  const Bounds& bounds = speed_parameter_bounds();
  const int n = static_cast<int>(bounds.size());
  std::vector<double> prior_u, u;
  for (const SpeedParameterBound& b : bounds) {
    double value = std::clamp(prior.*b.field, b.low, b.high);
    prior_u.push_back(to_u(b, value));
  }
  u = prior_u;
  if (rows.empty()) return u;
  std::map<std::string, int> per_model;
  for (const MeasuredLayout* r : rows) ++per_model[r->model.name];

  std::vector<std::unique_ptr<PredictionMemo>> memos;
  ceres::Problem problem;
  for (const MeasuredLayout* r : rows) {
    auto memo =
        std::find_if(memos.begin(), memos.end(), [&](const auto& m) { return m->predicts(*r); });
    if (memo == memos.end()) {
      memos.push_back(std::make_unique<PredictionMemo>(r, &prior));
      memo = std::prev(memos.end());
    }
    auto* cost = new ceres::DynamicNumericDiffCostFunction<RowResidual, ceres::CENTRAL>(
        new RowResidual{memo->get(), r->tokens_per_s_per_gpu});
    cost->AddParameterBlock(n);
    cost->SetNumResiduals(1);
    // The Huber threshold applies to the row's own log error; the model's weight
    // (1 / sqrt(its rows)) scales the loss after it, so that a model's many rows do not move
    // the threshold (weighting the residual instead, as until 2026-12-06, put it at
    // scale / weight: 67% for a model of 45 rows at the old scale of 0.1).
    const double weight = 1 / std::sqrt(static_cast<double>(per_model[r->model.name]));
    problem.AddResidualBlock(cost,
                             new ceres::ScaledLoss(new ceres::HuberLoss(kHuberScale),
                                                   weight * weight, ceres::TAKE_OWNERSHIP),
                             u.data());
  }
  auto* pull = new ceres::DynamicNumericDiffCostFunction<PriorResidual, ceres::CENTRAL>(
      new PriorResidual{prior_u});
  pull->AddParameterBlock(n);
  pull->SetNumResiduals(n);
  problem.AddResidualBlock(pull, nullptr, u.data());
  for (int i = 0; i < n; ++i) {
    problem.SetParameterLowerBound(
        u.data(), i,
        to_u(bounds[static_cast<std::size_t>(i)], bounds[static_cast<std::size_t>(i)].low));
    problem.SetParameterUpperBound(
        u.data(), i,
        to_u(bounds[static_cast<std::size_t>(i)], bounds[static_cast<std::size_t>(i)].high));
  }
  ceres::Solver::Options options;
  options.linear_solver_type = ceres::DENSE_QR;
  options.max_num_iterations = 100;
  // Stop on the step, not on a slow stretch of the descent: at Ceres's default function
  // tolerance (1e-6) one leave-one-model-out refit stopped after 8 iterations at a cost 2.7%
  // above its minimum, which flattered that model's held-out error. At 1e-8 every fit of the
  // dataset ends on the parameter tolerance (1e-8), and a tighter one changes nothing.
  options.function_tolerance = 1e-8;
  // With bounds, Ceres follows each trust-region step with a projected line search (Armijo); its
  // default cubic interpolation evaluates the Jacobian at every trial point, 31 predictions per
  // row with central differences. Bisection needs only the cost. Over the dataset's ten fits the
  // minima reached differ by 0.1% in total cost and the leave-one-model-out MAPE by 0.02 point,
  // at about half the time.
  options.line_search_interpolation_type = ceres::BISECTION;
  options.num_threads = 1;
  options.logging_type = ceres::SILENT;
  options.minimizer_progress_to_stdout = false;
  ceres::Solver::Summary summary;
  ceres::Solve(options, &problem, &summary);
  // A failed solve (a row the model cannot predict at the prior) keeps the prior.
  if (!summary.IsSolutionUsable()) return prior_u;
  return u;
}

std::vector<FittedParameter> fitted_parameters(const std::vector<double>& u,
                                               const SpeedParameters& prior) {
  std::vector<FittedParameter> out;
  const Bounds& bounds = speed_parameter_bounds();
  for (std::size_t i = 0; i < bounds.size(); ++i) {
    const SpeedParameterBound& b = bounds[i];
    FittedParameter f{b.name, from_u(b, u[i]), prior.*b.field, b.low, b.high, false};
    double lo = to_u(b, b.low), hi = to_u(b, b.high), tol = 1e-3 * std::max(1.0, hi - lo);
    f.at_bound = u[i] - lo < tol || hi - u[i] < tol;
    out.push_back(f);
  }
  return out;
}

CalibrationRow row_of(const MeasuredLayout& r, const SpeedParameters& fitted) {
  CalibrationRow row;
  row.name = r.name;
  row.model = r.model.name;
  row.group_key =
      r.model.name + " / " + r.cluster.gpu.type + " / " + std::to_string(r.cluster.gpus);
  row.moe = r.model.is_moe();
  row.gpu_type = r.cluster.gpu.type;
  row.precision = precision_name(r.workload.precision);
  row.published = r.published;
  row.measured_tokens_per_s_per_gpu = r.tokens_per_s_per_gpu;
  row.fitted_tokens_per_s_per_gpu = predict(r, fitted);
  return row;
}

}  // namespace

namespace {

// The models of `measured`, in the order they first appear.
std::vector<std::string> models_of(const std::vector<MeasuredLayout>& measured) {
  std::vector<std::string> models;
  for (const MeasuredLayout& m : measured) {
    if (std::find(models.begin(), models.end(), m.model.name) == models.end())
      models.push_back(m.model.name);
  }
  return models;
}

nlohmann::json parameters_to_json(const SpeedParameters& p) {
  nlohmann::json out = nlohmann::json::object();
  for (const SpeedParameterBound& b : speed_parameter_bounds()) out[b.name] = p.*b.field;
  return out;
}

// Every bound's parameter from `json`, finite and within its bounds; nullopt otherwise.
std::optional<SpeedParameters> parameters_from_json(const nlohmann::json& json,
                                                    const SpeedParameters& prior) {
  if (!json.is_object() || json.size() != speed_parameter_bounds().size()) return std::nullopt;
  SpeedParameters p = prior;
  for (const SpeedParameterBound& b : speed_parameter_bounds()) {
    auto it = json.find(b.name);
    if (it == json.end() || !it->is_number()) return std::nullopt;
    double value = it->get<double>();
    if (!std::isfinite(value) || value < b.low * (1 - 1e-9) || value > b.high * (1 + 1e-9))
      return std::nullopt;
    p.*b.field = value;
  }
  return p;
}

}  // namespace

SpeedFits fit_speed_parameters(const std::vector<MeasuredLayout>& measured,
                               const SpeedParameters& prior, bool leave_one_model_out) {
  SpeedFits fits;
  std::vector<std::string> models =
      leave_one_model_out ? models_of(measured) : std::vector<std::string>{};
  fits.held_out.resize(models.size());
  // The fit on every row (task 0) and, leaving one model out, one refit without each model's
  // rows (task k + 1). They are independent: all on every core (Ceres itself runs one thread),
  // each writing only its own slot, so the result does not depend on the thread count.
  parallel_for(models.size() + 1, [&](std::size_t task) {
    std::vector<const MeasuredLayout*> rows;
    for (const MeasuredLayout& m : measured)
      if (task == 0 || m.model.name != models[task - 1]) rows.push_back(&m);
    SpeedParameters fitted = parameters_from(fit(rows, prior), prior);
    if (task == 0) {
      fits.all = fitted;
    } else {
      fits.held_out[task - 1] = {models[task - 1], fitted};
    }
  });
  return fits;
}

SpeedCalibration calibration_from_fits(const std::vector<MeasuredLayout>& measured,
                                       const SpeedParameters& prior, const SpeedFits& fits) {
  SpeedCalibration result;
  result.parameters = fits.all;
  std::vector<double> u;
  for (const SpeedParameterBound& b : speed_parameter_bounds())
    u.push_back(to_u(b, fits.all.*b.field));
  result.fitted = fitted_parameters(u, prior);
  // The reported value is the fitted one itself, not exp(log(value)).
  for (std::size_t i = 0; i < result.fitted.size(); ++i)
    result.fitted[i].value = fits.all.*speed_parameter_bounds()[i].field;
  for (const MeasuredLayout& m : measured) result.rows.push_back(row_of(m, result.parameters));
  std::vector<std::string> models = models_of(measured);
  result.models = static_cast<int>(models.size());
  for (std::size_t i = 0; i < measured.size(); ++i) {
    // Without the refits a row's leave-one-out prediction is its fitted one.
    const SpeedParameters* held_out = &result.parameters;
    for (const auto& [model, parameters] : fits.held_out)
      if (model == measured[i].model.name) held_out = &parameters;
    CalibrationRow& row = result.rows[i];
    row.leave_one_out_tokens_per_s_per_gpu = predict(measured[i], *held_out);
    row.leave_one_out_error =
        (row.leave_one_out_tokens_per_s_per_gpu - row.measured_tokens_per_s_per_gpu) /
        row.measured_tokens_per_s_per_gpu;
  }
  summarize_calibration(result);
  if (!fits.held_out.empty()) result.band_coverage = band_coverage(result, measured);
  return result;
}

SpeedCalibration calibrate_speed_model(const std::vector<MeasuredLayout>& measured,
                                       const SpeedParameters& prior, bool leave_one_model_out) {
  return calibration_from_fits(measured, prior,
                               fit_speed_parameters(measured, prior, leave_one_model_out));
}

nlohmann::json speed_fits_to_json(const SpeedFits& fits) {
  nlohmann::json held_out = nlohmann::json::array();
  for (const auto& [model, parameters] : fits.held_out)
    held_out.push_back({{"model", model}, {"parameters", parameters_to_json(parameters)}});
  return {{"all", parameters_to_json(fits.all)}, {"held_out", held_out}};
}

std::optional<SpeedFits> speed_fits_from_json(const nlohmann::json& json,
                                              const std::vector<MeasuredLayout>& measured,
                                              const SpeedParameters& prior,
                                              bool leave_one_model_out) {
  if (!json.is_object() || !json.contains("all") || !json.contains("held_out") ||
      !json["held_out"].is_array())
    return std::nullopt;
  SpeedFits fits;
  std::optional<SpeedParameters> all = parameters_from_json(json["all"], prior);
  if (!all) return std::nullopt;
  fits.all = *all;
  std::vector<std::string> models =
      leave_one_model_out ? models_of(measured) : std::vector<std::string>{};
  const nlohmann::json& held_out = json["held_out"];
  if (held_out.size() != models.size()) return std::nullopt;
  for (std::size_t k = 0; k < models.size(); ++k) {
    const nlohmann::json& entry = held_out[k];
    if (!entry.is_object() || !entry.contains("model") || entry["model"] != models[k] ||
        !entry.contains("parameters"))
      return std::nullopt;
    std::optional<SpeedParameters> parameters = parameters_from_json(entry["parameters"], prior);
    if (!parameters) return std::nullopt;
    fits.held_out.emplace_back(models[k], *parameters);
  }
  return fits;
}

SpeedCalibration calibrate_speed_model_cached(const std::vector<MeasuredLayout>& measured,
                                              bool leave_one_model_out, const ResultCache* cache,
                                              const std::string& key) {
  const SpeedParameters prior;
  if (cache) {
    if (std::optional<nlohmann::json> stored = cache->read(key)) {
      if (std::optional<SpeedFits> fits =
              speed_fits_from_json(*stored, measured, prior, leave_one_model_out))
        return calibration_from_fits(measured, prior, *fits);
    }
  }
  SpeedFits fits = fit_speed_parameters(measured, prior, leave_one_model_out);
  if (cache) cache->write(key, speed_fits_to_json(fits));
  return calibration_from_fits(measured, prior, fits);
}

}  // namespace openrecipes
