# SPDX-License-Identifier: BSD-3-Clause
"""Tally and scatter_add over the C API (through the _mctally extension)."""
from __future__ import annotations

import math
from typing import Any, Dict, Optional, Tuple

import numpy as np

from . import _arrays
from . import _mctally as _ext

__all__ = ["MctallyError", "Tally", "scatter_add", "methods", "method_supports", "version"]


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
        frac_bits: ``fixed``: values are stored as round(v * 2^frac_bits), 0..62 (C default 32).
        width: components per key of :meth:`add_grouped` (a planning hint).
        max_rel_loss, adds_per_bin: float tallies: the largest relative rounding loss
            accepted per bin and the adds a bin takes per batch (planner needs).
        plan: ``"estimate"`` or ``"measure"``; key_sample: host keys like the ones to come
            (uint32); key_pattern: ``"uniform"``, ``"sorted"``, ``"hot"``, ``"few"``;
            wisdom: a wisdom file read before planning and written after.
        pair_capacity: ``sort_reduce``: pairs a batch may hold.

    Arrays go in without copies when they already have the C API's types
    (uint32 or int32 keys, float64 values, C order): NumPy arrays from host
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
        self._stream_obj: Any = None
        sample = None
        if key_sample is not None:
            sample = np.ascontiguousarray(np.asarray(key_sample), dtype=np.uint32).ravel()
        if not isinstance(bins, (int, np.integer)) or isinstance(bins, bool):
            raise MctallyError("INVALID_VALUE", f"bins must be an integer, got {bins!r}")
        _check(
            self._t.create(
                int(bins), dtype, method, backend, int(device),
                -1 if frac_bits is None else int(frac_bits), int(pair_capacity),
                determinism or "not_guaranteed", float(max_rel_loss), float(adds_per_bin), plan,
                sample, key_pattern, int(width), float(plan_budget_s), wisdom or "",
            ),
            f"Tally(bins={bins}, dtype={dtype!r}, method={method!r}, backend={backend!r})",
        )
        self._desc = self._t.desc()

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
    def _use_stream(self, x: Any, lib: str) -> None:
        if self.backend != "cuda":
            return
        ptr, obj = _arrays.current_stream(x, lib)
        if ptr is None:
            return
        if ptr != self._stream:
            # Work already queued on the previous stream must finish before the
            # batch is read on the new one (end_batch waits on the tally's stream only).
            if self._stream_obj is not None:
                self._stream_obj.synchronize()
            _check(self._t.set_stream(ptr), "set_stream")
            self._stream, self._stream_obj = ptr, obj

    def _add(self, keys: Any, values: Any, width: int, what: str) -> None:
        if not self._t.is_open:
            raise MctallyError("INVALID_STATE", f"{what}: the tally is closed")
        klib, vlib = _arrays.library_of(keys), _arrays.library_of(values)
        if klib == "numpy" and not isinstance(keys, np.ndarray):
            keys = np.asarray(keys)
        if vlib == "numpy" and not isinstance(values, np.ndarray):
            values = np.asarray(values)
        if klib != vlib:
            raise MctallyError("INVALID_VALUE", f"{what}: keys ({klib}) and values ({vlib}) come from different libraries")
        lib = klib
        keys = _arrays.as_keys(keys, lib, MctallyError)
        values = _arrays.as_values(values, lib, MctallyError)
        self._use_stream(keys, lib)
        if lib == "cai":
            if self.backend != "cuda":
                raise MctallyError("BACKEND_UNAVAILABLE", f"{what}: a GPU array was given to a tally on the {self.backend} backend")
            kp, n = _arrays.cai_pointer(keys, MctallyError)
            vp, nv = _arrays.cai_pointer(values, MctallyError)
            if nv != n * width:
                raise MctallyError("INVALID_VALUE", f"{what}: values must hold {width} value(s) per key ({n} keys, {nv} values)")
            _check(self._t.add_pointers(kp, vp, n, width), what)
            return
        _check(self._t.add(keys, values, width), what)

    def add(self, keys: Any, values: Any) -> None:
        """Adds ``values[i]`` into bin ``keys[i]`` for every i (same length;
        any shape, read in C order). Keys past the last bin are dropped and
        reported by :meth:`end_batch` (``BIN_OUT_OF_RANGE``)."""
        if _arrays.size_of(keys if not isinstance(keys, (list, tuple)) else np.asarray(keys),
                           _arrays.library_of(keys)) != _arrays.size_of(
                values if not isinstance(values, (list, tuple)) else np.asarray(values), _arrays.library_of(values)):
            raise MctallyError("INVALID_VALUE", "add: keys and values differ in length")
        self._add(keys, values, 1, "add")

    def add_grouped(self, keys: Any, values: Any) -> None:
        """Grouped adds (``mct_tally_add_device_grouped``): ``keys`` has n keys,
        ``values`` has shape (width, n), one row per component; bin
        ``keys[i] * width + c`` += ``values[c, i]``. Pass ``v.T`` for an
        (n, width) array ``v`` (copied into component order). Needs arrays in
        the backend's memory (GPU arrays on cuda; host arrays on cpu/emulated)."""
        lib = _arrays.library_of(values)
        if lib == "numpy" and not isinstance(values, np.ndarray):
            values = np.asarray(values)
        shape = _arrays.shape_of(values, lib)
        if len(shape) != 2:
            raise MctallyError("INVALID_VALUE", f"add_grouped: values must be 2-d (width, n), got shape {shape}")
        width, n = shape
        klib = _arrays.library_of(keys)
        nk = _arrays.size_of(keys if klib != "numpy" else np.asarray(keys), klib)
        if nk != n:
            raise MctallyError("INVALID_VALUE", f"add_grouped: values have {n} columns for {nk} keys")
        self._add(keys, values, int(width), "add_grouped")

    def flush(self) -> None:
        """Brings deferred work (sort_reduce's pass, replicas) into the bins."""
        _check(self._t.flush(), "flush")

    def end_batch(self, histories: int) -> None:
        """Closes a batch of ``histories`` histories (waits for the tally's
        stream). The batch is folded whatever it held; then a dropped key
        raises ``BIN_OUT_OF_RANGE``, a fixed-point overflow ``OVERFLOW`` and a
        NaN or infinity ``NONFINITE_VALUE``."""
        _check(self._t.end_batch(int(histories)), f"end_batch({histories})")

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


