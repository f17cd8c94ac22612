#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""mctally.scatter_add from PyTorch tensors beside the peers a PyTorch user
has: torch.index_add_ (default, and under torch.use_deterministic_algorithms),
torch.bincount(weights) and, where CuPy is installed, cupy.add.at; on the
scatter sweep's cases (B in 1, 8, 1e3, 1e6; keys uniform, sorted = floor(i B / n),
hot = half the keys B/2; f64 values uniform on [0, 1)), n updates per call.
Also the per-call overhead of the Python layer at small n: scatter_add (its
tally taken from mctally.scatter_add_cache, as every call after a shape's
first; and with the cache off, a tally made per call), and a Tally kept open
(add + end_batch), against the same calls made from C (`mctally accumulate`
reports the C call's seconds in its JSON). Without PyTorch the same cases run
from NumPy arrays beside np.bincount and np.add.at.

Each case: warm-up, then the median of --reps calls, timed with CUDA events on
the GPU (synchronized wall time on the CPU); every mctally result is checked
against index_add_ (integers-valued data would be exact; here uniform values:
relative 1e-9 per bin), the first call's (a new tally) and the last's (the
cached tally, reused by every timed call). The method `auto` resolved to is
recorded per case. Without a GPU it runs on the CPU backend (a smoke test:
--n small). usage: bench_scatter_add.py --out FILE.json [--n N] [--reps R]
[--bins 1,8,1000,1000000] [--patterns uniform,sorted,hot] [--device cuda|cpu]"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

import mctally


def timer(torch, device):
    if device == "cuda":
        def run(fn, reps):
            times = []
            for _ in range(reps):
                a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                a.record()
                fn()
                b.record()
                b.synchronize()
                times.append(a.elapsed_time(b) / 1e3)
            return times
    else:
        def run(fn, reps):
            times = []
            for _ in range(reps):
                t0 = time.perf_counter()
                fn()
                times.append(time.perf_counter() - t0)
            return times
    return run


def make_inputs(torch, pattern, n, bins, device, gen):
    if pattern == "uniform":
        keys = torch.randint(0, bins, (n,), device=device, generator=gen)
    elif pattern == "sorted":
        keys = torch.div(torch.arange(n, device=device) * bins, n, rounding_mode="floor")
    else:
        keys = torch.randint(0, bins, (n,), device=device, generator=gen)
        keys[::2] = bins // 2
    values = torch.rand(n, device=device, dtype=torch.float64, generator=gen)
    return keys, values


def measure(run, fn, reps):
    fn()  # warm-up (and the result that is checked)
    t = run(fn, reps)
    return {"median_s": statistics.median(t), "min_s": min(t), "reps": len(t)}


def sweep(torch, args, run, device):
    cases = []
    gen = torch.Generator(device=device).manual_seed(1)
    try:
        import cupy
        have_cupy = device == "cuda"
    except ImportError:
        have_cupy = False
    for bins in args.bins:
        for pattern in args.patterns:
            keys, values = make_inputs(torch, pattern, args.n, bins, device, gen)
            k32 = keys.to(torch.int32)
            ref = torch.zeros(bins, dtype=torch.float64, device=device).index_add_(0, keys, values)
            case = {"bins": bins, "pattern": pattern, "n": args.n, "peers": {}, "mctally": {}}

            def index_add():
                return torch.zeros(bins, dtype=torch.float64, device=device).index_add_(0, keys, values)

            case["peers"]["index_add_"] = measure(run, index_add, args.reps)
            torch.use_deterministic_algorithms(True)
            try:
                case["peers"]["index_add_deterministic"] = measure(run, index_add, args.reps)
            finally:
                torch.use_deterministic_algorithms(False)
            case["peers"]["bincount"] = measure(
                run, lambda: torch.bincount(keys, weights=values, minlength=bins), args.reps)
            if have_cupy:
                ck, cv = cupy.asarray(k32), cupy.asarray(values)
                case["peers"]["cupy_add_at"] = measure(
                    run, lambda: cupy.add.at(cupy.zeros(bins), ck, cv), args.reps)
            for label, kw in (("auto", {}), ("deterministic", {"deterministic": True}),
                              ("block_reduce", {"method": "block_reduce"}), ("atomic", {"method": "atomic"})):
                if "method" in kw and not mctally.method_supports(kw["method"], "f64", "cuda" if device == "cuda" else "cpu"):
                    continue
                got = mctally.scatter_add(k32, values, bins, **kw)
                entry = measure(run, lambda: mctally.scatter_add(k32, values, bins, **kw), args.reps)
                last = mctally.scatter_add(k32, values, bins, **kw)
                err = max(float(((g - ref).abs() / ref.abs().clamp_min(1e-300)).max()) for g in (got, last))
                entry["max_rel_diff_vs_index_add"] = err
                entry["ok"] = err <= 1e-9
                entry["method"] = resolved_method(bins, kw, "cuda" if device == "cuda" else "cpu")
                case["mctally"][label] = entry
            best_peer = min(p["median_s"] for p in case["peers"].values())
            for e in case["mctally"].values():
                e["gupdates_per_s"] = args.n / e["median_s"] / 1e9
                e["speedup_vs_best_peer"] = best_peer / e["median_s"]
            for e in case["peers"].values():
                e["gupdates_per_s"] = args.n / e["median_s"] / 1e9
            cases.append(case)
            print(f"B={bins} {pattern}: " + ", ".join(
                f"{k} {v['median_s'] * 1e3:.3f} ms" for k, v in {**case['peers'], **case['mctally']}.items()),
                file=sys.stderr)
    return cases


def c_call_seconds(n, bins, backend):
    """The C call's own time for n adds (mctally accumulate's JSON 'seconds')."""
    with tempfile.TemporaryDirectory() as tmp:
        rng = np.random.default_rng(2)
        rng.integers(0, bins, n).astype("<u4").tofile(os.path.join(tmp, "k"))
        rng.random(n).astype("<f8").tofile(os.path.join(tmp, "v"))
        out = os.path.join(tmp, "o")
        times = []
        for _ in range(5):
            subprocess.run([mctally.cli_path(), "accumulate", "--bins", str(bins), "--keys", os.path.join(tmp, "k"),
                            "--values", os.path.join(tmp, "v"), "--out", out, "--method", "atomic",
                            "--backend", backend], check=True, stdout=subprocess.DEVNULL)
            with open(out + ".json") as f:
                times.append(json.load(f)["seconds"])
        return statistics.median(times)


def resolved_method(bins, kw, backend):
    """The method scatter_add's cached tally runs for these arguments (auto: the plan)."""
    for key, method in mctally.scatter_add_cache.plans().items():
        if key[0] == bins and key[5] == backend and (key[2] == kw.get("method", "fixed" if kw else "auto")):
            return method
    return None


def python_layer_seconds(run, keys, values, backend, reps):
    """The Python layer's calls on 64 bins, each the median seconds of one call:
    scatter_add (a cached tally; and with the cache off, a tally made per
    call), Tally.add followed by end_batch, and Tally.add alone."""
    def scatter():
        mctally.scatter_add(keys, values, 64, method="atomic")

    out = {"scatter_add_s": measure(run, scatter, reps)["median_s"]}
    size = mctally.scatter_add_cache.max_size
    mctally.scatter_add_cache.max_size = 0
    try:
        out["scatter_add_uncached_s"] = measure(run, scatter, reps)["median_s"]
    finally:
        mctally.scatter_add_cache.max_size = size
    with mctally.Tally(64, method="atomic", backend=backend) as t:
        def add_end():
            t.add(keys, values)
            t.end_batch(1)
        out["tally_add_end_batch_s"] = measure(run, add_end, reps)["median_s"]
        out["tally_add_s"] = measure(run, lambda: t.add(keys, values), reps)["median_s"]
        t.end_batch(1)
    return out


def overhead(torch, args, run, device):
    rows = []
    backend = "cuda" if device == "cuda" else "cpu"
    for n in args.small_n:
        keys = torch.randint(0, 64, (n,), device=device).to(torch.int32)
        values = torch.rand(n, device=device, dtype=torch.float64)
        row = {"n": n, "bins": 64}
        row.update(python_layer_seconds(run, keys, values, backend, args.reps))
        row["index_add_s"] = measure(
            run, lambda: torch.zeros(64, dtype=torch.float64, device=device).index_add_(0, keys.long(), values),
            args.reps)["median_s"]
        try:
            row["c_accumulate_call_s"] = c_call_seconds(n, 64, backend)
        except (OSError, subprocess.CalledProcessError, KeyError) as e:
            row["c_accumulate_call_s"] = None
            row["c_error"] = str(e)
        rows.append(row)
    return rows


def numpy_sweep(args, run):
    """Without PyTorch: the same cases from NumPy arrays on the CPU backend,
    beside np.bincount(weights) and np.add.at (the smoke test's path)."""
    cases = []
    rng = np.random.default_rng(1)
    for bins in args.bins:
        for pattern in args.patterns:
            n = args.n
            keys = (np.arange(n) * bins // n) if pattern == "sorted" else rng.integers(0, bins, n)
            if pattern == "hot":
                keys[::2] = bins // 2
            k32 = keys.astype(np.uint32)
            values = rng.random(n)
            ref = np.bincount(keys, weights=values, minlength=bins)
            case = {"bins": bins, "pattern": pattern, "n": n, "peers": {}, "mctally": {}}
            case["peers"]["np_bincount"] = measure(run, lambda: np.bincount(keys, weights=values, minlength=bins),
                                                   args.reps)
            case["peers"]["np_add_at"] = measure(run, lambda: np.add.at(np.zeros(bins), keys, values), args.reps)
            for label, kw in (("auto", {}), ("deterministic", {"deterministic": True}), ("atomic", {"method": "atomic"})):
                got = mctally.scatter_add(k32, values, bins, **kw)
                entry = measure(run, lambda: mctally.scatter_add(k32, values, bins, **kw), args.reps)
                last = mctally.scatter_add(k32, values, bins, **kw)
                err = max(float(np.max(np.abs(g - ref) / np.maximum(np.abs(ref), 1e-300))) for g in (got, last))
                entry.update(max_rel_diff_vs_index_add=err, ok=err <= 1e-9,
                             method=resolved_method(bins, kw, "cpu"))
                case["mctally"][label] = entry
            best_peer = min(p["median_s"] for p in case["peers"].values())
            for e in list(case["mctally"].values()) + list(case["peers"].values()):
                e["gupdates_per_s"] = n / e["median_s"] / 1e9
            for e in case["mctally"].values():
                e["speedup_vs_best_peer"] = best_peer / e["median_s"]
            cases.append(case)
    rows = []
    for n in args.small_n:
        keys = rng.integers(0, 64, n).astype(np.uint32)
        values = rng.random(n)
        row = {"n": n, "bins": 64}
        row.update(python_layer_seconds(run, keys, values, "cpu", args.reps))
        row["index_add_s"] = measure(run, lambda: np.add.at(np.zeros(64), keys, values), args.reps)["median_s"]
        row["c_accumulate_call_s"] = c_call_seconds(n, 64, "cpu")
        rows.append(row)
    return cases, rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=lambda s: int(float(s)), default=100_000_000)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--bins", type=lambda s: [int(float(x)) for x in s.split(",")], default=[1, 8, 1000, 1000000])
    ap.add_argument("--patterns", type=lambda s: s.split(","), default=["uniform", "sorted", "hot"])
    ap.add_argument("--small-n", type=lambda s: [int(float(x)) for x in s.split(",")], default=[1, 1000, 100000])
    ap.add_argument("--device", choices=["cuda", "cpu"], default=None)
    args = ap.parse_args()
    try:
        import torch
    except ImportError:
        torch = None
    doc = {"mctally": mctally.version(), "n": args.n, "reps": args.reps,
           "commit": os.environ.get("MCT_COMMIT", "unknown")}
    if torch is None:
        print("bench_scatter_add: PyTorch is not installed; NumPy arrays on the CPU backend", file=sys.stderr)
        run = timer(None, "cpu")
        doc.update(device="cpu", torch="none (NumPy peers)")
        doc["cases"], doc["overhead"] = numpy_sweep(args, run)
    else:
        device = args.device or ("cuda" if torch.cuda.is_available() else "cpu")
        run = timer(torch, device)
        doc.update(device=torch.cuda.get_device_name() if device == "cuda" else "cpu", torch=torch.__version__)
        doc["cases"], doc["overhead"] = sweep(torch, args, run, device), overhead(torch, args, run, device)
    with open(args.out, "w") as f:
        json.dump(doc, f, indent=1)
    bad = [(c["bins"], c["pattern"], k) for c in doc["cases"] for k, e in c["mctally"].items() if not e["ok"]]
    if bad:
        print(f"bench_scatter_add: results differ from index_add_: {bad}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
