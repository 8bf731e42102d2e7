#include "plan/speed_calibration.h"

#include <algorithm>
#include <cmath>

namespace openrecipes {
namespace {

/// One free parameter as the fit sees it: a coordinate u in [low, high] (the logarithm of an
/// efficiency or factor, or an overhead in seconds), in the order the fit prefers them.
struct FreeParameter {
  const char* name;
  double SpeedParameters::*field;
  bool logarithmic;
  double low, high;  ///< bounds of the parameter itself (not of u)
};

// Priority: the compute rate first (every recipe depends on it), then the parameters only a
// layout feature identifies, then the rest. Bounds keep every value physical.
const FreeParameter kFreeParameters[] = {
    {"matmul_efficiency", &SpeedParameters::matmul_efficiency, true, 0.05, 1.0},
    {"recompute_unit_overhead_s", &SpeedParameters::recompute_unit_overhead_s, false, 0.0, 0.05},
    {"flex_dispatcher_factor", &SpeedParameters::flex_dispatcher_factor, true, 0.25, 4.0},
    {"communication_efficiency", &SpeedParameters::communication_efficiency, true, 0.05, 1.0},
    {"attention_efficiency", &SpeedParameters::attention_efficiency, true, 0.02, 1.0},
    {"layer_overhead_s", &SpeedParameters::layer_overhead_s, false, 0.0, 0.01},
};

double to_u(const FreeParameter& f, double value) {
  return f.logarithmic ? std::log(value) : value;
}
double from_u(const FreeParameter& f, double u) { return f.logarithmic ? std::exp(u) : u; }
double u_low(const FreeParameter& f) { return to_u(f, f.low); }
double u_high(const FreeParameter& f) { return to_u(f, f.high); }

double predict(const MeasuredLayout& r, const SpeedParameters& p) {
  return estimate_speed(r.model, r.cluster, r.workload, r.layout, p).tokens_per_s_per_gpu;
}

/// The parameters the set identifies, in priority order: a parameter joins when its column of the
/// Jacobian d log(predicted) / du over the set is not (nearly) in the span of the columns already
/// chosen (relative residual above 5%), so a parameter that changes no recipe's prediction, or
/// changes them all in proportion to one already fitted, keeps its prior. At most n parameters for
/// n recipes.
std::vector<const FreeParameter*> identifiable(const std::vector<const MeasuredLayout*>& set,
                                               const SpeedParameters& prior) {
  std::vector<const FreeParameter*> chosen;
  std::vector<std::vector<double>> basis;  // orthonormal columns (Gram-Schmidt)
  for (const FreeParameter& f : kFreeParameters) {
    if (chosen.size() >= set.size()) break;
    double u0 = std::clamp(to_u(f, prior.*f.field), u_low(f), u_high(f));
    double step = f.logarithmic ? 0.05 : (f.high - f.low) * 0.01;
    double u1 = u0 + step <= u_high(f) ? u0 + step : u0 - step;
    SpeedParameters a = prior, b = prior;
    a.*f.field = from_u(f, u0);
    b.*f.field = from_u(f, u1);
    std::vector<double> column;
    for (const MeasuredLayout* r : set) {
      double pa = predict(*r, a), pb = predict(*r, b);
      column.push_back(pa > 0 && pb > 0 ? (std::log(pb) - std::log(pa)) / (u1 - u0) : 0);
    }
    double norm = 0;
    for (double c : column) norm += c * c;
    norm = std::sqrt(norm);
    if (norm < 1e-9) continue;
    std::vector<double> residual = column;
    for (const std::vector<double>& q : basis) {
      double dot = 0;
      for (std::size_t i = 0; i < q.size(); ++i) dot += q[i] * residual[i];
      for (std::size_t i = 0; i < q.size(); ++i) residual[i] -= dot * q[i];
    }
    double rnorm = 0;
    for (double c : residual) rnorm += c * c;
    rnorm = std::sqrt(rnorm);
    if (rnorm / norm < 0.05) continue;
    for (double& c : residual) c /= rnorm;
    basis.push_back(residual);
    chosen.push_back(&f);
  }
  return chosen;
}

/// Log residuals log(predicted) - log(measured) of the set at coordinates `u` of `chosen`.
std::vector<double> residuals(const std::vector<const MeasuredLayout*>& set, SpeedParameters p,
                              const std::vector<const FreeParameter*>& chosen,
                              const std::vector<double>& u) {
  for (std::size_t k = 0; k < chosen.size(); ++k) p.*chosen[k]->field = from_u(*chosen[k], u[k]);
  std::vector<double> r;
  for (const MeasuredLayout* m : set) {
    double predicted = predict(*m, p);
    r.push_back(predicted > 0 ? std::log(predicted) - std::log(m->tokens_per_s_per_gpu) : 1e3);
  }
  return r;
}

double sum_of_squares(const std::vector<double>& r) {
  double s = 0;
  for (double x : r) s += x * x;
  return s;
}

/// Solves the k x k system a x = b by Gaussian elimination with partial pivoting; a singular
/// pivot leaves its unknown at 0.
std::vector<double> solve(std::vector<std::vector<double>> a, std::vector<double> b) {
  const std::size_t k = b.size();
  for (std::size_t c = 0; c < k; ++c) {
    std::size_t pivot = c;
    for (std::size_t r = c + 1; r < k; ++r) {
      if (std::abs(a[r][c]) > std::abs(a[pivot][c])) pivot = r;
    }
    std::swap(a[c], a[pivot]);
    std::swap(b[c], b[pivot]);
    if (std::abs(a[c][c]) < 1e-300) continue;
    for (std::size_t r = c + 1; r < k; ++r) {
      double f = a[r][c] / a[c][c];
      for (std::size_t cc = c; cc < k; ++cc) a[r][cc] -= f * a[c][cc];
      b[r] -= f * b[c];
    }
  }
  std::vector<double> x(k, 0);
  for (std::size_t c = k; c-- > 0;) {
    if (std::abs(a[c][c]) < 1e-300) continue;
    double s = b[c];
    for (std::size_t cc = c + 1; cc < k; ++cc) s -= a[c][cc] * x[cc];
    x[c] = s / a[c][c];
  }
  return x;
}

/// Levenberg-Marquardt (Marquardt 1963) on the log residuals over the chosen coordinates, with a
/// forward-difference Jacobian and steps clamped to the bounds; 200 iterations at most, stopping
/// when a step no longer lowers the error measurably. Deterministic: fixed order and constants.
SpeedParameters fit(const std::vector<const MeasuredLayout*>& set, const SpeedParameters& prior,
                    const std::vector<const FreeParameter*>& chosen) {
  SpeedParameters p = prior;
  if (chosen.empty()) return p;
  const std::size_t k = chosen.size(), n = set.size();
  std::vector<double> u(k);
  for (std::size_t i = 0; i < k; ++i) {
    const FreeParameter& f = *chosen[i];
    // Overheads start a little above their bound so their derivative is not one-sided at zero.
    double start =
        f.logarithmic ? prior.*f.field : std::max(prior.*f.field, (f.high - f.low) * 1e-3);
    u[i] = std::clamp(to_u(f, start), u_low(f), u_high(f));
  }
  std::vector<double> r = residuals(set, prior, chosen, u);
  double current = sum_of_squares(r);
  double lambda = 1e-3;
  for (int iteration = 0; iteration < 200 && current > 1e-24; ++iteration) {
    std::vector<std::vector<double>> jac(n, std::vector<double>(k));
    for (std::size_t c = 0; c < k; ++c) {
      const FreeParameter& f = *chosen[c];
      double h = (u_high(f) - u_low(f)) * 1e-6;
      std::vector<double> v = u;
      v[c] = u[c] + h <= u_high(f) ? u[c] + h : u[c] - h;
      std::vector<double> rv = residuals(set, prior, chosen, v);
      for (std::size_t i = 0; i < n; ++i) jac[i][c] = (rv[i] - r[i]) / (v[c] - u[c]);
    }
    std::vector<std::vector<double>> jtj(k, std::vector<double>(k, 0));
    std::vector<double> jtr(k, 0);
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t a = 0; a < k; ++a) {
        jtr[a] -= jac[i][a] * r[i];
        for (std::size_t b = 0; b < k; ++b) jtj[a][b] += jac[i][a] * jac[i][b];
      }
    }
    bool improved = false;
    while (lambda < 1e12) {
      std::vector<std::vector<double>> damped = jtj;
      for (std::size_t a = 0; a < k; ++a) damped[a][a] += lambda * (jtj[a][a] + 1e-12);
      std::vector<double> step = solve(damped, jtr);
      std::vector<double> v = u;
      for (std::size_t a = 0; a < k; ++a)
        v[a] = std::clamp(u[a] + step[a], u_low(*chosen[a]), u_high(*chosen[a]));
      std::vector<double> rv = residuals(set, prior, chosen, v);
      double next = sum_of_squares(rv);
      if (next < current) {
        improved = current - next > 1e-15 * (1 + current);
        u = v, r = rv, current = next;
        lambda = std::max(lambda / 3, 1e-12);
        break;
      }
      lambda *= 4;
    }
    if (!improved) break;
  }
  for (std::size_t a = 0; a < k; ++a) p.*chosen[a]->field = from_u(*chosen[a], u[a]);
  return p;
}

}  // namespace

