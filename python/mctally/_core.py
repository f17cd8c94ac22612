# SPDX-License-Identifier: BSD-3-Clause
"""Tally and scatter_add over the C API (through the _mctally extension)."""
from __future__ import annotations

import atexit
import math
import threading
import warnings
from collections import OrderedDict
from typing import Any, Dict, Hashable, Optional, Tuple

import numpy as np

from . import _arrays
from . import _mctally as _ext

__all__ = ["MctallyError", "Tally", "ScatterAddCache", "scatter_add", "scatter_add_cache", "methods",
           "method_supports", "version"]


class MctallyError(RuntimeError):
    """An mctally call failed.

    Attributes:
        status: the C status code (``mct_status_t``), or -1 for a failed ``mctally.run``.
        name: the C status name without prefix (``"BIN_OUT_OF_RANGE"``, ``"INVALID_VALUE"``, ...).
        message: what went wrong, in one line.
    """

    _codes = {}

    def __init__(self, name: str, message: str, status: Optional[int] = None):
        self.name = name
        self.message = message
        self.status = status if status is not None else self._codes.get(name, -1)
        super().__init__(f"{name}: {message}")


for _code in list(range(0, 1000)):
    _n = _ext.status_name(_code)
    if _n != "UNKNOWN_STATUS":
        MctallyError._codes[_n] = _code


def _check(status: int, what: str) -> None:
    if status == 0:
        return
    msg = _ext.last_message()
    _ext.clear_message()
    detail = msg if msg else _ext.status_string(status)
    raise MctallyError(_ext.status_name(status), f"{what}: {detail}", status)


_DL_CPU, _DL_CUDA = 1, 2  # DLPack device types (kDLCPU, kDLCUDA)
_F64 = np.dtype(np.float64)


_INT32 = (-(2**31), 2**31 - 1)


def _int_arg(name: str, v: Any, lo: int = -(2**63), hi: int = 2**63 - 1) -> int:
    """An integer argument within [lo, hi]: by default the int64 the C API
    takes, whose own range checks then apply; never a bool, a float or a
    binding's TypeError."""
    if type(v) is not int and (not isinstance(v, (int, np.integer)) or isinstance(v, bool)):
        raise MctallyError("INVALID_VALUE", f"{name} must be an integer, got {v!r}")
    if not lo <= v <= hi:
        raise MctallyError("INVALID_VALUE", f"{name}={v}: expected {lo} .. {hi}")
    return int(v)


def _key_sample_arg(sample: Any) -> np.ndarray:
    """A planning sample of keys as uint32: integers in [0, 2^32), never wrapped."""
    a = np.asarray(sample)
    if a.dtype.kind not in "iu" or a.dtype == np.bool_:
        raise MctallyError("INVALID_VALUE", f"key_sample must hold integers, got {a.dtype}")
    if a.size and (int(a.min()) < 0 or int(a.max()) > 0xFFFFFFFF):
        raise MctallyError("INVALID_VALUE", "key_sample: keys must lie in [0, 2^32)")
    return np.ascontiguousarray(a, dtype=np.uint32).ravel()


def _histories_arg(histories: Any) -> int:
    """A whole number of histories: an integer, or a float that is one (1e6)."""
    h = None
    if isinstance(histories, (int, np.integer)) and not isinstance(histories, bool):
        h = int(histories)
    elif isinstance(histories, (float, np.floating)) and math.isfinite(histories) and float(histories).is_integer():
        h = int(histories)
    if h is None or not -(2**63) <= h < 2**63:
        raise MctallyError("INVALID_VALUE", f"end_batch: histories must be a whole number below 2^63, got {histories!r}")
    return h


def methods() -> Tuple[str, ...]:
    """The concrete tally methods, in the C enum's order (``mctally methods``)."""
    return tuple(_ext.method_names())


def method_supports(method: str, dtype: str = "f64", backend: str = "cuda") -> bool:
    """Whether ``method`` can tally ``dtype`` on ``backend`` (``mct_method_supports``)."""
    return bool(_ext.method_supports(method, dtype, backend))


def version() -> str:
    """Version of the C library the package runs on."""
    return _ext.version()


