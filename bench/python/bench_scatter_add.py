#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""mctally.scatter_add from PyTorch tensors beside the peers a PyTorch user
has: torch.index_add_ (default, and under torch.use_deterministic_algorithms),
torch.bincount(weights) and, where CuPy is installed, cupy.add.at; on the
scatter sweep's cases (B in 1, 8, 1e3, 1e6; keys uniform, sorted = floor(i B / n),
hot = half the keys B/2; f64 values uniform on [0, 1)), n updates per call.
mctally gets the keys as int32 and, in the `_int64` entries, as the int64
tensor the peers get (PyTorch's own index type). `deterministic` takes its
fraction bits from the shape's last call and checks them against the maximum
the add keeps; `deterministic_pass` finds them by a pass over the values for
max|v| before every call (each call is a shape's first);
`deterministic_frac_bits` is given the same bits.
Also the per-call overhead of the Python layer at small n (--small-n keys into
64 bins, method atomic): scatter_add (its tally taken from
mctally.scatter_add_cache, as every call after a shape's first; and with the
cache off, a tally made per call), and a Tally kept open (add, and add +
end_batch). Each Python call is timed in alternation with the extension
calls it makes (their arguments, pointers and result array, made beforehand),
with the same timer: the wall clock around one call and, on the GPU, a wait
for the device; the median of the rounds' differences is the Python layer's
own time (--overhead-reps rounds). Beside them, the same C calls made from C
(bench_c_calls: mct_tally_add_device, + mct_tally_end_batch, +
mct_tally_take_sums), the library's own time. Without PyTorch the same cases
run from NumPy arrays beside np.bincount and np.add.at.

Each case: warm-up, then the median of --reps calls, timed with CUDA events on
the GPU (synchronized wall time on the CPU); every mctally result is checked
against index_add_ bin by bin within what the two may differ by (each float
sum's rounding in its order, and for deterministic=True each add's rounding to
the fixed-point fraction bits: dev_over_bound), the first call's (a new tally)
and the last's (the cached tally, reused by every timed call). The method `auto` resolved to is
recorded per case. Without a GPU it runs on the CPU backend (a smoke test:
--n small). usage: bench_scatter_add.py --out FILE.json [--n N] [--reps R]
[--bins 1,8,1000,1000000] [--patterns uniform,sorted,hot] [--device cuda|cpu]
[--small-n 1,32,1024] [--overhead-reps R] [--c-calls PATH/bench_c_calls]"""
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
from mctally._core import _frac_bits_for, _shape_max  # the fraction bits deterministic scatter_add picks


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


def call_timer(torch, device):
    """The per-call timer of the overhead rows, as bench_c_calls times the C
    calls: the wall clock around the call and, on the GPU, a wait for the
    device (torch.cuda.synchronize), so that asynchronous work counts in full.
    (CUDA events recorded from Python cost several microseconds each, which
    would blur a difference of microseconds.)"""
    # The runtime's wait itself (cudaDeviceSynchronize), without
    # torch.cuda.synchronize's device guard around it.
    sync = getattr(torch._C, "_cuda_synchronize", torch.cuda.synchronize) if device == "cuda" else None

    def run(fn, reps):
        times = []
        for _ in range(reps):
            t0 = time.perf_counter()
            fn()
            if sync is not None:
                sync()
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


def dev_over_bound(diff, ref, counts, frac_bits):
    """The largest |got - ref| of a bin over what the two sums may differ by: each of the bin's c adds
    rounded to frac_bits fraction bits (fixed: up to 2^-(f+1) each, none for a float tally), plus
    each float sum's own rounding in its order (c * 2^-53 of the bin's magnitude, for both sums).
    Arguments are arrays of one library (NumPy or torch); the result is at most 1 when every bin
    is within its bound."""
    bound = counts * (2.0 ** -(frac_bits + 1) if frac_bits is not None else 0.0) + counts * 2.0 ** -52 * abs(ref)
    return float((abs(diff) / bound.clip(min=1e-300)).max())


def measure(run, fn, reps, warmup=1, slow_s=None):
    """Median and minimum of `reps` timed calls after `warmup` untimed ones. With slow_s, the first
    call is timed: one slower than that is the case's only timing (marked "slow"), so a peer that
    needs seconds a call does not hold the sweep up."""
    if slow_s is not None:
        t = run(fn, 1)
        if t[0] > slow_s:
            return {"median_s": t[0], "min_s": t[0], "reps": 1, "slow": True}
        warmup -= 1
    for _ in range(warmup):
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
            counts = torch.bincount(keys, minlength=bins).to(torch.float64)
            case = {"bins": bins, "pattern": pattern, "n": args.n, "peers": {}, "mctally": {}}

            def index_add():
                return torch.zeros(bins, dtype=torch.float64, device=device).index_add_(0, keys, values)

            case["peers"]["index_add_"] = measure(run, index_add, args.reps)
            torch.use_deterministic_algorithms(True)
            try:
                case["peers"]["index_add_deterministic"] = measure(run, index_add, args.reps, slow_s=args.slow_s)
            finally:
                torch.use_deterministic_algorithms(False)
            case["peers"]["bincount"] = measure(
                run, lambda: torch.bincount(keys, weights=values, minlength=bins), args.reps)
            if have_cupy:
                ck, cv = cupy.asarray(k32), cupy.asarray(values)
                case["peers"]["cupy_add_at"] = measure(
                    run, lambda: cupy.add.at(cupy.zeros(bins), ck, cv), args.reps)
            # int32 keys, and the int64 keys the peers get (PyTorch's own index type); deterministic
            # with the fraction bits found by the call (the last call's scale, checked against the
            # maximum the add keeps), found by a pass over the values for max|v| on every call (the
            # shape's guess forgotten before each: a shape's first call), and given (the same bits,
            # found once: a caller who knows its values' bound)
            frac_given = _frac_bits_for(values, "torch", args.n)[0]
            for label, kw, ks, pre in (("auto", {}, k32, None), ("deterministic", {"deterministic": True}, k32, None),
                                       ("deterministic_pass", {"deterministic": True}, k32, _shape_max.clear),
                                       ("deterministic_frac_bits", {"deterministic": True, "frac_bits": frac_given}, k32,
                                        None),
                                       ("block_reduce", {"method": "block_reduce"}, k32, None),
                                       ("atomic", {"method": "atomic"}, k32, None),
                                       ("auto_int64", {}, keys, None), ("atomic_int64", {"method": "atomic"}, keys, None)):
                if "method" in kw and not mctally.method_supports(kw["method"], "f64", "cuda" if device == "cuda" else "cpu"):
                    continue

                def call(ks=ks, kw=kw, pre=pre):
                    if pre:
                        pre()
                    return mctally.scatter_add(ks, values, bins, **kw)

                got = call()
                entry = measure(run, call, args.reps)
                last = call()
                err = max(float(((g - ref).abs() / ref.abs().clamp_min(1e-300)).max()) for g in (got, last))
                frac = _frac_bits_for(values, "torch", args.n)[0] if kw.get("deterministic") else None
                dev = max(dev_over_bound(g - ref, ref, counts, frac) for g in (got, last))
                entry.update(max_rel_diff_vs_index_add=err, max_dev_over_bound=dev, ok=dev <= 1.0)
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


def c_calls_path(given):
    """bench_c_calls: as given, else beside the CLI of a build tree
    (build/tools/mctally/mctally -> build/bench/python/bench_c_calls)."""
    if given:
        return given
    cli = mctally.cli_path()
    return os.path.join(os.path.dirname(cli), os.pardir, os.pardir, "bench", "python", "bench_c_calls")


def c_call_seconds(exe, sizes, bins, backend, reps):
    """The C library's own median seconds for the calls the Python layer
    makes, per n, made from C (bench_c_calls on the same backend, method
    atomic): {n: {"add_s", "add_end_batch_s", "scatter_add_s"}}."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "c_calls.json")
        subprocess.run([exe, "--backend", backend, "--method", "atomic", "--bins", str(bins), "--reps", str(reps),
                        "--n", ",".join(str(n) for n in sizes), "--out", out], check=True, stdout=subprocess.DEVNULL)
        with open(out) as f:
            return {r["n"]: r for r in json.load(f)["rows"]}


def add_c_calls(row, c):
    """The same calls made from C (bench_c_calls), beside the row's."""
    if "error" in c:
        row["c_error"] = c["error"]
    elif row["n"] not in c["rows"]:
        row["c_error"] = f"no C timing for n = {row['n']}"
    else:
        r = c["rows"][row["n"]]
        row.update(c_add_s=r["add_s"], c_add_end_batch_s=r["add_end_batch_s"], c_scatter_add_s=r["scatter_add_s"])
    return row


def c_calls(args, backend):
    """bench_c_calls's rows ({"rows"}), or {"error"}."""
    try:
        return {"rows": c_call_seconds(c_calls_path(args.c_calls), args.small_n, 64, backend, args.overhead_reps)}
    except (OSError, subprocess.CalledProcessError, KeyError, ValueError) as e:
        return {"error": str(e)}


def resolved_method(bins, kw, backend):
    """The method scatter_add's cached tally runs for these arguments (auto: the plan)."""
    for key, method in mctally.scatter_add_cache.plans().items():
        if key[0] == bins and key[5] == backend and (key[2] == kw.get("method", "fixed" if kw else "auto")):
            return method
    return None


def extension_calls(keys, values, tally, cached):
    """The extension calls the Python layer makes, with their arguments made
    beforehand (the arrays' pointers; the result array): Tally.add's and
    Tally.add + end_batch's on `tally`, and scatter_add's on its cached tally
    `cached` (mctally.scatter_add_cache's entry: .ext is its extension object)."""
    t, e = tally._t, cached.ext
    if isinstance(keys, np.ndarray):
        out = np.empty(64)

        def add():
            return t.add(keys, values, 1)

        def take():
            return e.add_take(keys, values, out)
    else:  # torch: by pointer, as the package passes tensors
        dev, kind = (keys.get_device(), 2) if keys.is_cuda else (0, 1)
        kp, vp, n, out = keys.data_ptr(), values.data_ptr(), keys.numel(), values.new_empty(64)
        op = out.data_ptr()

        def add():
            return t.add_pointers(kp, vp, n, 1, kind, dev)

        def take():
            return e.add_take_pointers(kp, vp, n, kind, dev, op)

    def add_end():
        add()
        t.end_batch(1)
    if add() or take():
        raise RuntimeError("bench_scatter_add: an extension call failed")
    return add, add_end, take


def paired(run, python_call, extension_call, reps, warmup=20):
    """A Python call and the extension calls it makes, timed alternately
    with the same timer, one of each per round: their medians and the median
    of the rounds' differences, the Python layer's own time."""
    for _ in range(warmup):
        python_call()
        extension_call()
    tp, te = [], []
    for _ in range(reps):
        tp += run(python_call, 1)
        te += run(extension_call, 1)
    return statistics.median(tp), statistics.median(te), statistics.median(a - b for a, b in zip(tp, te))


def python_layer_seconds(run, keys, values, backend, reps):
    """The Python layer's calls on 64 bins, method atomic, each the median
    seconds of one call: scatter_add (a cached tally; and with the cache off,
    a tally made per call), Tally.add followed by end_batch, and Tally.add
    alone; beside each (but the uncached scatter_add) the extension calls it
    makes, timed in alternation with it, and "layer": the median difference."""
    def scatter():
        mctally.scatter_add(keys, values, 64, method="atomic")

    scatter()
    cache = mctally.scatter_add_cache
    key = next(k for k in cache.keys() if k[0] == 64 and k[2] == "atomic" and k[5] == backend and k[4] is None)
    out, layer = {}, {}
    with mctally.Tally(64, method="atomic", backend=backend) as t:
        t.add(keys, values)  # the tally takes the caller's stream

        def py_add_end():
            t.add(keys, values)
            t.end_batch(1)
        calls = [("scatter_add_s", "ext_scatter_add_s", scatter), ("tally_add_s", "ext_add_s", lambda: t.add(keys, values)),
                 ("tally_add_end_batch_s", "ext_add_end_batch_s", py_add_end)]
        try:
            ext = extension_calls(keys, values, t, cache._idle[key])
        except AttributeError:  # a package without these extension calls (an older one): the Python calls alone
            ext = None
        for i, (py_key, ext_key, fn) in enumerate(calls):
            if ext is None:
                out[py_key] = measure(run, fn, reps, 20)["median_s"]
            else:
                out[py_key], out[ext_key], layer[py_key] = paired(run, fn, (ext[2], ext[0], ext[1])[i], reps)
    if layer:
        out["layer"] = layer
    size = cache.max_size
    cache.max_size = 0
    try:
        out["scatter_add_uncached_s"] = measure(run, scatter, max(1, reps // 10))["median_s"]
    finally:
        cache.max_size = size
    return out


def overhead(torch, args, device):
    rows = []
    backend = "cuda" if device == "cuda" else "cpu"
    run = call_timer(torch, device)
    c = c_calls(args, backend)
    # One round of every call first, not recorded: the first n measured would
    # otherwise also time the process's and the device's warm-up (the peer's
    # own per-call time showed it too).
    keys = torch.randint(0, 64, (args.small_n[0],), device=device).to(torch.int32)
    warm, reps = torch.rand(args.small_n[0], device=device, dtype=torch.float64), max(20, args.overhead_reps // 10)
    python_layer_seconds(run, keys, warm, backend, reps)
    measure(run, lambda: torch.zeros(64, dtype=torch.float64, device=device).index_add_(0, keys.long(), warm), reps)
    for n in args.small_n:
        keys = torch.randint(0, 64, (n,), device=device).to(torch.int32)
        values = torch.rand(n, device=device, dtype=torch.float64)
        row = {"n": n, "bins": 64}
        row.update(python_layer_seconds(run, keys, values, backend, args.overhead_reps))
        row["index_add_s"] = measure(
            run, lambda: torch.zeros(64, dtype=torch.float64, device=device).index_add_(0, keys.long(), values),
            args.overhead_reps)["median_s"]
        rows.append(add_c_calls(row, c))
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
            counts = np.bincount(keys, minlength=bins).astype(np.float64)
            case = {"bins": bins, "pattern": pattern, "n": n, "peers": {}, "mctally": {}}
            case["peers"]["np_bincount"] = measure(run, lambda: np.bincount(keys, weights=values, minlength=bins),
                                                   args.reps)
            case["peers"]["np_add_at"] = measure(run, lambda: np.add.at(np.zeros(bins), keys, values), args.reps)
            for label, kw in (("auto", {}), ("deterministic", {"deterministic": True}), ("atomic", {"method": "atomic"})):
                got = mctally.scatter_add(k32, values, bins, **kw)
                entry = measure(run, lambda: mctally.scatter_add(k32, values, bins, **kw), args.reps)
                last = mctally.scatter_add(k32, values, bins, **kw)
                err = max(float(np.max(np.abs(g - ref) / np.maximum(np.abs(ref), 1e-300))) for g in (got, last))
                frac = _frac_bits_for(values, "numpy", n)[0] if kw.get("deterministic") else None
                dev = max(dev_over_bound(g - ref, ref, counts, frac) for g in (got, last))
                entry.update(max_rel_diff_vs_index_add=err, max_dev_over_bound=dev, ok=dev <= 1.0,
                             method=resolved_method(bins, kw, "cpu"))
                case["mctally"][label] = entry
            best_peer = min(p["median_s"] for p in case["peers"].values())
            for e in list(case["mctally"].values()) + list(case["peers"].values()):
                e["gupdates_per_s"] = n / e["median_s"] / 1e9
            for e in case["mctally"].values():
                e["speedup_vs_best_peer"] = best_peer / e["median_s"]
            cases.append(case)
    rows = []
    run = call_timer(None, "cpu")
    c = c_calls(args, "cpu")
    warm = rng.integers(0, 64, args.small_n[0]).astype(np.uint32)
    python_layer_seconds(run, warm, rng.random(args.small_n[0]), "cpu", max(20, args.overhead_reps // 10))  # warm-up
    for n in args.small_n:
        keys = rng.integers(0, 64, n).astype(np.uint32)
        values = rng.random(n)
        row = {"n": n, "bins": 64}
        row.update(python_layer_seconds(run, keys, values, "cpu", args.overhead_reps))
        row["index_add_s"] = measure(run, lambda: np.add.at(np.zeros(64), keys, values), args.overhead_reps)["median_s"]
        rows.append(add_c_calls(row, c))
    return cases, rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=lambda s: int(float(s)), default=100_000_000)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--bins", type=lambda s: [int(float(x)) for x in s.split(",")], default=[1, 8, 1000, 1000000])
    ap.add_argument("--patterns", type=lambda s: s.split(","), default=["uniform", "sorted", "hot"])
    ap.add_argument("--small-n", type=lambda s: [int(float(x)) for x in s.split(",")], default=[1, 32, 1024, 100000])
    ap.add_argument("--overhead-reps", type=int, default=1000)
    ap.add_argument("--slow-s", type=float, default=1.0,
                    help="a deterministic index_add_ call slower than this is timed once")
    ap.add_argument("--c-calls", default=None, help="bench_c_calls (default: beside the build tree's CLI)")
    ap.add_argument("--device", choices=["cuda", "cpu"], default=None)
    args = ap.parse_args()
    try:
        import torch
    except ImportError:
        torch = None
    doc = {"mctally": mctally.version(), "n": args.n, "reps": args.reps, "overhead_reps": args.overhead_reps,
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
        doc["cases"], doc["overhead"] = sweep(torch, args, run, device), overhead(torch, args, device)
    with open(args.out, "w") as f:
        json.dump(doc, f, indent=1)
    bad = [(c["bins"], c["pattern"], k) for c in doc["cases"] for k, e in c["mctally"].items() if not e["ok"]]
    if bad:
        print(f"bench_scatter_add: results differ from index_add_: {bad}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
