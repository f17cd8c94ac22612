# SPDX-License-Identifier: BSD-3-Clause
"""The cuda backend from PyTorch tensors and CuPy arrays: in place, on the
caller's stream. Skipped where there is no GPU, torch/cupy, or CUDA backend
(scripts/gpu_suite.sh stage python runs them)."""
import numpy as np
import pytest

import mctally
from mctally import _core
from conftest import cuda_backend_built, gpu_library

torch = gpu_library("torch")
cupy = gpu_library("cupy")
needs_cuda = pytest.mark.skipif(not cuda_backend_built(), reason="no GPU or mctally built without CUDA")


@needs_cuda
@pytest.mark.skipif(torch is None, reason="PyTorch with CUDA not installed")
class TestTorch:
    def data(self, n=100000, bins=1000, seed=3):
        g = torch.Generator(device="cuda").manual_seed(seed)
        keys = torch.randint(0, bins, (n,), device="cuda", generator=g)
        values = torch.randint(-100, 100, (n,), device="cuda", generator=g).to(torch.float64)
        return keys, values, bins

    @pytest.mark.parametrize("method", ["auto", "atomic", "block_reduce", "warp_reduce", "shared", "sort_reduce",
                                        "fixed", "replicated"])
    def test_exact_against_index_add(self, method):
        keys, values, bins = self.data()
        got = mctally.scatter_add(keys, values, bins, method=method)
        assert isinstance(got, torch.Tensor) and got.device == keys.device and got.dtype == torch.float64
        ref = torch.zeros(bins, dtype=torch.float64, device="cuda").index_add_(0, keys, values)
        assert torch.equal(got, ref)

    def test_int64_keys_in_place(self):
        """int64 tensors go in as they are: the same bits as int32 keys, and
        keys that 32 bits would wrap onto a bin reported, not added."""
        keys, values, bins = self.data()
        for method in ("atomic", "fixed", "block_reduce"):
            a = mctally.scatter_add(keys, values, bins, method=method)
            b = mctally.scatter_add(keys.to(torch.int32), values, bins, method=method)
            assert torch.equal(a, b)
        bad = keys.clone()
        bad[::7] = 2**32 + 5
        with pytest.raises(mctally.MctallyError) as e:
            mctally.scatter_add(bad, values, bins)
        assert e.value.name == "BIN_OUT_OF_RANGE"

    @pytest.mark.parametrize("scale", [1e3, 1e-17, 1e-250, 1e290])
    def test_deterministic_bitwise_equal_to_cpu(self, scale):
        """The same bits as NumPy on the CPU at any magnitude (fraction bits
        from -960 to 1022, chosen from the data)."""
        keys, _, bins = self.data()
        values = torch.randn(keys.numel(), device="cuda", dtype=torch.float64) * scale
        a = mctally.scatter_add(keys, values, bins, deterministic=True)
        b = mctally.scatter_add(keys.cpu().numpy(), values.cpu().numpy(), bins, deterministic=True)
        assert np.array_equal(a.cpu().numpy().view(np.uint64), b.view(np.uint64))
        assert float(a.abs().max()) > 0.0

    def test_on_a_side_stream_and_tally(self):
        keys, values, bins = self.data()
        s = torch.cuda.Stream()
        with torch.cuda.stream(s):
            k32 = keys.to(torch.int32)  # written on s: the tally must read it on s
            with mctally.Tally(bins, backend="cuda", method="atomic") as t:
                for _ in range(3):
                    t.add(k32, values)
                    t.end_batch(10)
                sums = t.sums()
        ref = torch.zeros(bins, dtype=torch.float64, device="cuda").index_add_(0, keys, values).cpu().numpy()
        np.testing.assert_array_equal(sums, 3 * ref)

    def test_add_grouped(self):
        keys, _, cells = self.data(n=50000, bins=200)
        comp = torch.randint(0, 9, (keys.numel(), 4), device="cuda").to(torch.float64)
        with mctally.Tally(cells * 4, backend="cuda", width=4) as t:
            t.add_grouped(keys, comp.T)
            t.end_batch(1)
            got = t.sums().reshape(cells, 4)
        ref = torch.zeros(cells, 4, dtype=torch.float64, device="cuda").index_add_(0, keys, comp).cpu().numpy()
        np.testing.assert_array_equal(got, ref)

    def test_errors(self):
        keys, values, bins = self.data(n=1000)
        with pytest.raises(mctally.MctallyError) as e:
            mctally.scatter_add(keys, values, 10)
        assert e.value.name == "BIN_OUT_OF_RANGE"
        with pytest.raises(mctally.MctallyError) as e:
            mctally.scatter_add(keys, values.masked_fill(keys == 3, float("nan")), bins)
        assert e.value.name == "NONFINITE_VALUE"
        with mctally.Tally(bins, backend="cpu") as t:
            with pytest.raises(mctally.MctallyError) as e:
                t.add(keys, values)
            assert e.value.name == "BACKEND_UNAVAILABLE"
        if torch.cuda.device_count() > 1:
            with mctally.Tally(bins, backend="cuda", device=0) as t:
                with pytest.raises(mctally.MctallyError) as e:
                    t.add(keys.to("cuda:1"), values.to("cuda:1"))
                assert e.value.name == "INVALID_VALUE" and "cuda:1" in str(e.value)

    def test_out(self):
        keys, values, bins = self.data()
        out = torch.empty(bins, dtype=torch.float64, device="cuda")
        assert mctally.scatter_add(keys, values, bins, out=out) is out
        assert torch.equal(out, torch.zeros_like(out).index_add_(0, keys, values))
        host = torch.empty(bins, dtype=torch.float32)
        assert mctally.scatter_add(keys, values, bins, out=host) is host
        assert torch.equal(host, out.float().cpu())

    @pytest.mark.parametrize("method", ["auto", "atomic", "block_reduce", "sort_reduce", "replicated", "fixed"])
    def test_cached_tally_reused_exact(self, method):
        """Calls on one cached tally, read on the GPU: each result is
        index_add_'s (whole-number values), so nothing of a call is left for
        the next, on torch's current stream whichever it is."""
        mctally.scatter_add_cache.clear()
        hits = mctally.scatter_add_cache.hits
        streams = [torch.cuda.current_stream(), torch.cuda.Stream(), torch.cuda.Stream()]
        for call, s in enumerate(streams * 2):
            with torch.cuda.stream(s):
                keys, values, bins = self.data(seed=10 + call)
                got = mctally.scatter_add(keys, values, bins, method=method)
                ref = torch.zeros(bins, dtype=torch.float64, device="cuda").index_add_(0, keys, values)
                assert torch.equal(got, ref), (method, call)
        assert mctally.scatter_add_cache.hits == hits + 5 and len(mctally.scatter_add_cache) == 1

    def test_cached_fixed_bitwise_equal_to_batch_path(self):
        """fixed read in place on the GPU: mct_tally_end_batch + mct_tally_sums's bits."""
        keys, _, bins = self.data()
        for seed in range(3):
            g = torch.Generator(device="cuda").manual_seed(seed)
            values = torch.randn(keys.numel(), device="cuda", dtype=torch.float64, generator=g) * 1e3
            got = mctally.scatter_add(keys, values, bins, deterministic=True, frac_bits=30)
            key = (bins, "f64", "fixed", "bitwise", 30, "cuda", 0, "unknown")
            ref = _core._scatter_add_batch("torch", keys.to(torch.int32), values, keys.numel(), key)
            assert torch.equal(got.view(torch.int64), ref.view(torch.int64))

    @pytest.mark.parametrize("method", ["atomic", "block_reduce", "warp_reduce", "shared", "wib", "sort_reduce",
                                        "replicated", "fixed"])
    def test_fast_path_equals_batch_path(self, method):
        """The cached call (the add and mct_tally_take_sums on torch's stream,
        into a new tensor and into out) against the batch path (a tally of its
        own, end_batch and sums through host memory): the same bits, call after
        call (whole-number values: exact for every method)."""
        mctally.scatter_add_cache.clear()
        kw = {"frac_bits": 30} if method == "fixed" else {}
        key = (1000, "f64", method, None, kw.get("frac_bits"), "cuda", 0, "unknown")
        for seed in range(3):
            keys, values, bins = self.data(seed=20 + seed)
            fast = mctally.scatter_add(keys, values, bins, method=method, **kw)
            out = torch.full((bins,), -1.0, dtype=torch.float64, device="cuda")
            assert mctally.scatter_add(keys, values, bins, method=method, out=out, **kw) is out
            slow = _core._scatter_add_batch("torch", keys.to(torch.int32), values, keys.numel(), key)
            for got in (fast, out):
                assert torch.equal(got.view(torch.int64), slow.view(torch.int64)), (method, seed)

    def test_errors_from_a_cached_tally(self):
        keys, values, bins = self.data(n=1000, bins=64)
        ref = torch.zeros(64, dtype=torch.float64, device="cuda").index_add_(0, keys, values)
        for kw in ({}, {"deterministic": True, "frac_bits": 20}):
            for bad, name in ((keys.masked_fill(keys == 5, 64), "BIN_OUT_OF_RANGE"),
                              (values.masked_fill(keys == 3, float("inf")), "NONFINITE_VALUE")):
                k, v = (bad, values) if bad.dtype != torch.float64 else (keys, bad)
                mctally.scatter_add(keys, values, 64, **kw)
                out = torch.full((64,), -1.0, dtype=torch.float64, device="cuda")
                with pytest.raises(mctally.MctallyError) as e:
                    mctally.scatter_add(k, v, 64, out=out, **kw)
                assert e.value.name == name
                assert bool((out == -1.0).all())  # untouched by a call that fails
                assert torch.equal(mctally.scatter_add(keys, values, 64, **kw), ref)


