#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Builds the CLI with CUDA, MPI and NCCL on a machine without a GPU and copies it with its two
# shared libraries into one folder (default .prebuilt/, ignored by git), for
# `MCT_PREBUILT=.prebuilt scripts/gpu_suite.sh` on a GPU machine, where a build of the whole tree
# can take minutes of its time. Needs the CUDA toolkit, Open MPI, cJSON and inih here (the README's
# set-up installs them) and, for the NCCL transport, nccl.h and libnccl (CUDA's or NCCL_HOME).
#   scripts/prebuild_cli.sh [DIR]     MCT_CUDA_ARCH (default 90) picks the architecture
set -eu
cd "$(dirname "$0")/.."
DIR=${1:-.prebuilt}
BUILD=${BUILD:-build-prebuilt}
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="${MCT_CUDA_ARCH:-90}" \
  -DMCT_BUILD_PYTHON=OFF >/dev/null
cmake --build "$BUILD" -j "$(nproc)" --target mctally_cli
mkdir -p "$DIR"
cp "$BUILD/tools/mctally/mctally" "$DIR/mctally"
cp -L "$BUILD/src/libmctally.so.0" "$DIR/libmctally.so.0"
[ -e "$BUILD/src/dist/libmctally_mpi.so.0" ] && cp -L "$BUILD/src/dist/libmctally_mpi.so.0" "$DIR/libmctally_mpi.so.0"
echo "prebuilt CLI in $DIR: $(ls "$DIR" | tr '\n' ' ')"
