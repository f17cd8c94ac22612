#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Turns a `mctally bench scan` JSON file into a short Markdown summary: for each
type and scan kind, GB/s (bytes read + written) of mctally's decoupled look-back and
chained scans beside CUB DeviceScan, with the ratios to CUB and to the copy
bandwidth; the goal line at 2^28 i32 inclusive; and the tuning sweep (with each entry's
tile-state layout; "old default" marks the reference policy without the packed
16-byte tile state). Files whose sweep also varied the data path and the tile order
show those in the note column where they differ from warp transpose / counter.
Usage: table.py RESULT.json [COMMAND] > RESULT.md"""
import json
import sys

IMPLS = [("mct_decoupled_lookback", "mctally look-back"), ("mct_chained", "mctally chained (seed)"),
         ("cub", "CUB DeviceScan")]


def main():
    data = json.load(open(sys.argv[1]))
    command = sys.argv[2] if len(sys.argv) > 2 else "mctally bench scan"
    dev = data["device"]
    copy = data["copy_bandwidth_GBps"]
    pol = data.get("default_policy", {})
    cases = {(c["type"], c["kind"], int(c["n"]), c["impl"]): c for c in data["cases"]}
    print(f"# Device-wide prefix scan on {dev['name']}\n")
    print(f"Measured {data['date']} on {dev['name']} ({dev['sms']} SMs, driver {dev['cuda_driver']}, "
          f"runtime {dev['cuda_runtime']}, CUB {dev.get('cub_version', '?')}), commit {data['commit']}, "
          f"by `{command}`. Median of {data['reps']} runs after {data['warmup']} warm-up runs, CUDA events "
          "around the scan call (temp storage allocated beforehand), outputs poisoned before each run and "
          "checked against CUB's (i32 exact, f64 within the derived bound). GB/s counts bytes read + "
          f"written (2 n sizeof(T)). Copy bandwidth (cudaMemcpy device to device, read + write): "
          f"**{copy:.0f} GB/s**, the floor. Default policy: {pol.get('threads_4b')}x{pol.get('items_4b')} "
          f"(4-byte), {pol.get('threads_8b')}x{pol.get('items_8b')} (8-byte), tile state "
          f"{pol.get('state', '—')}, look-back delays {pol.get('first_poll_ns')}/{pol.get('poll_ns')} ns.\n")
    goal = cases.get(("i32", "inclusive", 1 << 28, "mct_decoupled_lookback"))
    cub = cases.get(("i32", "inclusive", 1 << 28, "cub"))
    if goal and cub:
        verdict = "met" if goal["ratio_cub"] >= 1.0 else "not met"
        moon = "met" if goal["ratio_copy"] >= 0.9 else "not met"
        print(f"**Goal (2^28 i32 inclusive): {goal['GBps']:.0f} GB/s = {goal['ratio_cub']:.3f}x CUB "
              f"({cub['GBps']:.0f} GB/s), {100 * goal['ratio_copy']:.1f}% of copy** — goal >= 1.0x CUB "
              f"{verdict}; moonshot >= 90% of copy {moon}.\n")
    for typ in sorted({k[0] for k in cases}, key=lambda t: (t != "i32", t)):
        for kind in ("inclusive", "exclusive"):
            sizes = sorted({k[2] for k in cases if k[0] == typ and k[1] == kind})
            if not sizes:
                continue
            print(f"\n## {typ} {kind}\n")
            print("| n | " + " | ".join(f"{name} GB/s" for _, name in IMPLS) +
                  " | look-back / CUB | look-back / copy | chained / CUB |")
            print("|---" * (len(IMPLS) + 4) + "|")
            for n in sizes:
                row = [f"2^{n.bit_length() - 1}"]
                for impl, _ in IMPLS:
                    c = cases.get((typ, kind, n, impl))
                    row.append("—" if not c else f"{c['GBps']:.0f}" + ("" if c.get("verified", True) else " ✗"))
                lb = cases.get((typ, kind, n, "mct_decoupled_lookback"))
                ch = cases.get((typ, kind, n, "mct_chained"))
                row.append(f"{lb['ratio_cub']:.3f}" if lb else "—")
                row.append(f"{100 * lb['ratio_copy']:.1f}%" if lb else "—")
                row.append(f"{ch['ratio_cub']:.3f}" if ch else "—")
                print("| " + " | ".join(row) + " |")
    if data.get("tuning"):
        print("\n## Tuning sweep (inclusive, decoupled look-back)\n")
        print("| type | n | threads x items | tile state | delays first/poll ns | "
              "note | ms | GB/s | / CUB | / copy |")
        print("|---" * 10 + "|")
        for c in sorted(data["tuning"], key=lambda c: (c["type"], -c["GBps"])):
            mark = "" if c.get("verified", True) else " ✗"
            note = [c.get("tag", "")]
            note += [c["io"]] if c.get("io", "transpose") != "transpose" else []
            note += [c["tile_order"]] if c.get("tile_order", "counter") != "counter" else []
            print(f"| {c['type']} | 2^{int(c['n']).bit_length() - 1} | {c['threads']}x{c['items']} | "
                  f"{c.get('state', '—')} | {c['first_poll_ns']}/{c['poll_ns']} | "
                  f"{', '.join(x for x in note if x)} | {c['median_ms']:.4f} | "
                  f"{c['GBps']:.0f}{mark} | {c['ratio_cub']:.3f} | {100 * c['ratio_copy']:.1f}% |")
    if data.get("failures"):
        print(f"\n**{data['failures']} case(s) failed verification (marked ✗).**")


if __name__ == "__main__":
    main()
