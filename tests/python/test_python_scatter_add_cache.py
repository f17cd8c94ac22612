# SPDX-License-Identifier: BSD-3-Clause
"""mctally.scatter_add_cache: scatter_add's tallies kept between calls and read
in place (mct_tally_take_sums, no batch statistics). Reuse, eviction,
clearing; a reused tally's results against np.bincount (whole-number values:
exact in any order), the uncached C path (a tally of its own,
mct_tally_end_batch and mct_tally_sums) and the CLI's accumulate (fixed:
bitwise); errors raised from a reused tally, which is clean afterwards; calls
from several threads at once. NumPy arrays on the host backends, and PyTorch
CPU tensors where PyTorch is installed."""
import subprocess
import sys
import threading

import numpy as np
import pytest

import mctally
from mctally import _core
from conftest import HOST_BACKENDS, accumulate_c

try:
    import torch
except ImportError:
    torch = None

LIBS = ["numpy"] + (["torch"] if torch is not None else [])


@pytest.fixture
def cache():
    """The module's cache, emptied, its counters zeroed and its size kept."""
    c = mctally.scatter_add_cache
    c.clear()
    c.hits = c.misses = 0
    size = c.max_size
    yield c
    c.max_size = size
    c.clear()


def _to(lib, *arrays):
    if lib == "torch":
        return [torch.from_numpy(np.ascontiguousarray(a)) for a in arrays]
    return list(arrays)


def _np(x):
    return x.numpy() if torch is not None and isinstance(x, torch.Tensor) else np.asarray(x)


def _key(bins, method="auto", backend="cpu", det=None, frac_bits=None):
    return (bins, "f64", method, det, frac_bits, backend, 0, "unknown")


def test_reuse(cache, rng):
    keys = rng.integers(0, 50, 1000).astype(np.uint32)
    values = rng.integers(-9, 9, 1000).astype(np.float64)
    hits, misses = cache.hits, cache.misses
    a = mctally.scatter_add(keys, values, 50, method="atomic")
    assert (cache.hits, cache.misses) == (hits, misses + 1)
    assert cache.keys() == [_key(50, "atomic")]
    first = cache._idle[_key(50, "atomic")]
    b = mctally.scatter_add(keys, values, 50, method="atomic")
    assert (cache.hits, cache.misses) == (hits + 1, misses + 1)
    assert cache._idle[_key(50, "atomic")] is first  # the same tally, given back
    ref = np.bincount(keys, weights=values, minlength=50)
    assert np.array_equal(a, ref) and np.array_equal(b, ref)  # the first call's sums were zeroed
    # auto is planned once per key: its plan is the tally's method.
    mctally.scatter_add(keys, values, 50)
    plans = cache.plans()
    assert plans[_key(50, "atomic")] == "atomic" and plans[_key(50)] in mctally.methods()
    assert "2 idle" in repr(cache)


def test_eviction_least_recently_used_first(cache, rng):
    cache.max_size = 2
    keys = rng.integers(0, 10, 100)
    values = np.ones(100)
    for bins in (10, 11, 12):
        mctally.scatter_add(keys, values, bins, method="atomic")
    assert cache.keys() == [_key(11, "atomic"), _key(12, "atomic")]
    mctally.scatter_add(keys, values, 11, method="atomic")  # 11 is now the most recent
    mctally.scatter_add(keys, values, 10, method="atomic")  # a miss: evicts 12
    assert cache.keys() == [_key(11, "atomic"), _key(10, "atomic")]
    cache.max_size = 1
    assert cache.keys() == [_key(10, "atomic")]
    cache.max_size = 0  # nothing kept: every call makes and frees its own tally
    misses = cache.misses
    out = mctally.scatter_add(keys, values, 10, method="atomic")
    assert len(cache) == 0 and cache.misses == misses + 1
    assert np.array_equal(out, np.bincount(keys, minlength=10).astype(np.float64))
    for bad in (-1, 1.5, "8", True):
        with pytest.raises(mctally.MctallyError) as e:
            cache.max_size = bad
        assert e.value.name == "INVALID_VALUE"
    assert cache.max_size == 0


def test_clear(cache):
    mctally.scatter_add(np.array([0, 1]), np.ones(2), 4, backend="cpu")
    mctally.scatter_add(np.array([0, 1]), np.ones(2), 4, backend="emulated")
    assert len(cache) == 2
    tallies = [cache._idle[k].tally for k in cache.keys()]
    cache.clear()
    assert len(cache) == 0 and all(t.closed for t in tallies)
    assert np.array_equal(mctally.scatter_add(np.array([3, 3]), np.ones(2), 4), [0, 0, 0, 2])


