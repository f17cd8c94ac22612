# SPDX-License-Identifier: BSD-3-Clause
"""mctally.Tally and mctally.scatter_add on the host backends against the C API
(the CLI's accumulate) and exact references."""
import warnings

import numpy as np
import pytest

import mctally
from conftest import HOST_BACKENDS, accumulate_c


@pytest.mark.parametrize("backend", HOST_BACKENDS)
def test_fixed_bitwise_equal_to_c_api(tmp_path, rng, backend):
    n, bins = 20000, 97
    keys = rng.integers(0, bins, n).astype(np.uint32)
    values = rng.exponential(0.1, n) * rng.choice([-1.0, 1.0], n)
    got = mctally.scatter_add(keys, values, bins, deterministic=True, backend=backend, frac_bits=40)
    ref = accumulate_c(tmp_path, keys, values, bins, "fixed", backend, frac_bits=40)
    assert got.dtype == np.float64 and got.shape == (bins,)
    assert np.array_equal(got.view(np.uint64), ref.view(np.uint64))


def test_fixed_bitwise_equal_across_backends(rng):
    n, bins = 30000, 1000
    keys = rng.integers(0, bins, n)
    values = rng.normal(0.0, 1e3, n)
    res = [mctally.scatter_add(keys, values, bins, deterministic=True, backend=b) for b in HOST_BACKENDS]
    assert np.array_equal(res[0].view(np.uint64), res[1].view(np.uint64))
    # Against the exact sum: fixed rounds each value once, to 2^-frac_bits.
    exact = np.zeros(bins, dtype=np.longdouble)
    np.add.at(exact, keys, values.astype(np.longdouble))
    assert np.max(np.abs(res[0] - exact.astype(np.float64))) <= n * 2.0 ** -30


@pytest.mark.parametrize("backend", HOST_BACKENDS)
@pytest.mark.parametrize("method", mctally.methods())
def test_every_method_exact_on_integer_values(rng, backend, method):
    """Whole-number f64 values below 2^53 sum exactly in any order, so every
    method must give np.bincount's bits."""
    if method in ("kahan", "kahan_naive"):
        dtype = "f32"
    else:
        dtype = "f64"
    if not mctally.method_supports(method, dtype, backend):
        pytest.skip(f"{method} does not serve {dtype} on {backend}")
    n, bins = 4000, 37
    keys = rng.integers(0, bins, n).astype(np.uint32)
    values = rng.integers(-50, 50, n).astype(np.float64)
    with mctally.Tally(bins, dtype, method, backend) as t:
        assert t.method == method and t.backend == backend
        t.add(keys, values)
        t.end_batch(1)
        got = t.sums()
    ref = np.bincount(keys, weights=values, minlength=bins)
    assert np.array_equal(got, ref)


@pytest.mark.parametrize("backend", HOST_BACKENDS)
@pytest.mark.parametrize("dtype", ["i32", "u64"])
def test_integer_tallies_exact(rng, backend, dtype):
    n, bins = 5000, 64
    keys = rng.integers(0, bins, n).astype(np.int32)
    values = rng.integers(0, 1000, n)
    with mctally.Tally(bins, dtype, "atomic", backend) as t:
        t.add(keys, values)
        t.end_batch(10)
        s = t.sums()
        assert s.dtype == np.int64
        assert np.array_equal(s, np.bincount(keys, weights=values, minlength=bins).astype(np.int64))
        assert t.determinism == "bitwise"


@pytest.mark.parametrize("backend", HOST_BACKENDS)
def test_batch_statistics(rng, backend):
    bins, batches, hist = 5, 6, 100
    sums = []
    with mctally.Tally(bins, backend=backend, method="atomic") as t:
        for b in range(batches):
            keys = rng.integers(0, bins, 300)
            values = rng.integers(0, 9, 300).astype(np.float64)
            t.add(keys, values)
            t.end_batch(hist)
            sums.append(np.bincount(keys, weights=values, minlength=bins))
        mean, rel = t.results()
        assert t.batches == batches and t.histories == batches * hist
    per = np.array(sums) / hist
    ref_mean = per.mean(axis=0)
    ref_se = per.std(axis=0, ddof=1) / np.sqrt(batches)
    np.testing.assert_allclose(mean, ref_mean, rtol=1e-13)
    np.testing.assert_allclose(rel, ref_se / np.abs(ref_mean), rtol=1e-10)