SpeedCalibration calibrate_speed_model(const std::vector<MeasuredLayout>& measured,
                                       const SpeedParameters& prior) {
  SpeedCalibration result;
  result.parameters = prior;
  if (measured.empty()) return result;
  std::vector<const MeasuredLayout*> all;
  for (const MeasuredLayout& r : measured) all.push_back(&r);
  std::vector<const FreeParameter*> chosen = identifiable(all, prior);
  for (const FreeParameter* f : chosen) result.fitted.push_back(f->name);
  result.parameters = fit(all, prior, chosen);

  for (std::size_t i = 0; i < measured.size(); ++i) {
    std::vector<const MeasuredLayout*> others;
    for (std::size_t j = 0; j < measured.size(); ++j) {
      if (j != i) others.push_back(&measured[j]);
    }
    SpeedParameters loo = others.empty() ? prior : fit(others, prior, identifiable(others, prior));
    CalibrationRow row;
    row.name = measured[i].name;
    row.measured_tokens_per_s_per_gpu = measured[i].tokens_per_s_per_gpu;
    row.fitted_tokens_per_s_per_gpu = predict(measured[i], result.parameters);
    row.leave_one_out_tokens_per_s_per_gpu = predict(measured[i], loo);
    row.leave_one_out_error =
        (row.leave_one_out_tokens_per_s_per_gpu - row.measured_tokens_per_s_per_gpu) /
        row.measured_tokens_per_s_per_gpu;
    result.rows.push_back(row);
  }
  return result;
}

}  // namespace openrecipes
