# shellcheck shell=bash
# fingerprint: checks a loaded table pair (T, T_test) against the fingerprints
# of shared/data/README.md. Used by test/integration/load_datasets.sh and
# bench/load_fingerprints.sh; the caller defines sql (run one query, print
# unaligned tuples) and fail (report one failed check).

# fingerprint TABLE TRAIN_ROWS TEST_ROWS FEATURES RATE_TRAIN RATE_TEST FEATURE_SUM [NORM_STRIDE]
#   rates: - for a multiclass table; the row norms (<= 1) are checked on rows
#   whose id is a multiple of NORM_STRIDE (default 1: every row), since
#   unnesting costs ~1 s per 10 million elements.
fingerprint() {
  local t=$1 want_train=$2 want_test=$3 want_d=$4 want_rate=$5 want_rate_test=$6 want_sum=$7 stride=${8:-1}
  local rate_train="NULL::float8" rate_test="NULL::float8"
  if [ "$want_rate" != "-" ]; then
    rate_train="(SELECT avg(y::int) FROM $t)"
    rate_test="(SELECT avg(y::int) FROM ${t}_test)"
  fi
  local got
  got=$(sql "
    WITH tr AS (SELECT count(*) AS n, min(cardinality(x)) AS dmin, max(cardinality(x)) AS dmax,
                       sum((SELECT sum(v) FROM unnest(x) v)) AS total FROM $t),
         te AS (SELECT count(*) AS n, min(cardinality(x)) AS dmin, max(cardinality(x)) AS dmax FROM ${t}_test),
         nr AS (SELECT max((SELECT sum(v * v) FROM unnest(x) v)) AS sq
                FROM (SELECT id, x FROM $t UNION ALL SELECT id, x FROM ${t}_test) r WHERE id % $stride = 0)
    SELECT tr.n, te.n, least(tr.dmin, te.dmin) || ':' || greatest(tr.dmax, te.dmax),
           coalesce(round($rate_train::numeric, 5)::text, '-'),
           coalesce(round($rate_test::numeric, 5)::text, '-'),
           tr.total, nr.sq <= 1.0
    FROM tr, te, nr")
  IFS='|' read -r n_train n_test dims rate_train rate_test total norms_ok <<<"$got"
  [ "$n_train" = "$want_train" ] || fail "$t: $n_train training rows, expected $want_train"
  [ "$n_test" = "$want_test" ] || fail "$t: $n_test test rows, expected $want_test"
  [ "$dims" = "$want_d:$want_d" ] || fail "$t: feature counts $dims, expected $want_d for every row"
  [ "$rate_train" = "$want_rate" ] || fail "$t: train +1 rate $rate_train, expected $want_rate"
  [ "$rate_test" = "$want_rate_test" ] || fail "$t: test +1 rate $rate_test, expected $want_rate_test"
  awk -v got="$total" -v want="$want_sum" 'BEGIN { d = got - want; if (d < 0) d = -d; exit !(d <= 1e-3 * want) }' \
    || fail "$t: sum of training features $total, expected $want_sum (1e-3 relative)"
  [ "$norms_ok" = "t" ] || fail "$t: a row has L2 norm > 1"
  echo "ok $t: $n_train + $n_test rows, $want_d features, +1 rates $rate_train / $rate_test, feature sum $total"
}