@needs_cuda
@pytest.mark.skipif(cupy is None, reason="CuPy not installed")
class TestCupy:
    def test_exact_and_stream(self):
        rs = cupy.random.RandomState(5)
        keys = rs.randint(0, 1000, 100000).astype(cupy.uint32)
        values = rs.randint(-9, 9, 100000).astype(cupy.float64)
        s = cupy.cuda.Stream(non_blocking=True)
        with s:
            got = mctally.scatter_add(keys, values, 1000)
        assert isinstance(got, cupy.ndarray)
        ref = cupy.zeros(1000)
        cupy.add.at(ref, keys, values)
        assert bool((got == ref).all())

    def test_cached_tally_reused_exact(self):
        for seed in range(3):
            rs = cupy.random.RandomState(seed)
            keys = rs.randint(0, 500, 100000).astype(cupy.int32)
            values = rs.randint(-9, 9, 100000).astype(cupy.float64)
            ref = cupy.zeros(500)
            cupy.add.at(ref, keys, values)
            for method in ("atomic", "fixed"):
                got = mctally.scatter_add(keys, values, 500, method=method)
                assert bool((got == ref).all()), (seed, method)
        with pytest.raises(mctally.MctallyError) as e:
            mctally.scatter_add(keys, values, 400)
        assert e.value.name == "BIN_OUT_OF_RANGE"

    def test_fast_path_equals_batch_path(self):
        """As TestTorch's: the cached call into a new array and into out
        against the batch path, bitwise."""
        rs = cupy.random.RandomState(7)
        keys = rs.randint(0, 300, 50000).astype(cupy.int32)
        values = rs.randint(-9, 9, 50000).astype(cupy.float64)
        for method in ("atomic", "block_reduce", "fixed"):
            fast = mctally.scatter_add(keys, values, 300, method=method)
            out = cupy.full(300, -1.0)
            assert mctally.scatter_add(keys, values, 300, method=method, out=out) is out
            key = (300, "f64", method, None, None, "cuda", 0, "unknown")
            slow = _core._scatter_add_batch("cupy", keys, values, 50000, key)
            for got in (fast, out):
                assert bool((got.view(cupy.int64) == slow.view(cupy.int64)).all()), method

    def test_deterministic(self):
        rs = cupy.random.RandomState(6)
        keys = rs.randint(0, 100, 50000)
        values = rs.standard_normal(50000)
        a = mctally.scatter_add(keys, values, 100, deterministic=True)
        b = mctally.scatter_add(cupy.asnumpy(keys), cupy.asnumpy(values), 100, deterministic=True)
        assert np.array_equal(cupy.asnumpy(a).view(np.uint64), b.view(np.uint64))