@pytest.mark.parametrize("backend", HOST_BACKENDS)
def test_add_grouped(rng, backend):
    cells, width, n = 50, 3, 2000
    keys = rng.integers(0, cells, n).astype(np.uint32)
    comp = rng.integers(0, 20, (n, width)).astype(np.float64)  # (n, width), particle by particle
    with mctally.Tally(cells * width, backend=backend, width=width, method="atomic") as t:
        t.add_grouped(keys, comp.T)
        t.end_batch(1)
        got = t.sums().reshape(cells, width)
    ref = np.zeros((cells, width))
    np.add.at(ref, keys, comp)
    assert np.array_equal(got, ref)


@pytest.mark.parametrize("backend", HOST_BACKENDS)
@pytest.mark.parametrize("method", ["atomic", "fixed", "block_reduce"])
def test_int64_keys_read_in_place(rng, backend, method):
    """int64 keys go to mct_tally_add_device_keys as they are: the same sums as
    their uint32 copies, and a key outside the bins (2^32 + k and -2^32 + k,
    which 32 bits would put on bin k, among them) dropped and reported."""
    if not mctally.method_supports(method, "f64", backend):
        pytest.skip(f"{backend} does not serve {method}")
    cells, n = 40, 3000
    keys = rng.integers(0, cells, n)  # int64
    values = rng.integers(0, 50, n).astype(np.float64)
    bad = keys.copy()
    bad[::11] = np.array([-1, cells, 2**32 + 3, -(2**32) + 3, 2**62, -(2**63)])[np.arange(len(bad[::11])) % 6]
    good = np.ones(n, dtype=bool)
    good[::11] = False
    for width in (1, 3):
        vals = np.repeat(values[None, :], width, axis=0) * np.arange(1, width + 1)[:, None]
        ref = np.zeros((cells, width))
        np.add.at(ref, keys[good], vals[:, good].T)
        with mctally.Tally(cells * width, backend=backend, method=method, width=width) as t:
            if width == 1:
                t.add(keys, vals[0])
            else:
                t.add_grouped(keys, vals)
            t.end_batch(1)
            whole = t.sums()
            if width == 1:
                t.add(bad, vals[0])
            else:
                t.add_grouped(bad, vals)
            with pytest.raises(mctally.MctallyError) as e:
                t.end_batch(1)
            assert e.value.name == "BIN_OUT_OF_RANGE"
            both = t.sums()  # the two batches' sums
        full = np.zeros((cells, width))
        np.add.at(full, keys, vals.T)
        assert np.array_equal(whole.reshape(cells, width), full)
        assert np.array_equal(both.reshape(cells, width), full + ref)
    assert np.array_equal(mctally.scatter_add(keys, values, cells, backend=backend, method=method),
                          mctally.scatter_add(keys.astype(np.uint32), values, cells, backend=backend, method=method))


def test_scatter_add_dtypes_and_shapes(rng):
    keys = rng.integers(0, 10, (20, 5))  # int64, 2-d
    values = rng.integers(0, 5, (20, 5)).astype(np.float32)
    got = mctally.scatter_add(keys, values, 10, backend="cpu")
    assert np.array_equal(got, np.bincount(keys.ravel(), weights=values.ravel(), minlength=10))
    out = np.full(10, -1.0)
    assert mctally.scatter_add(keys[:, ::2], values[:, ::2], 10, out=out) is out  # strided: copied to C order
    assert np.array_equal(out, np.bincount(keys[:, ::2].ravel(), weights=values[:, ::2].ravel(), minlength=10))
    assert np.array_equal(mctally.scatter_add([1, 1, 2], [0.5, 0.5, 2.0], 3), [0.0, 1.0, 2.0])


def test_plan_and_determinism():
    with mctally.Tally(1000, determinism="bitwise", backend="cpu") as t:
        assert t.method == "fixed" and t.determinism == "bitwise"
        plan = t.plan
        assert plan["method"] == "fixed" and plan["source"] == "estimate" and plan["ranking"]
        assert all(set(r) == {"method", "admissible", "seconds_per_update", "why"} for r in plan["ranking"])
    with mctally.Tally(8, method="atomic", backend="cpu") as t:
        assert t.plan["source"] == "explicit"
        assert "atomic" in repr(t)
    assert "closed" in repr(t)
    assert t.closed


