#!/usr/bin/env bash
# Every ```sql block of README.md and docs/*.md runs as written, in order, one
# fresh database per page, on the tables the pages name (lib/docs_fixture.sh).
# A block whose line before is `<!-- docs_sql_examples: skip ... -->` is left
# out (a statement with placeholders such as $1). A leading
# `CREATE EXTENSION dptrain;` is dropped (the databases have it).
# docs/walkthrough.md is walkthrough.sh's: it runs the whole page.
# A one-line statement whose comment starts with a value -- `-- (0.6, 1e-06)`,
# `-- 2.597 ...`, `-- {2:1.5}/3 ...` -- must print that value (a row's columns
# between parentheses); numbers match to the digits shown.
# Env: DPTRAIN_CLI, DPTRAIN_DATA, PGHOST/PGPORT/PGUSER of a throwaway cluster.
set -euo pipefail
: "${DPTRAIN_CLI:?}" "${DPTRAIN_DATA:?}"
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
source "$ROOT/test/integration/lib/docs_fixture.sh"
WORK=$(mktemp -d)
docs_fixture
cd "$WORK"

# Split the pages into PAGE__LINE.sql; a checked statement's output goes to
# PAGE__LINE.sql.N (psql \o), its expected value to PAGE__LINE.expect.
python3 - "$ROOT" <<'PY'
import glob, json, os, re, sys
root = sys.argv[1]
pages = [os.path.join(root, "README.md")] + sorted(glob.glob(os.path.join(root, "docs", "*.md")))
value = re.compile(r"^(SELECT [^;]*;)\s+--\s+(\([^)]*\)|\{[^}]*\}/\d+|-?\d[\d.e+-]*)")
count = checks = 0
for page in pages:
    if page.endswith("walkthrough.md"):
        continue
    text = open(page, encoding="utf-8").read()
    for m in re.finditer(r"^```sql\n(.*?)^```", text, flags=re.S | re.M):
        line = text.count("\n", 0, m.start()) + 1
        if text[:m.start()].rstrip("\n").rsplit("\n", 1)[-1].startswith("<!-- docs_sql_examples: skip"):
            continue
        base = f"{os.path.relpath(page, root).replace('/', '~')}__{line:05d}"
        out, expect = [], []
        for i, stmt in enumerate(m.group(1).splitlines()):
            if stmt.strip() == "CREATE EXTENSION dptrain;":
                continue
            v = value.match(stmt)
            if v:
                expect.append({"file": f"{base}.sql.{i}", "line": line + 1 + i, "want": v.group(2)})
                out += [f"\\o {base}.sql.{i}", v.group(1), "\\o"]
                checks += 1
            else:
                out.append(stmt)
        open(f"{base}.sql", "w", encoding="utf-8").write("\n".join(out) + "\n")
        json.dump(expect, open(f"{base}.expect", "w"))
        count += 1
print(f"{count} sql blocks, {checks} shown values")
PY

failed=0
check_values() {  # check_values BLOCK WHERE: the shown values of the block's statements
  python3 - "$1" "$2" <<'PY'
import json, re, sys
block, where = sys.argv[1], sys.argv[2]
def same(want, got):
    if re.fullmatch(r"-?\d[\d.e+-]*", want):
        digits = len(want.split(".")[1]) if "." in want and "e" not in want else None
        try:
            return round(float(got), digits) == float(want) if digits is not None else float(got) == float(want)
        except ValueError:
            return False
    return want == got
bad = 0
for e in json.load(open(block.replace(".sql", ".expect"))):
    got = open(e["file"]).read().strip()
    want = e["want"]
    if want.startswith("("):
        wants, gots = [w.strip() for w in want[1:-1].split(",")], got.split("|")
        ok = len(wants) == len(gots) and all(same(w, g) for w, g in zip(wants, gots))
    else:
        ok = same(want, got)
    if not ok:
        print(f"FAIL: {where.split(':')[0]}:{e['line']}: the page shows {want}, the statement prints {got!r}", file=sys.stderr)
        bad = 1
sys.exit(bad)
PY
}

