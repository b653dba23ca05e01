// SQL entry points of the privacy accounting library (sql/30_accounting.sql).
// Thin glue: read the arguments, call the core inside DPT_CORE, return.
#include <cmath>
#include <string>
#include <vector>

#include "core/privacy/adjacency.h"
#include "core/privacy/composition.h"
#include "core/privacy/gaussian_calibration.h"
#include "core/privacy/rdp_sampled_gaussian.h"
#include "core/privacy/zcdp.h"
#include "pg_glue.h"

namespace pv = dptrain::privacy;

namespace {

// A row of float8 values for a function with OUT parameters.
Datum float8_row(FunctionCallInfo fcinfo, const double* values, int n) {
  TupleDesc tupdesc;
  if (get_call_result_type(fcinfo, nullptr, &tupdesc) != TYPEFUNC_COMPOSITE)
    elog(ERROR, "function returning a record called in a context that cannot accept one");
  tupdesc = BlessTupleDesc(tupdesc);
  Datum datums[4];
  bool nulls[4] = {false, false, false, false};
  Assert(n <= 4);
  for (int i = 0; i < n; ++i) datums[i] = Float8GetDatum(values[i]);
  return HeapTupleGetDatum(heap_form_tuple(tupdesc, datums, nulls));
}

// The (epsilon, delta) of `guarantee` (C++: run inside DPT_CORE) as a row
// of two float8 OUT parameters.
template <typename Guarantee>
Datum guarantee_row(FunctionCallInfo fcinfo, Guarantee guarantee) {
  double out[2] = {0, 0};
  DPT_CORE({
    const pv::DpGuarantee g = guarantee();
    out[0] = g.epsilon;
    out[1] = g.delta;
  });
  return float8_row(fcinfo, out, 2);
}

// The float8 `value` returns (C++: run inside DPT_CORE).
template <typename Value>
Datum float8_result(Value value) {
  double out = 0;
  DPT_CORE({ out = value(); });
  return Float8GetDatum(out);
}

// Arguments of rdp_epsilon / rdp_privacy / rdp_sigma after the leading numbers:
// conversion text, orders float8[], adjacency text (argument positions from `first`).
struct RdpArgs {
  const char* conversion;
  const double* orders;
  int n_orders;
  const char* adjacency;
};

RdpArgs rdp_args(FunctionCallInfo fcinfo, int first) {
  RdpArgs a;
  a.conversion = text_to_cstring(PG_GETARG_TEXT_PP(first));
  ArrayType* orders = PG_GETARG_ARRAYTYPE_P(first + 1);
  if (ARR_HASNULL(orders) && array_contains_nulls(orders))
    ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("orders must not contain NULL elements"),
                    errhint("Pass RDP orders > 1, e.g. dptrain.rdp_default_orders().")));
  a.orders = dptrain::pg::float8_array_data(orders, &a.n_orders, "orders");
  a.adjacency = text_to_cstring(PG_GETARG_TEXT_PP(first + 2));
  return a;
}

pv::RdpOptions rdp_options(const RdpArgs& a) {
  pv::RdpOptions o;
  o.conversion = pv::parse_rdp_conversion(a.conversion);
  o.orders.assign(a.orders, a.orders + a.n_orders);
  o.adjacency = pv::parse_adjacency(a.adjacency);
  // Only reads the flags: a cancel is raised by report() after the core returns.
  o.interrupted = dptrain::pg::cancel_pending;
  return o;
}

}  // namespace