# ---- errors: Python exceptions with the C status's name -----------------------

def _status(exc_info):
    return exc_info.value.name


def test_wisdom_written_only_over_wisdom(tmp_path):
    """A wisdom path is read and written back; one that holds something else
    is refused with INVALID_VALUE before any tally exists, and left as it is."""
    wisdom = tmp_path / "w.json"
    with mctally.Tally(300, backend="cpu", wisdom=str(wisdom)) as t:
        assert t.plan["source"] == "estimate"
    assert '"mctally-wisdom"' in wisdom.read_text()
    with mctally.Tally(300, backend="cpu", wisdom=str(wisdom)) as t:
        assert t.plan["source"] == "wisdom"
    notes = tmp_path / "notes.json"
    notes.write_text('{"experiment": 12}\n')
    with pytest.raises(mctally.MctallyError) as e:
        mctally.Tally(300, backend="cpu", wisdom=str(notes))
    assert _status(e) == "INVALID_VALUE" and "other than mctally wisdom" in str(e.value)
    assert notes.read_text() == '{"experiment": 12}\n'


@pytest.mark.parametrize("backend", HOST_BACKENDS)
def test_key_out_of_range_reported_by_end_batch(backend):
    with mctally.Tally(4, backend=backend, method="atomic") as t:
        t.add(np.array([0, 4, 1], dtype=np.uint32), np.ones(3))
        with pytest.raises(mctally.MctallyError) as e:
            t.end_batch(1)
        assert _status(e) == "BIN_OUT_OF_RANGE" and e.value.status == 303
        assert np.array_equal(t.sums(), [1.0, 1.0, 0.0, 0.0])  # the batch was folded without the dropped key


@pytest.mark.parametrize("keys", [[-1], [2**31], [2**32], [2**32 + 1], [-(2**32)], [2**40], [2**63 - 1], [-(2**63)]])
def test_keys_outside_uint32_never_land_on_a_bin(keys):
    with pytest.raises(mctally.MctallyError) as e:
        mctally.scatter_add(np.array(keys, dtype=np.int64), np.ones(1), 3)
    assert _status(e) == "BIN_OUT_OF_RANGE"


@pytest.mark.parametrize("deterministic", [False, True])
def test_nan_values(deterministic):
    with pytest.raises(mctally.MctallyError) as e:
        mctally.scatter_add(np.array([1, 2]), np.array([1.0, np.nan]), 3, deterministic=deterministic, frac_bits=32)
    assert _status(e) == "NONFINITE_VALUE"


