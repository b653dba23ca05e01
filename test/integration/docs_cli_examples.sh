#!/usr/bin/env bash
# Every `dptrain SUBCOMMAND ...` of README.md and docs/*.md (in ```sh and
# plain ``` blocks, continuation lines joined, and in `inline code`) names a
# subcommand that exists and only options its --help lists: a renamed or
# removed option fails here, not in a reader's shell. (docs_options.sh checks
# the keys of --options; docs_sql_examples.sh runs the SQL.) No database needed.
set -euo pipefail
: "${DPTRAIN_CLI:?set DPTRAIN_CLI to the dptrain binary}"
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
