#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Turns a `mctally bench escape` JSON file into a Markdown table laid out like
Bossler 2018's Table V (P100), with the published P100 figures beside ours.
Usage: table.py RESULT.json [COMMAND] > RESULT.md"""
import json
import sys

METHODS = ["atomic", "shared", "warp_reduce", "block_reduce", "replicated"]
HEADS = ["Global atomics", "Shared atomics", "Warp shuffle", "Block reduction", "No atomics"]
TYPES = [("i32", "INTEGER TYPE (32-bit)"), ("u64", "UNSIGNED INTEGER TYPE (64-bit)"),
         ("f32", "FLOATING-POINT TYPE (32-bit)"), ("f64", "FLOATING-POINT TYPE (64-bit)")]
# Bossler 2018, Table V: Tesla P100, 1e8 histories, block size 128, ms.
P100 = {
    "i32": [[2.67, 1.31, 2.68, 3.59, 1.50], [2.69, 1.31, 2.68, 3.59, 1.50], [1.31, 1.31, 2.23, 3.54, 1.50]],
    "u64": [[77.0, 92.6, 2.68, 3.92, 2.27], [40.1, 25.3, 2.68, 3.92, 2.27], [1.31, 1.31, 2.40, 3.90, 2.27]],
    "f32": [[222, 88.2, 7.28, 3.56, 1.50], [117, 24.0, 7.28, 3.56, 1.50], [1.31, 1.31, 2.23, 3.55, 1.50]],
    "f64": [[221, 92.3, 7.28, 3.87, 2.27], [116, 25.4, 7.28, 3.87, 2.27], [1.31, 1.31, 2.40, 3.85, 2.27]],
}


def main():
    data = json.load(open(sys.argv[1]))
    command = sys.argv[2] if len(sys.argv) > 2 else "mctally bench escape"
    cases = {(c["scenario"], c["launch"], c["dtype"], c["method"]): c
             for c in data["cases"] if "method" in c}
    peers = {c["scenario"]: c for c in data["cases"] if "peer" in c}
    dev = data["device"]
    print(f"# Escape tally (Bossler 2018, Table V) on {dev['name']}\n")
    print(f"Measured {data['date']} on {dev['name']} ({dev['sms']} SMs, driver {dev['cuda_driver']}, "
          f"runtime {dev['cuda_runtime']}), commit {data['commit']}, by `{command}`. "
          f"{int(data['histories']):,} histories, median of {data['reps']} runs after warm-up, "
          "CUDA events around the tally kernel only (plus the replica reduction for `replicated`).\n")
    print(f"Memory floor: one read of the int32 event flags at the measured device copy bandwidth "
          f"({data['copy_bandwidth_GBps']:.0f} GB/s, read + write) = **{data['floor_ms']:.4f} ms**. "
          "Cells: ours in ms (× floor) / the paper's P100 in ms. `paper` = one history per thread, "
          "128 threads per block, as published; `full` = a grid that fills the GPU once, grid-stride loop. "
          "f32 cells marked † are not exact: f32 cannot count past 2^24 by ones (the paper's FP32 loss).\n")
    for launch in ("paper", "full"):
        print(f"\n## Launch: {launch}\n")
        print("| Scenario | " + " | ".join(HEADS) + " | CUB DeviceReduce |")
        print("|---" * (len(HEADS) + 2) + "|")
        for dtype, title in TYPES:
            print(f"| **{title}** |" + " |" * (len(HEADS) + 1))
            for s in (1, 2, 3):
                cells = []
                for i, m in enumerate(METHODS):
                    c = cases.get((s, launch, dtype, m))
                    if not c:
                        cells.append("—")
                        continue
                    mark = "" if c["exact"] else " †"
                    cells.append(f"{c['median_ms']:.3f} ({c['over_floor']:.2f}×){mark} / {P100[dtype][s - 1][i]}")
                peer = peers.get(s)
                cells.append(f"{peer['median_ms']:.3f}" if peer else "—")
                print(f"| {s} | " + " | ".join(cells) + " |")
    print("\n## Best method per type (full launch) against the floor\n")
    print("| Type | Scenario | Best method | ms | × floor |")
    print("|---|---|---|---|---|")
    for dtype, _ in TYPES:
        for s in (1, 2, 3):
            best = min((cases[(s, "full", dtype, m)] for m in METHODS if (s, "full", dtype, m) in cases),
                       key=lambda c: c["median_ms"])
            print(f"| {dtype} | {s} | {best['method']} | {best['median_ms']:.4f} | {best['over_floor']:.2f} |")


if __name__ == "__main__":
    main()
