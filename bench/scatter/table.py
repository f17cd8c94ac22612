#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Turns `mctally bench scatter` / `mctally bench mpc` JSON (and, optionally,
bench/peers/torch_scatter.py's JSON) into Markdown tables and PNG bar charts.

usage: table.py [--torch TORCH.json] [--png-dir DIR] [--command TEXT] BENCH.json [BENCH.json ...] > OUT.md

Per suite: every mctally method's Gupdates/s per case (B x key pattern), then
the best method beside the best peer (CUB sort + reduce-by-key, PyTorch
index_add_ default / deterministic, bincount), the ratios best / best peer and
best / memory floor, CUB HistogramEven (counts only, against its own floor)
and the goals: G1 best mctally >= best peer; G2 >= 200 Gupd/s where B <= 1000
or the keys are sorted. Charts need matplotlib; without it the Markdown says so."""
import argparse
import json
import os
import sys

GOAL_GUPD = 200.0
# Reference figures of native f64 atomics (uniform keys, Gupd/s) on an H100 whose memory
# floor was ANCHOR_FLOOR Gupd/s; every scatter table prints them beside its `atomic` row.
ANCHORS = {1: 0.57, 8: 2.1, 1000: 19, 1000000: 77}
ANCHOR_FLOOR = 249
HISTOGRAM = "cub_histogram_even_counts"
PATTERN_ORDER = {"uniform": 0, "sorted": 1, "hot": 2}

WESTPHAL = """## Context: Westphal, GTC 2015 (S5151, "Voting and shuffling for fewer atomic operations")

What the seed (the talk's slides) gives, quoted from its "Benchmarks" and "Conclusion" slides:
- Workload: a real-world MPC (multiparticle collision dynamics) "rotate" kernel, "10M particles in 1M cells,
  resulting (unoptimized) in as many atomic adds per parameter per component per iteration"; "runtime is
  dominated by 9 atomically added components per thread". This suite reproduces that scatter (1e7 keys,
  9 FP64 components into 9e6 bins), without the rotation's arithmetic.
- Runtimes were charted for compute capability 3.0 (double precision approximated by 2 floats; and an
  atomicCAS loop for the double add) and 5.2 (atomicCAS loop), with and without warp reduction, with the
  particles reordered by cell, and as kernel runtime against the number of atomic operations (CC 3.0).
  The slides' text carries the chart titles only, no runtimes, so no published figure is set beside ours.
- Conclusion: "Useful for problems with a small number of different keys per warp"; "Gain depends on
  architecture, precision and native availability of atomic operation (smaller if available)".