@pytest.mark.parametrize("lib", LIBS)
@pytest.mark.parametrize("backend", HOST_BACKENDS)
@pytest.mark.parametrize("method", mctally.methods())
def test_reused_tally_exact(cache, rng, lib, backend, method):
    """Every f64 method, three calls on one tally with different inputs: each
    result is np.bincount's (whole-number values below 2^53 sum exactly in any
    order), so nothing of a call is left in the bins for the next."""
    if not mctally.method_supports(method, "f64", backend):
        pytest.skip(f"{method} does not serve f64 on {backend}")
    bins = 37
    for call in range(3):
        keys = rng.integers(0, bins, 3000).astype(np.int32)
        values = rng.integers(-50, 50, 3000).astype(np.float64)
        k, v = _to(lib, keys, values)
        got = mctally.scatter_add(k, v, bins, method=method, backend=backend)
        assert type(got) is type(k)
        assert np.array_equal(_np(got), np.bincount(keys, weights=values, minlength=bins)), call
    assert cache.hits == 2 and len(cache) == 1


@pytest.mark.parametrize("lib", LIBS)
@pytest.mark.parametrize("backend", HOST_BACKENDS)
def test_fixed_bitwise_equal_to_uncached_c_path(tmp_path, cache, rng, lib, backend):
    """fixed (deterministic=True) from a reused tally, read in place: the same
    bits as the C API's batch path (_scatter_add_batch: mct_tally_end_batch,
    mct_tally_sums) and the CLI's accumulate, call after call."""
    n, bins = 20000, 97
    for call in range(3):
        keys = rng.integers(0, bins, n).astype(np.uint32)
        values = rng.exponential(0.1, n) * rng.choice([-1.0, 1.0], n)
        k, v = _to(lib, keys, values)
        got = _np(mctally.scatter_add(k, v, bins, deterministic=True, backend=backend, frac_bits=40))
        key = _key(bins, "fixed", backend, "bitwise", 40)
        batch = _core._scatter_add_batch("numpy", keys, values, n, key)
        cli = accumulate_c(tmp_path, keys, values, bins, "fixed", backend, frac_bits=40)
        assert np.array_equal(got.view(np.uint64), batch.view(np.uint64)), call
        assert np.array_equal(got.view(np.uint64), cli.view(np.uint64)), call
    assert cache.hits == 2 and cache.keys() == [key]


@pytest.mark.parametrize("lib", LIBS)
@pytest.mark.parametrize("backend", HOST_BACKENDS)
def test_errors_from_a_reused_tally(cache, lib, backend):
    """The statuses end_batch gives (BIN_OUT_OF_RANGE, NONFINITE_VALUE,
    OVERFLOW), raised by a tally taken from the cache; the tally stays cached
    and clean: the next call's result holds nothing of the failed one."""
    good_k, good_v = _to(lib, np.array([0, 1, 1], dtype=np.uint32), np.array([1.0, 2.0, 3.0]))
    ref = [1.0, 5.0, 0.0, 0.0]
    cases = [
        ({}, [0, 4, 1], [1.0, 1.0, 1.0], "BIN_OUT_OF_RANGE"),
        ({}, [0, 1], [np.nan, 1.0], "NONFINITE_VALUE"),
        ({}, [2, 2], [np.inf, -np.inf], "NONFINITE_VALUE"),
        ({}, [2, 2], [1.7e308, 1.7e308], "NONFINITE_VALUE"),  # finite values, an infinite sum
        ({}, [0, 9, 1], [np.nan, 1.0, 1.0], "BIN_OUT_OF_RANGE"),  # end_batch's order: the dropped key first
        ({"deterministic": True, "frac_bits": 20}, [0, 1], [np.nan, 1.0], "NONFINITE_VALUE"),
        ({"deterministic": True, "frac_bits": 20}, [0, 1], [2.0**50, 1.0], "OVERFLOW"),
        ({"deterministic": True, "frac_bits": 20}, [3, 1], [1.0, 1.0], None),
        ({}, [2, 2], [1e200, 1e200], None),  # finite bins whose squares overflow: no error
    ]
    for kw, keys, values, name in cases:
        k, v = _to(lib, np.array(keys, dtype=np.int32), np.array(values))
        for call in range(2):  # the second call takes the tally the first gave back
            mctally.scatter_add(good_k, good_v, 4, backend=backend, **kw)
            hits = cache.hits
            if name is None:
                got = _np(mctally.scatter_add(k, v, 4, backend=backend, **kw))
                assert np.array_equal(got, np.bincount(keys, weights=values, minlength=4))
                continue
            with pytest.raises(mctally.MctallyError) as e:
                mctally.scatter_add(k, v, 4, backend=backend, **kw)
            assert e.value.name == name, (keys, values, str(e.value))
            assert e.value.status == mctally.MctallyError._codes[name] and "scatter_add" in str(e.value)
            assert cache.hits == hits + 1  # raised from a cached tally, which was given back
            assert np.array_equal(_np(mctally.scatter_add(good_k, good_v, 4, backend=backend, **kw)), ref)