class Tally:
    """A tally of ``bins`` bins: contributions added from arrays, closed in
    batches, read as mean per history and relative error per bin.

    Args:
        bins: number of bins, 1 .. 2^31.
        dtype: value type of the bins: ``"i32"``, ``"u64"``, ``"f32"``, ``"f64"``.
        method: ``"auto"`` (planned: see :attr:`plan`) or one of :func:`methods`.
        backend: ``"auto"`` (CUDA when a GPU answers), ``"cpu"``, ``"cuda"``, ``"emulated"``.
        determinism: the least determinism the results must have: ``None``
            (``"not_guaranteed"``), ``"run_to_run"`` or ``"bitwise"``.
        device: CUDA device ordinal (cuda backend).
        frac_bits: ``fixed``: values are stored as round(v * 2^frac_bits), -960 .. 1022
            (C default 32; above 62 for values far below 1, below 0 for sums past 2^62).
        width: components per key of :meth:`add_grouped` (a planning hint).
        max_rel_loss, adds_per_bin: float tallies: the largest relative rounding loss
            accepted per bin and the adds a bin takes per batch (planner needs).
        plan: ``"estimate"`` or ``"measure"``; key_sample: host keys like the ones to come
            (uint32); key_pattern: ``"uniform"``, ``"sorted"``, ``"hot"``, ``"few"``;
            wisdom: a wisdom file read before planning and written after (a path
                that holds anything but mctally wisdom is refused, INVALID_VALUE).
        pair_capacity: ``sort_reduce``: pairs a batch may hold.

    Arrays go in without copies when they already have the C API's types
    (uint32, int32 or int64 keys, float64 values, C order): NumPy arrays from host
    memory, and on the cuda backend CuPy arrays and PyTorch tensors in place,
    through DLPack (or ``__cuda_array_interface__``), on the caller's current
    CUDA stream. Other dtypes are converted first by the array's own library.
    Use as a context manager, or call :meth:`close`.
    """

    def __init__(
        self,
        bins: int,
        dtype: str = "f64",
        method: str = "auto",
        backend: str = "auto",
        determinism: Optional[str] = None,
        *,
        device: int = 0,
        frac_bits: Optional[int] = None,
        width: int = 1,
        max_rel_loss: float = 0.0,
        adds_per_bin: float = 0.0,
        plan: str = "estimate",
        key_sample: Any = None,
        key_pattern: str = "unknown",
        wisdom: Optional[str] = None,
        plan_budget_s: float = 0.0,
        pair_capacity: int = 0,
    ) -> None:
        self._t = _ext.Tally()
        self._stream: Optional[int] = None
        self._sync_stream: Any = None
        sample = None
        if key_sample is not None:
            sample = _key_sample_arg(key_sample)
        bins = _int_arg("bins", bins)
        if frac_bits is not None:
            frac_bits = _int_arg("frac_bits", frac_bits, _ext.FIXED_FRAC_BITS_MIN, _ext.FIXED_FRAC_BITS_MAX)
        _check(
            self._t.create(
                bins, dtype, method, backend, _int_arg("device", device, *_INT32),
                frac_bits, _int_arg("pair_capacity", pair_capacity),
                determinism or "not_guaranteed", float(max_rel_loss), float(adds_per_bin), plan,
                sample, key_pattern, _int_arg("width", width, *_INT32), float(plan_budget_s), wisdom or "",
            ),
            f"Tally(bins={bins}, dtype={dtype!r}, method={method!r}, backend={backend!r})",
        )
        self._desc = self._t.desc()
        self._cuda = self._desc[3] == "cuda"

    # -- description ---------------------------------------------------------
    @property
    def bins(self) -> int:
        """Number of bins."""
        return self._desc[0]

    @property
    def dtype(self) -> str:
        """Value type of the bins (``"f64"``, ...)."""
        return self._desc[1]

    @property
    def method(self) -> str:
        """The concrete method (``"auto"`` is resolved when the tally is created)."""
        return self._desc[2]

    @property
    def backend(self) -> str:
        """The resolved backend: ``"cpu"``, ``"cuda"`` or ``"emulated"``."""
        return self._desc[3]

    @property
    def frac_bits(self) -> int:
        """``fixed``: fraction bits of the stored values."""
        return self._desc[5]

    @property
    def device_name(self) -> str:
        """The device's name ("NVIDIA H100 80GB HBM3", "CPU (4 OpenMP threads)", ...)."""
        return self._t.device_name()

    @property
    def determinism(self) -> str:
        """What the results promise as the tally has been used: ``"not_guaranteed"``,
        ``"run_to_run"`` or ``"bitwise"`` (``mct_tally_determinism``)."""
        return self._t.determinism()

    @property
    def plan(self) -> Dict[str, Any]:
        """The planner's account (``mct_tally_plan_info``): method, source, mode,
        backend, key pattern, reason, seconds and the ranking of the methods."""
        return self._t.plan_info()

    @property
    def batches(self) -> int:
        """Batches closed so far."""
        return self._t.counts()[0]

    @property
    def histories(self) -> int:
        """Histories over the closed batches."""
        return self._t.counts()[1]

    # -- adding ----------------------------------------------------------------
    def _use_stream(self, x: Any, lib: str, dev: int, what: str) -> None:
        """Runs the tally on the caller's current stream for x (cuda backend)."""
        ptr = _arrays.stream_of(x, lib, dev)
        if ptr == self._stream:
            return
        # Work already queued on the previous stream must finish before the
        # batch is read on the new one (end_batch waits on the tally's stream only).
        if self._sync_stream is not None:
            self._sync_stream()
        _check(self._t.set_stream(ptr), what)
        self._stream, self._sync_stream = ptr, _arrays.stream_synchronizer(x, lib)

    def _submit(self, lib: str, keys: Any, values: Any, n: int, width: int, dev: Optional[int], what: str) -> None:
        """Adds arrays that _arrays.prepare has put in the C API's types; dev
        is prepare's (None: host memory, else the CUDA ordinal)."""
        if lib == "numpy":
            st = self._t.add(keys, values, width)
        elif lib == "cai":
            if self._cuda:
                self._use_stream(keys, lib, dev, what)
            kp, _ = _arrays.cai_pointer(keys, MctallyError)
            vp, nv = _arrays.cai_pointer(values, MctallyError)
            if nv != n * width:
                raise MctallyError("INVALID_VALUE", f"{what}: values must hold {width} value(s) per key ({n} keys, {nv} values)")
            st = self._t.add_pointers(kp, vp, n, width, _DL_CUDA, -1, _arrays.keys64(keys, lib))
        elif dev is None:  # PyTorch CPU tensors: by pointer, as on the GPU
            st = self._t.add_pointers(keys.data_ptr(), values.data_ptr(), n, width, _DL_CPU, 0,
                                      _arrays.keys64(keys, lib))
        else:
            # By pointer (no DLPack export per call): the dtype and layout are
            # prepare's; the device rules are the extension's (check_device).
            if self._cuda:
                self._use_stream(keys, lib, dev, what)
            st = self._t.add_pointers(_arrays.pointer(keys, lib), _arrays.pointer(values, lib), n, width, _DL_CUDA, dev,
                                      _arrays.keys64(keys, lib))
        if st:
            _check(st, what)

    def add(self, keys: Any, values: Any) -> None:
        """Adds ``values[i]`` into bin ``keys[i]`` for every i (same length;
        any shape, read in C order). Keys past the last bin are dropped and
        reported by :meth:`end_batch` (``BIN_OUT_OF_RANGE``)."""
        lib, keys, values, n, dev = _arrays.prepare(keys, values, 1, MctallyError, "add")
        self._submit(lib, keys, values, n, 1, dev, "add")

    def add_grouped(self, keys: Any, values: Any) -> None:
        """Grouped adds (``mct_tally_add_device_grouped``): ``keys`` has n keys,
        ``values`` has shape (width, n), one row per component; bin
        ``keys[i] * width + c`` += ``values[c, i]``. Pass ``v.T`` for an
        (n, width) array ``v`` (copied into component order). Needs arrays in
        the backend's memory (GPU arrays on cuda; host arrays on cpu/emulated)."""
        if not self._t.is_open:
            raise MctallyError("INVALID_STATE", "add_grouped: the tally is closed")
        lib = _arrays.library_of(values)
        if lib == "numpy" and not isinstance(values, np.ndarray):
            values = np.asarray(values)
        shape = _arrays.shape_of(values, lib)
        if len(shape) != 2:
            raise MctallyError("INVALID_VALUE", f"add_grouped: values must be 2-d (width, n), got shape {shape}")
        width, n = shape
        lib, keys, values, nk, dev = _arrays.prepare(keys, values, int(width), MctallyError, "add_grouped")
        if nk != n:
            raise MctallyError("INVALID_VALUE", f"add_grouped: values have {n} columns for {nk} keys")
        self._submit(lib, keys, values, nk, int(width), dev, "add_grouped")

    def flush(self) -> None:
        """Brings deferred work (sort_reduce's pass, replicas) into the bins."""
        _check(self._t.flush(), "flush")

    def end_batch(self, histories: int) -> None:
        """Closes a batch of ``histories`` histories (waits for the tally's
        stream). The batch is folded whatever it held; then a dropped key
        raises ``BIN_OUT_OF_RANGE``, a fixed-point overflow ``OVERFLOW`` and a
        NaN or infinity ``NONFINITE_VALUE``."""
        _check(self._t.end_batch(_histories_arg(histories)), f"end_batch({histories})")

    def keep_abs_max(self) -> None:
        """A ``fixed`` tally: keep each batch's largest ``|value|`` from the
        adds made from now on (``last_abs_max``); the adds then cost a few per
        cent more. Raises ``NOT_SUPPORTED`` for other methods."""
        _check(self._t.enable_abs_max(), "keep_abs_max")

    @property
    def last_abs_max(self) -> float:
        """The largest ``|value|`` added in the last batch closed
        (``end_batch``), for a tally that keeps it (``keep_abs_max``): every
        value given counts, those of keys past the bins too; NaN when one was
        NaN. Raises ``INVALID_STATE`` before such a batch."""
        st, m = self._t.last_abs_max()
        _check(st, "last_abs_max")
        return m

    # -- results -----------------------------------------------------------------
    def results(self) -> Tuple[np.ndarray, np.ndarray]:
        """(mean per history, relative standard error) per bin, as float64 NumPy
        arrays (NaN relative errors with fewer than 2 batches)."""
        mean = np.empty(self.bins, dtype=np.float64)
        rel = np.empty(self.bins, dtype=np.float64)
        _check(self._t.results(mean, rel), "results")
        return mean, rel

    def sums(self) -> np.ndarray:
        """Raw per-bin sums over all batches: int64 (exact) for integer tallies,
        float64 otherwise."""
        if self.dtype in ("i32", "u64"):
            out = np.empty(self.bins, dtype=np.int64)
            _check(self._t.sums_i64(out), "sums")
            return out
        out = np.empty(self.bins, dtype=np.float64)
        _check(self._t.sums(out), "sums")
        return out

    # -- lifetime ------------------------------------------------------------------
    def close(self) -> None:
        """Frees the tally (its device memory too); idempotent."""
        self._t.close()

    @property
    def closed(self) -> bool:
        return not self._t.is_open

    def __enter__(self) -> "Tally":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        if self.closed:
            return "<mctally.Tally closed>"
        return (f"<mctally.Tally bins={self.bins} dtype={self.dtype} method={self.method} "
                f"backend={self.backend} batches={self.batches}>")