def test_bad_arguments():
    cases = [
        (lambda: mctally.scatter_add(np.array([0.5]), np.ones(1), 3), "INVALID_VALUE", "keys must be integers"),
        (lambda: mctally.scatter_add(np.array([0]), np.array(["a"]), 3), "INVALID_VALUE", "values must be real"),
        (lambda: mctally.scatter_add(np.array([0, 1]), np.ones(3), 3), "INVALID_VALUE", "differ in length"),
        (lambda: mctally.Tally(0), "INVALID_VALUE", "bins=0"),
        (lambda: mctally.Tally(4, dtype="f16"), "UNKNOWN_DTYPE", "f16"),
        (lambda: mctally.Tally(4, method="fastest"), "UNKNOWN_METHOD", "fastest"),
        (lambda: mctally.Tally(4, backend="tpu"), "UNKNOWN_BACKEND", "tpu"),
        (lambda: mctally.Tally(4, dtype="f32", method="fixed", determinism="bitwise", backend="cpu").close(),
         None, None),
        (lambda: mctally.Tally(4, method="atomic", determinism="bitwise"), "UNSATISFIABLE", "atomic"),
        (lambda: mctally.Tally(4, method="shared", backend="cpu"), "NOT_SUPPORTED", "cannot serve"),
        (lambda: mctally.scatter_add(np.array([0]), np.ones(1), 3, method="atomic", deterministic=True),
         "UNSATISFIABLE", "fixed"),
        (lambda: mctally.Tally(4, method="fixed", frac_bits=2.5), "INVALID_VALUE", "frac_bits must be an integer"),
        (lambda: mctally.Tally(4, method="fixed", frac_bits=True), "INVALID_VALUE", "frac_bits must be an integer"),
        (lambda: mctally.Tally(4, method="fixed", frac_bits=1023), "INVALID_VALUE", "-960 .. 1022"),
        (lambda: mctally.Tally(4, method="fixed", frac_bits=-961), "INVALID_VALUE", "-960 .. 1022"),
        (lambda: mctally.Tally(4, method="fixed", frac_bits=2**40), "INVALID_VALUE", "-960 .. 1022"),
        (lambda: mctally.Tally(4, backend="cpu").end_batch(2.5), "INVALID_VALUE", "whole number"),
        (lambda: mctally.Tally(4, backend="cpu").end_batch(float("inf")), "INVALID_VALUE", "whole number"),
        (lambda: mctally.Tally(4, backend="cpu").end_batch("3"), "INVALID_VALUE", "whole number"),
        (lambda: mctally.Tally(4, backend="cpu").end_batch(2**63), "INVALID_VALUE", "below 2^63"),
        # Integers past the C types are refused by name, never a binding's TypeError or a wrap.
        (lambda: mctally.Tally(2**70, backend="cpu"), "INVALID_VALUE", "bins=1180591620717411303424"),
        (lambda: mctally.scatter_add(np.array([0]), np.ones(1), 2**70), "INVALID_VALUE", "bins="),
        (lambda: mctally.Tally(4, backend="cpu", device=2**40), "INVALID_VALUE", "device="),
        (lambda: mctally.Tally(4, backend="cpu", width=2**40), "INVALID_VALUE", "width="),
        (lambda: mctally.Tally(4, backend="cpu", width=2.5), "INVALID_VALUE", "width must be an integer"),
        (lambda: mctally.Tally(4, backend="cpu", method="sort_reduce", pair_capacity=2**70), "INVALID_VALUE",
         "pair_capacity="),
        (lambda: mctally.Tally(4, backend="cpu", key_sample=[-1, 2]), "INVALID_VALUE", "[0, 2^32)"),
        (lambda: mctally.Tally(4, backend="cpu", key_sample=[2**40]), "INVALID_VALUE", "[0, 2^32)"),
        (lambda: mctally.Tally(4, backend="cpu", key_sample=[0.5]), "INVALID_VALUE", "key_sample must hold integers"),
        (lambda: mctally.scatter_add(np.array([0]), np.ones(1), 3, out=np.zeros(2)), "INVALID_VALUE", "shape (3,)"),
        (lambda: mctally.scatter_add(np.array([0]), np.ones(1), 3, out=[0.0] * 3), "INVALID_VALUE", "shape (3,)"),
        (lambda: mctally.scatter_add(np.array([0]), np.ones(1), 3, out=_read_only(np.zeros(3))), "INVALID_VALUE",
         "read-only"),
    ]
    for call, name, text in cases:
        if name is None:
            call()
            continue
        with pytest.raises(mctally.MctallyError) as e:
            call()
        assert e.value.name == name, (name, str(e.value))
        assert text in str(e.value), (text, str(e.value))


def _read_only(a):
    a.setflags(write=False)
    return a


@pytest.mark.parametrize("backend", HOST_BACKENDS)
@pytest.mark.parametrize("scale", [1e-17, 1e-250, 1e25, 1e290])
def test_deterministic_at_any_magnitude(rng, backend, scale):
    """deterministic=True takes its fraction bits from the data whatever its
    magnitude (above 62 for values far below 1, below 0 for large ones), so the
    sums keep ~61 bits: within n * 2^-61 of the largest |sum| of the exact sums,
    the same bits on both host backends, nothing warned."""
    n, bins = 5000, 37
    keys = rng.integers(0, bins, n)
    values = rng.exponential(1.0, n) * rng.choice([-1.0, 1.0], n) * scale
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = mctally.scatter_add(keys, values, bins, deterministic=True, backend=backend)
        other = mctally.scatter_add(keys, values, bins, deterministic=True, backend=HOST_BACKENDS[0])
    assert np.array_equal(got.view(np.uint64), other.view(np.uint64))
    exact = np.zeros(bins, dtype=np.longdouble)
    np.add.at(exact, keys, values.astype(np.longdouble))
    bound = n * np.max(np.abs(values))  # what the fraction bits are chosen from
    assert np.max(np.abs(got - exact.astype(np.float64))) <= n * bound * 2.0 ** -60
    assert np.max(np.abs(got)) > 0.0


