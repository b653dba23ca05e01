#!/usr/bin/env bash
# Loads every dataset of shared/data/README.md with `dptrain load` into a
# throwaway cluster, checks the README's fingerprints (as the integration
# test does) and prints the load times. Includes the two sets too large for
# the test suite: KDDCup99 (494,021 rows) and Fashion-MNIST (70,000 x 784).
#   bash bench/load_fingerprints.sh [kdd fashion adult mnist sk reuters]   (default: all)
# Needs a built build/dptrain; DPTRAIN_DATA defaults to ../shared/data.
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
CLI=${DPTRAIN_CLI:-$REPO/build/dptrain}
DATA=${DPTRAIN_DATA:-$REPO/../shared/data}
SK=${DPTRAIN_SKLEARN_DATA:-/usr/lib/python3/dist-packages/sklearn/datasets/data}
FASHION=${DPTRAIN_FASHION_MNIST:-/usr/share/datasets/fashion-mnist}
SPLITS=$DATA/splits
sets=("$@")
[ ${#sets[@]} -eq 0 ] && sets=(adult kdd mnist fashion reuters sk)

source scripts/lib/pgtmp.sh
pgtmp_init
pgtmp_start loadbench
DB=dptrain_load_bench
createdb "$DB"
sql() { psql -XAtq -v ON_ERROR_STOP=1 -d "$DB" -c "$1"; }
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
source test/integration/lib/fingerprint.sh

# timed_load TABLE ARGS...: prints the load time from dptrain's --json.
timed_load() {
  local t=$1
  shift
  local json
  json=$("$CLI" load --db "dbname=$DB" --table "$t" --json "$@" 2>/dev/null)
  echo "load $t: $(sql "SELECT round(('$json'::jsonb ->> 'seconds')::numeric, 2)") s"
}

for s in "${sets[@]}"; do
  case $s in
    adult)
      timed_load adult --positive '>50K' --drop-missing --test-file "$DATA/adult/adult.test.gz" "$DATA/adult/adult.data.gz"
      fingerprint adult 30162 15060 104 0.24892 0.24568 96544.892 ;;
    kdd)
      timed_load kddcup99 --positive normal --test-rows "$SPLITS/kddcup99.test_rows.txt.gz" \
        "$DATA/kddcup99/kddcup.data_10_percent.gz"
      fingerprint kddcup99 395217 98804 118 0.19738 0.19503 1210495.445 ;;
    mnist)
      timed_load mnist10k --test-rows "$SPLITS/mnist10k.test_rows.txt.gz" "$DATA/mnist/t10k-images-idx3-ubyte.gz"
      fingerprint mnist10k 8000 2000 784 - - 86866.720 ;;
    fashion)
      timed_load fashion_mnist --test-file "$FASHION/t10k-images-idx3-ubyte.gz" "$FASHION/train-images-idx3-ubyte.gz"
      fingerprint fashion_mnist 60000 10000 784 - - 1064733.230 ;;
    reuters)
      timed_load reuters --test-file "$DATA/reuters_moneyfx/reuters.tst.gz" "$DATA/reuters_moneyfx/reuters.trn.gz"
      fingerprint reuters 7770 3299 8315 0.06924 0.05426 41018.986 ;;
    sk)
      timed_load sk_breast_cancer --positive benign --test-rows "$SPLITS/sk_breast_cancer.test_rows.txt.gz" \
        "$SK/breast_cancer.csv"
      fingerprint sk_breast_cancer 456 113 30 0.60746 0.70796 2118.560
      timed_load sk_digits --bounds '*=0:16' --test-rows "$SPLITS/sk_digits.test_rows.txt.gz" "$SK/digits.csv.gz"
      fingerprint sk_digits 1438 359 64 - - 7258.305 ;;
    *) echo "unknown dataset $s" >&2; exit 2 ;;
  esac
done
if [ "$failures" -gt 0 ]; then
  echo "load_fingerprints: $failures check(s) failed" >&2
  exit 1
fi
echo "load_fingerprints: all fingerprints match"
