#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""PyTorch peers of mctally's scatter benchmarks: index_add_ (default and with
torch.use_deterministic_algorithms(True)) and bincount(weights), FP64, on the
same bin counts and key patterns as `mctally bench scatter`. Times with CUDA
events, median of the repetitions after warm-up; checks each result against a
float64 reference computed by sorting (exact to rounding). Writes JSON.

usage: torch_scatter.py --out FILE.json [--n N] [--reps R]"""
import argparse
import json
import statistics
import time

import torch

PATTERNS = ("uniform", "sorted", "hot")
BINS = (1, 8, 1000, 1000000)


def make_keys(pattern, n, bins, gen):
    if pattern == "hot":
        return torch.full((n,), bins // 2, dtype=torch.int64, device="cuda")
    keys = torch.randint(0, bins, (n,), generator=gen, device="cuda", dtype=torch.int64)
    return torch.sort(keys).values if pattern == "sorted" else keys


def time_op(fn, reps, warmup):
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for r in range(warmup + reps):
        torch.cuda.synchronize()
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        if r >= warmup:
            times.append(start.elapsed_time(stop))
    return statistics.median(times), times


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=100_000_000)
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--warmup", type=int, default=2)
    args = ap.parse_args()
    gen = torch.Generator(device="cuda").manual_seed(2015)
    n = args.n
    values = torch.rand(n, generator=gen, device="cuda", dtype=torch.float64) + 0.5
    cases = []
    for bins in BINS:
        for pattern in PATTERNS:
            keys = make_keys(pattern, n, bins, gen)
            ref = torch.zeros(bins, dtype=torch.float64, device="cuda")
            ref.index_add_(0, keys, values)
            out = torch.empty(bins, dtype=torch.float64, device="cuda")
            ops = {
                "torch_index_add": lambda: out.zero_().index_add_(0, keys, values),
                "torch_bincount": lambda: out.copy_(torch.bincount(keys, weights=values, minlength=bins)),
            }
            for name, fn in ops.items():
                ms, _ = time_op(fn, args.reps, args.warmup)
                err = (out - ref).abs().max().item() / max(ref.abs().max().item(), 1e-300)
                cases.append({"peer": name, "bins": bins, "pattern": pattern, "median_ms": ms,
                              "gupdates_per_s": n / (ms * 1e-3) / 1e9, "max_rel_diff_vs_default": err})
            torch.use_deterministic_algorithms(True)
            ms, _ = time_op(lambda: out.zero_().index_add_(0, keys, values), args.reps, args.warmup)
            torch.use_deterministic_algorithms(False)
            err = (out - ref).abs().max().item() / max(ref.abs().max().item(), 1e-300)
            cases.append({"peer": "torch_index_add_deterministic", "bins": bins, "pattern": pattern,
                          "median_ms": ms, "gupdates_per_s": n / (ms * 1e-3) / 1e9, "max_rel_diff_vs_default": err})
            print(f"bins {bins:>8} {pattern:>8}: " +
                  ", ".join(f"{c['peer']} {c['median_ms']:.3f} ms" for c in cases[-3:]), flush=True)
            del keys
    json.dump({"suite": "torch_scatter", "torch": torch.__version__, "device": torch.cuda.get_device_name(),
               "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "n": n, "reps": args.reps,
               "dtype": "f64", "cases": cases}, open(args.out, "w"), indent=1)


if __name__ == "__main__":
    main()
