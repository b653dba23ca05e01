#!/usr/bin/env bash
# The CLI started with standard output or standard error closed (`>&-`,
# `2>&-`, a job runner that closes them) never writes into its server
# connection (controller/lib/standard_descriptors.h). Before, the
# connection's socket took the closed number: `train --json >&-` sent its
# result into the server's protocol stream and exited 0 (the model's id
# lost), and `train --controller 2>&-` sent a NOTICE into it in the middle
# of the run, so the server ended the connection and the run failed.
# Env: DPTRAIN_CLI, PGHOST/PGPORT/PGUSER of a live throwaway cluster.
set -euo pipefail
: "${DPTRAIN_CLI:?set DPTRAIN_CLI to the dptrain binary}"
source "$(dirname "$0")/lib/scratch_db.sh"
scratch_db closedstdio
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"; dropdb --if-exists --force "$db" >/dev/null 2>&1 || true' EXIT
fail() { echo "FAIL: $*" >&2; cat "$WORK/err" >&2 2>/dev/null || true; exit 1; }
separable_points 400
# Controller mode, classes read from the data: the CLI prints a NOTICE to
# stderr between the charge and the first pass.
train=(train --db "dbname=$db" --table pts --label y --epsilon 1 --epochs 2 --controller --json)
models() { psql -X -At -d "$db" -c "SELECT count(*) FROM dptrain.models"; }

# stdout closed: the result cannot be written, which is an error naming the stored model.
status=0
"$DPTRAIN_CLI" "${train[@]}" >&- 2>"$WORK/err" || status=$?
id=$(psql -X -At -d "$db" -c "SELECT max(id) FROM dptrain.models")
[ "$status" = 1 ] || fail "stdout closed: exit status $status, expected 1 (the result went nowhere)"
grep -q "^dptrain: error: could not write the result to standard output (Bad file descriptor); model $id: " \
  "$WORK/err" || fail "stdout closed: the error does not name the stored model $id"
echo "ok: stdout closed: exit 1, and stderr names the stored model $id"

# stderr closed: the NOTICE is lost, the run is not.
before=$(models)
status=0
"$DPTRAIN_CLI" "${train[@]}" >"$WORK/out" 2>&- || status=$?
[ "$status" = 0 ] || fail "stderr closed: exit status $status, expected 0"
[ "$(models)" = $((before + 1)) ] || fail "stderr closed: no model was stored"
[ "$(field 'j["model_id"]' <"$WORK/out")" = "$(psql -X -At -d "$db" -c "SELECT max(id) FROM dptrain.models")" ] \
  || fail "stderr closed: stdout does not hold the stored model: $(cat "$WORK/out")"
echo "ok: stderr closed: the run stores its model and prints it"

# The commands that only read: the output is an error, not lost.
status=0
"$DPTRAIN_CLI" export --db "dbname=$db" --model "$id" >&- 2>"$WORK/err" || status=$?
[ "$status" = 1 ] && grep -q "^dptrain: error: could not write to standard output" "$WORK/err" \
  || fail "export with stdout closed: exit status $status"
echo "ok: export with stdout closed: exit 1 with a message"
echo "cli_closed_stdio: ok"
