# SPDX-License-Identifier: BSD-3-Clause
"""Array adapters: which library an array belongs to, its device and stream,
and the dtype/layout conversions the C API needs, done by the array's own
library and only when needed (uint32/int32/int64 keys and float64 values in C
order pass through untouched)."""
from __future__ import annotations

import functools
from typing import Any, Callable, Optional, Tuple

import numpy as np

#: int32 keys are passed as their bits: a negative key reads as >= 2^31, past
#: the last bin of any tally (bins <= 2^31), so it is reported as out of range;
#: int64 keys (PyTorch's and NumPy's index type) are read as they are
#: (mct_tally_add_device_keys: a negative or too large key is reported, never
#: truncated onto a bin).
_KEY_DTYPES = ("uint32", "int32", "int64")


#: Libraries by array type, filled as types are met: which library a type
#: belongs to never changes, so it is worked out once per type.
_LIB_OF_TYPE = {np.ndarray: "numpy"}
_U32, _I32, _I64, _F64 = np.dtype(np.uint32), np.dtype(np.int32), np.dtype(np.int64), np.dtype(np.float64)


def library_of(x: Any) -> str:
    """'numpy', 'torch', 'cupy', or 'cai' (another __cuda_array_interface__ producer)."""
    lib = _LIB_OF_TYPE.get(type(x))
    if lib is not None:
        return lib
    mod = type(x).__module__.split(".", 1)[0]
    if mod in ("torch", "cupy"):
        _LIB_OF_TYPE[type(x)] = mod
        return mod
    if isinstance(x, np.ndarray):
        _LIB_OF_TYPE[type(x)] = "numpy"
        return "numpy"
    # Decided per object: the interface may be an instance attribute.
    if hasattr(x, "__cuda_array_interface__") and not hasattr(x, "__dlpack__"):
        return "cai"
    return "numpy"


class _Torch:
    """PyTorch's dtypes and its current-stream query, looked up once (PyTorch
    is imported only when a tensor has been met, so it is already loaded)."""

    def __init__(self) -> None:
        import torch

        self.torch = torch
        self.f64 = torch.float64
        self.i32 = torch.int32
        self.i64 = torch.int64
        self.u32 = getattr(torch, "uint32", torch.int32)
        # The raw cudaStream_t of a device's current stream without building a
        # Stream object: what Triton and torch.compile call per launch.
        raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
        self.raw_stream = raw if raw is not None else (lambda d: torch.cuda.current_stream(d).cuda_stream)


@functools.lru_cache(maxsize=None)
def torch_info() -> _Torch:
    """PyTorch's handles, looked up on first use and kept."""
    return _Torch()


class _Cupy:
    """CuPy's current-stream query, looked up once (CuPy is imported only when
    one of its arrays has been met)."""

    def __init__(self) -> None:
        import cupy

        self.cupy = cupy

        def current(dev: int) -> int:
            try:
                return int(cupy.cuda.get_current_stream(dev).ptr)
            except TypeError:  # CuPy without the device argument
                with cupy.cuda.Device(dev):
                    return int(cupy.cuda.get_current_stream().ptr)

        self.raw_stream = current


@functools.lru_cache(maxsize=None)
def cupy_info() -> _Cupy:
    """CuPy's handles, looked up on first use and kept."""
    return _Cupy()


def prepare(keys: Any, values: Any, width: int, err, what: str) -> Tuple[str, Any, Any, int, Optional[int]]:
    """(library, keys, values, number of keys, device): the arrays of one add
    in the C API's types (as_keys, as_values), from one library, and where they
    live: None for host memory, else the CUDA ordinal (-1 where the producer
    does not say: __cuda_array_interface__). Arrays already in those types are
    checked and passed on as they are; width 1: keys and values must have the
    same size (grouped adds check their shape first)."""
    tk = type(keys)
    if tk is np.ndarray and type(values) is np.ndarray:
        lib = "numpy"
        kd = keys.dtype
        if not ((kd is _U32 or kd is _I32 or kd is _I64) and keys.ndim and keys.flags.c_contiguous):
            keys = as_keys(keys, lib, err)
        if not (values.dtype is _F64 and values.ndim and values.flags.c_contiguous):
            values = as_values(values, lib, err)
        n, nv, dev = keys.size, values.size, None
    else:
        if tk in (list, tuple):
            keys = np.asarray(keys)
        if type(values) in (list, tuple):
            values = np.asarray(values)
        lib = _LIB_OF_TYPE.get(type(keys)) or library_of(keys)
        vlib = _LIB_OF_TYPE.get(type(values)) or library_of(values)
        if lib == "numpy" and not isinstance(keys, np.ndarray):
            keys = np.asarray(keys)
        if vlib == "numpy" and not isinstance(values, np.ndarray):
            values = np.asarray(values)
        if lib != vlib:
            raise err("INVALID_VALUE", f"{what}: keys ({lib}) and values ({vlib}) come from different libraries")
        dev = None
        if lib == "torch":
            ti = torch_info()
            kd = keys.dtype
            if not ((kd is ti.i32 or kd is ti.i64 or kd is ti.u32) and keys.is_contiguous()):
                keys = as_keys(keys, lib, err)
            if not (values.dtype is ti.f64 and values.is_contiguous()):
                values = as_values(values, lib, err)
            n, nv = keys.numel(), values.numel()
            dev = values.get_device() if values.is_cuda else -1
            if not (dev >= 0 and keys.is_cuda and keys.get_device() == dev):  # both on one GPU: checked inline
                dev = _torch_device(keys, values, err, what)
        elif lib == "cupy":
            kd = keys.dtype
            if not ((kd is _U32 or kd is _I32 or kd is _I64) and keys.ndim and keys.flags.c_contiguous):
                keys = as_keys(keys, lib, err)
            if not (values.dtype is _F64 and values.ndim and values.flags.c_contiguous):
                values = as_values(values, lib, err)
            n, nv = keys.size, values.size
            dev = values.device.id
            if keys.device.id != dev:
                raise err("INVALID_VALUE", f"{what}: keys and values are on different devices")
        else:
            keys = as_keys(keys, lib, err)
            values = as_values(values, lib, err)
            n, nv = size_of(keys, lib), size_of(values, lib)
            if lib == "cai":
                dev = -1
    if width == 1 and n != nv:
        raise err("INVALID_VALUE", f"{what}: keys and values differ in length ({n} keys, {nv} values)")
    return lib, keys, values, n, dev