His pairs on this GPU, from the rows above: `wag` (his ballot-loop peers and sub-tree reduction, leader adds
with CAS) against `cas` (his baseline: a CAS loop per value), and `wib` (the same aggregation, native
atomicAdd for the leader) against `atomic` (native FP64 atomics, which CC 3.0 and 5.2 lacked)."""


def load(path):
    with open(path) as f:
        return json.load(f)


def case_key(c):
    return (int(c["bins"]), c["pattern"])


def usable(c):
    """A measured, correct result."""
    return c.get("status") == "ok" and c.get("correct") and c.get("gupdates_per_s") is not None


def fmt_g(x):
    return "—" if x is None else ("%.3g" % x)


def cell(c):
    if c is None:
        return "—"
    st = c.get("status", "")
    if st == "ok":
        g = "%.3g" % c["gupdates_per_s"]
        if not c.get("correct"):
            return "✗ wrong (%s)" % g
        return g + ("†" if c.get("reps", 5) < 5 else "")
    if st.startswith("skipped"):
        if c.get("first_ms"):
            return "slow (%.2f s)" % (c["first_ms"] * 1e-3)
        return "slow (~%.2g s)" % c["predicted_s"] if c.get("predicted_s") else "slow"
    if st.startswith("n/a"):
        return "n/a"
    return "error"


def rows_of(bench, torch_cases, suite):
    """{(bins, pattern): {"mctally": {method: case}, "peers": {name: case}}} in table order."""
    rows = {}
    for c in bench.get("cases", []):
        r = rows.setdefault(case_key(c), {"mctally": {}, "peers": {}})
        r["mctally" if c["kind"] == "mctally" else "peers"][c["name"]] = c
    for c in torch_cases:
        if c.get("suite") == suite and case_key(c) in rows:
            rows[case_key(c)]["peers"][c["peer"]] = dict(c, name=c["peer"], kind="peer")
    return dict(sorted(rows.items(), key=lambda kv: (kv[0][0], PATTERN_ORDER.get(kv[0][1], 9))))


def row_label(bench, key):
    bins, pattern = key
    unit = "cells" if bench.get("width", 1) > 1 else ""
    if bins == 1 and bench.get("width", 1) == 1:
        pattern = "any (one bin)"
    return "%s%s" % (f"{bins:,}", " " + unit if unit else ""), pattern


def best_of(cases, exclude=()):
    good = [c for n, c in cases.items() if n not in exclude and usable(c)]
    return max(good, key=lambda c: c["gupdates_per_s"]) if good else None


def summarise(bench, key, row):
    """The numbers of one row of the comparison table."""
    floor = bench["floor_gupdates_per_s"]
    best = best_of(row["mctally"])
    peer = best_of(row["peers"], exclude=(HISTOGRAM,))
    bg = best["gupdates_per_s"] if best else None
    pg = peer["gupdates_per_s"] if peer else None
    g1 = None if bg is None or pg is None else bg >= pg
    needs_g2 = key[0] <= 1000 or key[1] == "sorted"
    g2 = None if not needs_g2 else (bg is not None and bg >= GOAL_GUPD)
    return {"best": best, "peer": peer, "bg": bg, "pg": pg, "ratio": bg / pg if bg and pg else None,
            "of_floor": bg / floor if bg else None, "g1": g1, "g2": g2}


def mark(ok):
    return "—" if ok is None else ("met" if ok else "**missed**")


def header(bench, command):
    dev = bench["device"]
    lines = ["Measured %s on %s (%s SMs, driver %s, runtime %s), commit %s, by `%s`."
             % (bench["date"], dev["name"], dev["sms"], dev["cuda_driver"], dev["cuda_runtime"], bench["commit"],
                command),
             "%s keys x %d FP64 value(s) = %s updates; median of up to %d timed runs after warm-up (cells marked † "
             "had fewer than 5: a slow case is capped at %.2g s per run); timed: %s."
             % (f"{int(bench['n']):,}", bench["width"], f"{int(bench['updates']):,}", bench["reps"],
                bench["case_seconds"], bench["timed"]),
             "Memory floor: %g bytes per key read once at the copy bandwidth measured in the same run (%.0f GB/s, "
             "read + write) = **%.1f Gupd/s**." % (bench["bytes_per_key"], bench["copy_bandwidth_GBps"],
                                                   bench["floor_gupdates_per_s"]),
             "Every result is checked against an exact reference (tolerance: %s). ✗ = sums outside it; "
             "slow = skipped after the first run (its time shown) or predicted too slow from prefixes of the keys (~ the "
             "prediction); "
             "n/a = the method cannot serve the case." % bench["tolerance"]]
    if not bench.get("complete"):
        lines.append("**Partial run**: %s" % (("aborted in %s: %s" % (bench.get("aborted_in"), bench["aborted"]))
                                             if bench.get("aborted") else "the JSON was written before the end"))
    return "\n\n".join(lines)


def methods_table(bench, rows):
    methods = []
    for r in rows.values():
        methods += [m for m in r["mctally"] if m not in methods]
    out = ["| B | keys | " + " | ".join("`%s`" % m for m in methods) + " |", "|---" * (len(methods) + 2) + "|"]
    for key, r in rows.items():
        b, p = row_label(bench, key)
        out.append("| %s | %s | " % (b, p) + " | ".join(cell(r["mctally"].get(m)) for m in methods) + " |")
    return "\n".join(out)


def peer_names(rows):
    names = []
    for r in rows.values():
        names += [n for n in r["peers"] if n not in names and n != HISTOGRAM]
    return names


def compare_table(bench, rows):
    names = peer_names(rows)
    hist = any(HISTOGRAM in r["peers"] for r in rows.values())
    head = ["B", "keys", "best mctally"] + ["`%s`" % n for n in names] + \
           ["best / best peer", "best / floor"] + (["CUB histogram, counts (of its floor)"] if hist else []) + \
           ["G1 ≥ peer", "G2 ≥ %g" % GOAL_GUPD]
    out = ["| " + " | ".join(head) + " |", "|---" * len(head) + "|"]
    hist_floor = bench.get("histogram_floor_ms")
    for key, r in rows.items():
        s = summarise(bench, key, r)
        b, p = row_label(bench, key)
        best = "%.3g (`%s`)" % (s["bg"], s["best"]["name"]) if s["best"] else "—"
        cells = [b, p, best] + [cell(r["peers"].get(n)) for n in names]
        cells += ["%.2f× (vs `%s`)" % (s["ratio"], s["peer"]["name"]) if s["ratio"] else "—",
                  "%.0f%%" % (100 * s["of_floor"]) if s["of_floor"] else "—"]
        if hist:
            h = r["peers"].get(HISTOGRAM)
            if h and usable(h) and hist_floor:
                floor_gkeys = bench["n"] / (hist_floor * 1e-3) * 1e-9  # 4 bytes per key
                cells.append("%.3g Gkeys/s (%.0f%%)" % (h["gupdates_per_s"], 100 * h["gupdates_per_s"] / floor_gkeys))
            else:
                cells.append(cell(h))
        cells += [mark(s["g1"]), mark(s["g2"])]
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)


def anchors(bench, rows):
    if bench.get("width", 1) != 1:
        return ""
    out = ["Native FP64 atomics (`atomic`, uniform keys) against the anchors measured earlier on the H100 "
           "(floor then ~%d Gupd/s; compare only on the same device):\n" % ANCHOR_FLOOR,
           "| B | `atomic` now | anchor |", "|---|---|---|"]
    for bins, anchor in ANCHORS.items():
        c = rows.get((bins, "uniform"), {}).get("mctally", {}).get("atomic")
        out.append("| %s | %s | %g |" % (f"{bins:,}", cell(c), anchor))
    return "\n".join(out)


def westphal_pairs(bench, rows):
    out = ["| cells | keys | `wag` / `cas` | `wib` / `atomic` | `wag_match` / `atomic` |", "|---|---|---|---|---|"]

    def ratio(r, a, b):
        x, y = r["mctally"].get(a), r["mctally"].get(b)
        if x and y and usable(x) and usable(y):
            return "%.2f×" % (x["gupdates_per_s"] / y["gupdates_per_s"])
        return "—"

    for key, r in rows.items():
        b, p = row_label(bench, key)
        out.append("| %s | %s | %s | %s | %s |" % (b, p, ratio(r, "wag", "cas"), ratio(r, "wib", "atomic"),
                                                    ratio(r, "wag_match", "atomic")))
    return "\n".join(out)


def charts(bench, rows, png_dir, suite):
    """Two bar charts per suite; returns the Markdown lines that show them (or say why not)."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except Exception as e:
        return "Charts not written: matplotlib is not available (%s)." % e
    os.makedirs(png_dir, exist_ok=True)
    labels = ["%s\n%s" % row_label(bench, k) for k in rows]
    methods = []
    for r in rows.values():
        methods += [m for m in r["mctally"] if m not in methods]
    series = [(m, [r["mctally"].get(m) for r in rows.values()]) for m in methods]
    series += [(n, [r["peers"].get(n) for r in rows.values()]) for n in peer_names(rows)]
    files = []
    for name, data in (("all", series), ("best", None)):
        if data is None:
            summ = [summarise(bench, k, r) for k, r in rows.items()]
            data = [("best mctally", [s["best"] for s in summ]), ("best peer", [s["peer"] for s in summ]),
                    ("atomic (native)", [r["mctally"].get("atomic") for r in rows.values()])]
        fig, ax = plt.subplots(figsize=(max(8, 1.2 * len(labels) * (1 + len(data) / 8)), 5.5))
        width = 0.8 / len(data)
        for i, (sname, cs) in enumerate(data):
            xs = [x + i * width - 0.4 + width / 2 for x in range(len(labels))]
            ys = [c["gupdates_per_s"] if c and usable(c) else 0 for c in cs]
            ax.bar(xs, ys, width, label=sname)
            if name == "best":  # which method or peer each bar is
                for x, y, c in zip(xs, ys, cs):
                    if y > 0:
                        ax.annotate(c["name"], (x, y), ha="center", va="bottom", fontsize=7, rotation=90)
        ax.axhline(bench["floor_gupdates_per_s"], color="k", ls="--", lw=1, label="memory floor")
        ax.axhline(GOAL_GUPD, color="r", ls=":", lw=1, label="goal %g" % GOAL_GUPD)
        ax.set_yscale("log")
        tops = [c["gupdates_per_s"] for _, cs in data for c in cs if c and usable(c)]
        ax.set_ylim(top=8 * max(tops + [bench["floor_gupdates_per_s"]]))  # room for the labels
        ax.set_ylabel("Gupdates/s (FP64)")
        ax.set_xticks(range(len(labels)))
        ax.set_xticklabels(labels, fontsize=8)
        ax.set_title("%s on %s (%s)" % (suite, bench["device"]["name"], bench["date"][:10]))
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
        fig.tight_layout()
        path = os.path.join(png_dir, "bench_%s_%s.png" % (suite, name))
        fig.savefig(path, dpi=120)
        plt.close(fig)
        files.append(path)
    return "\n".join("![%s](%s)" % (os.path.basename(f), os.path.basename(f)) for f in files)


