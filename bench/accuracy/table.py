#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Turns a `mctally bench accuracy` JSON file into a Markdown summary (relative
error and time of each method's adds, per number of additions, for one hot bin
and for 8 bins) and a log-log PNG plot of the relative error of the total
against the number of additions (one line per method, hot bin solid, 8 bins
dashed, Liu 2018's Table IV as reference markers). The Markdown is written
whether or not matplotlib is installed; the plot only where it is.
Usage: table.py RESULT.json [COMMAND] [--plot FILE.png] > RESULT.md
(the plot goes beside RESULT.json, as .png, unless --plot says where)."""
import json
import os
import sys

# Liu et al. 2018, Table IV: K40, test 3 (20 MeV electrons, 10^3 voxels), FP32
# transport; discrepancy of the total dose against the FP64 engine.
LIU_HISTORIES = [4e6, 8e6, 1.6e7, 3.2e7, 6.4e7]
LIU_FP32 = [-0.19e-2, -0.88e-2, -3.86e-2, -11.17e-2, -25.47e-2]
LIU_KAS = [-3.58e-7, 1.67e-7, -1.98e-7, -1.40e-7, -9.73e-8]
LIU_NOTE = ("Liu 2018 Table IV (K40): total dose of a transport run against FP64, "
            "x = histories, each making many additions; not this synthetic test")

SETTINGS = [(1, "One hot bin"), (8, "8 bins, uniform keys")]


def method_labels(data):
    labels = []
    for case in data["cases"]:
        for m in case["methods"]:
            if m["label"] not in labels:
                labels.append(m["label"])
    return labels


def cases_of(data, bins):
    return sorted((c for c in data["cases"] if c["bins"] == bins), key=lambda c: c["n"])


def find(case, label):
    return next((m for m in case["methods"] if m["label"] == label), None)


def error_cell(m, bins, floor):
    if m is None:
        return "—"
    if m["status"] != "measured":
        return m["status"]
    if m.get("rel_err_total") is None or m.get("max_bin_rel_err") is None:  # NaN in the JSON
        return "NaN ✗"
    if m.get("at_floor"):
        text = f"≤ {floor:.0e} (floor)"
    else:
        text = f"{m['rel_err_total']:+.2e}"
        if bins > 1:
            text += f" (bin {m['max_bin_rel_err']:.1e})"
    return text + ("" if m.get("within_bound", True) else " ✗")


def time_cell(m):
    if m is None:
        return "—"
    if m["status"] != "measured":
        return m["status"]
    return f"{m['median_ms']:.3g} ms ({m['ns_per_add']:.2g} ns)"


def markdown(data, command, plot_note):
    dev = data["device"]
    labels = method_labels(data)
    out = [f"# Accuracy of float tallies as additions grow, on {dev['name']}\n",
           f"Measured {data['date']} on {dev['name']} ({dev['sms']} SMs, driver {dev['cuda_driver']}, "
           f"runtime {dev['cuda_runtime']}), commit {data['commit']}, by `{command}`.\n",
           f"Inputs: {data['values']}, seed {data['seed']}; keys all 0 (one hot bin) or uniform on 8 bins. "
           "Every method adds the same values through `mct_tally_add_device`, in chunks of "
           f"{data['chunk']:.0e}. Reference: each bin's double-double sum, formed on the GPU in the same "
           "pass by a deterministic kernel; its relative error bound is given per case, and an error "
           "below 1000 times it is shown as the floor. `fixed` uses "
           f"{data['fixed_frac_bits']} fraction bits (no bin can reach 2^63). Errors: relative error of "
           "the total (for 8 bins, the largest per-bin relative error in parentheses), the worst of the "
           "repetitions; ✗ marks a result outside its derived bound (f64 atomic, kahan) or a fixed sum "
           "that differs from the exact sum of the quantized values. Times: the adds alone (CUDA events "
           f"around each call, summed over the chunks), median of up to {data['reps']} repetitions (one "
           "for passes over 2 s), with ns per addition. `skipped`: predicted over the time cap "
           f"({data['cap_s']:.0f} s a pass) or the run's budget ({data['budget_s']:.0f} s).\n"]
    for bins, title in SETTINGS:
        cases = cases_of(data, bins)
        if not cases:
            continue
        head = "| additions | " + " | ".join(labels) + " |\n|---" + "|---" * len(labels) + "|"
        out.append(f"## {title}: relative error\n\n{head}")
        for c in cases:
            row = [error_cell(find(c, lab), bins, c["floor"]) for lab in labels]
            out.append(f"| {c['n']:.0e} | " + " | ".join(row) + " |")
        out.append(f"\n## {title}: time of the adds\n\n{head}")
        for c in cases:
            out.append(f"| {c['n']:.0e} | " + " | ".join(time_cell(find(c, lab)) for lab in labels) + " |")
        out.append("")
    notes = sorted({f"{m['label']}, {c['n']:.0e} additions, {c['bins']} bin(s): {m['status']}, {m['reason']}"
                    for c in data["cases"] for m in c["methods"] if m.get("reason")})
    if notes:
        out.append("Not measured, or failed:\n")
        out += [f"- {n}" for n in notes]
        out.append("")
    out.append("## Context: Liu 2018, Table IV\n")
    out.append("K40, test 3 (20 MeV electrons on a 10³-voxel water phantom), FP32 transport; the discrepancy "
               "of the total dose against the FP64 engine. These are totals of a transport run (each history "
               "makes many additions, unevenly spread over the voxels), not this synthetic test.\n")
    out.append("| histories | FP32 atomic | KAS |\n|---|---|---|")
    for h, f, k in zip(LIU_HISTORIES, LIU_FP32, LIU_KAS):
        out.append(f"| {h:.1e} | {f:+.2e} | {k:+.2e} |")
    out.append(f"\nFailures (results outside their bounds, failed calls): {data.get('failures', '?')}. {plot_note}")
    return "\n".join(out) + "\n"


def plot(data, path):
    """Writes the PNG; returns a note for the Markdown."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "No plot: matplotlib is not installed where this table was made."
    fig, ax = plt.subplots(figsize=(10.5, 5.8))
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, label in enumerate(method_labels(data)):
        for bins, style in ((1, "-"), (8, "--")):
            xs, ys, floor_x, floor_y = [], [], [], []
            for c in cases_of(data, bins):
                m = find(c, label)
                if not m or m["status"] != "measured" or m.get("rel_err_total") is None:
                    continue
                err = abs(m["rel_err_total"])
                if m.get("at_floor") or err < c["floor"]:  # drawn at the floor, not joined to the line
                    floor_x.append(c["n"])
                    floor_y.append(c["floor"])
                else:
                    xs.append(c["n"])
                    ys.append(err)
            color = colors[i % len(colors)]
            if xs:
                ax.plot(xs, ys, style, marker="o", color=color,
                        label=f"{label}, {'one hot bin' if bins == 1 else '8 bins'}")
            if floor_x:
                ax.plot(floor_x, floor_y, "o", mfc="white", color=color)
    ax.plot(LIU_HISTORIES, [abs(v) for v in LIU_FP32], "kx", ms=9, label="Liu 2018 Table IV, FP32 atomic")
    ax.plot(LIU_HISTORIES, [abs(v) for v in LIU_KAS], "k+", ms=11, label="Liu 2018 Table IV, KAS")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("number of additions (Liu's markers: histories)")
    ax.set_ylabel("|relative error of the total|")
    ax.set_title(f"Tally rounding vs additions, {data['device']['name']}\n"
                 "solid: one hot bin, dashed: 8 bins; open markers: at or below the reference's floor",
                 fontsize=10)
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), handlelength=3)
    fig.text(0.01, 0.01, LIU_NOTE, fontsize=6.5)
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    fig.savefig(path, dpi=130)
    plt.close(fig)
    return f"Plot: `{os.path.basename(path)}`."


def main(argv):
    args, plot_path = [], None
    i = 0
    while i < len(argv):
        if argv[i] == "--plot" and i + 1 < len(argv):
            plot_path, i = argv[i + 1], i + 2
        elif argv[i].startswith("-"):
            sys.exit(f"table.py: unknown option {argv[i]}\n{__doc__}")
        else:
            args, i = args + [argv[i]], i + 1
    if not args:
        sys.exit(__doc__)
    with open(args[0]) as f:
        data = json.load(f)
    command = args[1] if len(args) > 1 else "mctally bench accuracy"
    plot_path = plot_path or os.path.splitext(args[0])[0] + ".png"
    try:
        note = plot(data, plot_path)
    except OSError as e:
        note = f"No plot: cannot write {plot_path} ({e.strerror})."
    if note.startswith("No plot"):
        print(f"table.py: {note}", file=sys.stderr)
    sys.stdout.write(markdown(data, command, note))


if __name__ == "__main__":
    main(sys.argv[1:])
