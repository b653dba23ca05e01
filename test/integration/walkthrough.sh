#!/usr/bin/env bash
# docs/walkthrough.md, run as written: every ```sh, ```sql and ```python block,
# in order (sh with DB and DATA set and the dptrain binary on PATH, sql through
# psql into $DB, python in the same working directory). Then what the page
# promises: the private model beats the majority rate on the test file, and
# the Python scorer predicts what dp_predict predicts.
set -euo pipefail
: "${DPTRAIN_CLI:?}" "${DPTRAIN_DATA:?}"
DOC="$(cd "$(dirname "$0")/../.." && pwd)/docs/walkthrough.md"
export DB=dptrain_walkthrough_$$ DATA=$DPTRAIN_DATA
WORK=$(mktemp -d)
trap 'dropdb --if-exists --force "$DB" >/dev/null 2>&1 || true; rm -rf "$WORK"' EXIT
BIN="$WORK/bin"; mkdir -p "$BIN"; ln -s "$DPTRAIN_CLI" "$BIN/dptrain"
export PATH="$BIN:$PATH"
cd "$WORK"
fail() { echo "FAIL: $*" >&2; exit 1; }

# Split the page into numbered blocks: NNN.sh, NNN.sql, NNN.python.
python3 - "$DOC" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
blocks = re.findall(r"^```(sh|sql|python)\n(.*?)^```", text, flags=re.S | re.M)
assert len(blocks) >= 6, f"expected the walk-through's blocks, found {len(blocks)}"
for i, (kind, body) in enumerate(blocks):
    open(f"{i:03d}.{kind}", "w").write(body)
PY

for f in $(ls [0-9]*.* | sort); do
  echo "--- $f"
  case "$f" in
    *.sh) bash -euo pipefail "$f" 2>&1 | tee "$f.out" ;;
    *.sql) psql -X -v ON_ERROR_STOP=1 -d "$DB" -f "$f" 2>&1 | tee "$f.out" ;;
    *.python) python3 "$f" 2>&1 | tee "$f.out" ;;
  esac
done

q() { psql -X -A -t -v ON_ERROR_STOP=1 -d "$DB" -c "$1"; }
[ "$(q "SELECT accuracy > majority_rate + 0.03 FROM dp_evaluate('adult_private', 'adult_test', 'y', 'x')")" = t ] ||
  fail "the walk-through's model is not useful: $(q "SELECT accuracy, majority_rate FROM dp_evaluate('adult_private', 'adult_test', 'y', 'x')")"
[ "$(q "SELECT accuracy > majority_rate + 0.03 FROM dp_evaluate('adult_columns', 'adult_raw_test', 'income')")" = t ] ||
  fail "the model on raw columns is not useful: $(q "SELECT accuracy, majority_rate FROM dp_evaluate('adult_columns', 'adult_raw_test', 'income')")"
python_says=$(tail -1 "$(ls [0-9]*.python.out | tail -1)")
db_says=$(tail -1 "$(ls [0-9]*.sh.out | tail -1)")
[[ "$db_says" =~ ^[0-9]+\ of\ 200\ predicted\ true$ ]] || fail "the database's count: '$db_says'"
[ "$python_says" = "$db_says" ] || fail "Python says '$python_says', dp_predict '$db_says'"
[ "$(q "SELECT epsilon <= 1 AND epsilon > 0.999 AND delta = 1e-9 AND NOT seeded FROM dptrain.models WHERE name = 'adult_private'")" = t ] ||
  fail "the model is not the private one the page describes"
echo "walkthrough: all ok (the page runs as written; Python and dp_predict: $db_says)"