def _rule_bits(values):
    """scatter_add's documented scale: the most fraction bits that keep
    n * max|v| * 2^bits below 2^61."""
    import math
    bound = len(values) * float(np.max(np.abs(values)))
    return max(-960, min(1022, math.floor(62.0 - math.log2(bound)) - 1))


@pytest.mark.parametrize("backend", HOST_BACKENDS)
def test_deterministic_scale_from_the_add(rng, monkeypatch, backend):
    """deterministic=True without frac_bits: a shape's first call finds
    max|v| with a pass of its own, later calls guess the scale from their n and
    the last call's max|v| and check it with the maximum the add kept, doing
    the call again where the values call for another scale (coarser: the guess
    would overflow; finer: it would lose bits). Every result is bitwise that of
    the documented scale given at once, into a new array and into out, and bad
    values are still refused."""
    from mctally import _core
    passes = []
    real = _core._arrays.abs_max
    monkeypatch.setattr(_core._arrays, "abs_max", lambda x, lib: passes.append(1) or real(x, lib))
    bins = 53
    shape = (bins, backend, 0, "unknown")
    _core._shape_max.pop(shape, None)
    out = np.full(bins, -1.0)
    for call, (n, scale) in enumerate([(4000, 1.0), (4000, 1.0), (4000, 1e6), (4000, 3e-9), (4000, 3e-9),
                                       (900, 3e-9), (5, 2.0 ** 40)]):
        keys = rng.integers(0, bins, n)
        values = rng.exponential(1.0, n) * rng.choice([-1.0, 1.0], n) * scale
        want = mctally.scatter_add(keys, values, bins, deterministic=True, frac_bits=_rule_bits(values), backend=backend)
        got = mctally.scatter_add(keys, values, bins, deterministic=True, backend=backend)
        assert np.array_equal(got.view(np.uint64), want.view(np.uint64)), (call, n, scale)
        mctally.scatter_add(keys, values, bins, deterministic=True, backend=backend, out=out)
        assert np.array_equal(out.view(np.uint64), want.view(np.uint64)), (call, n, scale)
        assert _core._shape_max[shape] == float(np.max(np.abs(values)))
    assert len(passes) == 1  # the first call's only
    with pytest.raises(mctally.MctallyError) as e:
        mctally.scatter_add(np.array([0, 1]), np.array([np.nan, 1.0]), bins, deterministic=True, backend=backend)
    assert e.value.name == "NONFINITE_VALUE"
    with pytest.raises(mctally.MctallyError) as e:
        mctally.scatter_add(np.array([0, bins]), np.array([1.0, 1e30]), bins, deterministic=True, backend=backend)
    assert e.value.name == "BIN_OUT_OF_RANGE"
    assert len(passes) == 1


@pytest.mark.parametrize("backend", HOST_BACKENDS)
def test_tally_keeps_abs_max(rng, backend):
    """Tally.keep_abs_max / last_abs_max: each closed batch's largest |value|
    (a negative one, a dropped key's), only where asked and for fixed only."""
    with mctally.Tally(40, method="fixed", frac_bits=20, backend=backend) as t:
        t.add(np.array([1, 2]), np.array([1.0, 2.0]))
        t.end_batch(1)
        with pytest.raises(mctally.MctallyError) as e:
            t.last_abs_max
        assert e.value.name == "INVALID_STATE"
        t.keep_abs_max()
        for batch in range(3):
            keys = rng.integers(0, 40, 3000)
            values = rng.normal(0.0, 10.0 ** batch, 3000)
            t.add(keys, values)
            t.end_batch(1)
            assert t.last_abs_max == float(np.max(np.abs(values)))
        t.add(np.array([0, 40]), np.array([1.0, -7.5]))
        with pytest.raises(mctally.MctallyError):
            t.end_batch(1)
        assert t.last_abs_max == 7.5
    with mctally.Tally(40, method="atomic", backend=backend) as t:
        with pytest.raises(mctally.MctallyError) as e:
            t.keep_abs_max()
        assert e.value.name == "NOT_SUPPORTED"