for page in $(printf '%s\n' *.sql | sed 's/__[0-9]*\.sql$//' | sort -u); do
  docs_page_db "$page"
  for block in "$page"__*.sql; do
    line=${block##*__}; line=$((10#${line%.sql}))
    where="${page//\~//}:$line"
    start=$(date +%s.%N)
    if out=$(PGOPTIONS='-c client_min_messages=warning' psql -X -At -v ON_ERROR_STOP=1 -d "$db" -f "$block" 2>&1); then
      check_values "$block" "$where" || { failed=1; continue; }
      awk -v w="$where" -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "ok %s (%.1f s)\n", w, b - a }'
    else
      echo "FAIL: $where: the block fails:" >&2
      grep -A4 -E '^psql:.*(ERROR|FATAL)' <<<"$out" | sed 's/^/    /' >&2
      failed=1
    fi
  done
done
# Names: every dptrain.NAME in the pages' code is an object of the
# extension's schema, and README's dp_train table lists exactly its named
# arguments and its result columns.
psql -X -At -v ON_ERROR_STOP=1 -d "$fixture" >names.txt -c "
  SELECT proname FROM pg_proc WHERE pronamespace = 'dptrain'::regnamespace
  UNION SELECT relname FROM pg_class WHERE relnamespace = 'dptrain'::regnamespace
  UNION SELECT typname FROM pg_type WHERE typnamespace = 'dptrain'::regnamespace"
psql -X -At -v ON_ERROR_STOP=1 -d "$fixture" >train_args.txt -c "
  SELECT array_to_string(proargnames[4:], ' ') FROM pg_proc
  WHERE oid = 'dp_train(regclass, text, text, text, text, float8, float8, int, int, float8, float8, text, bigint,
                        text[], text, float8, boolean, boolean, float8, jsonb, boolean)'::regprocedure
  UNION ALL SELECT string_agg(attname, ', ' ORDER BY attnum) FROM pg_attribute
  WHERE attrelid = 'dptrain.trained_model'::regclass AND attnum > 0"
python3 - "$ROOT" <<'PY' || failed=1
import glob, os, re, sys
root = sys.argv[1]
names = set(open("names.txt").read().split())
args, columns = open("train_args.txt").read().splitlines()
bad = []
for page in [os.path.join(root, "README.md")] + sorted(glob.glob(os.path.join(root, "docs", "*.md"))):
    text = open(page, encoding="utf-8").read()
    for code in re.findall(r"```.*?```|`[^`]+`", text, flags=re.S):
        for name in re.findall(r"\bdptrain\.([a-z_][a-z0-9_]*)(?![a-z0-9_*])", code):
            if name not in names and name != "so":  # dptrain.so, the library
                bad.append(f"{os.path.relpath(page, root)}: dptrain.{name}: no such function, table or type")
readme = open(os.path.join(root, "README.md"), encoding="utf-8").read()
table = readme.split("Named arguments with their defaults:", 1)[1].lstrip().split("\n\n", 1)[0]
documented = {a for row in table.splitlines()[2:] for a in re.findall(r"`(\w+)`", row.split("|")[1])}
if documented != set(args.split()):
    bad.append(f"README.md: dp_train's argument table lists {sorted(documented)}, dp_train takes {args.split()}")
if f"returns one row `({columns})`" not in readme:
    bad.append(f"README.md: dp_train returns ({columns}), not the row the README names")
for b in bad:
    print("FAIL:", b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY

[ "$failed" = 0 ] || { echo "FAIL: a documented SQL example or name does not match the extension" >&2; exit 1; }
echo "docs_sql_examples: every sql block of README.md and docs/*.md runs as written;" \
  "every dptrain.NAME exists; README's dp_train table is its signature"