def suite_section(bench, torch_doc, png_dir, command):
    suite = bench["suite"]
    torch_cases = torch_doc.get("cases", []) if torch_doc and torch_doc.get("available") else []
    rows = rows_of(bench, torch_cases, suite)
    title = {"scatter": "Scatter sweep: bin[key] += value, FP64",
             "mpc": "MPC workload (Westphal): 9 FP64 components per particle"}.get(suite, suite)
    parts = ["# %s on %s" % (title, bench["device"]["name"]), header(bench, command)]
    if torch_doc is not None:
        parts.append("PyTorch peers: " + ("torch %s (CUDA %s) on %s, %s; same key patterns and value "
                                          "distribution, torch's own draws."
                                          % (torch_doc["torch"], torch_doc["cuda"], torch_doc["device"],
                                             torch_doc["date"]) if torch_doc.get("available")
                                          else "not measured: %s." % torch_doc.get("reason", "unknown")))
    parts += ["## Every mctally method, Gupdates/s", methods_table(bench, rows),
              "## Best method against the peers and the floor", compare_table(bench, rows)]
    a = anchors(bench, rows)
    if a:
        parts.append(a)
    if png_dir:
        parts += ["## Charts", charts(bench, rows, png_dir, suite)]
    if suite == "mpc":
        parts += [WESTPHAL, westphal_pairs(bench, rows)]
    return "\n\n".join(parts) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("bench", nargs="+")
    ap.add_argument("--torch")
    ap.add_argument("--png-dir")
    ap.add_argument("--command", default="mctally bench scatter / mpc")
    args = ap.parse_args()
    torch_doc = None
    if args.torch:
        try:
            torch_doc = load(args.torch)
        except (OSError, ValueError) as e:
            torch_doc = {"available": False, "reason": "%s unreadable (%s)" % (args.torch, e)}
    out = []
    for path in args.bench:
        try:
            bench = load(path)
        except (OSError, ValueError) as e:
            print("table.py: cannot read %s: %s" % (path, e), file=sys.stderr)
            return 1
        out.append(suite_section(bench, torch_doc, args.png_dir, args.command))
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