@pytest.mark.parametrize("lib", LIBS)
@pytest.mark.parametrize("backend", HOST_BACKENDS)
@pytest.mark.parametrize("method", mctally.methods())
def test_fast_path_equals_batch_path(cache, rng, lib, backend, method):
    """A cached call (one extension call: the add, then mct_tally_take_sums
    into the result) against the batch path on the same input (a tally of its
    own, mct_tally_end_batch and mct_tally_sums through host memory): the same
    bits, into a new array and into out, call after call; on whole-number
    values for every method, and on random values for the methods whose order
    of adds is fixed (run_to_run or bitwise); and the same error."""
    if not mctally.method_supports(method, "f64", backend):
        pytest.skip(f"{method} does not serve f64 on {backend}")
    ordered = _core._ext.method_determinism(method, "f64") in ("run_to_run", "bitwise")
    bins, n = 53, 5000
    kw = {"frac_bits": 36} if method == "fixed" else {}
    key = _key(bins, method, backend, None, kw.get("frac_bits"))
    for call in range(4):
        keys = rng.integers(0, bins, n).astype(np.uint32)
        values = rng.integers(-99, 99, n).astype(np.float64)
        if call % 2 and ordered:
            values = rng.standard_normal(n) * 10.0 ** rng.integers(-3, 4, n)
        k, v = _to(lib, keys, values)
        fast = mctally.scatter_add(k, v, bins, method=method, backend=backend, **kw)
        out = _to(lib, np.full(bins, -1.0))[0]
        assert mctally.scatter_add(k, v, bins, method=method, backend=backend, out=out, **kw) is out
        slow = _core._scatter_add_batch("numpy", keys, values, n, key)
        for got in (fast, out):
            assert np.array_equal(_np(got).view(np.uint64), slow.view(np.uint64)), (call, method)
        if call % 2 == 0:
            assert np.array_equal(slow, np.bincount(keys, weights=values, minlength=bins))
    assert cache.hits == 7 and cache.misses == 1
    keys[7] = bins
    k, v = _to(lib, keys, values)
    with pytest.raises(mctally.MctallyError) as fast_error:
        mctally.scatter_add(k, v, bins, method=method, backend=backend, **kw)
    with pytest.raises(mctally.MctallyError) as slow_error:
        _core._scatter_add_batch("numpy", keys, values, n, key)
    assert fast_error.value.name == slow_error.value.name == "BIN_OUT_OF_RANGE"


@pytest.mark.parametrize("lib", LIBS)
def test_out(cache, rng, lib):
    keys = rng.integers(0, 20, 500)
    values = rng.integers(0, 9, 500).astype(np.float64)
    ref = np.bincount(keys, weights=values, minlength=20)
    k, v = _to(lib, keys, values)
    for method in ("atomic", "fixed"):
        same = _to(lib, np.full(20, -1.0))[0]  # float64 of the input's library: written in place
        assert mctally.scatter_add(k, v, 20, method=method, out=same) is same
        assert np.array_equal(_np(same), ref)
        f32 = np.full(20, -1.0, dtype=np.float32)  # another type (and library): filled from the result
        assert mctally.scatter_add(k, v, 20, method=method, out=f32) is f32
        assert np.array_equal(f32, ref.astype(np.float32))
    with pytest.raises(mctally.MctallyError):
        out = _to(lib, np.full(20, -1.0))[0]
        mctally.scatter_add(k, v, 10, out=out)
    assert np.all(_np(out) == -1.0)  # untouched by a call that fails


def test_threads(cache, rng):
    """Calls on one key from several threads at once (the C calls release the
    GIL): a tally is never shared by two calls, every result is exact, and
    the cache keeps at most one tally per key."""
    bins, per_thread, nthreads = 64, 40, 4
    inputs = [(rng.integers(0, bins, 2000).astype(np.uint32), rng.integers(-5, 5, 2000).astype(np.float64))
              for _ in range(nthreads * per_thread)]
    failures = []

    def work(t):
        for keys, values in inputs[t::nthreads]:
            got = mctally.scatter_add(keys, values, bins, method="atomic")
            if not np.array_equal(got, np.bincount(keys, weights=values, minlength=bins)):
                failures.append(t)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(nthreads)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not failures
    assert cache.keys() == [_key(bins, "atomic")]
    assert cache.hits + cache.misses == nthreads * per_thread


def test_freed_at_exit():
    """A process that ends with tallies in the cache exits cleanly: the cache
    is cleared by an atexit hook, before the interpreter and the libraries go."""
    # atexit runs its handlers last registered first: this one, registered
    # before mctally is imported, runs after the cache's.
    code = ("import atexit\n"
            "held = []\n"
            "atexit.register(lambda: print('closed' if held and held[0].closed else 'open'))\n"
            "import numpy as np, mctally\n"
            "for b in ('cpu', 'emulated'):\n"
            "    mctally.scatter_add(np.array([1, 2]), np.ones(2), 3, backend=b)\n"
            "held.append(mctally.scatter_add_cache._idle[mctally.scatter_add_cache.keys()[0]].tally)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    assert r.stdout.strip() == "closed"
