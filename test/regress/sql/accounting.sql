-- Privacy accounting functions (sql/30_accounting.sql). Values are rounded so that
-- the expected output does not depend on the platform's last bits.
-- Gaussian mechanism, Dwork–Roth Thm A.1 at Delta = 1, epsilon = 1, delta = 1e-5:
-- analytic 3.7306, G2 (amp) 5.79853; classic (G1 4.84481) needs epsilon < 1.
SELECT round(dptrain.gaussian_sigma(1, 1e-5)::numeric, 4) AS analytic,
       round(dptrain.gaussian_sigma(1, 1e-5, method => 'amp')::numeric, 5) AS amp,
       round(dptrain.gaussian_sigma(0.5, 1e-5, method => 'classic')::numeric, 5) AS classic_eps_half,
       round(dptrain.gaussian_sigma(0.5, 1e-5, sensitivity => 2)::numeric, 4) AS analytic_sens2;
-- The analytic sigma meets its privacy profile exactly.
SELECT round((dptrain.gaussian_delta(dptrain.gaussian_sigma(1, 1e-5), 1) / 1e-5)::numeric, 8) AS delta_ratio;

-- Composition.
SELECT round(total_epsilon::numeric, 6) AS total_epsilon, round(total_delta::numeric, 12) AS total_delta
FROM dptrain.advanced_composition(0.1, 1e-6, 100, 1e-5);
SELECT * FROM dptrain.basic_composition(0.25, 0, 4);
-- BST14 per-step budget (advanced composition, by hand): 1.32628e-3.
SELECT round(dptrain.advanced_composition_step_epsilon(1, 12000, 1 / 7.2e9)::numeric, 8) AS step_epsilon;

-- zCDP (Bun–Steinke 2016, by hand: 1.35350e-4, 0.0333119, 0.0208199).
SELECT round(dptrain.dp_to_zcdp(0.1, 1e-8)::numeric, 9) AS rho1,
       round(dptrain.dp_to_zcdp(1.6, 1e-8)::numeric, 7) AS rho2,
       round(dptrain.dp_to_zcdp(1, 1e-5)::numeric, 7) AS rho3;
SELECT round(dptrain.zcdp_to_dp(0.0208199, 1e-5, 'bun-steinke')::numeric, 5) AS bun_steinke,
       round(dptrain.zcdp_to_dp(0.0208199, 1e-5)::numeric, 5) AS cks;
SELECT dptrain.zcdp_gaussian_rho(10, 3) AS rho_gauss, dptrain.zcdp_from_pure_dp(0.5) AS rho_pure,
       dptrain.zcdp_gaussian_sigma(0.045, 3) AS sigma_for_rho;

-- RDP of the Poisson-subsampled Gaussian (Mironov et al. 2019, integer orders 2..256).
SELECT round(dptrain.rdp_epsilon(256 / 60000.0, 1.1, 14062, 1e-5, 'classic',
                                 ARRAY(SELECT generate_series(2, 256))::float8[])::numeric, 4) AS mnist_classic,
       round(dptrain.rdp_epsilon(256 / 60000.0, 1.1, 14062, 1e-5, 'improved',
                                 ARRAY(SELECT generate_series(2, 256))::float8[])::numeric, 4) AS mnist_improved,
       round(dptrain.rdp_epsilon(0.01, 4, 10000, 1e-5, 'classic',
                                 ARRAY(SELECT generate_series(2, 256))::float8[])::numeric, 4) AS q01_classic,
       round(dptrain.rdp_epsilon(0.01, 4, 10000, 1e-5)::numeric, 4) AS q01_default;
SELECT round(epsilon::numeric, 6) AS epsilon, optimal_order
FROM dptrain.rdp_privacy(150 / 60000.0, 1.3, 6000, 1e-5);
SELECT round(sigma::numeric, 5) AS sigma, achieved_epsilon <= 1 AS within_target,
       round(achieved_epsilon::numeric, 6) AS achieved_epsilon, optimal_order
FROM dptrain.rdp_sigma(0.01, 10000, 1, 1e-5);
SELECT round(dptrain.sampled_gaussian_rdp(1, 2, 10)::numeric, 10) AS full_batch,
       round((dptrain.sampled_gaussian_rdp(0.01, 4, 2) * 1e6)::numeric, 8) AS order2_times_1e6;