def _frac_bits_rule(top: float, n: int) -> int:
    """The most fraction bits that keep any partial sum inside int64 with a
    factor 2 to spare, from n * max|v| >= sum |v| (order-free, so the choice is
    the same on every device and run), whatever the values' magnitude; 32
    where the bound is 0 or not finite (the add then flags the values)."""
    bound = n * top
    if bound == 0.0 or not math.isfinite(bound):
        return 32
    lo, hi = _ext.FIXED_FRAC_BITS_MIN, _ext.FIXED_FRAC_BITS_MAX
    return max(lo, min(hi, math.floor(62.0 - math.log2(bound)) - 1))


def _warn_if_zero(top: float, bits: int, stacklevel: int) -> None:
    """Values that round to 0 even at the chosen scale (every |v| at most half
    a unit) are said in a RuntimeWarning, not silently summed to 0."""
    if math.isfinite(top) and top > 0.0 and math.ldexp(top, bits) <= 0.5:
        warnings.warn(f"scatter_add(deterministic=True): every value is at most {top:g} and rounds to 0 in fixed "
                      f"point with {bits} fraction bits; use a float method to keep them", RuntimeWarning,
                      stacklevel=stacklevel)


def _frac_bits_for(values: Any, lib: str, n: int) -> Tuple[int, float]:
    """(_frac_bits_rule, max|v|) from a pass over the values (max|v| read back)."""
    top = _arrays.abs_max(values, lib)
    bits = _frac_bits_rule(top, n)
    _warn_if_zero(top, bits, 4)
    return bits, top


