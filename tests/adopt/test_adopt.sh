#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# A project that adopts mctally builds the photon-migration example
# (examples/photon_migration/) against it in one of three ways and runs it on
# the emulated and cpu backends (and on a GPU where there is one):
#   test_adopt.sh package|subdir|fetch shared|static SOURCE_DIR CUDA(0|1) [LAUNCHER]
# package: the library is configured alone (MCT_BUILD_TOOLS=OFF) with the
# directories holding cJSON's and inih's headers and libraries hidden from
# CMake, which must not look for them; built, installed, found by
# find_package(mctally). subdir: add_subdirectory. fetch: FetchContent from the
# local git checkout at its HEAD commit (skipped, 77, when SOURCE_DIR is not
# a git checkout). The example's own checks (energy balance, fixed bitwise
# from run to run) decide each run.
set -eu
mode=$1 kind=$2 src=$(cd "$3" && pwd) cuda=$4 launcher=${5:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
shared=ON; [ "$kind" = static ] && shared=OFF
common=(-DCMAKE_BUILD_TYPE=Release -DMCT_ENABLE_CUDA=$([ "$cuda" = 1 ] && echo ON || echo OFF) -DMCTALLY_MPI=OFF)
[ "$cuda" = 1 ] || common+=(-DPM_CUDA=OFF)
[ -n "$launcher" ] && common+=(-DCMAKE_C_COMPILER_LAUNCHER="$launcher" -DCMAKE_CXX_COMPILER_LAUNCHER="$launcher"
                               -DCMAKE_CUDA_COMPILER_LAUNCHER="$launcher")
# One architecture keeps the CUDA builds of this test short.
[ "$cuda" = 1 ] && common+=(-DCMAKE_CUDA_ARCHITECTURES=${MCT_ADOPT_CUDA_ARCH:-80})
jobs=${MCT_ADOPT_JOBS:-2}
example=$src/examples/photon_migration
case $mode in
package)
  # Hide cJSON and inih: every directory that holds their headers or libraries.
  hide=$( (ls -d /usr/include/cjson /usr/local/include/cjson 2>/dev/null; for f in /usr/include/ini.h /usr/local/include/ini.h \
          /usr/lib/*/libcjson* /usr/lib/libcjson* /usr/local/lib/libcjson* /usr/lib/*/libinih* /usr/lib/libinih* \
          /usr/local/lib/libinih*; do [ -e "$f" ] && dirname "$f"; done) | sort -u | paste -sd';' -)
  cmake -S "$src" -B "$work/lib" "${common[@]}" -DMCT_BUILD_TOOLS=OFF -DMCT_BUILD_TESTS=OFF -DMCT_BUILD_EXAMPLES=OFF \
        -DMCT_BUILD_SHARED=$shared -DCMAKE_IGNORE_PATH="$hide" -DCMAKE_INSTALL_PREFIX="$work/prefix" >"$work/lib.log" 2>&1 ||
    { cat "$work/lib.log"; echo "adopt: the library alone did not configure without cJSON and inih" >&2; exit 1; }
  if grep -qiE '^MCT_(CJSON|INIH)' "$work/lib/CMakeCache.txt"; then
    echo "adopt: the library-only configure looked for cJSON or inih" >&2; exit 1
  fi
  cmake --build "$work/lib" -j "$jobs" >"$work/lib_build.log" 2>&1 || { tail -40 "$work/lib_build.log"; exit 1; }
  cmake --install "$work/lib" >/dev/null
  lib=$(ls "$work"/prefix/lib*/libmctally.* | head -n 1)
  if [ "$shared" = ON ]; then
    ! readelf -d "$lib" | grep -qiE 'cjson|inih' || { echo "adopt: libmctally links cJSON or inih" >&2; exit 1; }
    bash "$src/tests/api/check_exports.sh" "$(ls "$work"/prefix/lib*/libmctally.so.*.*.* | head -n 1)" "$work/prefix/include/mctally"
  else
    case $lib in *.a) ;; *) echo "adopt: the static build installed $lib" >&2; exit 1 ;; esac
    bash "$src/tests/api/check_exports_static.sh" "$lib"
  fi
  cmake -S "$example" -B "$work/app" "${common[@]}" -DPM_MCTALLY=package -DCMAKE_PREFIX_PATH="$work/prefix" \
        >"$work/app.log" 2>&1 || { cat "$work/app.log"; exit 1; }
  ;;
subdir)
  cmake -S "$example" -B "$work/app" "${common[@]}" -DPM_MCTALLY=subdir -DPM_MCTALLY_SOURCE="$src" \
        -DBUILD_SHARED_LIBS=$shared >"$work/app.log" 2>&1 || { cat "$work/app.log"; exit 1; }
  ;;
fetch)
  commit=$(git -C "$src" rev-parse HEAD 2>/dev/null) || { echo "adopt: $src is not a git checkout, skipping"; exit 77; }
  cmake -S "$example" -B "$work/app" "${common[@]}" -DPM_MCTALLY=fetch -DPM_MCTALLY_SOURCE="$src" \
        -DPM_MCTALLY_TAG="$commit" -DBUILD_SHARED_LIBS=$shared >"$work/app.log" 2>&1 || { cat "$work/app.log"; exit 1; }
  ;;
*) echo "usage: test_adopt.sh package|subdir|fetch shared|static SOURCE_DIR CUDA [LAUNCHER]" >&2; exit 2 ;;
esac
# Included, mctally builds only its library and sets nothing of the including
# project's: no tests, no CLI, no build type forced into its cache.
if [ "$mode" != package ]; then
  ! grep -qE '^CMAKE_BUILD_TYPE:STRING=.+' "$work/app/CMakeCache.txt" || grep -q '^CMAKE_BUILD_TYPE:STRING=Release' "$work/app/CMakeCache.txt"
  grep -q '^MCT_BUILD_TOOLS:BOOL=OFF' "$work/app/CMakeCache.txt" || { echo "adopt: tools built when included" >&2; exit 1; }
fi
cmake --build "$work/app" -j "$jobs" >"$work/app_build.log" 2>&1 || { tail -40 "$work/app_build.log"; exit 1; }
# Static: the example carries the library; shared: it loads it.
app="$work/app/photon_migration_emulated"
if [ "$shared" = OFF ]; then
  ! readelf -d "$app" | grep -q 'libmctally' || { echo "adopt: the static example loads libmctally" >&2; exit 1; }
else
  readelf -d "$app" | grep -q 'libmctally' || { echo "adopt: the shared example does not load libmctally" >&2; exit 1; }
fi
export LD_LIBRARY_PATH="$work/prefix/lib:$work/prefix/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
"$app" --method atomic --photons 3000 --batches 3
"$app" --method fixed --photons 3000 --batches 2 --repeat 2
"$app" --method kahan --photons 1000 --batches 2
"$app" --method float_atomic --photons 1000 --batches 2
"$app" --backend cpu --method fixed --photons 3000 --repeat 2
if [ -x "$work/app/photon_migration" ] && nvidia-smi -L >/dev/null 2>&1; then
  "$work/app/photon_migration" --method atomic --photons 100000
  "$work/app/photon_migration" --method fixed --photons 100000 --repeat 2
fi
echo "adopt: $mode $kind: built and ran"
