#!/usr/bin/env bash
# dptrain train --algorithm bolton: the CLI's controller (epochs over libpq)
# and --server (dp_train) plan the same privacy, and with the same seed they
# release the very same model (same core, same shuffle, same noise stream).
set -euo pipefail
: "${DPTRAIN_CLI:?}"
source "$(dirname "$0")/lib/scratch_db.sh"
scratch_db bolton_cli
separable_points 500

train() {
  "$DPTRAIN_CLI" train --db "dbname=$db" --table pts --label y --features x --classes false,true \
    --algorithm bolton --epochs 3 --batch-size 20 --seed 5 --json "$@"
}

for scenario in "--epsilon 2" "--epsilon 2 --delta 1e-6" "--epsilon 2 --lambda 0.01" "--epsilon 2 --delta 1e-6 --lambda 0.01"; do
  # shellcheck disable=SC2086
  controller=$(train $scenario --name "c_${scenario//[^a-z0-9]/_}")
  # shellcheck disable=SC2086
  server=$(train $scenario --server --name "s_${scenario//[^a-z0-9]/_}")
  for j in "$controller" "$server"; do
    [ "$(echo "$j" | field "j['algorithm']")" = bolton ] || { echo "not a bolton model: $j"; exit 1; }
    [ "$(echo "$j" | field "j['details']['privacy']['private']")" = True ] || { echo "not private: $j"; exit 1; }
  done
  plan_c=$(echo "$controller" | field "json.dumps(j['details']['privacy'], sort_keys=True)")
  plan_s=$(echo "$server" | field "json.dumps(j['details']['privacy'], sort_keys=True)")
  [ "$plan_c" = "$plan_s" ] || { echo "privacy plans differ for $scenario"; echo "$plan_c"; echo "$plan_s"; exit 1; }
  same=$(psql -X -At -d "$db" -c "
    SELECT c.weights = s.weights FROM dptrain.models c, dptrain.models s
    WHERE c.id = $(echo "$controller" | field "j['model_id']") AND s.id = $(echo "$server" | field "j['model_id']")")
  [ "$same" = t ] || { echo "controller and server releases differ for $scenario"; exit 1; }
  echo "ok: $scenario (sensitivity $(echo "$controller" | field "j['details']['privacy']['sensitivity']"))"
done

# Errors reach the CLI with their hint, and nothing is stored.
if out=$(train 2>&1); then echo "missing epsilon accepted"; exit 1; fi
grep -q 'needs epsilon' <<<"$out" || { echo "unexpected error: $out"; exit 1; }
if out=$(train --epsilon 1 --learning-rate 3 2>&1); then echo "eta > 2/beta accepted"; exit 1; fi
grep -q '2/beta' <<<"$out" || { echo "unexpected error: $out"; exit 1; }
# ... refused before the controller copies the table (Algorithm::check_run_arguments): on a
# view none of whose rows can be read, the step's error, not the read's division by zero
psql -Xq -v ON_ERROR_STOP=1 -d "$db" -c "CREATE VIEW pts_unread AS SELECT * FROM pts WHERE 1 / (id - id) = 0"
if out=$("$DPTRAIN_CLI" train --db "dbname=$db" --table pts_unread --label y --features x --classes false,true \
             --algorithm bolton --epochs 3 --batch-size 20 --epsilon 1 --learning-rate 3 2>&1); then echo "eta > 2/beta accepted on the view"; exit 1; fi
grep -q '2/beta' <<<"$out" || { echo "the view was read before the step was checked: $out"; exit 1; }
# Hints speak CLI, whether the error came from the controller or the server.
for mode in "" --server; do
  # shellcheck disable=SC2086
  if out=$(train $mode 2>&1); then echo "missing epsilon accepted ($mode)"; exit 1; fi
  grep -q '^HINT: .*--epsilon' <<<"$out" || { echo "hint not in CLI syntax ($mode): $out"; exit 1; }
  if grep -q '=>' <<<"$out"; then echo "SQL syntax in a CLI hint ($mode): $out"; exit 1; fi
done
[ "$(psql -X -At -d "$db" -c 'SELECT count(*) FROM dptrain.models')" = 8 ] || { echo "a failed run stored a model"; exit 1; }
echo "bolton_cli: all ok"
