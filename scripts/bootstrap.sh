#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Installs what mctally needs on a fresh Debian/Ubuntu machine (when missing)
# and builds it into build/. Safe to run again: it only rebuilds what changed.
set -eu
cd "$(dirname "$0")/.."
need=""
for pkg in cmake g++ make pkg-config libcjson-dev libinih-dev zlib1g-dev; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need="$need $pkg"
done
if [ -n "$need" ]; then
  echo "bootstrap: installing$need"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $need >/dev/null
fi
# nvcc is found on PATH or in the usual place; without it the CUDA backend is left out.
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then export PATH=/usr/local/cuda/bin:$PATH; fi
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$(nproc)"
