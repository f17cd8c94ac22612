# SPDX-License-Identifier: BSD-3-Clause
"""Array adapters: which library an array belongs to, its device and stream,
and the dtype/layout conversions the C API needs, done by the array's own
library and only when needed (uint32/int32 keys and float64 values in C order
pass through untouched)."""
from __future__ import annotations

from typing import Any, Optional, Tuple

import numpy as np

#: int32 keys are passed as their bits: a negative key reads as >= 2^31, past
#: the last bin of any tally (bins <= 2^31), so it is reported as out of range.
_KEY_DTYPES = ("uint32", "int32")


def library_of(x: Any) -> str:
    """'numpy', 'torch', 'cupy', or 'cai' (another __cuda_array_interface__ producer)."""
    mod = type(x).__module__.split(".", 1)[0]
    if mod == "torch":
        return "torch"
    if mod == "cupy":
        return "cupy"
    if isinstance(x, np.ndarray):
        return "numpy"
    if hasattr(x, "__cuda_array_interface__") and not hasattr(x, "__dlpack__"):
        return "cai"
    return "numpy"


def device_of(x: Any, lib: str) -> Tuple[str, int]:
    """('cpu', 0) or ('cuda', ordinal)."""
    if lib == "torch":
        return ("cuda", x.device.index or 0) if x.is_cuda else ("cpu", 0)
    if lib == "cupy":
        return ("cuda", int(x.device.id))
    if lib == "cai":
        return ("cuda", -1)  # the interface does not say; the library checks the pointer on use
    return ("cpu", 0)


def current_stream(x: Any, lib: str) -> Tuple[Optional[int], Any]:
    """The caller's current CUDA stream for x's device, as (cudaStream_t, stream object)."""
    if lib == "torch" and x.is_cuda:
        import torch

        s = torch.cuda.current_stream(x.device)
        return int(s.cuda_stream), s
    if lib == "cupy":
        import cupy

        with cupy.cuda.Device(x.device.id):
            s = cupy.cuda.get_current_stream()
        return int(s.ptr), s
    if lib == "cai":
        st = x.__cuda_array_interface__.get("stream")
        return (int(st) if st is not None else 1), None  # 1: the legacy default stream (CAI v3)
    return None, None


def _dtype_name(x: Any, lib: str) -> str:
    if lib == "torch":
        return str(x.dtype).replace("torch.", "")
    if lib == "cai":
        return np.dtype(x.__cuda_array_interface__["typestr"]).name
    return np.dtype(x.dtype).name


def _is_int(name: str) -> bool:
    return name.startswith("int") or name.startswith("uint") or name == "bool"


def _is_float(name: str) -> bool:
    return name in ("float16", "bfloat16", "float32", "float64") or _is_int(name)


def as_keys(x: Any, lib: str, err) -> Any:
    """Keys as uint32 or int32 in C order. Other integer types are converted by
    x's own library, with keys outside 0 .. 2^31 - 1 mapped to 2^31 or 2^32 - 1,
    which every tally reports as out of range (never onto a valid bin)."""
    name = _dtype_name(x, lib)
    if not _is_int(name) or name == "bool":
        raise err("INVALID_VALUE", f"keys must be integers (uint32 or int32 pass without a copy), got {name}")
    if lib == "cai":
        if name not in _KEY_DTYPES:
            raise err("INVALID_VALUE", f"__cuda_array_interface__ keys must be uint32 or int32, got {name}")
        return x
    if lib == "torch":
        import torch

        if name not in _KEY_DTYPES:
            x = x.clamp(-1, 2**31).to(torch.int32) if name != "uint8" else x.to(torch.int32)
        return x.contiguous()
    xp = np if lib == "numpy" else __import__("cupy")
    if name not in _KEY_DTYPES:
        lo = -1 if name.startswith("int") else 0
        x = xp.clip(x, lo, 2**31).astype(xp.int32) if np.dtype(name).itemsize >= 4 else x.astype(xp.int32)
    return xp.ascontiguousarray(x)


def as_values(x: Any, lib: str, err) -> Any:
    """Values as float64 in C order, converted by x's own library when needed."""
    name = _dtype_name(x, lib)
    if not _is_float(name):
        raise err("INVALID_VALUE", f"values must be real numbers (float64 passes without a copy), got {name}")
    if lib == "cai":
        if name != "float64":
            raise err("INVALID_VALUE", f"__cuda_array_interface__ values must be float64, got {name}")
        return x
    if lib == "torch":
        import torch

        return x.to(torch.float64).contiguous()
    xp = np if lib == "numpy" else __import__("cupy")
    return xp.ascontiguousarray(x, dtype=xp.float64)


def cai_pointer(x: Any, err) -> Tuple[int, int]:
    """(pointer, element count) of a C-contiguous __cuda_array_interface__ array."""
    cai = x.__cuda_array_interface__
    shape = tuple(cai["shape"])
    n = int(np.prod(shape)) if shape else 1
    strides = cai.get("strides")
    if strides is not None:
        itemsize = np.dtype(cai["typestr"]).itemsize
        expect = itemsize
        for dim, st in zip(reversed(shape), reversed(strides)):
            if dim != 1 and st != expect:
                raise err("INVALID_VALUE", "__cuda_array_interface__ arrays must be C-contiguous")
            expect *= dim
    return int(cai["data"][0]), n


def size_of(x: Any, lib: str) -> int:
    if lib == "cai":
        shape = x.__cuda_array_interface__["shape"]
        return int(np.prod(shape)) if shape else 1
    return int(x.numel()) if lib == "torch" else int(x.size)


def shape_of(x: Any, lib: str) -> Tuple[int, ...]:
    if lib == "cai":
        return tuple(x.__cuda_array_interface__["shape"])
    return tuple(x.shape)


def to_library(host: np.ndarray, lib: str, like: Any) -> Any:
    """A host NumPy array as an array of `lib` on `like`'s device."""
    if lib == "torch":
        import torch

        t = torch.from_numpy(host)
        return t.to(like.device, non_blocking=False) if like.is_cuda else t
    if lib == "cupy":
        import cupy

        with cupy.cuda.Device(like.device.id):
            return cupy.asarray(host)
    return host


def abs_max(x: Any, lib: str) -> float:
    """max |x| (exact and order-free), 0 for an empty array."""
    if size_of(x, lib) == 0:
        return 0.0
    if lib == "torch":
        return float(x.abs().max().item())
    if lib == "cupy":
        return float(abs(x).max().get())
    return float(np.abs(x).max())
