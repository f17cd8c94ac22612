#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# cmake --install into a scratch prefix, then build a program against it twice:
# through the CMake package and through pkg-config; the installed library exports
# only the API its installed headers declare.
set -eu
BUILD=$1
SRC=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$BUILD" --prefix "$work/prefix" >/dev/null
test -x "$work/prefix/bin/mctally"
lib=$(ls "$work"/prefix/lib*/libmctally.so.*.*.* | head -n 1)
bash "$SRC/../api/check_exports.sh" "$lib" "$work/prefix/include/mctally"
cmake -S "$SRC" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/consumer" >/dev/null
LD_LIBRARY_PATH="$work/prefix/lib:$work/prefix/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$work/consumer/consumer" | grep -q "mctally "
# libmctally_mpi, where it was built: its exports, and a program on one rank.
mpilib=$(ls "$work"/prefix/lib*/libmctally_mpi.so.*.*.* 2>/dev/null | head -n 1 || true)
if [ -n "$mpilib" ]; then
  bash "$SRC/../api/check_exports.sh" "$mpilib" "$work/prefix/include/mctally" MCT_DIST_API
  test -x "$work/consumer/consumer_mpi"
  LD_LIBRARY_PATH="$work/prefix/lib:$work/prefix/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
    bash "$SRC/../dist/mpi_launch.sh" 1 "$work/consumer/consumer_mpi" | grep -q "mctally_mpi host"
fi
pc=$(ls "$work"/prefix/lib*/pkgconfig/mctally.pc)
cflags=$(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --cflags --libs mctally)
cc "$SRC/consumer.c" $cflags -o "$work/consumer_pc"
LD_LIBRARY_PATH="$work/prefix/lib:$work/prefix/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$work/consumer_pc" | grep -q "mctally "
echo "install: CMake package and pkg-config consumers built and ran"
