#!/usr/bin/env bash
# dptrain tune: private tuning (Bolt-on Algorithm 3; Liu-Talwar) from the CLI. The
# controller (candidates' epochs over libpq) and --server (dp_tune) choose the
# same candidate and release the same model with the same seed; the output
# reports the chosen parameters and the total epsilon; errors reach the CLI
# and a failed run stores nothing.
set -euo pipefail
: "${DPTRAIN_CLI:?}"
source "$(dirname "$0")/lib/scratch_db.sh"
scratch_db tune_cli
separable_points 3000

tune() {
  "$DPTRAIN_CLI" tune --db "dbname=$db" --table pts --label y --features x --classes false,true --json "$@"
}

for scenario in "--epsilon 1" "--epsilon 1 --delta 1e-8" "--epsilon 0.5 --lambdas 0,0.001 --epochs 2,4 --batch-sizes 10,50"; do
  tag=${scenario//[^a-z0-9]/_}
  # shellcheck disable=SC2086
  controller=$(tune $scenario --seed 21 --name "c$tag" 2>/dev/null)
  # shellcheck disable=SC2086
  server=$(tune $scenario --seed 21 --server --name "s$tag" 2>/dev/null)
  for j in "$controller" "$server"; do
    eps=$(echo "$j" | field "j['epsilon']")
    want=$(echo "$scenario" | sed -E 's/.*--epsilon ([0-9.]+).*/\1/')
    python3 -c "import sys; sys.exit(0 if float('$eps') == float('$want') else 1)" \
      || { echo "total epsilon $eps, expected $want: $j"; exit 1; }
    [ "$(echo "$j" | field "j['details']['privacy']['epsilon'] == j['epsilon']")" = True ] || { echo "model epsilon != total: $j"; exit 1; }
    [ "$(echo "$j" | field "j['details']['tuning']['chosen']['lambda'] == j['chosen']['lambda'] and j['details']['hyperparameters']['epochs'] == j['chosen']['epochs']")" = True ] \
      || { echo "chosen parameters inconsistent: $j"; exit 1; }
  done
  [ "$(echo "$controller" | field "j['chosen']")" = "$(echo "$server" | field "j['chosen']")" ] \
    || { echo "controller and server chose differently for $scenario"; exit 1; }
  plan_c=$(echo "$controller" | field "json.dumps(j['details']['privacy'], sort_keys=True)")
  plan_s=$(echo "$server" | field "json.dumps(j['details']['privacy'], sort_keys=True)")
  [ "$plan_c" = "$plan_s" ] || { echo "privacy records differ for $scenario"; exit 1; }
  same=$(psql -X -At -d "$db" -c "
    SELECT c.weights = s.weights FROM dptrain.models c, dptrain.models s
    WHERE c.id = $(echo "$controller" | field "j['model_id']") AND s.id = $(echo "$server" | field "j['model_id']")")
  [ "$same" = t ] || { echo "controller and server releases differ for $scenario"; exit 1; }
  echo "ok: $scenario -> $(echo "$controller" | field "j['chosen']") of $(echo "$controller" | field "j['candidates']") candidates"
done

# The text output names the chosen parameters and the total epsilon.
out=$("$DPTRAIN_CLI" tune --db "dbname=$db" --table pts --label y --features x --classes false,true \
        --epsilon 2 --delta 1e-9 --seed 3 2>/dev/null)
grep -Eq 'tuned over 9 candidates; chosen lambda = [0-9.e-]+, epochs = [0-9]+, batch_size = 50; total epsilon = 2, delta = 1e-09 \[seeded: NOT private\]' <<<"$out" \
  || { echo "unexpected text output: $out"; exit 1; }

# Liu-Talwar random stopping (--method liu_talwar, dp_tune in the server) over a
# grid of any parameters: the model carries the total (epsilon, delta) and the
# chosen grid point; it never runs in the controller; gamma is checked.
lt=$(tune --algorithm dpsgd --epsilon 1 --delta 1e-6 --method liu_talwar \
       --grid '{"learning_rate": [0.1, 0.5], "epochs": [1]}' --seed 5 2>/dev/null)
[ "$(echo "$lt" | field "j['method'] == 'liu_talwar' and j['epsilon'] == 1 and j['delta'] == 1e-6 and j['grid_points'] == 2 and j['mode'] == 'server' and j['chosen'] == j['details']['tuning']['chosen']['point']")" = True ] \
  || { echo "unexpected liu_talwar output: $lt"; exit 1; }
if out=$(tune --algorithm dpsgd --epsilon 1 --delta 1e-6 --method liu_talwar --controller 2>&1); then
  echo "liu_talwar in the controller accepted"; exit 1; fi
grep -q 'inside the server only' <<<"$out" || { echo "unexpected error: $out"; exit 1; }
if out=$(tune --algorithm dpsgd --epsilon 1 --delta 1e-6 --gamma 2 2>&1); then echo "gamma 2 accepted"; exit 1; fi
grep -q 'gamma must be in (0, 1]' <<<"$out" || { echo "unexpected error: $out"; exit 1; }
# --grid replaces the lists: one given beside it, even the default's 1,5,10, is
# refused (it was dropped silently), as dp_tune refuses grid with epochs.
for list in "--epochs 1,5,10" "--lambdas 0.001" "--batch-sizes 50"; do
  # shellcheck disable=SC2086
  if out=$(tune --algorithm dpsgd --epsilon 1 --delta 1e-6 --grid '{"learning_rate": [0.1]}' $list 2>&1); then
    echo "--grid with $list accepted: $out"; exit 1; fi
  grep -q -- '--grid and --lambdas, --epochs, --batch-sizes exclude each other' <<<"$out" \
    || { echo "unexpected error: $out"; exit 1; }
done
echo "ok: liu_talwar -> $(echo "$lt" | field "j['chosen']")"

# On 300 rows (9 candidates: 10 parts of 30 rows) no --batch-sizes is the
# default rule, b = min(50, 30); --batch-sizes 50 is given and checked (it
# was taken for the default, as dp_tune's batch_sizes => '{50}' was).
psql -Xq -v ON_ERROR_STOP=1 -d "$db" -c "CREATE TABLE pts_small AS SELECT * FROM pts WHERE id <= 300"
for mode in --controller --server; do
  small=$("$DPTRAIN_CLI" tune --db "dbname=$db" --table pts_small --label y --features x --classes false,true --json \
    --epsilon 1 --seed 3 $mode 2>/dev/null) || { echo "default batch on 300 rows ($mode) failed"; exit 1; }
  [ "$(echo "$small" | field "j['chosen']['batch_size']")" = 30 ] || { echo "default batch ($mode): $small"; exit 1; }
  if out=$("$DPTRAIN_CLI" tune --db "dbname=$db" --table pts_small --label y --features x --classes false,true \
    --epsilon 1 --seed 3 --batch-sizes 50 $mode 2>&1); then echo "--batch-sizes 50 capped ($mode): $out"; exit 1; fi
  grep -q 'batch size 50 is larger than the 30 rows of a tuning part' <<<"$out" || { echo "unexpected error: $out"; exit 1; }
done

# Errors reach the CLI with their hint, and nothing is stored.
before=$(psql -X -At -d "$db" -c 'SELECT count(*) FROM dptrain.models')
if out=$(tune --epsilon 1 --algorithm none 2>&1); then echo "algorithm none accepted"; exit 1; fi
grep -q 'needs a private algorithm' <<<"$out" || { echo "unexpected error: $out"; exit 1; }
if out=$(tune --epsilon 1 --batch-sizes 400 2>&1); then echo "parts smaller than the batch accepted"; exit 1; fi
grep -q 'larger than the 300 rows of a tuning part' <<<"$out" || { echo "unexpected error: $out"; exit 1; }
if out=$(tune --epsilon 1 --batch-sizes 400 --server 2>&1); then echo "parts smaller than the batch accepted (server)"; exit 1; fi
grep -q 'larger than the 300 rows of a tuning part' <<<"$out" || { echo "unexpected error: $out"; exit 1; }
if out=$(tune --epsilon 1 --epochs 3,3 2>&1); then echo "duplicate grid value accepted"; exit 1; fi
grep -q 'twice' <<<"$out" || { echo "unexpected error: $out"; exit 1; }
if out=$(tune 2>&1); then echo "missing epsilon accepted"; exit 1; fi
grep -q 'epsilon' <<<"$out" || { echo "unexpected error: $out"; exit 1; }
[ "$(psql -X -At -d "$db" -c 'SELECT count(*) FROM dptrain.models')" = "$before" ] || { echo "a failed run stored a model"; exit 1; }
# A role that may not read the table (only a budget from its owner) cannot run
# the controller: `dptrain tune` falls back to dp_tune in the server, which
# charges the total epsilon once; --controller refuses instead.
analyst=tune_analyst_$$
err=$(mktemp)
trap 'dropdb --if-exists --force "$db" >/dev/null 2>&1 || true; psql -X -q -d postgres -c "DROP ROLE IF EXISTS $analyst" >/dev/null 2>&1 || true; rm -f "$err"' EXIT
psql -X -q -v ON_ERROR_STOP=1 -d "$db" -c "CREATE ROLE $analyst LOGIN" -c "SELECT dp_grant_budget('pts', '$analyst', 1.0, 0)" >/dev/null
out=$("$DPTRAIN_CLI" tune --db "dbname=$db user=$analyst" --table pts --label y --features x --classes false,true \
        --epsilon 0.7 --lambdas 0,0.01 --epochs 1,2 --json 2>"$err") || { cat "$err"; exit 1; }
grep -q 'tuning inside the server (dp_tune) instead' "$err" || { echo "no fallback notice: $(cat "$err")"; exit 1; }
[ "$(echo "$out" | field "j['mode']")" = server ] || { echo "expected server mode: $out"; exit 1; }
left=$(psql -X -At -d "$db" -c "SELECT round(epsilon::numeric, 6) FROM dp_budget_remaining('pts', '$analyst')")
[ "$left" = 0.300000 ] || { echo "expected 0.3 of the budget left, got $left"; exit 1; }
if out=$("$DPTRAIN_CLI" tune --db "dbname=$db user=$analyst" --table pts --label y --features x --classes false,true \
           --epsilon 0.1 --controller 2>&1); then echo "--controller accepted without the privileges"; exit 1; fi
grep -q 'controller mode needs' <<<"$out" || { echo "unexpected error: $out"; exit 1; }
echo "ok: an analyst with a budget tunes in the server; 0.7 charged once"
echo "tune_cli: all ok"
