#!/usr/bin/env bash
# Every relative link of README.md and docs/*.md, [text](target), resolves to
# a file of the repository, and its #anchor, if any, to a heading of that file
# (GitHub's ids: lower case, punctuation dropped, spaces to hyphens). Links
# inside ``` blocks and absolute URLs are not checked. No database needed.
# (docs/comparison/*/tables.md are fragments that bench/compare.sh pastes
# into docs/comparison.md, with links relative to docs/: not checked alone.)
set -euo pipefail
cd "$(dirname "$0")/../.."
python3 - README.md docs/*.md <<'PY'
import os, re, sys

def slug(heading):
    h = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return h.replace(" ", "-")

def anchors(path):
    text = re.sub(r"```.*?```", "", open(path, encoding="utf-8").read(), flags=re.S)
    return {slug(l.lstrip("#")) for l in text.splitlines() if l.startswith("#")}

bad = []
for doc in sys.argv[1:]:
    text = re.sub(r"```.*?```", "", open(doc, encoding="utf-8").read(), flags=re.S)
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):
            continue
        path, _, anchor = target.partition("#")
        full = os.path.normpath(os.path.join(os.path.dirname(doc), path)) if path else doc
        if not os.path.exists(full):
            bad.append(f"{doc}: ({target}): no file {full}")
        elif anchor and full.endswith(".md") and anchor not in anchors(full):
            bad.append(f"{doc}: ({target}): no heading #{anchor} in {full}")
for b in bad:
    print("FAIL:", b, file=sys.stderr)
if bad:
    sys.exit(1)
print(f"docs_links: every relative link of {len(sys.argv) - 1} pages resolves")
PY