@pytest.mark.parametrize("backend", HOST_BACKENDS)
def test_deterministic_scale_follows_n(rng, monkeypatch, backend):
    """A shape whose values keep their magnitude while n changes (a batch of
    another size) guesses its scale from its own n: one add per call, never
    a second, and the documented scale's bits."""
    from mctally import _core
    bins, top = 29, 3.5
    _core._shape_max.pop((bins, backend, 0, "unknown"), None)
    adds = []
    real = _core._scatter_add_cached
    monkeypatch.setattr(_core, "_scatter_add_cached", lambda *a, **k: adds.append(1) or real(*a, **k))
    for n in (1000, 3000, 777, 5000, 64, 20000):
        keys = rng.integers(0, bins, n)
        values = rng.uniform(-top, top, n)
        values[n // 2] = -top
        got = mctally.scatter_add(keys, values, bins, deterministic=True, backend=backend)
        want = mctally.scatter_add(keys, values, bins, deterministic=True, frac_bits=_rule_bits(values), backend=backend)
        assert np.array_equal(got.view(np.uint64), want.view(np.uint64)), n
    assert len(adds) == 2 * 6  # one add for each call, the frac_bits one's included


def test_deterministic_warns_when_every_value_rounds_to_zero():
    """Values too small for the finest fixed-point scale (2^-1022 units) all
    round to 0: said in a RuntimeWarning, not silently returned as zeros."""
    values = np.array([5e-324, 1e-310, -2e-320])
    with pytest.warns(RuntimeWarning, match="rounds to 0 in fixed point with 1022 fraction bits"):
        got = mctally.scatter_add(np.array([0, 1, 1]), values, 2, deterministic=True, backend="cpu")
    assert np.array_equal(got, np.zeros(2))


def test_fixed_frac_bits_outside_0_62():
    """Negative and large fraction bits are scales like any other: the same
    bits on both host backends, each value rounded once to 2^-frac_bits."""
    keys = np.array([0, 1, 1, 0])
    for bits, values in ((-20, np.array([3e9, 2.5e12, -1e7, 4.2e15])), (90, np.array([3e-20, 1.5e-21, -7e-22, 2e-24]))):
        res = [mctally.scatter_add(keys, values, 2, deterministic=True, frac_bits=bits, backend=b) for b in HOST_BACKENDS]
        assert np.array_equal(res[0].view(np.uint64), res[1].view(np.uint64))
        want = [values[0] + values[3], values[1] + values[2]]
        assert np.all(np.abs(res[0] - want) <= 2 * 2.0 ** -bits), (bits, res[0], want)
        with mctally.Tally(2, method="fixed", frac_bits=bits, backend="cpu") as t:
            assert t.frac_bits == bits


def test_closed_tally():
    t = mctally.Tally(4, backend="cpu")
    t.close()
    t.close()
    with pytest.raises(mctally.MctallyError) as e:
        t.add(np.array([0]), np.ones(1))
    assert e.value.name == "INVALID_STATE"
    with pytest.raises(mctally.MctallyError) as e:
        t.end_batch(1)
    assert e.value.name == "INVALID_STATE"


class _FakeGpuArray:
    """A __cuda_array_interface__ producer (never dereferenced: the host
    backends refuse it before any pointer is read)."""

    def __init__(self, typestr, n):
        self.__cuda_array_interface__ = {"shape": (n,), "typestr": typestr, "data": (8, False), "version": 3,
                                         "strides": None, "stream": 1}


@pytest.mark.parametrize("backend", HOST_BACKENDS)
def test_gpu_array_on_a_host_backend(backend):
    with mctally.Tally(4, backend=backend) as t:
        with pytest.raises(mctally.MctallyError) as e:
            t.add(_FakeGpuArray("<u4", 3), _FakeGpuArray("<f8", 3))
        assert e.value.name == "BACKEND_UNAVAILABLE"
        with pytest.raises(mctally.MctallyError) as e:
            t.add(_FakeGpuArray("<u4", 3), _FakeGpuArray("<f4", 3))
        assert e.value.name == "INVALID_VALUE" and "float64" in str(e.value)