#: deterministic=True without frac_bits: max|v| of the last call of each shape
#: (bins, backend, device, key_pattern), from which the next call guesses its
#: scale with its own n (see scatter_add). At most _SHAPES_KEPT shapes, the
#: oldest forgotten first.
_shape_max: "OrderedDict[Hashable, float]" = OrderedDict()
_SHAPES_KEPT = 64


def _remember_max(shape: Hashable, top: float) -> None:
    _shape_max[shape] = top
    while len(_shape_max) > _SHAPES_KEPT:
        try:
            _shape_max.popitem(last=False)
        except KeyError:  # emptied by another thread
            break


# ---- scatter_add: tallies kept between calls, read on the device ---------------

#: The statuses mct_tally_take_sums gives for a bad batch: the tally is clean
#: again (bins and flags zeroed) and goes back to the cache.
_BATCH_STATUSES = frozenset(MctallyError._codes[k] for k in ("BIN_OUT_OF_RANGE", "OVERFLOW", "NONFINITE_VALUE"))
_OVERFLOW = MctallyError._codes["OVERFLOW"]


class _Cached:
    """A tally of scatter_add's (``tally``) and its extension object (``ext``),
    looked up once. Between calls its bins and flags are zero."""

    __slots__ = ("tally", "ext")

    def __init__(self, tally: Tally) -> None:
        self.tally = tally
        self.ext = tally._t

    def close(self) -> None:
        self.tally.close()


