#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Markdown tables of bench_scatter_add.py's JSON: Gupdates/s per case for
mctally.scatter_add and its PyTorch/CuPy peers, and the per-call overhead at
small n. usage: table.py FILE.json"""
import json
import sys


def main(path):
    doc = json.load(open(path))
    if "skipped" in doc:
        print(f"Not measured: {doc['skipped']}.")
        return 0
    print(f"# mctally.scatter_add beside {'PyTorch' if doc['torch'][0].isdigit() else 'NumPy'}, {doc['device']} (torch {doc['torch']}, mctally {doc['mctally']}, "
          f"commit {doc['commit']}), n = {doc['n']:.3g}, median of {doc['reps']}\n")
    peers = sorted({k for c in doc["cases"] for k in c["peers"]})
    ours = sorted({k for c in doc["cases"] for k in c["mctally"]})
    head = ["B", "keys"] + [f"mctally {k}" for k in ours] + peers + ["best mctally / best peer"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for c in doc["cases"]:
        row = [f"{c['bins']:g}", c["pattern"]]
        row += [f"{c['mctally'][k]['gupdates_per_s']:.3g}" if k in c["mctally"] else "–" for k in ours]
        row += [f"{c['peers'][k]['gupdates_per_s']:.3g}" if k in c["peers"] else "–" for k in peers]
        best_ours = max(e["gupdates_per_s"] for e in c["mctally"].values())
        best_peer = max(e["gupdates_per_s"] for e in c["peers"].values())
        row.append(f"{best_ours / best_peer:.2f}×")
        print("| " + " | ".join(row) + " |")
    print("\nGupdates/s. Per-call overhead (µs, median):\n")
    print("| n | scatter_add | Tally add + end_batch | Tally add | C call (accumulate) | index_add_ |")
    print("|---|---|---|---|---|---|")
    for r in doc["overhead"]:
        c = r.get("c_accumulate_call_s")
        print(f"| {r['n']} | {r['scatter_add_s'] * 1e6:.1f} | {r['tally_add_end_batch_s'] * 1e6:.1f} | "
              f"{r['tally_add_s'] * 1e6:.1f} | {'–' if c is None else f'{c * 1e6:.1f}'} | {r['index_add_s'] * 1e6:.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
