#!/usr/bin/env bash
# Signal against noise in DP-AGD's gradient measurement on UCI Adult (issue 12:
# why DP-AGD trails DP-SGD at small epsilon). For each epsilon of the DP-AGD
# paper's grid, with DP-AGD's defaults (delta = 1e-8, splits = 60, C_grad =
# 1/2): the budget of the first gradient measurement rho_ng (as
# src/core/algorithms/dpagd.cpp: eps0 = eps / (2 splits), rho_ng = eps0^2 /
# (4 ln(1.25/delta))), its noise sigma = C_grad / sqrt(2 rho_ng) and the
# expected noise norm sigma sqrt(d), against the norm of the clipped gradient
# SUM measured on the table (dptrain.gradient_sum) at w = 0 and at the
# non-private optimum (dp_train algorithm 'optimum', lambda = 1/n, no
# intercept). The gradient norms are noiseless facts about the data: this is a
# benchmark, nothing of it is released by dptrain.
#
#   bash bench/dpagd_signal.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib/adult_db.sh
adult_db dpagd_signal "max_parallel_workers_per_gather = 0"
psql -X -q -v ON_ERROR_STOP=1 -c "SET client_min_messages = warning" -c "
  CREATE TABLE w0 AS SELECT array_fill(0::float8, ARRAY[cardinality(x)]) AS w FROM adult LIMIT 1;" \
  -c "CREATE TABLE opt AS SELECT weights AS w FROM dp_train('adult', 'y', 'x', algorithm => 'optimum',
        lambda => 1.0 / 30162, intercept => false, classes => ARRAY['false', 'true'])" >/dev/null
python3 - <<'PY'
import json, math, subprocess

def q(sql):
    return subprocess.run(["psql", "-X", "-At", "-v", "ON_ERROR_STOP=1", "-c", sql],
                          capture_output=True, text=True, check=True).stdout.strip()  # noqa

def clipped_gradient_norm(point_sql):
    # gradient_request's state with the gradient clip (header field 9) set to 1/2.
    g = q(f"""SELECT array_to_json((dptrain.gradient_result(dptrain.gradient_sum(x, y::int::float8,
                (SELECT r[1:9] || 0.5::float8 || r[11:] FROM (SELECT dptrain.gradient_request(({point_sql})) AS r) s)))).gradient)
              FROM adult""")
    return math.sqrt(sum(v * v for v in json.loads(g)))

d = int(q("SELECT cardinality(x) FROM adult LIMIT 1"))
n = int(q("SELECT count(*) FROM adult"))
g0 = clipped_gradient_norm("SELECT w FROM w0")
gopt = clipped_gradient_norm("SELECT w FROM opt")
acc = q("SELECT round(accuracy::numeric, 4) FROM dptrain.models m, LATERAL dp_evaluate(m.id::text, 'adult_test', 'y', 'x') "
        "WHERE m.algorithm = 'optimum'")
print(f"Adult: n = {n}, d = {d}; ||sum_i clip(grad l(w; x_i), 1/2)||: {g0:.1f} at w = 0, "
      f"{gopt:.1f} at the non-private optimum (test accuracy {acc})")
print("| epsilon | rho | rho_ng | sigma | E||noise|| = sigma sqrt(d) | noise / signal at w = 0 | at the optimum |")
print("|---|---|---|---|---|---|---|")
delta, splits, clip = 1e-8, 60, 0.5
for eps in (0.05, 0.1, 0.2, 0.4, 0.8, 1.6):
    L = math.log(1 / delta)
    rho = (math.sqrt(L + eps) - math.sqrt(L)) ** 2
    eps0 = eps / (2 * splits)
    rho_ng = eps0 ** 2 / (4 * math.log(1.25 / delta))
    sigma = clip / math.sqrt(2 * rho_ng)
    noise = sigma * math.sqrt(d)
    print(f"| {eps} | {rho:.3g} | {rho_ng:.3g} | {sigma:.0f} | {noise:.0f} | {noise / g0:.2f} | {noise / gopt:.1f} |")
PY
