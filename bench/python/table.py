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
    auto = [f"{c['bins']:g} {c['pattern']}: {c['mctally']['auto']['method']}" for c in doc["cases"]
            if c["mctally"].get("auto", {}).get("method")]
    print("\nGupdates/s." + (f" `auto` ran: {'; '.join(auto)}." if auto else "") + " Per-call overhead (µs, median):\n")
    print("| n | scatter_add | scatter_add, cache off | Tally add + end_batch | Tally add | C call (accumulate) | index_add_ |")
    print("|---|---|---|---|---|---|---|")

    def us(r, k):
        return "–" if r.get(k) is None else f"{r[k] * 1e6:.1f}"

    for r in doc["overhead"]:
        print(f"| {r['n']} | {us(r, 'scatter_add_s')} | {us(r, 'scatter_add_uncached_s')} | "
              f"{us(r, 'tally_add_end_batch_s')} | {us(r, 'tally_add_s')} | {us(r, 'c_accumulate_call_s')} | "
              f"{us(r, 'index_add_s')} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