class ScatterAddCache:
    """The tallies :func:`scatter_add` keeps between calls, as PyTorch keeps
    cuFFT plans: creating a tally (allocation, zeroing, planning ``auto``)
    costs far more than a small scatter-add, so a call takes the idle tally
    made for the same (bins, dtype, method, determinism, frac_bits, backend,
    device, key_pattern) and gives it back when done. ``auto`` is planned
    once per key, from the key's fields (scatter_add gives the planner no key
    sample). Bounded: at most :attr:`max_size` idle tallies, the least
    recently used freed first; a call that finds the tally of its key in use
    (another thread) makes its own and frees it if the key is filled again
    meanwhile. An idle tally holds its storage on its device: 8 bytes per
    bin, plus ``sort_reduce``'s pair buffer and ``replicated``'s replicas.
    Thread-safe; freed at interpreter exit. The module's one instance is
    ``mctally.scatter_add_cache``.

    Attributes:
        hits, misses: calls that found an idle tally of their key, and calls that made one.
    """

    # A tally is handed out by one atomic OrderedDict.pop (a call of the C
    # dict, under the GIL or, free-threaded, the dict's own lock), so two
    # calls never share one; the steps that read and change the dict in
    # several operations (giving back, trimming, clearing) hold the lock, and
    # remove entries with popitem only, so that an entry is taken out once.

    def __init__(self, max_size: int = 8) -> None:
        self._lock = threading.Lock()
        self._idle: "OrderedDict[Hashable, _Cached]" = OrderedDict()
        self._max_size = self._size_arg(max_size)
        self.hits = 0
        self.misses = 0

    @staticmethod
    def _size_arg(n: Any) -> int:
        if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or n < 0:
            raise MctallyError("INVALID_VALUE", f"max_size must be an integer >= 0, got {n!r}")
        return int(n)

    @property
    def max_size(self) -> int:
        """The most idle tallies kept (0: none; each call then makes and frees its own)."""
        return self._max_size

    @max_size.setter
    def max_size(self, n: int) -> None:
        n = self._size_arg(n)
        with self._lock:
            self._max_size = n
            evicted = self._trim()
        for e in evicted:
            e.close()

    def __len__(self) -> int:
        return len(self._idle)

    def keys(self) -> list:
        """The keys of the idle tallies, least recently used first: tuples
        (bins, dtype, method, determinism, frac_bits, backend, device, key_pattern)."""
        with self._lock:
            return list(self._idle)

    def plans(self) -> Dict[Hashable, str]:
        """{key: the method its idle tally runs}: for ``auto``, the planner's choice."""
        with self._lock:
            return {k: e.tally.method for k, e in self._idle.items()}

    def clear(self) -> None:
        """Frees every idle tally (tallies in use are freed or kept when their call ends)."""
        evicted = []
        with self._lock:
            while self._idle:
                try:
                    evicted.append(self._idle.popitem()[1])
                except KeyError:  # taken meanwhile
                    break
        for e in evicted:
            e.close()

    def _take(self, key: Hashable) -> Optional[_Cached]:
        return self._idle.pop(key, None)

    def _give(self, key: Hashable, e: Optional[_Cached], hit: bool) -> None:
        """Counts the call and keeps its tally e (None: the call failed and
        freed it), unless the key is idle already or nothing is kept."""
        with self._lock:
            if hit:
                self.hits += 1
            else:
                self.misses += 1
            if e is None:
                return
            if self._max_size > 0 and key not in self._idle:
                self._idle[key] = e
                if len(self._idle) <= self._max_size:
                    return
                evicted = self._trim()
            else:
                evicted = [e]
        for x in evicted:
            x.close()

    def _trim(self) -> list:
        out = []
        while len(self._idle) > self._max_size:
            try:
                out.append(self._idle.popitem(last=False)[1])
            except KeyError:  # taken meanwhile
                break
        return out

    def __repr__(self) -> str:
        return (f"<mctally.ScatterAddCache {len(self._idle)} idle of max_size={self._max_size}, "
                f"hits={self.hits} misses={self.misses}>")