-- Fractional orders at extreme sigma (they failed with XX000 "did not converge"): a noise
-- too small for 1/(2 sigma^2), or for a term of the series, is an infinite RDP, as at integer
-- orders; a noise too large for sigma^2 is bounded by the RDP at sigma = 1e150 (the RDP falls
-- as sigma grows).
SELECT dptrain.sampled_gaussian_rdp(0.5, 1e-160, 1.5) AS tiny_sigma,
       dptrain.sampled_gaussian_rdp(0.5, 1e-160, 2) AS tiny_sigma_integer,
       dptrain.sampled_gaussian_rdp(0.5, 1e-150, 1000.5) AS tiny_sigma_high_order,
       dptrain.sampled_gaussian_rdp(0.5, 1e200, 1.5) BETWEEN 0 AND dptrain.sampled_gaussian_rdp(0.5, 1e100, 1.5)
         AS huge_sigma_bounded;
-- Large orders (by hand): q = 50/36176, z = 80.1, T = 1000, delta = 1/36176^2 is
-- floored at 0.04116 with orders up to 512; the default grid (up to 20000) certifies
-- 0.00354 (classic) / 0.00255 (improved).
SELECT round(dptrain.rdp_epsilon(50 / 36176.0, 80.1, 1000, 1 / 36176.0^2, 'classic',
                                 ARRAY(SELECT generate_series(2, 512))::float8[])::numeric, 5) AS floored_512,
       round(dptrain.rdp_epsilon(50 / 36176.0, 80.1, 1000, 1 / 36176.0^2, 'classic')::numeric, 5) AS classic,
       round(dptrain.rdp_epsilon(50 / 36176.0, 80.1, 1000, 1 / 36176.0^2)::numeric, 5) AS improved;
SELECT array_length(dptrain.rdp_default_orders(), 1) AS n_orders,
       (dptrain.rdp_default_orders())[1] AS smallest,
       (SELECT max(o) FROM unnest(dptrain.rdp_default_orders()) o) AS largest;
-- Replace-one costs more than add/remove-one.
SELECT dptrain.rdp_epsilon(0.01, 2, 1000, 1e-5, adjacency => 'replace-one')
       > dptrain.rdp_epsilon(0.01, 2, 1000, 1e-5) AS replace_one_costs_more;
-- Edges (hostile review): almost no noise is not free (it was charged the order floor, 3e-5);
-- a subnormal delta is calibrated (was XX000); a sigma beyond double range is refused, 22023.
SELECT dptrain.rdp_epsilon(0.01, 1e-10, 1, 1e-5) >= 1e20 AS almost_no_noise_costs;
SELECT round(dptrain.gaussian_sigma(1, 4.9406564584124654e-324)::numeric, 6) AS subnormal_delta;
\set VERBOSITY sqlstate
SELECT dptrain.gaussian_sigma(1e-12, 1e-300, sensitivity => 1e300);
\set VERBOSITY default
SELECT * FROM dptrain.dp_add_remove_to_replace_one(0.5, 0);
SELECT dptrain.zcdp_add_remove_to_replace_one(0.25) AS rho_replace_one;

-- Every function is immutable, parallel safe and strict.
SELECT p.proname, p.provolatile, p.proparallel, p.proisstrict
FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
WHERE n.nspname = 'dptrain' AND p.prosrc IN (
  'dptrain_gaussian_sigma', 'dptrain_gaussian_delta', 'dptrain_basic_composition',
  'dptrain_advanced_composition', 'dptrain_advanced_composition_step_epsilon', 'dptrain_zcdp_gaussian_rho',
  'dptrain_zcdp_gaussian_sigma', 'dptrain_zcdp_from_pure_dp', 'dptrain_zcdp_to_dp', 'dptrain_dp_to_zcdp',
  'dptrain_rdp_default_orders', 'dptrain_sampled_gaussian_rdp', 'dptrain_rdp_epsilon', 'dptrain_rdp_privacy',
  'dptrain_rdp_sigma', 'dptrain_dp_add_remove_to_replace_one', 'dptrain_zcdp_add_remove_to_replace_one')
ORDER BY p.proname;

-- STRICT: NULL in, NULL out.
SELECT dptrain.gaussian_sigma(NULL, 1e-5) IS NULL AS null_in_null_out;

-- Error paths: SQLSTATE, message, detail and hint of every rejected input.
CREATE FUNCTION pg_temp.rejection(stmt text, OUT code text, OUT message text, OUT detail text, OUT hint text)
LANGUAGE plpgsql AS $fn$
BEGIN
  EXECUTE stmt;
  code := 'no error';
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS code = RETURNED_SQLSTATE, message = MESSAGE_TEXT,
                          detail = PG_EXCEPTION_DETAIL, hint = PG_EXCEPTION_HINT;
