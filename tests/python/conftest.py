# SPDX-License-Identifier: BSD-3-Clause
"""Shared fixtures of the Python package's tests: the CLI as the C API's
reference, and the GPU libraries when a GPU answers."""
import os
import shutil
import subprocess

import numpy as np
import pytest

import mctally

HOST_BACKENDS = ["cpu", "emulated"]


def accumulate_c(tmp_path, keys, values, bins, method, backend, frac_bits=None):
    """The C API's result for the same input: `mctally accumulate` (host
    arrays, one batch) writes the bins as raw float64."""
    kf, vf, of = tmp_path / "k.u32", tmp_path / "v.f64", tmp_path / "out.f64"
    np.asarray(keys, dtype="<u4").tofile(kf)
    np.asarray(values, dtype="<f8").tofile(vf)
    cmd = [mctally.cli_path(), "accumulate", "--bins", str(bins), "--keys", str(kf), "--values", str(vf),
           "--out", str(of), "--method", method, "--backend", backend]
    if frac_bits is not None:
        cmd += ["--frac-bits", str(frac_bits)]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return np.fromfile(of, dtype="<f8")


def gpu_library(name):
    """The module `name` ('torch' or 'cupy') when it is installed and sees a GPU."""
    try:
        mod = __import__(name)
    except ImportError:
        return None
    try:
        if name == "torch":
            return mod if mod.cuda.is_available() else None
        return mod if mod.cuda.runtime.getDeviceCount() > 0 else None
    except Exception:
        return None


def cuda_backend_built():
    try:
        with mctally.Tally(1, backend="cuda"):
            return True
    except mctally.MctallyError:
        return False


@pytest.fixture
def rng():
    return np.random.default_rng(12345)