#: The tallies scatter_add reuses (see ScatterAddCache).
scatter_add_cache = ScatterAddCache()
atexit.register(scatter_add_cache.clear)


def _result_array(lib: str, out: Any, bins: int, values: Any, dev: Optional[int]) -> Any:
    """Where a cached call writes its sums: ``out`` when it is already a
    C-contiguous float64 array of ``bins`` elements of the input's library on
    the input's device, else a new array there (that out is then filled from)."""
    if lib == "numpy":
        if out is None or not (type(out) is np.ndarray and out.dtype is _F64 and out.shape == (bins,)
                               and out.flags.c_contiguous and out.flags.writeable):
            return np.empty(bins)
        return out
    if lib == "torch":
        if out is None:
            return values.new_empty(bins)  # float64 on the values' device, on the current stream
        torch = _arrays.torch_info().torch
        if (isinstance(out, torch.Tensor) and out.dtype is torch.float64 and out.shape == (bins,)
                and out.is_contiguous() and not out.requires_grad and out.device == values.device):
            return out
        return values.new_empty(bins)
    cupy = _arrays.cupy_info().cupy
    if (isinstance(out, cupy.ndarray) and out.dtype is _F64 and out.shape == (bins,) and out.flags.c_contiguous
            and out.device.id == dev):
        return out
    if cupy.cuda.runtime.getDevice() == dev:
        return cupy.empty(bins)
    with cupy.cuda.Device(dev):
        return cupy.empty(bins)