extern "C" {

PG_FUNCTION_INFO_V1(dptrain_gaussian_sigma);
PG_FUNCTION_INFO_V1(dptrain_gaussian_delta);
PG_FUNCTION_INFO_V1(dptrain_basic_composition);
PG_FUNCTION_INFO_V1(dptrain_advanced_composition);
PG_FUNCTION_INFO_V1(dptrain_advanced_composition_step_epsilon);
PG_FUNCTION_INFO_V1(dptrain_zcdp_gaussian_rho);
PG_FUNCTION_INFO_V1(dptrain_zcdp_gaussian_sigma);
PG_FUNCTION_INFO_V1(dptrain_zcdp_from_pure_dp);
PG_FUNCTION_INFO_V1(dptrain_zcdp_to_dp);
PG_FUNCTION_INFO_V1(dptrain_dp_to_zcdp);
PG_FUNCTION_INFO_V1(dptrain_rdp_default_orders);
PG_FUNCTION_INFO_V1(dptrain_sampled_gaussian_rdp);
PG_FUNCTION_INFO_V1(dptrain_rdp_epsilon);
PG_FUNCTION_INFO_V1(dptrain_rdp_privacy);
PG_FUNCTION_INFO_V1(dptrain_rdp_sigma);
PG_FUNCTION_INFO_V1(dptrain_dp_add_remove_to_replace_one);
PG_FUNCTION_INFO_V1(dptrain_zcdp_add_remove_to_replace_one);

// gaussian_sigma(epsilon, delta, sensitivity, method)
Datum dptrain_gaussian_sigma(PG_FUNCTION_ARGS) {
  const double epsilon = PG_GETARG_FLOAT8(0), delta = PG_GETARG_FLOAT8(1), sensitivity = PG_GETARG_FLOAT8(2);
  const char* method = text_to_cstring(PG_GETARG_TEXT_PP(3));
  PG_RETURN_DATUM(float8_result(
      [&] { return pv::gaussian_sigma(sensitivity, epsilon, delta, pv::parse_gaussian_calibration(method)); }));
}

// gaussian_delta(sigma, epsilon, sensitivity)
Datum dptrain_gaussian_delta(PG_FUNCTION_ARGS) {
  const double sigma = PG_GETARG_FLOAT8(0), epsilon = PG_GETARG_FLOAT8(1), sensitivity = PG_GETARG_FLOAT8(2);
  PG_RETURN_DATUM(float8_result([&] { return pv::analytic_gaussian_delta(sensitivity, sigma, epsilon); }));
}

// basic_composition(epsilon, delta, k) -> (total_epsilon, total_delta)
Datum dptrain_basic_composition(PG_FUNCTION_ARGS) {
  const double epsilon = PG_GETARG_FLOAT8(0), delta = PG_GETARG_FLOAT8(1);
  const int64 k = PG_GETARG_INT64(2);
  PG_RETURN_DATUM(guarantee_row(fcinfo, [&] { return pv::basic_composition(epsilon, delta, k); }));
}

// advanced_composition(epsilon, delta, k, delta_prime) -> (total_epsilon, total_delta)
Datum dptrain_advanced_composition(PG_FUNCTION_ARGS) {
  const double epsilon = PG_GETARG_FLOAT8(0), delta = PG_GETARG_FLOAT8(1), delta_prime = PG_GETARG_FLOAT8(3);
  const int64 k = PG_GETARG_INT64(2);
  PG_RETURN_DATUM(guarantee_row(fcinfo, [&] { return pv::advanced_composition(epsilon, delta, k, delta_prime); }));
}

// advanced_composition_step_epsilon(total_epsilon, k, delta_prime)
Datum dptrain_advanced_composition_step_epsilon(PG_FUNCTION_ARGS) {
  const double total = PG_GETARG_FLOAT8(0), delta_prime = PG_GETARG_FLOAT8(2);
  const int64 k = PG_GETARG_INT64(1);
  PG_RETURN_DATUM(float8_result([&] { return pv::advanced_composition_step_epsilon(total, k, delta_prime); }));
}

// zcdp_gaussian_rho(sigma, sensitivity)
Datum dptrain_zcdp_gaussian_rho(PG_FUNCTION_ARGS) {
  const double sigma = PG_GETARG_FLOAT8(0), sensitivity = PG_GETARG_FLOAT8(1);
  PG_RETURN_DATUM(float8_result([&] { return pv::zcdp_gaussian_rho(sensitivity, sigma); }));
}

// zcdp_gaussian_sigma(rho, sensitivity)
Datum dptrain_zcdp_gaussian_sigma(PG_FUNCTION_ARGS) {
  const double rho = PG_GETARG_FLOAT8(0), sensitivity = PG_GETARG_FLOAT8(1);
  PG_RETURN_DATUM(float8_result([&] { return pv::zcdp_gaussian_sigma(sensitivity, rho); }));
}

// zcdp_from_pure_dp(epsilon)
Datum dptrain_zcdp_from_pure_dp(PG_FUNCTION_ARGS) {
  const double epsilon = PG_GETARG_FLOAT8(0);
  PG_RETURN_DATUM(float8_result([&] { return pv::zcdp_from_pure_dp(epsilon); }));
}

// zcdp_to_dp(rho, delta, conversion)
Datum dptrain_zcdp_to_dp(PG_FUNCTION_ARGS) {
  const double rho = PG_GETARG_FLOAT8(0), delta = PG_GETARG_FLOAT8(1);
  const char* conversion = text_to_cstring(PG_GETARG_TEXT_PP(2));
  PG_RETURN_DATUM(float8_result(
      [&] { return pv::zcdp_to_dp_epsilon(rho, delta, pv::parse_zcdp_conversion(conversion)); }));
}

// dp_to_zcdp(epsilon, delta)
Datum dptrain_dp_to_zcdp(PG_FUNCTION_ARGS) {
  const double epsilon = PG_GETARG_FLOAT8(0), delta = PG_GETARG_FLOAT8(1);
  PG_RETURN_DATUM(float8_result([&] { return pv::dp_to_zcdp_rho(epsilon, delta); }));
}

// rdp_default_orders()
Datum dptrain_rdp_default_orders(PG_FUNCTION_ARGS) {
  double orders[2048];  // POD local: nothing to unwind if an error is reported
  int n = 0;
  DPT_CORE({
    const std::vector<double> grid = pv::default_rdp_orders();
    if (grid.size() > sizeof(orders) / sizeof(orders[0])) dptrain::fail(dptrain::ErrorKind::Internal, "grid too long");
    for (double a : grid) orders[n++] = a;
  });
  PG_RETURN_ARRAYTYPE_P(dptrain::pg::make_float8_array(orders, n));
}

// sampled_gaussian_rdp(q, sigma, alpha)
Datum dptrain_sampled_gaussian_rdp(PG_FUNCTION_ARGS) {
  const double q = PG_GETARG_FLOAT8(0), sigma = PG_GETARG_FLOAT8(1), alpha = PG_GETARG_FLOAT8(2);
  PG_RETURN_DATUM(float8_result([&] { return pv::sampled_gaussian_rdp(q, sigma, alpha); }));
}

// rdp_epsilon(q, sigma, steps, delta, conversion, orders, adjacency)
Datum dptrain_rdp_epsilon(PG_FUNCTION_ARGS) {
  const double q = PG_GETARG_FLOAT8(0), sigma = PG_GETARG_FLOAT8(1), delta = PG_GETARG_FLOAT8(3);
  const int64 steps = PG_GETARG_INT64(2);
  const RdpArgs args = rdp_args(fcinfo, 4);
  PG_RETURN_DATUM(float8_result(
      [&] { return pv::sampled_gaussian_epsilon(q, sigma, steps, delta, rdp_options(args)).epsilon; }));
}

// rdp_privacy(q, sigma, steps, delta, conversion, orders, adjacency) -> (epsilon, optimal_order)
Datum dptrain_rdp_privacy(PG_FUNCTION_ARGS) {
  const double q = PG_GETARG_FLOAT8(0), sigma = PG_GETARG_FLOAT8(1), delta = PG_GETARG_FLOAT8(3);
  const int64 steps = PG_GETARG_INT64(2);
  const RdpArgs args = rdp_args(fcinfo, 4);
  double out[2] = {0, 0};
  DPT_CORE({
    const pv::RdpEpsilon e = pv::sampled_gaussian_epsilon(q, sigma, steps, delta, rdp_options(args));
    out[0] = e.epsilon;
    out[1] = e.optimal_order;
  });
  PG_RETURN_DATUM(float8_row(fcinfo, out, 2));
}

// rdp_sigma(q, steps, epsilon, delta, conversion, orders, adjacency) -> (sigma, achieved_epsilon, optimal_order)
Datum dptrain_rdp_sigma(PG_FUNCTION_ARGS) {
  const double q = PG_GETARG_FLOAT8(0), epsilon = PG_GETARG_FLOAT8(2), delta = PG_GETARG_FLOAT8(3);
  const int64 steps = PG_GETARG_INT64(1);
  const RdpArgs args = rdp_args(fcinfo, 4);
  double out[3] = {0, 0, 0};
  DPT_CORE({
    const pv::RdpNoise n = pv::sampled_gaussian_noise_multiplier(q, steps, epsilon, delta, rdp_options(args));
    out[0] = n.noise_multiplier;
    out[1] = n.epsilon;
    out[2] = n.optimal_order;
  });
  PG_RETURN_DATUM(float8_row(fcinfo, out, 3));
}

// dp_add_remove_to_replace_one(epsilon, delta) -> (replace_one_epsilon, replace_one_delta)
Datum dptrain_dp_add_remove_to_replace_one(PG_FUNCTION_ARGS) {
  const double epsilon = PG_GETARG_FLOAT8(0), delta = PG_GETARG_FLOAT8(1);
  PG_RETURN_DATUM(guarantee_row(fcinfo, [&] { return pv::dp_add_remove_to_replace_one(epsilon, delta); }));
}

// zcdp_add_remove_to_replace_one(rho)
Datum dptrain_zcdp_add_remove_to_replace_one(PG_FUNCTION_ARGS) {
  const double rho = PG_GETARG_FLOAT8(0);
  PG_RETURN_DATUM(float8_result([&] { return pv::zcdp_add_remove_to_replace_one(rho); }));
}

}  // extern "C"
