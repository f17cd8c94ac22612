#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Markdown table of bench_planner's JSON: per case, the best method of the run
and what auto picked in each mode, its time relative to the best (1.00 = the
best) and the seconds spent planning.

usage: table.py RESULT.json > TABLE.md"""
import json
import sys


def cell(a):
    if "error" in a:
        return "error: %s" % a["error"], "—", "—"
    vs = "%.2f" % a["vs_best"] if "vs_best" in a else "—"
    return "`%s`" % a["method"], vs, "%.3g" % a["plan_seconds"]


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    r = json.load(open(sys.argv[1]))
    print("# Method auto against the best method, %s backend (%s)\n" % (r["backend"], r["device"]))
    print("Commit %s; median of %d adds per method; measure budget %.3g s; `vs best` = auto's method's time in"
          " this run over the best method's (1.00: auto picked the best).\n"
          % (r.get("commit", "unknown"), r["reps"], r["plan_budget_s"]))
    modes = [m for m in ("auto_estimate", "auto_measure", "auto_wisdom", "auto_measure_batch")
             if all(m in c for c in r["cases"])]
    names = {"auto_estimate": "estimate", "auto_measure": "measure", "auto_wisdom": "wisdom",
             "auto_measure_batch": "measure, batch announced"}
    print("| cells | width | keys | type | best | best s | " + " | ".join("%s | vs best | plan s" % names[m] for m in modes) + " |")
    print("|---" * (6 + 3 * len(modes)) + "|")
    worst, share = {}, {}
    for c in r["cases"]:
        row = ["{:,}".format(int(c["cells"])), str(c["width"]), c["pattern"], c.get("dtype", "f64"), "`%s`" % c["best"],
               "%.3g" % c["best_seconds"]]
        for mode in modes:
            row += list(cell(c[mode]))
            if "vs_best" in c[mode]:
                worst[mode] = max(worst.get(mode, 0.0), c[mode]["vs_best"])
            if "plan_seconds" in c[mode] and c["best_seconds"] > 0:
                share[mode] = max(share.get(mode, 0.0), c[mode]["plan_seconds"] / c["best_seconds"])
        print("| " + " | ".join(row) + " |")
    print()
    for mode, w in worst.items():
        print("- %s: worst case %.2fx the best method; planning at most %.3g %% of the best method's run"
              % ("auto, " + names[mode], w, 100.0 * share.get(mode, float("nan"))))


if __name__ == "__main__":
    main()
