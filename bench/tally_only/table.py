#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Turns a `mctally bench tally_only` JSON file into a Markdown table of T1
(Liu et al. 2018, test 1: Tables II and III) with the paper's published times
beside ours, and optionally a PNG bar chart of both (needs matplotlib; without
it the Markdown is still written and the chart is skipped with a note).
Usage: table.py RESULT.json [--command CMD] [--png CHART.png] > RESULT.md"""
import argparse
import json
import sys

# Liu et al. 2018, T1 in seconds: Table II (1e7 particles), Table III (3e9).
# (method, precision as published, GPU, seconds) by our (method, dtype).
LIU = {
    2: {
        ("cas", "f64"): [("CAS", "double", "K40", 83)],
        ("wag", "f64"): [("WAG", "double", "K40", 6.3), ("WAG", "double", "M6000", 13),
                         ("WAG", "double", "Titan X", 6.9)],
        ("kahan", "f32"): [("KAS", "single", "K40", 6.3)],
        ("atomic", "f64"): [("HB", "double", "Titan X", 0.07), ("HB", "double", "V100", 0.035)],
    },
    3: {
        ("atomic", "f64"): [("HB", "double", "V100", 10)],
        ("wib", "f64"): [("WIB", "double", "V100", 2.7)],
    },
}
TITLES = {2: "Table II: 1e7 particles", 3: "Table III: 3e9 particles"}


def fmt_s(ms):
    s = ms * 1e-3
    return f"{s:.3g}" if s >= 1e-3 else f"{s:.2e}"


def cell(c):
    """Our time and rate for one case, or why there is none."""
    if c is None:
        return "—", "—"
    if "skipped" in c:
        proj = f", ~{c['projected_s']:.0f} s" if "projected_s" in c else ""
        return f"skipped ({c['skipped']}{proj})", "—"
    if "error" in c:
        return f"error: {c['error']}", "—"
    mark = "" if c["ok"] else " ✗"
    once = " (1 run)" if c.get("reps_done", 0) == 1 else ""
    return f"{fmt_s(c['median_ms'])}{once}{mark}", f"{c['updates_per_second']:.3g}"


def published(table, key):
    return "; ".join(f"{t} s {m} {gpu}" for m, _, gpu, t in LIU.get(table, {}).get(key, [])) or "—"


def rel_err(c):
    if not c or "relative_error" not in c:
        return "—"
    if c["method"] == "fixed" and c["dtype"] == "f64":
        return f"reference (z = {c['z_score']:.2f})" if "z_score" in c else "reference"
    return f"{c['relative_error']:.2e} (bound {c['bound_rel']:.1e})"


def table_rows(data, table):
    cases = {(c["launch"], c["method"], c["dtype"]): c for c in data["cases"] if c["table"] == table}
    keys = []
    for c in data["cases"]:
        k = (c["method"], c["dtype"])
        if c["table"] == table and k not in keys:
            keys.append(k)
    return cases, keys


def print_table(data, table):
    cases, keys = table_rows(data, table)
    if not keys:
        return
    n = next(c["particles"] for c in data["cases"] if c["table"] == table)
    print(f"\n## {TITLES[table]} ({int(n):,} particles here)\n")
    print("| Method | Type | paper: s | paper: updates/s | full: s | full: updates/s | total vs fixed f64 (paper) "
          "| Liu 2018 T1 |")
    print("|---|---|---|---|---|---|---|---|")
    floors = {f["launch"]: f for f in data.get("floors", []) if f["table"] == table}
    if floors:
        cells = []
        for launch in ("paper", "full"):
            f = floors.get(launch)
            cells += [fmt_s(f["median_ms"]), f"{f['updates_per_second']:.3g}"] if f else ["—", "—"]
        print("| *random numbers only (floor)* | f64 | " + " | ".join(cells) + " | — | — |")
    for method, dtype in keys:
        paper, full = cases.get(("paper", method, dtype)), cases.get(("full", method, dtype))
        ps, pr = cell(paper)
        fs, fr = cell(full)
        print(f"| {method} | {dtype} | {ps} | {pr} | {fs} | {fr} | {rel_err(paper)} | "
              f"{published(table, (method, dtype))} |")


def print_published():
    print("\n## Liu 2018's published T1 (context)\n")
    print("| Table | Tally method | Precision | GPU | T1 [s] | our counterpart |")
    print("|---|---|---|---|---|---|")
    for table, rows in LIU.items():
        for (method, dtype), entries in rows.items():
            for m, prec, gpu, t in entries:
                print(f"| {'II' if table == 2 else 'III'} | {m} | {prec} | {gpu} | {t} | `{method}` {dtype} |")


def chart(data, path):
    """Bar chart of T1 in seconds (log scale): ours (paper launch) and Liu's."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print(f"table.py: matplotlib is not installed; {path} not written", file=sys.stderr)
        return False
    tables = [t for t in (2, 3) if any(c["table"] == t for c in data["cases"])]
    fig, axes = plt.subplots(1, len(tables), figsize=(7 * len(tables), 6), squeeze=False)
    dev = data["device"]["name"]
    for ax, table in zip(axes[0], tables):
        labels, values, colours = [], [], []
        for c in data["cases"]:
            if c["table"] == table and c["launch"] == "paper" and "median_ms" in c:
                labels.append(f"{c['method']} {c['dtype']}")
                values.append(c["median_ms"] * 1e-3)
                colours.append("tab:blue")
        for (method, dtype), entries in LIU[table].items():
            for m, _, gpu, t in entries:
                labels.append(f"Liu: {m} {gpu}")
                values.append(t)
                colours.append("tab:orange")
        ax.barh(range(len(values)), values, color=colours)
        ax.set_yticks(range(len(values)))
        ax.set_yticklabels(labels, fontsize=8)
        ax.invert_yaxis()
        ax.set_xscale("log")
        ax.set_xlabel("T1 [s] (log scale)")
        ax.set_title(f"{TITLES[table]}: {dev} (blue, paper launch) vs Liu 2018 (orange)", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("result")
    ap.add_argument("--command", default="mctally bench tally_only")
    ap.add_argument("--png", help="also draw a bar chart here (needs matplotlib)")
    args = ap.parse_args()
    data = json.load(open(args.result))
    dev = data["device"]
    print(f"# Tally-only test (Liu 2018, test 1) on {dev['name']}\n")
    print(f"Measured {data['date']} on {dev['name']} ({dev['sms']} SMs, driver {dev['cuda_driver']}, runtime "
          f"{dev['cuda_runtime']}), commit {data['commit']}, by `{args.command}`. Each particle makes "
          f"{data['collisions']} collisions depositing an exponential energy of mean {data['mean_energy_MeV']:g} MeV "
          f"into one of {data['bins']} bins. `paper` = {data['paper_blocks']} blocks x {data['paper_threads']} "
          f"threads with a grid-stride loop, as published; `full` = {data['full_blocks']} blocks x "
          f"{data['full_threads']} threads. Times: CUDA events around the kernel (plus the replica reduction or the "
          f"sort-and-sum passes), median of {data['reps']} runs after a warm-up (cases marked \"1 run\" took longer "
          "than the per-case limit and were timed once). FP64 unless the type says f32. The floor is the same "
          "kernel with the deposits summed in a register and discarded. The last column is Liu's published T1 "
          "(K40 = Kepler, M6000 = Maxwell, Titan X = Pascal, V100 = Volta). ✗ marks a total outside its error "
          "bound.\n")
    for table in (2, 3):
        print_table(data, table)
    print_published()
    print(f"\nFailures: {data.get('failures', 0)}.")
    if args.png and chart(data, args.png):
        print(f"\n![T1 bar chart]({args.png.rsplit('/', 1)[-1]})")


if __name__ == "__main__":
    main()
