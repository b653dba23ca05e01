"""The machine-readable lines `make bench` collects (issue 18's summary table).

A bench that computes a ratio of an issue-18 item prints, besides its own
output, one line per ratio (tab-separated, nothing else on the line):

    BENCH-RATIO  item  bench  what  ratio  target  baseline

  item      "1".."6": the item of issue 18 the ratio measures
  bench     the script or program that measured it (bench/end_to_end.sh)
  what      the ratio in words, numerator / denominator, with the size
  ratio     the value (a plain number)
  target    "<= 6", ">= 1.5" or empty (the issue gives no number)
  baseline  the denominator as measured in the same run (e.g. "scan 0.527 s")

scripts/run-bench.sh adds one line per bench it ran:

    BENCH-WALL  command  seconds  exit-status

and bench/lib/target_summary.py turns a log of both into the table.
The same format is written by bench/lib/bench_ratio.sh (bash) and
bench/lib/bench_ratio.h (C++).
"""
import re

RATIO = "BENCH-RATIO"
WALL = "BENCH-WALL"
_TARGET = re.compile(r"^(<=|>=)\s*([0-9.]+)$")


def _field(text):
    return str(text).replace("\t", " ").replace("\n", " ")


def emit(item, bench, what, ratio, target="", baseline=""):
    """Prints one BENCH-RATIO line (flushed: benches interleave with psql output)."""
    print("\t".join([RATIO, _field(item), _field(bench), _field(what), f"{ratio:.4g}", _field(target),
                     _field(baseline)]), flush=True)


def parse_target(target):
    """("<=", 6.0) for "<= 6"; None for an empty target; ValueError otherwise."""
    if not target.strip():
        return None
    m = _TARGET.match(target.strip())
    if not m:
        raise ValueError(f"target {target!r} is neither '<= x' nor '>= x'")
    return m.group(1), float(m.group(2))


def parse(lines):
    """(ratios, walls, bad): the dicts of the BENCH-RATIO and BENCH-WALL lines in
    order, and the malformed ones (text) -- a bench's own output is ignored."""
    ratios, walls, bad = [], [], []
    for line in lines:
        line = line.rstrip("\n")
        if line.startswith(RATIO + "\t"):
            f = line.split("\t")
            try:
                if len(f) != 7:
                    raise ValueError("expected 7 fields")
                ratios.append({"item": f[1], "bench": f[2], "what": f[3], "ratio": float(f[4]),
                               "target": parse_target(f[5]), "target_text": f[5].strip(), "baseline": f[6]})
            except ValueError:
                bad.append(line)
        elif line.startswith(WALL + "\t"):
            f = line.split("\t")
            try:
                if len(f) != 4:
                    raise ValueError("expected 4 fields")
                walls.append({"command": f[1], "seconds": float(f[2]), "status": int(f[3])})
            except ValueError:
                bad.append(line)
    return ratios, walls, bad
