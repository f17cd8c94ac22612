#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""PyTorch peers of `mctally bench scatter` and `mctally bench mpc`, FP64:
index_add_ (default, and with torch.use_deterministic_algorithms(True)) and
bincount(weights), on the key patterns of sim/scatter/scatter_inputs.h
(uniform; sorted = floor(i B / n), runs of n/B; hot = half the keys B/2, the
rest uniform; values uniform on (0, 1]), for B in {1, 8, 1e3, 1e6} and n = 1e8,
and the MPC case (index_add_ of [n, 9] values into [cells, 9], n = 1e7,
cells = 1e6, keys uniform or sorted by cell). The numbers are drawn by torch,
so they follow the same distributions as mctally's inputs, not the same draws.

Times with CUDA events (the zeroing of the output included), median of the
repetitions after warm-up; a first run slower than --case-seconds is the only
one. Every result is checked against an exact reference: the values are
integers u in [1, 2^53] times 2^-53, summed per bin as int64 high and low parts
(exact), with the tolerance bench_scatter.cu uses (min(m-1, 8 sqrt(m)) u S +
5 u S for m values of exact sum S in a bin, u = 2^-53).

Never fails the GPU suite: without torch or CUDA it writes a JSON that says why
and exits 0. usage: torch_scatter.py --out FILE.json [--n N] [--mpc-n N]
[--cells C] [--reps R] [--case-seconds S]"""
import argparse
import json
import statistics
import sys
import time

PATTERNS = ("uniform", "sorted", "hot")
BINS = (1, 8, 1000, 1000000)
WIDTH = 9
U = 2.0 ** -53


def write(path, doc):
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)


def make_inputs(torch, pattern, n, bins, width, gen):
    """Keys (int64) and values ([n] or [n, width] f64 on the 2^-53 grid) with
    their integer units, all on the GPU."""
    dev = "cuda"
    if pattern == "sorted":
        keys = torch.arange(n, device=dev, dtype=torch.int64) * bins // n
    else:
        keys = torch.randint(0, bins, (n,), generator=gen, device=dev, dtype=torch.int64)
        if pattern == "hot":
            hot = torch.rand(n, generator=gen, device=dev) < 0.5
            keys = torch.where(hot, torch.full_like(keys, bins // 2), keys)
    shape = (n,) if width == 1 else (n, width)
    units = torch.randint(1, 2 ** 53 + 1, shape, generator=gen, device=dev, dtype=torch.int64)
    values = units.to(torch.float64) * U
    return keys, values, units


def exact_reference(torch, keys, units, bins, width):
    """Per-bin sums exactly (int64 high and low 26-bit parts cannot overflow
    for n < 2^36), rounded to double once; and the number of values per cell."""
    torch.use_deterministic_algorithms(False)
    shape = (bins,) if width == 1 else (bins, width)
    hi = torch.zeros(shape, dtype=torch.int64, device="cuda").index_add_(0, keys, units >> 26)
    lo = torch.zeros(shape, dtype=torch.int64, device="cuda").index_add_(0, keys, units & ((1 << 26) - 1))
    ref = (hi.to(torch.float64) * 2.0 ** 26 + lo.to(torch.float64)) * U
    count = torch.bincount(keys, minlength=bins).to(torch.float64)
    return ref, count if width == 1 else count[:, None].expand(bins, width)


def check(torch, out, ref, count):
    """Bins beyond tolerance (see the module's doc)."""
    tol = torch.clamp(torch.minimum(count - 1, 8 * torch.sqrt(count)), min=0) * U * ref + 5 * U * ref
    err = (out - ref).abs()
    return int((~(err <= tol)).sum().item())


def time_op(torch, fn, reps, case_seconds):
    """Runs fn: the first run decides; returns (timed ms list, first ms, result)."""
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)

    def once():
        torch.cuda.synchronize()
        start.record()
        res = fn()
        stop.record()
        stop.synchronize()
        return start.elapsed_time(stop), res

    first, res = once()
    if first > case_seconds * 1e3:
        return [], first, res
    warm = 1 if first < 50 else 0
    reps = min(reps, max(2, int(2 * case_seconds * 1e3 / max(first, 1e-3))))
    times = []
    for r in range(warm + reps):
        ms, res = once()
        if r >= warm:
            times.append(ms)
    return times, first, res


