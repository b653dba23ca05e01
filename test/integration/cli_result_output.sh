#!/usr/bin/env bash
# When `dptrain train` prints its result the model is stored and a private
# run charged: if stdout cannot take the result, the user is told so, with
# the model's id, and the exit status is 1 (controller/lib/run_result.h).
# Before, stdout on a full device (`--json > file` on a full disk) exited 0
# with nothing written, and a pipe closed before the result (a consumer that
# died) killed the CLI by SIGPIPE without a word.
# Env: DPTRAIN_CLI, PGHOST/PGPORT/PGUSER of a live throwaway cluster.
set -euo pipefail
: "${DPTRAIN_CLI:?set DPTRAIN_CLI to the dptrain binary}"
source "$(dirname "$0")/lib/scratch_db.sh"
scratch_db resultout
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"; dropdb --if-exists --force "$db" >/dev/null 2>&1 || true' EXIT
fail() { echo "FAIL: $*" >&2; cat "$WORK/err" >&2 || true; exit 1; }
separable_points 400
train=(train --db "dbname=$db" --table pts --label y --epsilon 1 --epochs 2)
last_model() { psql -X -At -d "$db" -c "SELECT max(id) FROM dptrain.models"; }

# stdout on a full device
status=0
"$DPTRAIN_CLI" "${train[@]}" --json >/dev/full 2>"$WORK/err" || status=$?
[ "$status" = 1 ] || fail "stdout on /dev/full: exit status $status, expected 1"
id=$(last_model)
grep -q "^dptrain: error: could not write the result to standard output (No space left on device); model $id: .*epsilon = 1 (stored)" \
  "$WORK/err" || fail "stdout on /dev/full: the error does not name the stored model $id"
echo "ok: stdout on a full device: exit 1, and stderr names the stored model $id"

# stdout a pipe whose reader is gone before the result is written (its read
# end is closed before the CLI starts: no race with the reader)
status=0
python3 - "$WORK/err" "$DPTRAIN_CLI" "${train[@]}" <<'PY' || status=$?
import os, subprocess, sys
r, w = os.pipe()
os.close(r)
with open(sys.argv[1], "wb") as err:
    rc = subprocess.run(sys.argv[2:], stdout=w, stderr=err).returncode
sys.exit(rc if rc >= 0 else 128 - rc)  # killed by signal N: 128 + N, as the shell says
PY
[ "$status" = 1 ] || fail "closed pipe: exit status $status, expected 1 (141: killed by SIGPIPE)"
id=$(last_model)
grep -q "^dptrain: error: could not write the result to standard output (Broken pipe); model $id: .*epsilon = 1 (stored)" \
  "$WORK/err" || fail "closed pipe: the error does not name the stored model $id"
echo "ok: stdout a closed pipe: exit 1, and stderr names the stored model $id"

# stderr a pipe whose reader is gone (`dptrain train 2>&1 | head -1` once
# head has its line): the NOTICEs of the run are lost, the run is not. The
# CLI died by SIGPIPE at its next NOTICE -- in server mode after the charge,
# so the run was charged and stored nothing (run_result.h). Both modes print
# a NOTICE here (the defaults of a bare --epsilon; the classes read from the data).
for mode in --server --controller; do
  before=$(last_model)
  status=0
  python3 - "$WORK/out" "$DPTRAIN_CLI" "${train[@]}" "$mode" --json <<'PY' || status=$?
import os, subprocess, sys
r, w = os.pipe()
os.close(r)
with open(sys.argv[1], "wb") as out:
    rc = subprocess.run(sys.argv[2:], stdout=out, stderr=w).returncode
sys.exit(rc if rc >= 0 else 128 - rc)
PY
  [ "$status" = 0 ] || fail "stderr a closed pipe ($mode): exit status $status, expected 0 (141: killed by SIGPIPE)"
  id=$(last_model)
  [ "$id" != "$before" ] && [ "$(field 'j["model_id"]' <"$WORK/out")" = "$id" ] \
    || fail "stderr a closed pipe ($mode): the model is not stored and printed: $(cat "$WORK/out")"
  echo "ok: stderr a closed pipe ($mode): the run stores model $id and prints it"
done
