-- Privacy accounting (src/core/privacy, docs/accounting.md): the same functions as
-- `dptrain privacy ...`. Pure arithmetic on public parameters, so IMMUTABLE,
-- PARALLEL SAFE and STRICT, and open to everyone. Each states its adjacency:
-- "any" = holds under whichever neighbouring relation the inputs refer to.

-- Gaussian mechanism (any adjacency: sensitivity is measured under the caller's relation).
CREATE FUNCTION dptrain.gaussian_sigma(epsilon float8, delta float8,
    sensitivity float8 DEFAULT 1, method text DEFAULT 'analytic')
RETURNS float8 AS 'MODULE_PATHNAME', 'dptrain_gaussian_sigma' LANGUAGE C IMMUTABLE PARALLEL SAFE STRICT
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION dptrain.gaussian_sigma IS
'noise std of the Gaussian mechanism for (epsilon, delta)-DP; method analytic (Balle-Wang 2018, default), classic (Dwork-Roth, epsilon < 1) or amp (Iyengar et al. 2019)';

CREATE FUNCTION dptrain.gaussian_delta(sigma float8, epsilon float8, sensitivity float8 DEFAULT 1)
RETURNS float8 AS 'MODULE_PATHNAME', 'dptrain_gaussian_delta' LANGUAGE C IMMUTABLE PARALLEL SAFE STRICT
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION dptrain.gaussian_delta IS
'exact delta of the Gaussian mechanism with noise std sigma at epsilon (Balle-Wang 2018, Theorem 8)';

-- Composition of (epsilon, delta)-DP (any adjacency).
CREATE FUNCTION dptrain.basic_composition(epsilon float8, delta float8, k bigint,
    OUT total_epsilon float8, OUT total_delta float8)
RETURNS record AS 'MODULE_PATHNAME', 'dptrain_basic_composition' LANGUAGE C IMMUTABLE PARALLEL SAFE STRICT
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION dptrain.basic_composition IS 'k-fold basic composition: (k epsilon, k delta)';

CREATE FUNCTION dptrain.advanced_composition(epsilon float8, delta float8, k bigint, delta_prime float8,
    OUT total_epsilon float8, OUT total_delta float8)
RETURNS record AS 'MODULE_PATHNAME', 'dptrain_advanced_composition' LANGUAGE C IMMUTABLE PARALLEL SAFE STRICT
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION dptrain.advanced_composition IS
'k-fold advanced composition (Dwork-Rothblum-Vadhan): (sqrt(2k ln(1/delta'')) epsilon + k epsilon (e^epsilon - 1), k delta + delta'')';

CREATE FUNCTION dptrain.advanced_composition_step_epsilon(total_epsilon float8, k bigint, delta_prime float8)
RETURNS float8 AS 'MODULE_PATHNAME', 'dptrain_advanced_composition_step_epsilon'
LANGUAGE C IMMUTABLE PARALLEL SAFE STRICT
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION dptrain.advanced_composition_step_epsilon IS
'largest per-step epsilon whose k-fold advanced composition is at most total_epsilon';

-- zCDP (any adjacency; DP-AGD uses add/remove-one).
CREATE FUNCTION dptrain.zcdp_gaussian_rho(sigma float8, sensitivity float8 DEFAULT 1)
RETURNS float8 AS 'MODULE_PATHNAME', 'dptrain_zcdp_gaussian_rho' LANGUAGE C IMMUTABLE PARALLEL SAFE STRICT
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION dptrain.zcdp_gaussian_rho IS 'zCDP cost of the Gaussian mechanism: sensitivity^2 / (2 sigma^2)';

CREATE FUNCTION dptrain.zcdp_gaussian_sigma(rho float8, sensitivity float8 DEFAULT 1)
RETURNS float8 AS 'MODULE_PATHNAME', 'dptrain_zcdp_gaussian_sigma' LANGUAGE C IMMUTABLE PARALLEL SAFE STRICT
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION dptrain.zcdp_gaussian_sigma IS 'noise std making the Gaussian mechanism rho-zCDP: sensitivity / sqrt(2 rho)';

CREATE FUNCTION dptrain.zcdp_from_pure_dp(epsilon float8)
RETURNS float8 AS 'MODULE_PATHNAME', 'dptrain_zcdp_from_pure_dp' LANGUAGE C IMMUTABLE PARALLEL SAFE STRICT
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION dptrain.zcdp_from_pure_dp IS 'epsilon-DP is epsilon^2/2-zCDP (Bun-Steinke 2016)';

CREATE FUNCTION dptrain.zcdp_to_dp(rho float8, delta float8, conversion text DEFAULT 'cks')
RETURNS float8 AS 'MODULE_PATHNAME', 'dptrain_zcdp_to_dp' LANGUAGE C IMMUTABLE PARALLEL SAFE STRICT
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION dptrain.zcdp_to_dp IS
'epsilon of rho-zCDP as (epsilon, delta)-DP; conversion cks (Canonne-Kamath-Steinke 2020, default) or bun-steinke';

CREATE FUNCTION dptrain.dp_to_zcdp(epsilon float8, delta float8)
RETURNS float8 AS 'MODULE_PATHNAME', 'dptrain_dp_to_zcdp' LANGUAGE C IMMUTABLE PARALLEL SAFE STRICT
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION dptrain.dp_to_zcdp IS
'zCDP budget rho = (sqrt(ln(1/delta) + epsilon) - sqrt(ln(1/delta)))^2 whose spending guarantees (epsilon, delta)-DP';

-- RDP of the Poisson-subsampled Gaussian (add/remove-one; adjacency => 'replace-one'
-- converts by group privacy).
CREATE FUNCTION dptrain.rdp_default_orders()
RETURNS float8[] AS 'MODULE_PATHNAME', 'dptrain_rdp_default_orders' LANGUAGE C IMMUTABLE PARALLEL SAFE STRICT
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION dptrain.rdp_default_orders IS 'the default grid of RDP orders: the integers 2..64 and 64 + 16k up to 20000';

CREATE FUNCTION dptrain.sampled_gaussian_rdp(q float8, sigma float8, alpha float8)
RETURNS float8 AS 'MODULE_PATHNAME', 'dptrain_sampled_gaussian_rdp' LANGUAGE C IMMUTABLE PARALLEL SAFE STRICT
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION dptrain.sampled_gaussian_rdp IS
'RDP at order alpha of one step of the Poisson-subsampled Gaussian (rate q, noise multiplier sigma; Mironov-Talwar-Zhang 2019)';

CREATE FUNCTION dptrain.rdp_epsilon(q float8, sigma float8, steps bigint, delta float8,
    conversion text DEFAULT 'improved', orders float8[] DEFAULT dptrain.rdp_default_orders(),
    adjacency text DEFAULT 'add-remove')
RETURNS float8 AS 'MODULE_PATHNAME', 'dptrain_rdp_epsilon' LANGUAGE C IMMUTABLE PARALLEL SAFE STRICT
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION dptrain.rdp_epsilon IS
'epsilon of `steps` steps of the Poisson-subsampled Gaussian at delta (RDP accountant; conversion improved or classic)';

CREATE FUNCTION dptrain.rdp_privacy(q float8, sigma float8, steps bigint, delta float8,
    conversion text DEFAULT 'improved', orders float8[] DEFAULT dptrain.rdp_default_orders(),
    adjacency text DEFAULT 'add-remove',
    OUT epsilon float8, OUT optimal_order float8)
RETURNS record AS 'MODULE_PATHNAME', 'dptrain_rdp_privacy' LANGUAGE C IMMUTABLE PARALLEL SAFE STRICT
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION dptrain.rdp_privacy IS 'as rdp_epsilon, also returning the optimal RDP order';

CREATE FUNCTION dptrain.rdp_sigma(q float8, steps bigint, epsilon float8, delta float8,
    conversion text DEFAULT 'improved', orders float8[] DEFAULT dptrain.rdp_default_orders(),
    adjacency text DEFAULT 'add-remove',
    OUT sigma float8, OUT achieved_epsilon float8, OUT optimal_order float8)
RETURNS record AS 'MODULE_PATHNAME', 'dptrain_rdp_sigma' LANGUAGE C IMMUTABLE PARALLEL SAFE STRICT
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION dptrain.rdp_sigma IS
'smallest noise multiplier for which `steps` steps at rate q are (epsilon, delta)-DP, with the epsilon it achieves';

-- Adjacency conversions (add/remove-one => replace-one by group privacy).
CREATE FUNCTION dptrain.dp_add_remove_to_replace_one(epsilon float8, delta float8,
    OUT replace_one_epsilon float8, OUT replace_one_delta float8)
RETURNS record AS 'MODULE_PATHNAME', 'dptrain_dp_add_remove_to_replace_one'
LANGUAGE C IMMUTABLE PARALLEL SAFE STRICT
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION dptrain.dp_add_remove_to_replace_one IS
'(epsilon, delta)-DP under add/remove-one is (2 epsilon, (1 + e^epsilon) delta)-DP under replace-one';

CREATE FUNCTION dptrain.zcdp_add_remove_to_replace_one(rho float8)
RETURNS float8 AS 'MODULE_PATHNAME', 'dptrain_zcdp_add_remove_to_replace_one'
LANGUAGE C IMMUTABLE PARALLEL SAFE STRICT
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION dptrain.zcdp_add_remove_to_replace_one IS
'rho-zCDP under add/remove-one is 4 rho-zCDP under replace-one';
