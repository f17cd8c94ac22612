# SPDX-License-Identifier: BSD-3-Clause
"""mctally: fast, accurate and reproducible Monte Carlo tallies, from NumPy,
CuPy and PyTorch.

- :class:`Tally`: batches of scatter-adds with mean and relative error per bin;
- :func:`scatter_add`: one call, result in the input's library, with its tallies
  kept between calls in :data:`scatter_add_cache`;
- :func:`run`: a problem file (``examples/*.ini``) as ``mctally run`` runs it.

The package sits on the public C API (``include/mctally``) only.
"""
from ._core import (MctallyError, ScatterAddCache, Tally, method_supports, methods, scatter_add, scatter_add_cache,
                    version)
from ._run import cli_path, run

__version__ = "0.1.0"
__all__ = ["MctallyError", "Tally", "scatter_add", "scatter_add_cache", "ScatterAddCache", "run", "methods",
           "method_supports", "version", "cli_path"]
