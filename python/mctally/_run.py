# SPDX-License-Identifier: BSD-3-Clause
"""mctally.run: a problem file through the mctally CLI installed with the package."""
from __future__ import annotations

import configparser
import json
import os
import subprocess
import tempfile
from typing import Any, Dict, Optional

import numpy as np

from ._core import MctallyError

# Keyword overrides that are flags of `mctally run` (underscores become dashes).
_FLAGS = ("backend", "method", "dtype", "histories", "seed", "batches", "determinism", "plan", "wisdom",
          "loss_sample", "loss_threshold")


def cli_path() -> str:
    """The mctally executable: $MCTALLY_CLI, else the one shipped with the package."""
    env = os.environ.get("MCTALLY_CLI")
    if env:
        return env
    from . import _paths

    p = _paths.CLI
    return p if os.path.isabs(p) else os.path.join(os.path.dirname(os.path.abspath(__file__)), p)


def _text(v: Any) -> str:
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float) and v.is_integer() and abs(v) < 2**63:
        return str(int(v))
    return str(v)


def _read_mhd(path: str) -> np.ndarray:
    """A MetaImage (.mhd + .raw) image as a NumPy array indexed [z, y, x]."""
    head: Dict[str, str] = {}
    with open(path) as f:
        for line in f:
            if "=" in line:
                k, v = line.split("=", 1)
                head[k.strip()] = v.strip()
    dims = [int(d) for d in head["DimSize"].split()]
    dtype = {"MET_DOUBLE": "<f8", "MET_FLOAT": "<f4"}[head["ElementType"]]
    raw = os.path.join(os.path.dirname(path), head["ElementDataFile"])
    data = np.fromfile(raw, dtype=dtype)
    if data.size != int(np.prod(dims)):
        raise MctallyError("RUN_FAILED", f"{raw}: {data.size} values for a {dims} image", -1)
    return data.reshape(tuple(reversed(dims)))


def run(problem: str, out: Optional[str] = None, **overrides: Any) -> Dict[str, Any]:
    """Runs a problem file (``examples/*.ini``) as ``mctally run`` does and
    returns its result as a dict: the content of ``result.json``.

    Keyword overrides: the flags of ``mctally run`` (``backend``, ``method``,
    ``dtype``, ``histories``, ``seed``, ``batches``, ``determinism``, ``plan``,
    ``wisdom``, ``loss_sample``, ``loss_threshold``), and a dict per INI
    section for any other key, e.g. ``phantom={"voxels": 10}``. ``out``: the
    folder for the output files (default: a temporary one, removed).

    For ``phantom`` the dict also has ``"dose"`` and ``"dose_rel_err"``: NumPy
    float64 arrays indexed [z, y, x] (Gy per history; z along the beam).
    Raises :class:`MctallyError` (name ``RUN_FAILED``) with the CLI's message
    when the run fails.
    """
    if not os.path.isfile(problem):
        raise MctallyError("IO_ERROR", f"run: no problem file {problem!r}")
    flags = []
    sections: Dict[str, Dict[str, Any]] = {}
    for key, value in overrides.items():
        if isinstance(value, dict):
            sections[key] = value
        elif key in _FLAGS:
            flags += ["--" + key.replace("_", "-"), _text(value)]
        else:
            raise MctallyError("INVALID_VALUE", f"run: unknown override {key!r} (flags: {', '.join(_FLAGS)}; "
                                                "or a dict for an INI section)")
    with tempfile.TemporaryDirectory(prefix="mctally-") as tmp:
        ini = problem
        if sections:
            cp = configparser.ConfigParser(interpolation=None, inline_comment_prefixes=(";", "#"))
            cp.optionxform = str
            cp.read(problem)
            # The copy lives elsewhere: the file keys' relative paths start at the original's folder.
            base = os.path.dirname(os.path.abspath(problem))
            for k in ("image", "density_image", "calibration", "materials"):
                if cp.has_option("phantom", k) and not os.path.isabs(cp.get("phantom", k)):
                    cp.set("phantom", k, os.path.join(base, cp.get("phantom", k)))
            for sec, kv in sections.items():
                if not cp.has_section(sec):
                    cp.add_section(sec)
                for k, v in kv.items():
                    cp.set(sec, k, _text(v))
            ini = os.path.join(tmp, os.path.basename(problem))
            with open(ini, "w") as f:
                cp.write(f)
        outdir = out or os.path.join(tmp, "out")
        cmd = [cli_path(), "run", ini, *flags, "--out", outdir]
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env={**os.environ, "CI": os.environ.get("CI", "1")})
        if proc.returncode != 0:
            lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
            raise MctallyError("RUN_FAILED", lines[-1] if lines else f"mctally run exited {proc.returncode}", -1)
        with open(os.path.join(outdir, "result.json")) as f:
            result = json.load(f)
        if os.path.exists(os.path.join(outdir, "dose.mhd")):
            result["dose"] = _read_mhd(os.path.join(outdir, "dose.mhd"))
            result["dose_rel_err"] = _read_mhd(os.path.join(outdir, "dose_rel_err.mhd"))
        if proc.stderr.strip():
            result["warnings"] = [ln for ln in proc.stderr.splitlines() if "warning" in ln]
        return result
