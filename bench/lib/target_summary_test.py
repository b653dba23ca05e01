#!/usr/bin/env python3
"""Checks of bench/lib/target_summary.py on logs (no benchmark runs here; not
part of `make test`):

    python3 bench/lib/target_summary_test.py

testdata/issue18_small.log is the captured log of one `BENCH_SMALL=1 make
bench-issue18` run (commit 3398961, 2026-11-27 02:33 UTC; the make lines and
the summary it ended with removed). In that commit end_to_end.sh still gave
its targets at every size; they now hold from 1M rows on.
"""
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from bench_ratio import parse, parse_target  # noqa: E402
from target_summary import summary  # noqa: E402


def rows_of(text):
    """The data rows of the table of ratios (7 cells; the wall times have 3), split into cells."""
    rows = [[c.strip() for c in line.strip("|").split(" | ")] for line in text.splitlines()
            if line.startswith("| ") and not line.startswith("| item ")]
    return [r for r in rows if len(r) == 7]


class Targets(unittest.TestCase):
    def test_parse_target(self):
        self.assertEqual(parse_target("<= 6"), ("<=", 6.0))
        self.assertEqual(parse_target(">=1.5"), (">=", 1.5))
        self.assertIsNone(parse_target(""))
        with self.assertRaises(ValueError):
            parse_target("about 1")

    def test_verdicts_at_and_beyond_the_bound(self):
        log = ["BENCH-RATIO\t2\tb.sh\tat the bound\t6\t<= 6\tscan 1 s",
               "BENCH-RATIO\t2\tb.sh\tabove\t6.01\t<= 6\tscan 1 s",
               "BENCH-RATIO\t4\tb.sh\tspeed-up at the bound\t1.5\t>= 1.5\tx",
               "BENCH-RATIO\t4\tb.sh\tspeed-up below\t1.49\t>= 1.5\tx",
               "BENCH-RATIO\t6\tb.sh\tno number\t1.07\t\t100k: 17 MB"]
        rows = {r[1]: r for r in rows_of(summary(log, "fixture"))}
        self.assertEqual(rows["at the bound"][4], "met")
        self.assertEqual(rows["above"][4], "**not met**")
        self.assertEqual(rows["speed-up at the bound"][4], "met")
        self.assertEqual(rows["speed-up below"][4], "**not met**")
        self.assertEqual(rows["no number"][4], "–")
        self.assertIn("Targets: 2 met, 2 not met, of 4 ratios with a target.", summary(log, "fixture"))

    def test_rows_sorted_by_item_bench_order_kept(self):
        log = ["BENCH-RATIO\t3\ta.sh\tthird\t2\t<= 1.2\t",
               "BENCH-RATIO\t1\tb.sh\tfirst\t9\t\t",
               "BENCH-RATIO\t3\tc.sh\tthird again\t1\t<= 1.2\t"]
        self.assertEqual([r[1] for r in rows_of(summary(log, "f"))], ["first", "third", "third again"])

    def test_missing_items_and_malformed_lines_are_reported(self):
        log = ["noise from a bench", "BENCH-RATIO\t1\tb.sh\twall / scan\t16.2\t\tscan 0.5 s",
               "BENCH-RATIO\t2\tb.sh\ttoo few fields\t1",
               "BENCH-RATIO\t2\tb.sh\tbad target\t1\tabout 6\t",
               "BENCH-WALL\tbash bench/x.sh\tnot a number\t0"]
        ratios, walls, bad = parse(log)
        self.assertEqual(len(ratios), 1)
        self.assertEqual(walls, [])
        self.assertEqual(len(bad), 3)
        text = summary(log, "f")
        self.assertIn("No ratio in this log for item 2 (shuffle), 3 (epoch cost), 4 (parallel passes), "
                      "5 (per-batch noise), 6 (memory)", text)
        self.assertIn("3 malformed BENCH- line(s), ignored", text)

    def test_wall_times_and_total(self):
        log = ["BENCH-WALL\tbash bench/a.sh\t100.0\t0", "BENCH-WALL\tbash bench/b.sh\t200.5\t1"]
        text = summary(log, "f")
        self.assertIn("| bash bench/a.sh | 100 s | 0 |", text)
        self.assertIn("| bash bench/b.sh | 200 s (3.3 min) | 1 |", text)
        self.assertIn("| total | 300 s (5.0 min) | |", text)

    def test_a_pipe_in_a_field_does_not_break_the_table(self):
        rows = rows_of(summary(["BENCH-RATIO\t1\tb.sh\ta | b\t1\t\tx"], "f"))
        self.assertEqual(len(rows), 1)
        self.assertEqual(rows[0][1], "a \\| b")


class CapturedLog(unittest.TestCase):
    """The log of a real (small) run: every item has its ratios, every bench its wall time."""

    def setUp(self):
        with open(os.path.join(HERE, "testdata", "issue18_small.log")) as f:
            self.lines = f.readlines()

    def test_every_item_and_bench(self):
        ratios, walls, bad = parse(self.lines)
        self.assertEqual(bad, [])
        self.assertEqual({r["item"] for r in ratios}, {"1", "2", "3", "4", "5", "6"})
        self.assertEqual({r["bench"] for r in ratios},
                         {"bench/end_to_end.sh", "bench/shuffle.sh", "bench/epoch_vs_scan.sh",
                          "bench/read_in_place.sh", "bench/runtime.sh", "bench/memory.sh"})
        self.assertEqual(len(walls), 8)
        self.assertTrue(all(w["status"] == 0 for w in walls))
        text = summary(self.lines, "captured")
        self.assertNotIn("No ratio in this log", text)
        # the targets of the issue: shuffle + 5 epochs (item 2), epoch (3), BST14 and SCS13 (5)
        targeted = [r for r in rows_of(text) if r[3]]
        self.assertEqual({r[3] for r in targeted}, {"<= 6", "<= 1.2", "<= 1.5"})
        for r in targeted:
            self.assertIn(r[4], ("met", "**not met**"))
        by_what = {r[1]: r for r in rows_of(text)}
        self.assertEqual(by_what["100000x54: bst14 epoch / noiseless epoch, b = 1"][2:5],
                         ["3.52", "<= 1.5", "**not met**"])
        self.assertEqual(by_what["100000x54: bolt-on shuffle + 5 epochs / scan"][2:5], ["5.79", "<= 6", "met"])
        self.assertEqual(by_what["dpsgd: peak private memory, 100000 rows / 20000 rows (x 54)"][2:5],
                         ["0.88", "", "–"])
        self.assertIn("| env ROWS=20000 100000 bash bench/memory.sh | 33 s | 0 |", text)


if __name__ == "__main__":
    unittest.main()