def _torch_device(keys: Any, values: Any, err, what: str) -> Optional[int]:
    """The CUDA ordinal of two tensors on one GPU, None for two CPU tensors."""
    if values.is_cuda:
        dev = values.get_device()
        if keys.is_cuda and keys.get_device() == dev:
            return dev
    elif keys.is_cpu and values.is_cpu:
        return None
    elif keys.device == values.device:
        raise err("NOT_SUPPORTED", f"{what}: tensors on {keys.device} are not supported")
    raise err("INVALID_VALUE", f"{what}: keys and values are on different devices")


def device_of(x: Any, lib: str) -> Optional[int]:
    """None for host memory, else the CUDA ordinal (-1: not known)."""
    if lib == "torch":
        return x.get_device() if x.is_cuda else None
    if lib == "cupy":
        return int(x.device.id)
    if lib == "cai":
        return -1  # the interface does not say; the library checks the pointer on use
    return None


def keys64(x: Any, lib: str) -> bool:
    """Whether keys that as_keys passed are int64 (8 bytes each)."""
    if lib == "torch":
        return x.dtype is torch_info().i64
    if lib == "cai":
        return np.dtype(x.__cuda_array_interface__["typestr"]).itemsize == 8
    return x.dtype.itemsize == 8


def pointer(x: Any, lib: str) -> int:
    """The address of a PyTorch tensor's or a CuPy array's first element."""
    return x.data_ptr() if lib == "torch" else x.data.ptr


def stream_of(x: Any, lib: str, dev: int) -> int:
    """The caller's current CUDA stream (a cudaStream_t) for x on device dev.
    Asked on every add: the caller may change streams between calls
    (torch.cuda.stream(...))."""
    if lib == "torch":
        return torch_info().raw_stream(dev)
    if lib == "cupy":
        return cupy_info().raw_stream(dev)
    st = x.__cuda_array_interface__.get("stream")
    return int(st) if st is not None else 1  # 1: the legacy default stream (CAI v3)


def stream_synchronizer(x: Any, lib: str) -> Optional[Callable[[], None]]:
    """A call that waits for x's current stream (stream_of's), or None."""
    if lib == "torch" and x.is_cuda:
        return torch_info().torch.cuda.current_stream(x.device).synchronize
    if lib == "cupy":
        import cupy

        with cupy.cuda.Device(x.device.id):
            return cupy.cuda.get_current_stream().synchronize
    return None


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
    """Keys as uint32, int32 or int64 in C order. Other integer types are
    converted by x's own library, with keys outside 0 .. 2^31 - 1 mapped to 2^31
    or 2^32 - 1, which every tally reports as out of range (never onto a valid
    bin)."""
    name = _dtype_name(x, lib)
    if not _is_int(name) or name == "bool":
        raise err("INVALID_VALUE", f"keys must be integers (uint32, int32 or int64 pass without a copy), got {name}")
    if lib == "cai":
        if name not in _KEY_DTYPES:
            raise err("INVALID_VALUE", f"__cuda_array_interface__ keys must be uint32, int32 or int64, got {name}")
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


def to_numpy(x: Any, lib: str) -> np.ndarray:
    """x as a host NumPy array (copied from the device where it lives there)."""
    if lib == "torch":
        return x.cpu().numpy()
    if lib == "cupy":
        return x.get()
    return np.asarray(x)


def abs_max(x: Any, lib: str) -> float:
    """max |x| (exact and order-free), 0 for an empty array."""
    if size_of(x, lib) == 0:
        return 0.0
    if lib == "torch":
        return float(torch_info().torch.linalg.vector_norm(x, float("inf")).item())
    if lib == "cupy":
        return float(abs(x).max().get())
    return float(np.abs(x).max())