def _scatter_add_cached(lib: str, keys: Any, values: Any, n: int, dev: Optional[int], out: Any, key: Tuple,
                        scale_check: bool = False) -> Any:
    """One call on the cached tally of `key`: one extension call adds the
    arrays and takes the batch's sums into the result (mct_tally_take_sums: the
    bins checked and read where they are, the flag word read once, the bins
    zeroed for the next call). scale_check (a fixed tally whose scale was
    guessed): returns (result, max|v| of the batch, status) instead, raising
    only for what no scale changes (keys past the bins, values not finite, a
    failed add)."""
    cache = scatter_add_cache
    e = cache._idle.pop(key, None)  # ScatterAddCache._take, inline: one atomic pop
    hit = e is not None
    if not hit:
        bins, dtype, method, det, frac_bits, backend, device, pattern = key
        e = _Cached(Tally(bins, dtype, method, backend, det, device=device, frac_bits=frac_bits, key_pattern=pattern))
    try:
        if scale_check:
            _check(e.ext.enable_abs_max(), "scatter_add")  # once a tally; then a no-op
        if out is None and lib == "torch":
            res = values.new_empty(key[0])  # float64 on the values' device, on the current stream
        else:
            res = _result_array(lib, out, key[0], values, dev)
        if lib == "numpy":
            st = e.ext.add_take(keys, values, res)
        elif dev is None:  # PyTorch CPU tensors
            st = e.ext.add_take_pointers(keys.data_ptr(), values.data_ptr(), n, _DL_CPU, 0, res.data_ptr(),
                                         _arrays.keys64(keys, lib))
        else:  # GPU arrays on the cuda backend, on the caller's stream
            e.tally._use_stream(keys, lib, dev, "scatter_add")
            if lib == "torch":
                st = e.ext.add_take_pointers(keys.data_ptr(), values.data_ptr(), n, _DL_CUDA, dev, res.data_ptr(),
                                             _arrays.keys64(keys, lib))
            else:
                st = e.ext.add_take_pointers(keys.data.ptr, values.data.ptr, n, _DL_CUDA, dev, res.data.ptr,
                                             _arrays.keys64(keys, lib))
    except BaseException:
        e.close()
        cache._give(key, None, hit)
        raise
    if st and st not in _BATCH_STATUSES:
        # The add failed: the bins may hold part of this call, the tally is not reused.
        e.close()
        cache._give(key, None, hit)
        _check(st, "scatter_add")
    ms, top = e.ext.last_abs_max() if scale_check else (0, 0.0)
    cache._give(key, e, hit)
    _check(ms, "scatter_add")
    if scale_check and st in (0, _OVERFLOW):
        return res, top, st
    if st:
        _check(st, "scatter_add")
    return res


def _scatter_add_batch(lib: str, keys: Any, values: Any, n: int, key: Tuple) -> Any:
    """scatter_add through a tally of its own and the C API's batch statistics
    (mct_tally_end_batch, mct_tally_sums; host memory): for the inputs whose
    memory is not the tally's (host arrays with backend="cuda", GPU arrays on a
    host backend) and bare __cuda_array_interface__ objects, whose library
    cannot hold the result."""
    bins, dtype, method, det, frac_bits, backend, device, pattern = key
    with Tally(bins, dtype, method, backend, det, device=device, frac_bits=frac_bits, key_pattern=pattern) as t:
        t._submit(lib, keys, values, n, 1, _arrays.device_of(values, lib), "scatter_add")
        t.end_batch(1)
        host = t.sums()
    return _arrays.to_library(host, lib, values) if lib in ("torch", "cupy") else host


def _check_out(out: Any, bins: int) -> None:
    """scatter_add's out, before any work: an array of bins elements that can be written."""
    shape = getattr(out, "shape", None)
    if shape is None or tuple(shape) != (bins,):
        raise MctallyError("INVALID_VALUE", f"scatter_add: out must be an array of shape ({bins},), got "
                                            f"{'shape ' + str(tuple(shape)) if shape is not None else type(out).__name__}")
    if isinstance(out, np.ndarray) and not out.flags.writeable:
        raise MctallyError("INVALID_VALUE", "scatter_add: out is read-only")


def _fill_out(out: Any, res: Any, lib: str) -> None:
    """out[...] = res across libraries and devices."""
    olib = _arrays.library_of(out)
    if olib == "torch":
        torch = _arrays.torch_info().torch
        out.copy_(res if lib == "torch" else torch.as_tensor(res))
    elif olib == "cupy":
        import cupy

        out[...] = cupy.asarray(res.numpy() if lib == "torch" and not res.is_cuda else res)
    else:
        out[...] = _arrays.to_numpy(res, lib)


