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
    print("| cells | width | keys | best | estimate | vs best | plan s | measure | vs best | plan s |"
          " wisdom | vs best | plan s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    worst = {}
    for c in r["cases"]:
        row = ["{:,}".format(int(c["cells"])), str(c["width"]), c["pattern"], "`%s`" % c["best"]]
        for mode in ("auto_estimate", "auto_measure", "auto_wisdom"):
            row += list(cell(c[mode]))
            if "vs_best" in c[mode]:
                worst[mode] = max(worst.get(mode, 0.0), c[mode]["vs_best"])
        print("| " + " | ".join(row) + " |")
    print()
    for mode, w in worst.items():
        print("- %s: worst case %.2fx the best method" % (mode.replace("auto_", "auto, "), w))


if __name__ == "__main__":
    main()
