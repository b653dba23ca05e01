#!/usr/bin/env bash
# 1. Every `dptrain SUBCOMMAND ...` of README.md and docs/*.md (in ```sh and
#    plain ``` blocks, continuation lines joined, and in `inline code`) names a
#    subcommand that exists and only options its --help lists: a renamed or
#    removed option fails here, not in a reader's shell.
# 2. The commands of the ```sh blocks run, in order, one fresh database per
#    page, on the tables the pages name (lib/docs_fixture.sh): every dptrain
#    command but `load` (the fixture holds the tables; loading is
#    load_datasets.sh's) and every `psql -d DB -c "..."`, with --db and -d
#    naming the page's database and $D or ../shared/data DPTRAIN_DATA. A
#    command with "..." or a --file the page does not provide is skipped
#    (and counted).
# (docs_options.sh checks the keys of --options; docs_sql_examples.sh runs the
# SQL blocks; walkthrough.sh all of docs/walkthrough.md.)
# Env: DPTRAIN_CLI, DPTRAIN_DATA, PGHOST/PGPORT/PGUSER of a throwaway cluster.
set -euo pipefail
: "${DPTRAIN_CLI:?set DPTRAIN_CLI to the dptrain binary}" "${DPTRAIN_DATA:?}"
cd "$(dirname "$0")/../.."
python3 - "$DPTRAIN_CLI" README.md docs/*.md <<'PY'
import re, subprocess, sys
cli, pages = sys.argv[1], sys.argv[2:]
helps = {}

def options(words):
    """The options `dptrain WORDS --help` lists, or None if no such subcommand."""
    key = " ".join(words)
    if key not in helps:
        r = subprocess.run([cli, *words, "--help"], capture_output=True, text=True)
        helps[key] = set(re.findall(r"--[a-z][a-z0-9-]*", r.stdout)) if r.returncode == 0 else None
    return helps[key]

def commands(text):
    """(words after dptrain, rest of the command) of every example."""
    found = []
    for m in re.finditer(r"^```(\w*)\n(.*?)^```", text, flags=re.S | re.M):
        if m.group(1) in ("", "sh", "bash"):
            for line in m.group(2).replace("\\\n", " ").splitlines():
                line = line.split(" #")[0]
                found += re.findall(r"(?:^|[\s;(|])dptrain\s+([a-z][\w-]*(?:\s+[a-z][\w-]*)?)(.*)", line)
    prose = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    for span in re.findall(r"`([^`]*)`", prose):
        found += re.findall(r"^dptrain\s+([a-z][\w-]*(?:\s+[a-z][\w-]*)?)(.*)", span)
    return found

bad, count = [], 0
for page in pages:
    for words, rest in commands(open(page, encoding="utf-8").read()):
        words = words.split()
        if options(words[:1]) is None:
            if re.search(r"(^|\s)--[a-z]", rest):
                bad.append(f"{page}: dptrain {words[0]}: no such subcommand")
            continue  # prose ("the dptrain charge"), not a command
        count += 1
        known = options(words) if len(words) > 1 else None
        if known is None:
            known, rest = options(words[:1]), " ".join(words[1:]) + " " + rest
        used = set(re.findall(r"(?:^|[\s\[|])(--[a-z][a-z0-9-]*)", rest))
        if used - known:
            bad.append(f"{page}: dptrain {' '.join(words)}: no option {', '.join(sorted(used - known))}")
for b in bad:
    print("FAIL:", b, file=sys.stderr)
if bad or count < 20:
    sys.exit(f"FAIL: {len(bad)} unknown options in {count} dptrain commands of the docs")
print(f"docs_cli_examples: the {count} dptrain commands of README.md and docs/*.md use only options their --help lists")
PY

source test/integration/lib/docs_fixture.sh
WORK=$(mktemp -d)
docs_fixture
mkdir "$WORK/bin"
ln -s "$DPTRAIN_CLI" "$WORK/bin/dptrain"

# PAGE.cmds: the commands of the page's sh blocks, one a line, naming the
# page's database @DB@ and DPTRAIN_DATA.
python3 - "$WORK" "$DPTRAIN_DATA" README.md docs/*.md <<'PY'
import os, re, sys
work, data, pages = sys.argv[1], sys.argv[2], sys.argv[3:]
for page in pages:
    if page.endswith("walkthrough.md"):
        continue
    text = open(page, encoding="utf-8").read()
    run = []
    for m in re.finditer(r"^```(\w*)\n(.*?)^```", text, flags=re.S | re.M):
        if m.group(1) != "sh":
            continue
        for line in m.group(2).replace("\\\n", " ").splitlines():
            line = re.sub(r"\s+#.*$", "", line).strip()
            if not re.match(r"(dptrain (?!load\b)|psql -d )", line):
                continue
            line = re.sub(r"--db (\"[^\"]*\"|\S+)", "--db dbname=@DB@", line)
            line = re.sub(r"^psql -d \S+", "psql -X -v ON_ERROR_STOP=1 -d @DB@", line)
            run.append(line.replace("$D/", data + "/").replace("../shared/data/", data + "/"))
    if run:
        open(os.path.join(work, os.path.basename(page) + ".cmds"), "w").write("\n".join(run) + "\n")
PY

failed=0 ran=0 skipped=0
for cmds in "$WORK"/*.cmds; do
  page=$(basename "$cmds" .cmds)
  docs_page_db "$page"
  while IFS= read -r cmd; do
    cmd=${cmd//@DB@/$db}
    file=$(grep -oE -- '--file [^ ]+' <<<"$cmd" | cut -d' ' -f2 || true)
    if [[ "$cmd" == *...* ]] || { [ -n "$file" ] && [ ! -e "$file" ]; }; then
      echo "skipped ($page): $cmd"
      skipped=$((skipped + 1))
      continue
    fi
    if out=$(cd "$WORK" && PATH="$WORK/bin:$PATH" PGDATABASE="$db" PGOPTIONS='-c client_min_messages=warning' \
               bash -euo pipefail -c "$cmd" 2>&1); then
      ran=$((ran + 1))
    else
      echo "FAIL: $page: the command fails: $cmd" >&2
      tail -5 <<<"$out" | sed 's/^/    /' >&2
      failed=1
    fi
  done <"$cmds"
done
[ "$failed" = 0 ] || { echo "FAIL: a documented dptrain command does not run as written" >&2; exit 1; }
[ "$ran" -ge 15 ] || { echo "FAIL: only $ran commands ran" >&2; exit 1; }
echo "docs_cli_examples: $ran commands of the docs' sh blocks ran as written ($skipped skipped)"
