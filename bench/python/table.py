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
    head = ["B", "keys"] + [f"mctally {k}" for k in ours] + peers + ["best mctally / best peer",
                                                                     "best mctally / index_add_, int32 keys",
                                                                     "int64 keys",
                                                                     "deterministic / index_add_ deterministic ("
                                                                     + ", ".join(k for k in ours if k.startswith("deterministic"))
                                                                     + ")"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for c in doc["cases"]:
        row = [f"{c['bins']:g}", c["pattern"]]
        row += [f"{c['mctally'][k]['gupdates_per_s']:.3g}" if k in c["mctally"] else "–" for k in ours]
        row += [f"{c['peers'][k]['gupdates_per_s']:.3g}" + ("†" if c["peers"][k].get("slow") else "")
                if k in c["peers"] else "–" for k in peers]
        best_ours = max(e["gupdates_per_s"] for e in c["mctally"].values())
        best_peer = max(e["gupdates_per_s"] for e in c["peers"].values())
        row.append(f"{best_ours / best_peer:.2f}×")
        ia = c["peers"].get("index_add_", {}).get("gupdates_per_s")
        for wide in (False, True):
            got = [e["gupdates_per_s"] for k, e in c["mctally"].items()
                   if k.endswith("_int64") == wide and not k.startswith("deterministic")]
            row.append(f"{max(got) / ia:.2f}×" if ia and got else "–")
        iad = c["peers"].get("index_add_deterministic", {}).get("gupdates_per_s")
        det = [f"{e['gupdates_per_s'] / iad:.3g}×" for k, e in sorted(c["mctally"].items())
               if iad and k.startswith("deterministic")]
        row.append(" / ".join(det) if det else "–")
        print("| " + " | ".join(row) + " |")
    auto = [f"{c['bins']:g} {c['pattern']}: {c['mctally']['auto']['method']}" for c in doc["cases"]
            if c["mctally"].get("auto", {}).get("method")]
    print("\nGupdates/s; † one timed call (slower than the run's --slow-s)." +
          (f" `auto` ran: {'; '.join(auto)}." if auto else ""))
    reps = doc.get("overhead_reps", doc["reps"])
    print(f"\nPer-call time at small n, 64 bins, method atomic (µs, median of {reps}; wall clock, and on the GPU "
          "a wait for the device): the Python calls, the extension calls each makes (timed in alternation with it), "
          "the same calls made from C (bench_c_calls), and a peer:\n")
    print("| n | scatter_add | scatter_add, cache off | Tally add + end_batch | Tally add | "
          "ext: add + take_sums | ext: add + end_batch | ext: add | "
          "C: add + take_sums | C: add + end_batch | C: add | index_add_ |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")

    def us(r, k):
        return "–" if r.get(k) is None else f"{r[k] * 1e6:.1f}"

    cells = ["scatter_add_s", "scatter_add_uncached_s", "tally_add_end_batch_s", "tally_add_s", "ext_scatter_add_s",
             "ext_add_end_batch_s", "ext_add_s", "c_scatter_add_s", "c_add_end_batch_s", "c_add_s", "index_add_s"]
    for r in doc["overhead"]:
        print(f"| {r['n']} | " + " | ".join(us(r, k) for k in cells) + " |")
    rows = [r for r in doc["overhead"] if "layer" in r or "c_add_s" in r]
    if rows:
        print("\nThe Python layer's own time per call: the median, over the rounds, of the Python call's time less "
              "its extension calls' (µs):\n")
        print("| n | scatter_add (cached) | Tally add | Tally add + end_batch | "
              "scatter_add less C's | Tally add less C's |")
        print("|---|---|---|---|---|---|")

        def less(r, py, c):
            return "–" if r.get(c) is None else f"{(r[py] - r[c]) * 1e6:.1f}"

        for r in rows:
            la = r.get("layer", {})
            print(f"| {r['n']} | {us(la, 'scatter_add_s')} | {us(la, 'tally_add_s')} | {us(la, 'tally_add_end_batch_s')} | "
                  f"{less(r, 'scatter_add_s', 'c_scatter_add_s')} | {less(r, 'tally_add_s', 'c_add_s')} |")
        print("\nThe last two columns: the Python call's median less the same C calls' made from C, which also "
              "counts the binding (the extension's argument handling) and differs in the timer's own cost.")
    missing = sorted({r["c_error"] for r in doc["overhead"] if "c_error" in r})
    if missing:
        print(f"\nNo C timing: {'; '.join(missing)}.")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
