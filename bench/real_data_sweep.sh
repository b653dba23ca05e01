#!/usr/bin/env bash
# Every algorithm on every real data set of ../shared/data, through both interfaces, with
# its defaults: does anything break, and how far from the non-private baseline is it? For
# each (data set, algorithm): dp_train + dp_evaluate on the test split (SQL), and the same
# through `dptrain train --json` + `dptrain eval --json` (CLI), at each EPSILONS (delta =
# DELTA for the algorithms that need one, pure epsilon for the others); algorithm none is
# the reference. A refusal is a row with its SQLSTATE and message, not a stop.
#
# Data (bench/lib/accuracy.sh's loads): adult (official split), mnist (MNIST-10k projected
# to 50), kdd (the seeded split, the first KDD_ROWS training rows by id), reuters (dense)
# and reuters_sparse (dptrain.sparsevec), adult_paper and kdd_paper (the AMP paper's rows:
# unnormalized, KDD unscaled).
#
#   bash bench/real_data_sweep.sh                       # an hour or more on the shared 2-core machine
#   DATASETS="adult kdd_paper" ALGORITHMS="none dpsgd" EPSILONS=1 bash bench/real_data_sweep.sh
#
# Out: $OUT/sweep.csv (dataset, interface, algorithm, epsilon, delta, accuracy, majority,
# seconds, code, message). Results of 2026-11-27: docs/real_data.md.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-bench/out/real_data_sweep}
DATASETS=${DATASETS:-"adult mnist kdd reuters reuters_sparse adult_paper kdd_paper"}
ALGORITHMS=${ALGORITHMS:-"default none bolton scs13 bst14 amp pfw dpagd opdisc dpsgd psgd dpmomentum dpadam dpadamwosm adadp"}
EPSILONS=${EPSILONS:-"1 10"}
DELTA=${DELTA:-1e-6}
KDD_ROWS=${KDD_ROWS:-50000}
TIMEOUT=${TIMEOUT:-300s}
source bench/lib/accuracy.sh
accuracy_cluster

for d in $DATASETS; do
  case $d in
    reuters_sparse) "$CLI" load --db "$DB" --table reuters_sparse --sparse \
                      --test-file "$DATA/reuters_moneyfx/reuters.tst.gz" "$DATA/reuters_moneyfx/reuters.trn.gz" 2>/dev/null ;;
    kdd) accuracy_load kdd
         sql "DELETE FROM kdd WHERE id NOT IN (SELECT id FROM kdd ORDER BY id LIMIT $KDD_ROWS)" ;;
    *) accuracy_load "$d" ;;
  esac
  echo "[$(elapsed)] loaded $d ($(dataset_rows "$d") training rows)" >&2
done

# The arguments an algorithm needs beyond epsilon: delta, a radius.
needs() {
  case $1 in
    none) echo "" ;;
    bolton|scs13|default_pure) echo "epsilon" ;;
    bst14|pfw) echo "epsilon delta radius" ;;
    *) echo "epsilon delta" ;;
  esac
}

echo "dataset,interface,algorithm,epsilon,delta,accuracy,majority,seconds,code,message" > "$OUT/sweep.csv"
sql "CREATE TABLE sweep_rows (line text)"
for d in $DATASETS; do
  for a in $ALGORITHMS; do
    for eps in $EPSILONS; do
      [ "$a" = none ] && [ "$eps" != "${EPSILONS%% *}" ] && continue   # the reference once
      algs=$a; [ "$a" = default ] && algs="default_pure default"
      for alg in $algs; do
        n=$(needs "$alg")
        args="" cli_args=""
        case $alg in default|default_pure) ;; *) args=", algorithm => '$alg'"; cli_args="--algorithm $alg" ;; esac
        e=""; dl=""
        if [[ $n == *epsilon* ]]; then args+=", epsilon => $eps"; cli_args+=" --epsilon $eps"; e=$eps; fi
        if [[ $n == *delta* ]]; then args+=", delta => $DELTA"; cli_args+=" --delta $DELTA"; dl=$DELTA; fi
        if [[ $n == *radius* ]]; then args+=", radius => 10"; cli_args+=" --radius 10"; fi
        # SQL
        psql -X -q -At -v ON_ERROR_STOP=1 -c "SET client_min_messages = warning" -c "SET statement_timeout = '$TIMEOUT'" -f - <<SQL
DO \$\$
DECLARE t timestamptz := clock_timestamp(); m record; e record; c text; msg text;
BEGIN
  BEGIN
    SELECT * INTO m FROM dp_train('$d', 'y', 'x' $args);
    SELECT * INTO e FROM dp_evaluate(m.model_id, '${d}_test', 'y', 'x');
    INSERT INTO sweep_rows SELECT format('$d,sql,$alg,$e,$dl,%s,%s,%s,,', round(e.accuracy::numeric, 4), round(e.majority_rate::numeric, 4),
                             round(extract(epoch FROM clock_timestamp() - t)::numeric, 1));
  EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS c = RETURNED_SQLSTATE, msg = MESSAGE_TEXT;
    INSERT INTO sweep_rows SELECT format('$d,sql,$alg,$e,$dl,,,%s,%s,"%s"', round(extract(epoch FROM clock_timestamp() - t)::numeric, 1),
                             c, translate(msg, '",', ''';'));
  END;
END
\$\$;
SQL
        psql -X -q -At -c "DELETE FROM sweep_rows RETURNING line" >> "$OUT/sweep.csv"
        # CLI (its train output is one JSON object; eval the same)
        start=$(date +%s.%N)
        # shellcheck disable=SC2086
        if out=$("$CLI" train --db "$DB" --table "$d" $cli_args --json 2>"$OUT/cli_err.txt"); then
          id=$(python3 -c "import json, sys; print(json.load(sys.stdin)['model_id'])" <<<"$out")
          "$CLI" eval --db "$DB" --model "$id" --table "${d}_test" --json 2>/dev/null |
            python3 -c "import json, sys; e = json.load(sys.stdin); print('$d,cli,$alg,$e,$dl,%.4f,%.4f,%.1f,,' % (e['accuracy'], e['majority_rate'], $(date +%s.%N) - $start))" >> "$OUT/sweep.csv"
        else
          echo "$d,cli,$alg,$e,$dl,,,,exit $?,\"$(grep -m1 'error' "$OUT/cli_err.txt" | tr -d '"' | tr ',' ';' | cut -c1-200)\"" >> "$OUT/sweep.csv"
        fi
      done
    done
    echo "[$(elapsed)] $d $a" >&2
  done
done
column -s, -t < "$OUT/sweep.csv" | cut -c1-180