END
$fn$;
\x on
SELECT v.stmt, r.*
FROM (VALUES
  (1, $$SELECT dptrain.gaussian_sigma(0, 1e-5)$$),
  (2, $$SELECT dptrain.gaussian_sigma(1, 0)$$),
  (3, $$SELECT dptrain.gaussian_sigma(1, 1)$$),
  (4, $$SELECT dptrain.gaussian_sigma(1, 1e-5, sensitivity => -1)$$),
  (5, $$SELECT dptrain.gaussian_sigma('Infinity', 1e-5)$$),
  (6, $$SELECT dptrain.gaussian_sigma(2, 1e-5, method => 'classic')$$),
  (7, $$SELECT dptrain.gaussian_sigma(1, 1e-5, method => 'laplace')$$),
  (8, $$SELECT dptrain.gaussian_delta(0, 1)$$),
  (9, $$SELECT dptrain.gaussian_delta(1, -1)$$),
  (10, $$SELECT * FROM dptrain.basic_composition(0.1, 1e-6, 0)$$),
  (11, $$SELECT * FROM dptrain.advanced_composition(0.1, 0.01, 100, 1e-5)$$),
  (12, $$SELECT * FROM dptrain.advanced_composition(0.1, 1e-6, 100, 0)$$),
  (13, $$SELECT * FROM dptrain.advanced_composition(0, 1e-6, 100, 1e-5)$$),
  (14, $$SELECT * FROM dptrain.advanced_composition(800, 0, 10, 1e-5)$$),
  (15, $$SELECT dptrain.advanced_composition_step_epsilon(0, 10, 1e-5)$$),
  (16, $$SELECT dptrain.zcdp_gaussian_rho(0, 1)$$),
  (17, $$SELECT dptrain.zcdp_gaussian_sigma(0, 1)$$),
  (18, $$SELECT dptrain.zcdp_from_pure_dp(-1)$$),
  (19, $$SELECT dptrain.zcdp_to_dp(-0.1, 1e-5)$$),
  (20, $$SELECT dptrain.zcdp_to_dp(0.1, 1e-5, 'renyi')$$),
  (21, $$SELECT dptrain.dp_to_zcdp(1, 2)$$),
  (22, $$SELECT dptrain.sampled_gaussian_rdp(0, 1, 2)$$),
  (23, $$SELECT dptrain.sampled_gaussian_rdp(1.5, 1, 2)$$),
  (24, $$SELECT dptrain.sampled_gaussian_rdp(0.1, 0, 2)$$),
  (25, $$SELECT dptrain.sampled_gaussian_rdp(0.1, 1, 1)$$),
  (26, $$SELECT dptrain.sampled_gaussian_rdp(0.1, 1, 1e6)$$),
  (27, $$SELECT dptrain.rdp_epsilon(0.01, 1, 0, 1e-5)$$),
  (28, $$SELECT dptrain.rdp_epsilon(0.01, 1, 100, 0)$$),
  (29, $$SELECT dptrain.rdp_epsilon(0.01, 1, 100, 1e-5, 'tight')$$),
  (30, $$SELECT dptrain.rdp_epsilon(0.01, 1, 100, 1e-5, orders => '{}')$$),
  (31, $$SELECT dptrain.rdp_epsilon(0.01, 1, 100, 1e-5, orders => '{2,NULL}')$$),
  (32, $$SELECT dptrain.rdp_epsilon(0.01, 1, 100, 1e-5, orders => '{{2,3},{4,5}}')$$),
  (33, $$SELECT dptrain.rdp_epsilon(0.01, 1, 100, 1e-5, orders => '{2, 0.5}')$$),
  (34, $$SELECT dptrain.rdp_epsilon(0.01, 1, 100, 1e-5, adjacency => 'swap')$$),
  (35, $$SELECT dptrain.rdp_epsilon(0.01, 1, 100, 1e-5, orders => '{2,3}', adjacency => 'replace-one')$$),
  (36, $$SELECT * FROM dptrain.rdp_sigma(0.01, 100, 0.001, 1e-5)$$),
  (37, $$SELECT * FROM dptrain.rdp_sigma(0.01, 100, -1, 1e-5)$$),
  (38, $$SELECT * FROM dptrain.dp_add_remove_to_replace_one(-1, 1e-5)$$),
  (39, $$SELECT dptrain.zcdp_add_remove_to_replace_one('NaN')$$)
) v(i, stmt), LATERAL pg_temp.rejection(v.stmt) r
ORDER BY v.i;
\x off

-- A cancel stops the RDP accounting between orders (unit test
-- SampledGaussianRdp.InterruptStopsBetweenOrders: rdp_sigma over 2 * 10^6
-- orders ran about 20 s past a 100 ms statement_timeout) and reaches the
-- caller as the cancel itself, not as an error of the accounting.
CREATE TEMP TABLE many_orders AS SELECT array_agg(1 + g / 100.0)::float8[] AS o FROM generate_series(1, 500000) g;
SET statement_timeout = '100ms';
SELECT dptrain.rdp_sigma(0.5, 100000000, 10, 1e-10, 'improved', (SELECT o FROM many_orders), 'replace-one');
RESET statement_timeout;