def scatter_add(
    keys: Any,
    values: Any,
    bins: int,
    method: str = "auto",
    out: Any = None,
    deterministic: bool = False,
    *,
    backend: str = "auto",
    frac_bits: Optional[int] = None,
    key_pattern: str = "unknown",
) -> Any:
    """``out[k] = sum of values[i] where keys[i] == k``, in one call.

    Returns a float64 array of ``bins`` elements from the input's library and
    device (NumPy in, NumPy out; CuPy in, CuPy out; torch in, torch out), or
    ``out`` filled with it. ``backend="auto"`` runs where the data lives (cuda
    for GPU arrays, cpu for host arrays). ``deterministic=True`` uses the
    ``fixed`` method: the same bits on every run, device and backend, with
    ``frac_bits`` fraction bits (default: the most that keep
    ``n * max|v| * 2^frac_bits`` below 2^61). ``key_pattern`` (``"uniform"``,
    ``"sorted"``, ``"hot"``, ``"few"``) tells ``auto``'s planner the keys'
    shape; ``"unknown"`` plans for the worst. Raises :class:`MctallyError` for a
    key >= bins (``BIN_OUT_OF_RANGE``), NaN or infinite values
    (``NONFINITE_VALUE``), a bad dtype or a GPU array on the wrong device.

    The tally is kept for the next call of the same shape
    (:data:`scatter_add_cache`), and a call on it is one call of the C API's
    adds and ``mct_tally_take_sums``, which checks the batch, writes its sums
    into the result where the tally keeps them (a new array of the input's
    library, or ``out`` when it is one already) and zeroes the bins, on the
    caller's stream: no batch statistics, no trip through host memory, one
    read of the batch's flag word. The one exception: arrays whose memory is
    not the tally's (host arrays with ``backend="cuda"``, bare
    ``__cuda_array_interface__`` objects) go through a tally of their own and
    the C API's batch statistics. ``deterministic=True`` without ``frac_bits``
    finds ``max|values|`` with a pass of its own on the first call of a shape;
    later calls add at the scale of their own n and the shape's last
    ``max|values|`` and read the maximum the add itself kept
    (``mct_tally_last_abs_max``, read with the flag word), doing the call again
    only when the values call for another scale: the result is always that of
    the documented scale.
    """
    lib, keys, values, n, dev = _arrays.prepare(keys, values, 1, MctallyError, "scatter_add")
    if type(bins) is not int:
        bins = _int_arg("bins", bins)
    if backend == "auto":
        backend = "cpu" if dev is None else "cuda"
    if out is not None:
        _check_out(out, bins)
    det = None
    cached = lib != "cai" and (backend == "cuda") == (dev is not None)
    device = dev if dev is not None and dev > 0 else 0
    guessed = False
    if deterministic:
        if method not in ("auto", "fixed"):
            raise MctallyError("UNSATISFIABLE", f"scatter_add: deterministic=True gives method fixed, not {method!r}")
        method, det = "fixed", "bitwise"
        if frac_bits is None:
            if lib == "cai":
                raise MctallyError("INVALID_VALUE", "scatter_add: give frac_bits for __cuda_array_interface__ arrays")
            shape = (bins, backend, device, key_pattern)
            last = _shape_max.get(shape) if cached else None
            guessed = last is not None
            if guessed:
                frac_bits = _frac_bits_rule(last, n)
            else:
                frac_bits, top = _frac_bits_for(values, lib, n)
                if cached:
                    _remember_max(shape, top)
    key = (bins, "f64", method, det, frac_bits, backend, device, key_pattern)
    if not cached:
        res = _scatter_add_batch(lib, keys, values, n, key)
    elif guessed:
        # The scale of this call's n and the shape's last max|v|, checked
        # against the maximum the add itself read: where the values call for
        # another, the batch is done again at that scale (the same bits as
        # with it given at once).
        res, top, st = _scatter_add_cached(lib, keys, values, n, dev, out, key, scale_check=True)
        _remember_max(shape, top)
        want = _frac_bits_rule(top, n)
        if want != frac_bits:
            key = (bins, "f64", method, det, want, backend, device, key_pattern)
            res = _scatter_add_cached(lib, keys, values, n, dev, res, key)
        elif st:
            _check(st, "scatter_add")
        _warn_if_zero(top, want, 3)
        if res is out:
            return out
    else:
        res = _scatter_add_cached(lib, keys, values, n, dev, out, key)
        if res is out:
            return out
    if out is None:
        return res
    _fill_out(out, res, lib)
    return out
