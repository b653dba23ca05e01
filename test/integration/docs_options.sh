#!/usr/bin/env bash
# docs/options.md lists, for every algorithm, exactly the option keys the code
# accepts: each algorithm named in the hint of an unknown algorithm is asked
# for an unknown option, and the keys its hint lists ("Options of X: a, b.")
# must be the keys the page lists for it -- no undocumented option, no
# documented option that does not exist. The CLI's help points to the page, and
# `dptrain tune --help` names every private algorithm (it said "bolton | ...").
# Env: DPTRAIN_CLI, PGHOST/PGPORT/PGUSER of a live throwaway cluster.
set -euo pipefail
: "${DPTRAIN_CLI:?set DPTRAIN_CLI to the dptrain binary}"
source "$(dirname "$0")/lib/scratch_db.sh"
DOC="$(cd "$(dirname "$0")/../.." && pwd)/docs/options.md"
scratch_db docs_options
separable_points 200

# hint SQL: the HINT line of the error SQL raises (the call must fail).
hint() {
  local out
  if out=$(psql -X -v ON_ERROR_STOP=1 -d "$db" -c "$1" 2>&1); then
    echo "FAIL: expected an error from: $1" >&2; exit 1
  fi
  sed -n 's/^HINT:  //p' <<<"$out"
}

algorithms=$(hint "SELECT dp_train('pts', 'y', 'x', algorithm => 'no_such_algorithm')" \
  | sed -n 's/^Known algorithms: \(.*\)\.$/\1/p' | tr -d ',')
[ -n "$algorithms" ] || { echo "FAIL: no list of known algorithms" >&2; exit 1; }

code=""
for a in $algorithms; do
  budget="epsilon => 1, delta => 1e-6,"
  case $a in none | optimum) budget="" ;; esac
  h=$(hint "SELECT dp_train('pts', 'y', 'x', algorithm => '$a', $budget options => '{\"no_such_option\": 1}')")
  keys=$(sed -n 's/^\(Options of [a-z0-9_]*\|Bolton options\): \(.*\)\.$/\2/p' <<<"$h")
  [ -n "$keys" ] || { echo "FAIL: $a: no option list in the hint: $h" >&2; exit 1; }
  code+="$a: $keys"$'\n'
done

python3 - "$DOC" "$code" <<'PY'
import re, sys
doc, code_text = open(sys.argv[1]).read(), sys.argv[2]
code = {}
for line in code_text.strip().splitlines():
    algorithm, keys = line.split(": ", 1)
    code[algorithm] = {k.strip() for k in keys.split(",")}
family = ["dpsgd", "psgd", "dpmomentum", "dpadam", "dpadamwosm", "adadp"]
documented = {}
for line in doc.splitlines():
    cells = [c.strip() for c in line.split("|")[1:-1]]
    if len(cells) != 5 or cells[0] in ("algorithm", "---"):
        continue
    names = family if cells[0] == "the DP-SGD family" else re.findall(r"`([a-z0-9_]+)`", cells[0])
    for name in names:
        documented.setdefault(name, set()).update(re.findall(r"`([A-Za-z0-9_]+)`", cells[1]))
bad = []
for algorithm, keys in sorted(code.items()):
    doc_keys = documented.get(algorithm, set())
    if keys - doc_keys:
        bad.append(f"{algorithm}: undocumented in docs/options.md: {sorted(keys - doc_keys)}")
    if doc_keys - keys:
        bad.append(f"{algorithm}: documented but refused by the code: {sorted(doc_keys - keys)}")
for algorithm in sorted(set(documented) - set(code)):
    bad.append(f"{algorithm}: in docs/options.md but no such algorithm")
if bad:
    sys.exit("FAIL: " + "\n".join(bad))
print(f"docs/options.md matches the options of {len(code)} algorithms")
PY

for cmd in train tune; do
  "$DPTRAIN_CLI" "$cmd" --help | grep -q -- '--options .*docs/options.md' \
    || { echo "FAIL: dptrain $cmd --help does not point --options to docs/options.md" >&2; exit 1; }
done
tune_help=$("$DPTRAIN_CLI" tune --help | grep -- '--algorithm')
for a in $algorithms; do
  case $a in none | optimum) continue ;; esac
  grep -qE "[ :]$a( |$)" <<<"$tune_help" || { echo "FAIL: dptrain tune --help does not name $a: $tune_help" >&2; exit 1; }
done
echo "dptrain train|tune --help point to docs/options.md; tune --help names every private algorithm"