def peers(torch, keys, values, bins, width):
    """name -> (function returning the bins, deterministic mode)."""
    shape = (bins,) if width == 1 else (bins, width)
    out = torch.empty(shape, dtype=torch.float64, device="cuda")
    ops = {"torch_index_add": (lambda: out.zero_().index_add_(0, keys, values), False),
           "torch_index_add_deterministic": (lambda: out.zero_().index_add_(0, keys, values), True)}
    if width == 1:
        ops["torch_bincount"] = (lambda: torch.bincount(keys, weights=values, minlength=bins), False)
    return ops


def run_case(torch, suite, pattern, n, bins, width, seed, args, cases):
    gen = torch.Generator(device="cuda").manual_seed(seed)
    keys, values, units = make_inputs(torch, pattern, n, bins, width, gen)
    ref, count = exact_reference(torch, keys, units, bins, width)
    del units
    for name, (fn, det) in peers(torch, keys, values, bins, width).items():
        case = {"suite": suite, "peer": name, "bins": bins, "pattern": pattern, "n": n, "width": width}
        if bins == 1 and width == 1:
            case["same_for"] = "sorted, hot (one bin: identical keys)"
        try:
            torch.use_deterministic_algorithms(det)
            times, first, res = time_op(torch, fn, args.reps, args.case_seconds)
            bad = check(torch, res, ref, count)
            case.update(first_ms=first, bad_bins=bad, correct=bad == 0, checked_runs=1)
            if times:
                med = statistics.median(times)
                case.update(status="ok", median_ms=med, reps=len(times), gupdates_per_s=n * width / (med * 1e-3) / 1e9)
            else:
                case["status"] = "skipped: too slow (%.2f s for the first run)" % (first * 1e-3)
        except Exception as e:  # an op missing in this torch, or out of memory: recorded, never fatal
            case["status"] = "error: %s" % str(e).splitlines()[0][:200]
            torch.cuda.empty_cache()
        finally:
            torch.use_deterministic_algorithms(False)
        cases.append(case)
        print("%-6s B=%-8d %-8s %-30s %s %s" % (suite, bins, pattern, name, case.get("median_ms", "-"),
                                                case["status"]), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=100_000_000)
    ap.add_argument("--mpc-n", type=int, default=10_000_000)
    ap.add_argument("--cells", type=int, default=1_000_000)
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--case-seconds", type=float, default=0.5)
    args = ap.parse_args()
    doc = {"suite": "torch_scatter", "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "dtype": "f64"}
    try:
        import torch
    except Exception as e:
        doc.update(available=False, reason="torch cannot be imported: %s" % e)
        write(args.out, doc)
        print(doc["reason"])
        return 0
    if not torch.cuda.is_available():
        doc.update(available=False, reason="torch %s sees no CUDA device" % torch.__version__)
        write(args.out, doc)
        print(doc["reason"])
        return 0
    cases = []
    doc.update(available=True, torch=torch.__version__, cuda=torch.version.cuda, device=torch.cuda.get_device_name(),
               n=args.n, mpc_n=args.mpc_n, cells=args.cells, width_mpc=WIDTH, reps=args.reps,
               case_seconds=args.case_seconds, cases=cases)
    try:
        for b, bins in enumerate(BINS):
            for p, pattern in enumerate(PATTERNS):
                if bins == 1 and pattern != "uniform":
                    continue  # one bin: every pattern is key 0
                run_case(torch, "scatter", pattern, args.n, bins, 1, 2015 + 16 * b + p, args, cases)
                write(args.out, doc)
        for p, pattern in enumerate(("uniform", "sorted")):
            run_case(torch, "mpc", pattern, args.mpc_n, args.cells, WIDTH, 4015 + p, args, cases)
            write(args.out, doc)
    except Exception as e:  # keep what was measured
        doc["aborted"] = str(e).splitlines()[0][:300]
        print("torch_scatter: aborted: %s" % doc["aborted"], file=sys.stderr)
    write(args.out, doc)
    return 0


if __name__ == "__main__":
    sys.exit(main())
