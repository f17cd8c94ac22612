#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Installs what mctally needs on a fresh Debian/Ubuntu machine (when missing)
# and builds it into build/. Safe to run again: it only rebuilds what changed.
set -eu
cd "$(dirname "$0")/.."
. scripts/apt_need.sh
mct_apt_need bootstrap cmake g++ make pkg-config libcjson-dev libinih-dev zlib1g-dev
# Open MPI: libmctally_mpi, `mpirun -n R mctally run` and their tests (tests/dist).
mct_apt_need bootstrap openmpi-bin libopenmpi-dev
# nvcc is found on PATH or in the usual place; without it the CUDA backend is left out.
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then export PATH=/usr/local/cuda/bin:$PATH; fi
# The Python package (python/) and its tests: a virtual environment in build/venv
# with nanobind, scikit-build-core, numpy and pytest from PyPI. Where it cannot
# be made (no PyPI), the package is left out and the rest builds as before.
python_flags="-DMCT_BUILD_PYTHON=OFF"
if [ "${MCT_PYTHON:-1}" != 0 ]; then
  if ! python3 -c 'import sysconfig, os, sys; sys.exit(not os.path.exists(sysconfig.get_paths()["include"] + "/Python.h"))' ||
     ! python3 -c 'import venv, ensurepip' 2>/dev/null; then
    SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
    $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq python3-dev python3-venv >/dev/null || true
  fi
  mkdir -p build
  if { [ -x build/venv/bin/python ] || python3 -m venv build/venv; } &&
     { build/venv/bin/python -c 'import nanobind, scikit_build_core, numpy, pytest' 2>/dev/null ||
       build/venv/bin/python -m pip install --quiet nanobind scikit-build-core numpy pytest; }; then
    python_flags="-DMCT_BUILD_PYTHON=ON -DPython_EXECUTABLE=$PWD/build/venv/bin/python"
  else
    echo "bootstrap: no Python environment for the package (PyPI unreachable?); python/ is not built"
  fi
fi
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release $python_flags >/dev/null
cmake --build build -j "$(nproc)"
