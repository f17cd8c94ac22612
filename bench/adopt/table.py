#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The adopt stage's table (scripts/gpu_suite.sh, stage adopt): the
photon-migration example's JSON lines (one per repetition) into a summary JSON
and a Markdown table. Speed is photons per second of the best repetition; the
ratio is against the example's own float-atomicAdd version on the same grid.
Rows are per method, form (`typed`: the method's own kernel instance,
mct_add<T, M>; `runtime`: the one-line port, mct_add(view, ...)) and grid. The
acceptances, per grid, for the typed form:
f64 atomic and fixed within 5 % of the float version's speed, fixed bitwise
the same from run to run with at least 1e9 adds into the hottest voxel (the
adds counted by the example's `count` run, per photon, times the photons).

usage: table.py RUNS.jsonl --json OUT.json [--commit C] [--command CMD] > OUT.md
"""
import argparse
import json
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("runs")
    ap.add_argument("--json", required=True)
    ap.add_argument("--commit", default="unknown")
    ap.add_argument("--command", default="scripts/gpu_suite.sh (stage adopt)")
    ap.add_argument("--gpu", default="")
    a = ap.parse_args()
    runs = [json.loads(l) for l in open(a.runs) if l.strip().startswith("{")]
    groups = {}
    for r in runs:
        groups.setdefault((r["method"], r.get("form", "runtime"), r.get("grid", 40), r["photons"]), []).append(r)
    rows = []
    for (method, form, grid, photons), rs in groups.items():
        best = min(r["seconds"] for r in rs)
        rows.append({
            "method": method, "form": form, "grid": grid, "photons": photons, "repetitions": len(rs), "best_seconds": best,
            "photons_per_s": photons / best if best > 0 else 0.0, "hottest": rs[0]["hottest"],
            "hottest_bin": rs[0]["hottest_bin"], "balance": rs[0]["balance"],
            "bitwise_repeat": len({r["hash"] for r in rs}) == 1 if len(rs) > 1 else None,
        })
    def rate(method, grid, form=None):
        cands = [r for r in rows if r["method"] == method and r["grid"] == grid and form in (None, r["form"])]
        return max((r["photons_per_s"] for r in cands), default=0.0)
    for r in rows:
        ref = rate("float_atomic", r["grid"])
        r["speed_vs_float_atomic"] = r["photons_per_s"] / ref if ref > 0 else None
    count = [r for r in rows if r["method"] == "count"]
    adds_per_photon = count[0]["hottest"] / count[0]["photons"] if count else None
    fixed_big = [r for r in rows if r["method"] == "fixed" and r["repetitions"] > 1]
    fixed_big.sort(key=lambda r: -r["photons"])
    acc = {}
    for grid in sorted({r["grid"] for r in rows if r["method"] == "float_atomic"}):
        ref = rate("float_atomic", grid)
        for m in ("atomic", "fixed"):
            got = rate(m, grid, "typed")
            acc[f"{m}_typed_within_5pct_grid{grid}"] = got >= 0.95 * ref if ref > 0 and got > 0 else None
    acc.update({
        "fixed_hottest_adds": (adds_per_photon * fixed_big[0]["photons"]) if fixed_big and adds_per_photon else None,
        "fixed_bitwise": fixed_big[0]["bitwise_repeat"] if fixed_big else None,
    })
    acc["fixed_bitwise_at_1e9_adds"] = bool(acc["fixed_bitwise"]) and (acc["fixed_hottest_adds"] or 0) >= 1e9
    out = {"commit": a.commit, "command": a.command, "gpu": a.gpu, "rows": rows,
           "hottest_adds_per_photon": adds_per_photon, "acceptance": acc}
    json.dump(out, open(a.json, "w"), indent=2)
    print(f"# Photon migration example: mct_add against its own float atomicAdd\n")
    print(f"GPU {a.gpu}, commit {a.commit}, `{a.command}`. Best of the repetitions; "
          f"the hottest voxel takes {adds_per_photon or float('nan'):.3f} adds per photon.\n")
    print("| grid | method | form | photons | best s | photons/s | vs float_atomic | hottest voxel | balance | bitwise repeat |")
    print("|---:|---|---|---:|---:|---:|---:|---:|---:|---|")
    for r in sorted(rows, key=lambda r: (r["grid"], r["method"], r["form"], r["photons"])):
        ratio = f"{r['speed_vs_float_atomic']:.3f}" if r["speed_vs_float_atomic"] else "-"
        bw = {None: "-", True: "yes", False: "NO"}[r["bitwise_repeat"]]
        print(f"| {r['grid']} | {r['method']} | {r['form']} | {r['photons']:.3g} | {r['best_seconds']:.3f} | {r['photons_per_s']:.4g} | {ratio} | "
              f"{r['hottest']:.10g} | {r['balance']:.2e} | {bw} |")
    print("\nAcceptance: " + ", ".join(f"{k} = {v}" for k, v in acc.items()))


if __name__ == "__main__":
    sys.exit(main())