def _frac_bits_for(values: Any, lib: str, n: int) -> int:
    """The most fraction bits that keep any partial sum inside int64 with a
    factor 2 to spare, from n * max|v| >= sum |v| (order-free, so the choice is
    the same on every device and run)."""
    bound = n * _arrays.abs_max(values, lib)
    if bound == 0.0 or not math.isfinite(bound):
        return 32
    bits = math.floor(62.0 - math.log2(bound)) - 1
    return max(0, min(62, bits))


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
) -> Any:
    """``out[k] = sum of values[i] where keys[i] == k``, in one call.

    Returns a float64 array of ``bins`` elements from the input's library and
    device (NumPy in, NumPy out; CuPy in, CuPy out; torch in, torch out), or
    ``out`` filled with it. ``backend="auto"`` runs where the data lives (cuda
    for GPU arrays, cpu for host arrays). ``deterministic=True`` uses the
    ``fixed`` method: the same bits on every run, device and backend, with
    ``frac_bits`` fraction bits (default: the most that keep
    ``n * max|v| * 2^frac_bits`` below 2^61). Raises :class:`MctallyError` for a
    key >= bins (``BIN_OUT_OF_RANGE``), NaN or infinite values
    (``NONFINITE_VALUE``), a bad dtype or a GPU array on the wrong device.

    The sums are read back through the C API's batch statistics (host
    memory), so each call moves ``bins`` doubles from and back to the device.
    """
    lib = _arrays.library_of(values)
    if lib == "numpy" and not isinstance(values, np.ndarray):
        values = np.asarray(values)
    if _arrays.library_of(keys) == "numpy" and not isinstance(keys, np.ndarray):
        keys = np.asarray(keys)
    kind, ordinal = _arrays.device_of(values, lib)
    if backend == "auto":
        backend = "cuda" if kind == "cuda" else "cpu"
    if deterministic:
        if method not in ("auto", "fixed"):
            raise MctallyError("UNSATISFIABLE", f"scatter_add: deterministic=True gives method fixed, not {method!r}")
        method = "fixed"
        if frac_bits is None:
            if lib == "cai":
                raise MctallyError("INVALID_VALUE", "scatter_add: give frac_bits for __cuda_array_interface__ arrays")
            frac_bits = _frac_bits_for(_arrays.as_values(values, lib, MctallyError), lib, _arrays.size_of(values, lib))
    with Tally(bins, "f64", method, backend, "bitwise" if deterministic else None,
               device=max(ordinal, 0), frac_bits=frac_bits) as t:
        t.add(keys, values)
        t.end_batch(1)
        host = t.sums()
    if out is None:
        return _arrays.to_library(host, lib, values) if lib in ("torch", "cupy") else host
    if _arrays.library_of(out) == "torch":
        import torch

        out.copy_(torch.from_numpy(host))
    else:
        out[...] = host if _arrays.library_of(out) != "cupy" else __import__("cupy").asarray(host)
    return out
