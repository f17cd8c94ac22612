#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The GPU suite, in one call: build for the local GPU, run every test on the
# hardware, the CUDA tests and the CLI under compute-sanitizer (memcheck and
# racecheck), the cross-backend count check, then the benchmarks. Results go to
# $OUT (default ./gpu-suite-out): ctest and sanitizer logs, bench_escape.json and
# a summary, suite.json.
# Dependencies: cJSON and inih. Where no package registry is reachable, put their
# Debian packages (.deb) in .deps/ and they are unpacked under /tmp/mct-deps.
set -u -o pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/gpu-suite-out}
mkdir -p "$OUT"
BUILD=${BUILD:-build-gpu}
log() { echo "== $*" | tee -a "$OUT/suite.log"; }
status=0
declare -A results

if ls .deps/*.deb >/dev/null 2>&1; then
  for f in .deps/*.deb; do dpkg -x "$f" /tmp/mct-deps; done
  export CMAKE_PREFIX_PATH=/tmp/mct-deps/usr${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}
  export LD_LIBRARY_PATH=$(ls -d /tmp/mct-deps/usr/lib/*-linux-gnu | head -1)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi

# Open MPI for the dist stage on a machine without one: the Debian packages that
# scripts/mpi_debs.sh downloads into .mpi-debs/ are unpacked under /tmp/mct-mpi and
# used where they lie (Open MPI is relocatable through OPAL_PREFIX).
if ! command -v mpirun >/dev/null 2>&1 && ls .mpi-debs/*.deb >/dev/null 2>&1; then
  for f in .mpi-debs/*.deb; do dpkg -x "$f" /tmp/mct-mpi; done
  (cd /tmp/mct-mpi/usr/bin && for w in mpirun mpiexec mpicc mpicxx; do ln -sf $w.openmpi $w; done)
  export OPAL_PREFIX=/tmp/mct-mpi/usr PATH=/tmp/mct-mpi/usr/bin:$PATH
  export LD_LIBRARY_PATH=/tmp/mct-mpi/usr/lib/x86_64-linux-gnu:/tmp/mct-mpi/usr/lib/x86_64-linux-gnu/openmpi/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi

# Stages to run (all by default), so the suite can be split over several
# calls that share one build: MCT_SUITE_STAGES="build test" then "bench" ...
STAGES=${MCT_SUITE_STAGES:-"build test bench bench_scatter bench_accuracy bench_tally_only phantom bench_phantom pet bench_pet python bench_python adopt"}
stage() { [[ " $STAGES " == *" $1 "* ]]; }
# The 100^3 water cube of Liu's test 2 as voxels (water at 0.99999 g/cm3: a geometry, whose steps
# the walk finds no reason to cut), to set the voxel path's cost against the uniform path's.
cube_voxels_ini() {
  sed 's/^\[phantom\]/[phantom]\ngeometry = cube\nmaterial = water\ndensity = 0.99999/' examples/phantom_test2.ini \
    >/tmp/mct-cube-voxels.ini
}

step() { # step NAME COMMAND...: runs, records pass/fail, logs to $OUT/NAME.log
  local name=$1; shift
  log "$name: $*"
  if "$@" >"$OUT/$name.log" 2>&1; then results[$name]=pass; else results[$name]=FAIL; status=1; fi
  log "$name: ${results[$name]}"
  tail -n 5 "$OUT/$name.log"
}

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$OUT/gpu.txt"
# NCCL for libmctally_mpi's GPU transport: the CUDA toolkit's, else the one a Python environment
# carries (PyTorch's nvidia-nccl wheel), else none (MCTALLY_NCCL turns itself off).
if [ -z "${NCCL_HOME:-}" ] && [ ! -f /usr/local/cuda/include/nccl.h ]; then
  NCCL_HOME=$(python3 -c 'import nvidia.nccl as n; print(list(n.__path__)[0])' 2>/dev/null) && export NCCL_HOME &&
    log "NCCL from $NCCL_HOME"
fi
if stage build; then
step configure cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=${MCT_CUDA_ARCH:-90} \
  -DCMAKE_CUDA_FLAGS="${MCT_CUDA_FLAGS:-}"
step build cmake --build "$BUILD" -j "$(nproc)" ${MCT_BUILD_TARGET:+--target $MCT_BUILD_TARGET} # e.g. mctally_cli alone (a list: several)
fi
MCT="$BUILD/tools/mctally/mctally"
# MCT_PREBUILT=DIR: the CLI and its libraries (mctally, libmctally.so.0, libmctally_mpi.so.0) built
# elsewhere for this GPU's architecture (scripts/prebuild_cli.sh), so that the stages which only run
# the CLI (multigpu, dist's scaling, the problems' benchmarks) need no build on the GPU machine.
if [ -n "${MCT_PREBUILT:-}" ]; then
  MCT="$MCT_PREBUILT/mctally"
  export LD_LIBRARY_PATH=$(cd "$MCT_PREBUILT" && pwd)${NCCL_HOME:+:$NCCL_HOME/lib}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  log "CLI from $MCT_PREBUILT"
fi
# Recorded in the benchmarks' JSON. The GPU machine's copy of .git can lag the tree it builds: the
# caller may name the commit (MCT_COMMIT).
COMMIT="${MCT_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}"
SAN="compute-sanitizer --error-exitcode 9"
if stage test; then
# The adopting-project tests (tests/adopt) build the library again for one architecture: this one.
export MCT_ADOPT_CUDA_ARCH=${MCT_CUDA_ARCH:-90} MCT_ADOPT_JOBS=$(nproc)
step ctest ctest --test-dir "$BUILD" --output-on-failure -j 4
for tool in memcheck racecheck; do
  step "sanitize_${tool}_block_counter" env MCT_TEST_QUICK=1 $SAN --tool $tool "$BUILD/tests/test_block_counter_cuda"
  step "sanitize_${tool}_rng" $SAN --tool $tool "$BUILD/tests/kat/test_rng_kat_cuda" tests/kat/rng_kat_vectors.txt
  for t in test_mct_add_float test_mct_add_int test_mct_add_exact test_device_add test_example_voxel test_thread_run \
    test_deposit_buffer; do
    step "sanitize_${tool}_$t" env MCT_TEST_QUICK=1 $SAN --tool $tool "$BUILD/tests/${t}_cuda"
  done
  # Warp reductions, and prefix scans at modest n (MCT_TEST_QUICK, and the largest n set by MCT_TEST_LARGE_N).
  for t in test_warp_scan test_warp_segmented_reduce test_block_scan test_device_scan; do
    step "sanitize_${tool}_$t" env MCT_TEST_QUICK=1 MCT_TEST_LARGE_N=100003 $SAN --tool $tool "$BUILD/tests/${t}_cuda"
  done
  for m in atomic shared warp_reduce block_reduce replicated; do
    step "sanitize_${tool}_escape_$m" $SAN --tool $tool "$MCT" run examples/escape.ini --backend cuda --method $m \
      --histories 200000 --out "/tmp/mct-san-$m"
  done
done

# The same seed gives the same integer count on cpu, emulated and cuda.
cross_check() {
  local counts=""
  for b in cpu emulated cuda; do
    "$MCT" run examples/escape.ini --backend $b --method $([ $b = cpu ] && echo atomic || echo warp_reduce) \
      --dtype i32 --histories 300000 --out "/tmp/mct-cross-$b" || return 1
    counts="$counts $(grep -o '"escapes":[[:space:]]*[0-9.e+]*' /tmp/mct-cross-$b/result.json | grep -o '[0-9.e+]*$')"
  done
  echo "counts:$counts"
  [ "$(echo $counts | tr ' ' '\n' | sort -u | wc -l)" -eq 1 ]
}
step cross_backend cross_check
step example "$MCT" run examples/escape.ini --out /tmp/mct-example
# Liu's tally-only test and Westphal's MPC through the CLI, under memcheck and for real.
for m in atomic shared block_reduce wib fixed replicated sort_reduce kahan; do
  dt=$([ $m = kahan ] && echo f32 || echo f64)
  step "sanitize_memcheck_tally_only_$m" $SAN --tool memcheck "$MCT" run examples/tally_only.ini --backend cuda \
    --method $m --dtype $dt --histories 100000 --batches 2 --out "/tmp/mct-san-to-$m"
  # MPC's 9e6 bins do not fit shared memory: that refusal is tested on the CPU.
  [ $m = shared ] || step "sanitize_memcheck_mpc_$m" $SAN --tool memcheck "$MCT" run examples/mpc.ini --backend cuda \
    --method $m --dtype $dt --histories 100000 --out "/tmp/mct-san-mpc-$m"
done
step sanitize_racecheck_tally_only_block_reduce $SAN --tool racecheck "$MCT" run examples/tally_only.ini \
  --backend cuda --method block_reduce --histories 100000 --batches 2 --out /tmp/mct-race-to
tally_only_fixed_check() { # fixed totals: the same bits on cpu, emulated and cuda
  for b in cpu emulated cuda; do
    "$MCT" run examples/tally_only.ini --backend $b --method fixed --histories 200000 --batches 2 \
      --out "/tmp/mct-tofix-$b" || return 1
  done
  python3 -c 'import json; t=[json.load(open(f"/tmp/mct-tofix-{b}/result.json"))["tally_only"]["total_MeV"] for b in ("cpu","emulated","cuda")]; print("fixed totals:", t); assert len(set(t)) == 1'
}
step cross_backend_tally_only tally_only_fixed_check
step tally_only_table2 "$MCT" run examples/tally_only.ini --backend cuda --out /tmp/mct-to2
step mpc_run "$MCT" run examples/mpc.ini --backend cuda --out /tmp/mct-mpc
fi
if stage bench; then
step bench_escape env MCT_COMMIT="$COMMIT" \
  "$MCT" bench escape --out "$OUT/bench_escape.json"
# Prefix scan beside CUB DeviceScan (2^20..2^30 i32 and f64), then its Markdown summary.
step bench_scan env MCT_COMMIT="$COMMIT" \
  "$MCT" bench scan --out "$OUT/bench_scan.json"
[ -f "$OUT/bench_scan.json" ] && python3 bench/scan/table.py "$OUT/bench_scan.json" \
  "scripts/gpu_suite.sh (mctally bench scan --out bench_scan.json)" >"$OUT/bench_scan.md"
fi

# The water phantom (Liu 2018 tests 2-4) on the GPU: memcheck at small counts,
# validation at large counts (energy balance, R50/Rp, photon attenuation; the
# CI tests do the same at small counts on the CPU), then Tables II-IV.
if stage phantom; then
for m in atomic wib kahan fixed replicated sort_reduce; do
  dt=$([ $m = kahan ] && echo f32 || echo f64)
  step "sanitize_memcheck_phantom_$m" $SAN --tool memcheck "$MCT" run examples/phantom_test3.ini --backend cuda \
    --method $m --dtype $dt --histories 2000 --batches 2 --out "/tmp/mct-san-phantom-$m"
done
phantom_check() { # NAME ARGS...: a cuda run, then its result checked
  local name=$1; shift
  "$MCT" run "$@" --backend cuda --out "/tmp/mct-phantom-$name" &&
    python3 tests/sim/check_phantom_result.py "/tmp/mct-phantom-$name/result.json" &&
    cp "/tmp/mct-phantom-$name/result.json" "$OUT/phantom_$name.result.log"
}
step phantom_fp64 phantom_check fp64 examples/phantom_test2.ini --histories 1e7
step phantom_fp32 phantom_check fp32 examples/phantom_test2.ini --histories 1e7 --dtype f32
step phantom_kas phantom_check kas examples/phantom_test2.ini --histories 1e7 --method kahan --dtype f32
step phantom_photon phantom_check photon examples/phantom_photon.ini --histories 1e7
# The same seed on cpu, emulated and cuda (`fixed`, which runs the bitwise engines: the tally's bits
# are the deposits'): all three must give the same dose.raw, uniform and voxel phantoms, electrons and
# photons, double and float (docs/architecture.md, the phantom's dose physics); differences are
# reported voxel by voxel.
phantom_cross() {
  local bad=0
  for c in test3:examples/phantom_test3.ini slabs:examples/phantom_slabs.ini photon:examples/phantom_photon.ini; do
    for dt in f64 f32; do
      for b in cpu emulated cuda; do
        "$MCT" run "${c#*:}" --backend $b --method fixed --dtype $dt --histories 3000 --batches 2 --seed 11 \
          --out "/tmp/mct-phx-${c%%:*}-$dt-$b" >/dev/null || return 1
      done
      python3 - "/tmp/mct-phx-${c%%:*}-$dt" "${c%%:*} $dt" <<'PY' || bad=1
import sys
import numpy as np
a, e, b = (np.fromfile(sys.argv[1] + "-" + k + "/dose.raw", dtype="<f8") for k in ("cpu", "emulated", "cuda"))
same = a.tobytes() == e.tobytes() == b.tobytes()
print("%s: cpu, emulated and cuda %s; cuda: %d of %d voxels differ from cpu, by at most %.2g of the maximum dose"
      % (sys.argv[2], "the same" if same else "DIFFER", int((a != b).sum()), a.size, np.abs(a - b).max() / a.max()))
sys.exit(0 if same else 1)
PY
    done
  done
  return $bad
}
step phantom_cross_backend phantom_cross
fi
# The phantom's dose physics at large counts (not in the default stages): every EGSnrc reference beam
# (data/reference/egsnrc: electrons of 4, 6, 10, 15, 20 and 25 MeV, photons of 0.5, 1.25, 6 and 15 MeV)
# (the list MCT_PHANTOM_REFS of sim/CMakeLists.txt; a beam added there needs its line here) at
# MCT_PHYSICS_HISTORIES (1e7) each, electrons in a cube about twice their range, every depth
# within 2 %/1 mm and R50/Rp within 1 % (check_phantom_result.py); the electron beams' R50, Rp and R80
# growing with energy within bounds of the CSDA range (check_phantom_physics.py energies); R50 of the
# 10 MeV beam at step fractions 0.01 .. 0.12 (4e5 histories each: R50 to under 0.1 %) within 3
# standard errors of the difference; then the speed, bench phantom's Table II (histories/s of the FP64
# engine at 100^3, the tally overhead). Results: phantom_physics_*.log, bench_phantom_physics.json, .md.
if stage phantom_physics; then
PH_N=${MCT_PHYSICS_HISTORIES:-1e7}
physics_run() { # NAME INI ARGS...: a cuda run into /tmp/mct-physics-NAME
  local name=$1 ini=$2; shift 2
  "$MCT" run "$ini" --backend cuda --out "/tmp/mct-physics-$name" "$@"
}
physics_check() { # NAME INI ARGS...: a cuda run, its result checked and kept
  physics_run "$@" && python3 tests/sim/check_phantom_result.py "/tmp/mct-physics-$1/result.json" &&
    cp "/tmp/mct-physics-$1/result.json" "$OUT/phantom_physics_$1.result.log"
}
physics_beam() { # NAME PARTICLE MeV SIZE_CM VOXELS: the pencil beam on water, checked against its reference
  sed -e "s/^particle = .*/particle = $2/" -e "s/^energy_MeV = .*/energy_MeV = $3/" \
    -e "s/^size_cm = .*/size_cm = $4/" -e "s/^voxels = .*/voxels = $5/" examples/phantom_egsnrc_e10.ini \
    >"/tmp/mct-physics-$1.ini" && physics_check "$1" "/tmp/mct-physics-$1.ini" --histories "$PH_N" --batches 20
}
step phantom_physics_e4 physics_beam e4 electron 4 4.5 45
step phantom_physics_e6 physics_beam e6 electron 6 6.5 65
step phantom_physics_e10 physics_beam e10 electron 10 12 120
step phantom_physics_e15 physics_beam e15 electron 15 15 150
step phantom_physics_e20 physics_beam e20 electron 20 20 200
step phantom_physics_e25 physics_beam e25 electron 25 24 120
step phantom_physics_energies python3 tests/sim/check_phantom_physics.py energies \
  /tmp/mct-physics-e{4,6,10,15,20,25}/result.json
for b in g0.5:0.5 g1.25:1.25 g6:6 g15:15; do
  step "phantom_physics_${b%%:*}" physics_beam "${b%%:*}" photon "${b#*:}" 40 80
done
physics_sweep() { # CHECK INI FROM TO HISTORIES VALUES...: one run per value, the ini's line FROM
  # replaced by TO with @ as the value, then check_phantom_physics.py CHECK over their results
  local check=$1 ini=$2 from=$3 to=$4 n=$5 files=""; shift 5
  for v in "$@"; do
    sed "s/$from/${to//@/$v}/" "$ini" >"/tmp/mct-physics-$check-$v.ini"
    physics_run "${check}_$v" "/tmp/mct-physics-$check-$v.ini" --histories "$n" --batches 20 || return 1
    files="$files /tmp/mct-physics-${check}_$v/result.json"
  done
  python3 tests/sim/check_phantom_physics.py "$check" $files
}
step phantom_physics_steps physics_sweep steps examples/phantom_egsnrc_e10.ini "^particle = electron" \
  "particle = electron\nstep_fraction = @" 4e5 0.01 0.02 0.04 0.08 0.12
bench_physics() { # SUFFIX ARGS...: bench phantom's Table II rows of atomic and block_reduce with ARGS
  local json="$OUT/bench_phantom_physics$1.json"; shift
  MCT_COMMIT="$COMMIT" "$MCT" bench phantom --tables 2 --methods atomic,block_reduce "$@" --out "$json" &&
    python3 bench/phantom/table.py "$json" >"${json%.json}.md"
}
step bench_phantom_physics bench_physics ""
# Moller delta rays only above the electron cut-off (0.2 MeV): the transport the earlier Table II
# figures were measured with, beside the validated default's.
step bench_phantom_physics_delta02 bench_physics _delta02 --delta-threshold 0.2
fi
# Heterogeneous phantoms (not in the default stages): the Fano cavity test at MCT_FANO_HISTORIES (1e8)
# electron histories (a quarter as many photons) on the GPU in both transport precisions, every voxel
# of the 1000x density contrast within 4.5 of its standard errors of the uniform dose
# (tests/sim/test_phantom_hetero.c), and under compute-sanitizer memcheck at a small count; the slab
# phantoms (water / bone / lung / water, thick and thin) against EGSnrc DOSRZnrc (data/reference/egsnrc/slabs)
# with their seven beams at MCT_SLAB_HISTORIES (1e7) each, every depth with >= 5 % of the maximum within 2 %/1 mm
# (check_phantom_result.py); the speed of 20 MeV electrons (FP64 transport, atomic f64 tally) in the
# 256 x 256 x 128 CT-like phantom and in the slabs (result.json's histories_per_second, the transport's
# own time); and, where MCT_BASE_SRC names an older tree, the uniform water cube's Table II rows
# (atomic, block_reduce) built from it and from this tree, side by side in one run.
if stage hetero; then
step hetero_fano_f64 "$BUILD/tests/test_phantom_hetero" fano cuda "${MCT_FANO_HISTORIES:-1e8}"
step hetero_fano_f32 "$BUILD/tests/test_phantom_hetero" fano cuda "${MCT_FANO_HISTORIES:-1e8}" f32
step hetero_memcheck compute-sanitizer --tool memcheck --error-exitcode 1 "$BUILD/tests/test_phantom_hetero" fano cuda 2e5
slab_check() { # BEAM PARTICLE ENERGY: slab_BEAM.csv in phantom_slabs.ini (thin_*: BEAM.csv in phantom_slabs_thin.ini)
  local ini=phantom_slabs.ini csv=slab_$1.csv
  case $1 in thin_*) ini=phantom_slabs_thin.ini csv=$1.csv ;; esac
  sed -e "s|^slabs = |reference = $PWD/data/reference/egsnrc/slabs/$csv\nslabs = |" \
    -e "s/^energy_MeV = .*/energy_MeV = $3/" -e "s/^particle = .*/particle = $2/" "examples/$ini" \
    >"/tmp/mct-slab-$1.ini" &&
    "$MCT" run "/tmp/mct-slab-$1.ini" --backend cuda --histories "${MCT_SLAB_HISTORIES:-1e7}" --batches 20 \
      --method atomic --out "/tmp/mct-slab-$1" &&
    cp "/tmp/mct-slab-$1/result.json" "$OUT/hetero_slab_$1.result.log" &&
    python3 tests/sim/check_phantom_result.py "/tmp/mct-slab-$1/result.json"
}
step hetero_slab_e10 slab_check e10 electron 10
step hetero_slab_e20 slab_check e20 electron 20
step hetero_slab_g6 slab_check g6 photon 6
step hetero_slab_g18 slab_check g18 photon 18
step hetero_slab_thin_e6 slab_check thin_e6 electron 6
step hetero_slab_thin_e15 slab_check thin_e15 electron 15
step hetero_slab_thin_g1.25 slab_check thin_g1.25 photon 1.25
hetero_speed() { # NAME INI ARGS...: one run's histories/s
  "$MCT" run "$2" --backend cuda --method atomic --dtype f64 --out "/tmp/mct-speed-$1" "${@:3}" &&
    python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["phantom"]; print("%s: %.3g histories/s (transport %.3f s)" % (sys.argv[2], p["histories_per_second"], p["transport_seconds"]))' \
      "/tmp/mct-speed-$1/result.json" "$1"
}
# The voxel path's own cost: the 100^3 water cube of Liu's test 2 on the uniform path and as voxels
# (water at 0.99999 g/cm3: a geometry, whose steps the walk finds no reason to cut).
cube_voxels_ini
step hetero_speed_cube_uniform hetero_speed cube_uniform examples/phantom_test2.ini \
  --histories "${MCT_SPEED_HISTORIES:-4e6}" --batches 2
step hetero_speed_cube_voxels hetero_speed cube_voxels /tmp/mct-cube-voxels.ini \
  --histories "${MCT_SPEED_HISTORIES:-4e6}" --batches 2
mkdir -p /tmp/mct-ct && python3 tools/phantom/make_ct_phantom.py /tmp/mct-ct/ct_phantom && cp examples/phantom_ct.ini /tmp/mct-ct/
step hetero_speed_ct hetero_speed ct /tmp/mct-ct/phantom_ct.ini --histories "${MCT_SPEED_HISTORIES:-4e6}" --batches 2
# The same phantom with 20 HU of CT noise: densities change at most faces (steps cross them, not cut).
python3 tools/phantom/make_ct_phantom.py /tmp/mct-ct/ct_noisy --noise 20 && sed 's/ct_phantom/ct_noisy/g' examples/phantom_ct.ini >/tmp/mct-ct/noisy.ini
step hetero_speed_ct_noisy hetero_speed ct_noisy /tmp/mct-ct/noisy.ini --histories "${MCT_SPEED_HISTORIES:-4e6}" --batches 2
step hetero_speed_slabs hetero_speed slabs examples/phantom_slabs.ini --histories "${MCT_SPEED_HISTORIES:-4e6}" --batches 2
if [ -n "${MCT_BASE_SRC:-}" ]; then
  step hetero_base_build sh -c "cmake -S '$MCT_BASE_SRC' -B build-base -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CUDA_ARCHITECTURES=${MCT_CUDA_ARCH:-90} >/dev/null && cmake --build build-base -j $(nproc) --target mctally_cli"
  for b in base this; do
    bin=build-base/tools/mctally/mctally; [ $b = this ] && bin=$MCT
    step "hetero_uniform_$b" env MCT_COMMIT="$b" "$bin" bench phantom --tables 2 --methods atomic,block_reduce \
      --out "$OUT/bench_uniform_$b.json"
    python3 bench/phantom/table.py "$OUT/bench_uniform_$b.json" >"$OUT/bench_uniform_$b.md" 2>/dev/null
  done
fi
fi
# The electron beams' lateral profiles against EGSnrc DOSRZnrc (data/reference/egsnrc/lateral/) (stage
# hetero, or lateral alone; not in the default stages): the 20 MeV beam at 2 and 6 cm
# (examples/phantom_lateral_e20.ini: 0.5 mm voxels, absolute MeV/g per particle), the 10 MeV beam at 1, 2
# and 3 cm and the 6 MeV beam at 1 and 2 cm (the same file with the beam, reference and depths
# replaced), each at MCT_LATERAL_HISTORIES (1e7), its result.json kept in $OUT, every annulus with >= 5 %
# of its slab's maximum within 2 %/1 mm plus 3 standard errors (check_phantom_result.py reads
# result.json's "lateral").
if stage hetero || stage lateral; then
lateral_check() { # NAME MeV DEPTHS: lat_NAME.csv at those depths (cm, blanks or commas)
  sed -e "s|^lateral_reference = .*|lateral_reference = $PWD/data/reference/egsnrc/lateral/lat_$1.csv|" \
    -e "s/^energy_MeV = .*/energy_MeV = $2/" -e "s/^lateral_depths = .*/lateral_depths = $3/" \
    examples/phantom_lateral_e20.ini >"/tmp/mct-lateral-$1.ini" &&
    "$MCT" run "/tmp/mct-lateral-$1.ini" --backend cuda --histories "${MCT_LATERAL_HISTORIES:-1e7}" --batches 20 \
      --method atomic --out "/tmp/mct-lateral-$1" &&
    cp "/tmp/mct-lateral-$1/result.json" "$OUT/hetero_lateral_$1.result.json" &&
    python3 tests/sim/check_phantom_result.py "/tmp/mct-lateral-$1/result.json"
}
step hetero_lateral_e20 lateral_check e20 20 "2, 6"
step hetero_lateral_e10 lateral_check e10 10 "1, 2, 3"
step hetero_lateral_e6 lateral_check e6 6 "1, 2"
fi
# The heterogeneous examples on the GPU (not in the default stages): the slab phantom and the CT-like
# phantom (its image made by tools/phantom/make_ct_phantom.py) at 1e6 histories each, run as a user
# runs them; each must write its dose MetaImage and dose slice.
if stage geometry_examples; then
step geometry_slabs "$MCT" run examples/phantom_slabs.ini --backend cuda --histories 1e6 --out "$OUT/geometry_slabs"
step geometry_ct env MCTALLY="$MCT" examples/phantom_ct.sh /tmp/mct-geometry-ct --backend cuda --histories 1e6
step geometry_outputs test -s "$OUT/geometry_slabs/dose_slice.png" -a -s /tmp/mct-geometry-ct/dose.mhd \
  -a -s /tmp/mct-geometry-ct/dose_slice.png
fi
# The PET problem (sim/pet) on the GPU: memcheck of its kernels, the same LOR file on cpu, emulated and
# cuda, and the acceptances at large counts (Table 8.2's rings 70 and 99 within half its last digit and
# 4 binomial errors; ring 0 and a point on the axis against the analytic value; the CI tests do the same
# at small counts on the CPU).
if stage pet; then
step pet_matrix_small "$MCT" pet-matrix examples/pet_point.ini --voxels 20 --histories 2e5 --backend cuda \
  --out /tmp/mct-pet-sm.bin
for m in atomic wib block_reduce; do
  step "sanitize_memcheck_pet_$m" $SAN --tool memcheck "$MCT" run examples/pet_point.ini --backend cuda --method $m \
    --histories 200000 --out "/tmp/mct-san-pet-$m"
done
step sanitize_memcheck_pet_reco $SAN --tool memcheck "$MCT" pet-reco --matrix /tmp/mct-pet-sm.bin \
  --lors /tmp/mct-san-pet-atomic/lors.bin --backend cuda --iterations 2 --out /tmp/mct-san-pet-reco
pet_cross() {
  for b in cpu emulated cuda; do
    "$MCT" run examples/pet_point.ini --backend $b --histories 2e5 --out "/tmp/mct-pet-cross-$b" >/dev/null || return 1
  done
  cmp /tmp/mct-pet-cross-cpu/lors.bin /tmp/mct-pet-cross-cuda/lors.bin &&
    cmp /tmp/mct-pet-cross-emulated/lors.bin /tmp/mct-pet-cross-cuda/lors.bin && echo "lors.bin equal on cpu, emulated, cuda"
}
step pet_cross_backend pet_cross
pet_check() { # NAME EXPECT SIGMAS INI RUN-ARGS...: a cuda run, its efficiency checked (EXPECT: a number or analytic)
  local name=$1 want=$2 k=$3; shift 3
  "$MCT" run "$@" --backend cuda --out "/tmp/mct-pet-$name" &&
    python3 tests/sim/check_pet_result.py "/tmp/mct-pet-$name" --expect-efficiency $want --tolerance-sigmas $k &&
    cp "/tmp/mct-pet-$name/result.json" "$OUT/pet_$name.result.log"
}
total_ini() { # NAME SED...: the book's scanner (examples/pet_voxel.ini) with the one-bin index, edited
  local name=$1; shift
  sed -e "s/^index = .*/index = total/" "$@" examples/pet_voxel.ini >"/tmp/mct-pet-$name.ini" && echo "/tmp/mct-pet-$name.ini"
}
# 1e10 decays: a binomial error of 5e-6. Table 8.2 prints 0.1 %: its values hold within 0.0005, 100 of
# them; ring 0 is L / sqrt(L^2 + 4 R^2) = 0.449110 on the axis, the 2 mm voxel moving it by < 2e-5 (8 of
# them in all); the point at the centre is exactly the analytic value of result.json (4 of them).
big="--histories 1e10 --batches 10 --method block_reduce"
step pet_ring0 pet_check ring0 0.44911 8 "$(total_ini ring0 -e 's/^voxel_r = .*/voxel_r = 0/')" $big
step pet_ring70 pet_check ring70 0.481 100 "$(total_ini ring70 -e 's/^voxel_r = .*/voxel_r = 70/')" $big
step pet_ring99 pet_check ring99 0.527 100 "$(total_ini ring99 -e 's/^voxel_r = .*/voxel_r = 99/')" $big
step pet_doi_ring70 pet_check doi70 0.369 100 \
  "$(total_ini doi70 -e 's/^voxel_r = .*/voxel_r = 70/' -e 's/^depth_mm = .*/depth_mm = 20\ndoi = on\nattenuation_mm = 10.4/')" $big
step pet_axis pet_check axis analytic 4 "$(total_ini axis -e 's/^source = voxel/source = point/')" $big
step pet_derenzo "$MCT" run examples/pet_derenzo.ini --backend cuda --out /tmp/mct-pet-derenzo
fi
# Liu's Table IV case (test 3, 10^3 voxels, one batch): the rounding-loss estimate of the CLI must
# flag the FP32 atomic tally once it loses more than 1 % (1.6e7 histories lose about 2.6 %), not at
# 4e6 (about 0.24 %), and never KAS or FP64 (tests/sim/check_rounding_loss.py).
if stage rounding_loss; then
loss_case() { # NAME METHOD DTYPE HISTORIES EXPECT
  "$MCT" run examples/phantom_test3.ini --backend cuda --method $2 --dtype $3 --histories $4 --batches 1 \
    --out "/tmp/mct-loss-$1" 2>"$OUT/loss_$1.stderr" &&
    python3 tests/sim/check_rounding_loss.py "/tmp/mct-loss-$1/result.json" $5 &&
    cp "/tmp/mct-loss-$1/result.json" "$OUT/loss_$1.result.log"
}
step loss_fp32_1.6e7 loss_case fp32_16 atomic f32 1.6e7 yes
step loss_fp32_4e6 loss_case fp32_4 atomic f32 4e6 no
step loss_kas_1.6e7 loss_case kas_16 kahan f32 1.6e7 no
step loss_fp64_1.6e7 loss_case fp64_16 atomic f64 1.6e7 no
fi
# Ansorge 2022's PET chapter: Table 8.2 into the full LOR map per method with the tally overhead, the
# index variants, the system matrix (100 rings x 1e9 decays) and MLEM on the Derenzo phantom (its image
# in $OUT/pet_derenzo/): bench_pet.json and bench_pet.md. MCT_PET_SCALE scales the decays.
if stage bench_pet; then
step bench_pet env MCT_COMMIT="$COMMIT" "$MCT" bench pet --scale "${MCT_PET_SCALE:-1}" ${MCT_PET_BENCH_ARGS:-} \
  --image-dir "$OUT/pet_derenzo" --out "$OUT/bench_pet.json"
[ -f "$OUT/bench_pet.json" ] && python3 bench/pet/table.py "$OUT/bench_pet.json" >"$OUT/bench_pet.md"
fi
if stage bench_phantom; then
step bench_phantom env MCT_COMMIT="$COMMIT" \
  "$MCT" bench phantom --scale "${MCT_PHANTOM_SCALE:-1}" ${MCT_PHANTOM_BENCH_ARGS:-} --out "$OUT/bench_phantom.json"
[ -f "$OUT/bench_phantom.json" ] && python3 bench/phantom/table.py "$OUT/bench_phantom.json" >"$OUT/bench_phantom.md"
fi

# Buffered deposits (not in the default stages): the phantom's Table II layout (100³ / 10³ / 2³
# voxels, every method) with deposit = direct and = buffered, each case beside its own discarding
# launch, the random-walk user kernel (1e5 bins) direct / buffered / discarding, and Liu's test 1
# (tally_only, Table II) direct and buffered: bench_deposit_*.json and bench_deposit.md.
# MCT_PHANTOM_SCALE scales the histories; MCT_DEPOSIT_CAP (default 120 s) skips a case predicted to
# run longer.
if stage bench_deposit; then
for dep in direct buffered; do
  step "bench_deposit_$dep" env MCT_COMMIT="$COMMIT" "$MCT" bench phantom --tables 2 --deposit $dep \
    --scale "${MCT_PHANTOM_SCALE:-1}" --cap "${MCT_DEPOSIT_CAP:-120}" --out "$OUT/bench_deposit_$dep.json"
done
step bench_deposit_random_walk env MCT_COMMIT="$COMMIT" "$BUILD/bench_random_walk" \
  --out "$OUT/bench_deposit_random_walk.json"
for dep in direct buffered; do
  step "bench_deposit_tally_only_$dep" env MCT_COMMIT="$COMMIT" "$MCT" bench tally_only --tables 2 --deposit $dep \
    --out "$OUT/bench_deposit_tally_only_$dep.json"
done
[ -f "$OUT/bench_deposit_direct.json" ] && [ -f "$OUT/bench_deposit_buffered.json" ] &&
  python3 bench/deposit/table.py "$OUT/bench_deposit_direct.json" "$OUT/bench_deposit_buffered.json" \
    "$OUT/bench_deposit_random_walk.json" --command "MCT_SUITE_STAGES='build bench_deposit' scripts/gpu_suite.sh" \
    >"$OUT/bench_deposit.md"
for dep in direct buffered; do
  [ -f "$OUT/bench_deposit_tally_only_$dep.json" ] && { echo "## tally_only, deposit = $dep"; echo;
    python3 bench/tally_only/table.py "$OUT/bench_deposit_tally_only_$dep.json" \
      --command "mctally bench tally_only --tables 2 --deposit $dep"; } >>"$OUT/bench_deposit.md"
done
fi

# The phantom kernel's builds on the same GPU (not in the default stages), each timed by the Table II
# rows of atomic and block_reduce: the main build, and the variants listed in MCT_PHANTOM_VARIANTS
# ("NAME:FLAGS ...", e.g. no_hooks:-DMCT_BENCHMARK_HOOKS=0); MCT_VARIANT_SRC, another source tree,
# is built for every variant but main (an experiment's switches, say); MCT_BASE_SRC, the tree of an
# earlier commit (git archive), adds it as variant "base": before and after on the same GPU. The
# variants build side by side, then run one after the other.
if stage phantom_variants; then
phantom_variant_build() { # NAME CUDA_FLAGS SOURCE
  cmake -S "$3" -B "$BUILD-$1" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=${MCT_CUDA_ARCH:-90} \
    -DCMAKE_CUDA_FLAGS="$2" >/dev/null && cmake --build "$BUILD-$1" -j 4 --target mctally_cli
}
variants="${MCT_PHANTOM_VARIANTS:-main:}"
[ -n "${MCT_BASE_SRC:-}" ] && variants="$variants base:"
for v in $variants; do
  name=${v%%:*} flags=${v#*:}
  [ "$name" = main ] && continue
  src=${MCT_VARIANT_SRC:-.}
  [ "$name" = base ] && src=$MCT_BASE_SRC
  phantom_variant_build "$name" "${flags//,/ }" "$src" >"$OUT/build_$name.log" 2>&1 &
done
wait
for v in $variants; do
  name=${v%%:*} bin=$MCT
  if [ "$name" != main ]; then
    bin="$BUILD-$name/tools/mctally/mctally"
    [ -x "$bin" ] && results[build_$name]=pass || { results[build_$name]=FAIL; status=1; continue; }
  fi
  step "phantom_variant_$name" env MCT_COMMIT="$COMMIT" \
    "$bin" bench phantom --tables 2 --methods ${MCT_VARIANT_METHODS:-atomic,block_reduce} --reps ${MCT_VARIANT_REPS:-1} \
    --out "$OUT/phantom_variant_$name.json"
  [ -f "$OUT/phantom_variant_$name.json" ] &&
    python3 bench/phantom/table.py "$OUT/phantom_variant_$name.json" >"$OUT/phantom_variant_$name.md"
done
fi

# The scatter and MPC sweeps of the main build and of the earlier tree MCT_BASE_SRC (not in the
# default stages), one after the other on the same GPU, then compared case by case
# (bench/scatter/compare.py: new/old Gupd/s, flagged beyond 3 %). MCT_SCATTER_VARIANT_ARGS sets the
# sweep's options for both (default --reps 5 --case-seconds 0.3). The base build is the one the
# phantom_variants stage makes, or made here.
if stage scatter_variants && [ -n "${MCT_BASE_SRC:-}" ]; then
base_bin="$BUILD-base/tools/mctally/mctally"
if [ ! -x "$base_bin" ]; then
  cmake -S "$MCT_BASE_SRC" -B "$BUILD-base" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=${MCT_CUDA_ARCH:-90} \
    >"$OUT/build_base.log" 2>&1 && cmake --build "$BUILD-base" -j "$(nproc)" --target mctally_cli >>"$OUT/build_base.log" 2>&1
fi
for suite in ${MCT_SCATTER_SUITES:-scatter mpc}; do
  for v in main base; do
    bin=$MCT
    [ $v = base ] && bin=$base_bin
    step "scatter_variant_${suite}_$v" timeout 300 env MCT_COMMIT="$COMMIT" \
      "$bin" bench $suite ${MCT_SCATTER_VARIANT_ARGS:---reps 5 --case-seconds 0.3} --out "$OUT/scatter_variant_${suite}_$v.json"
  done
  [ -f "$OUT/scatter_variant_${suite}_main.json" ] && [ -f "$OUT/scatter_variant_${suite}_base.json" ] &&
    python3 bench/scatter/compare.py --label-old base --label-new main "$OUT/scatter_variant_${suite}_base.json" \
      "$OUT/scatter_variant_${suite}_main.json" >"$OUT/scatter_variant_$suite.md"
done
fi

# The escape benchmark of the main build and of MCT_BASE_SRC (not in the default stages), one after
# the other on the same GPU: the cost of a change to the counters' device path. Arguments for both
# in MCT_ESCAPE_VARIANT_ARGS (default --histories 2e7 --reps 5).
if stage escape_variants && [ -n "${MCT_BASE_SRC:-}" ]; then
base_bin="$BUILD-base/tools/mctally/mctally"
if [ ! -x "$base_bin" ]; then
  cmake -S "$MCT_BASE_SRC" -B "$BUILD-base" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=${MCT_CUDA_ARCH:-90} \
    >"$OUT/build_base.log" 2>&1 && cmake --build "$BUILD-base" -j "$(nproc)" --target mctally_cli >>"$OUT/build_base.log" 2>&1
fi
for v in main base; do
  bin=$MCT
  [ $v = base ] && bin=$base_bin
  step "escape_variant_$v" timeout 300 env MCT_COMMIT="$COMMIT" \
    "$bin" bench escape ${MCT_ESCAPE_VARIANT_ARGS:---histories 2e7 --reps 5} --out "$OUT/escape_variant_$v.json"
done
fi

# Scatter from GPU arrays: every f64 method beside CUB (same run) and PyTorch (same patterns),
# then the Markdown and charts: bench_scatter.md, bench_{scatter,mpc}_{all,best}.png.
if stage bench_scatter; then
# MCT_SCATTER_SUITES picks the suites (default both), for a call that re-measures one.
for suite in ${MCT_SCATTER_SUITES:-scatter mpc}; do
  step "bench_$suite" timeout $([ $suite = scatter ] && echo 300 || echo 150) env MCT_COMMIT="$COMMIT" \
    "$MCT" bench $suite --out "$OUT/bench_$suite.json"
done
step torch_scatter timeout 120 python3 bench/peers/torch_scatter.py --out "$OUT/torch_scatter.json"
scatter_json=$(ls "$OUT"/bench_scatter.json "$OUT"/bench_mpc.json 2>/dev/null)
[ -n "$scatter_json" ] && python3 bench/scatter/table.py --torch "$OUT/torch_scatter.json" --png-dir "$OUT" \
  --command "scripts/gpu_suite.sh (stage bench_scatter)" $scatter_json >"$OUT/bench_scatter.md"
fi

# Method auto against every concrete method on the scatter sweep's cases and MPC (estimate,
# measure, wisdom): bench_planner.json and bench_planner.md. Not in the default stages.
if stage bench_planner; then
# MCT_PLANNER_CASES: the scatter sweep's cases, then other bin counts, widths and value types.
for cases in ${MCT_PLANNER_CASES:-sweep other}; do
  sfx=$([ $cases = sweep ] || echo "_$cases")
  step bench_planner$sfx timeout 600 env MCT_COMMIT="$COMMIT" "$BUILD/bench/planner/bench_planner" --backend cuda \
    --reps ${MCT_PLANNER_REPS:-5} --cases $cases --out "$OUT/bench_planner$sfx.json"
  [ -f "$OUT/bench_planner$sfx.json" ] && python3 bench/planner/table.py "$OUT/bench_planner$sfx.json" >"$OUT/bench_planner$sfx.md"
done
# The plan's own cost inside mct_tally_create, warm, cold and after GPU work (bench_plan_cost.md).
step bench_plan_cost timeout 120 "$BUILD/bench/planner/bench_plan_cost" --backend cuda --bins 1e6,1000,8 --reps 101 \
  --out "$OUT/bench_plan_cost.json"
[ "${results[bench_plan_cost]}" = pass ] && cp "$OUT/bench_plan_cost.log" "$OUT/bench_plan_cost.md"
fi

# Nsight Compute on the kernels that have speed goals (not in the
# default stages): the phantom's transport (FP64 engine, 100^3 voxels, and
# block_reduce at 2^3) and the scatter's add kernel on 1000 bins. One text
# report per case in $OUT/profile/.
if stage profile; then
mkdir -p "$OUT/profile"
NCU="ncu --launch-count 1 --section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
  --section WarpStateStats --section SchedulerStats --section Occupancy --section LaunchStats --section InstructionStats"
profile_scatter() { # NAME METHOD PATTERN BINS WIDTH
  sed -e "s/^bins = .*/bins = $4/" -e "s/^pattern = .*/pattern = $3/" -e "s/^width = .*/width = $5/" \
    examples/scatter.ini >"/tmp/mct-prof-$1.ini"
  $NCU --kernel-name regex:mct_kernel_add_arrays "$MCT" run "/tmp/mct-prof-$1.ini" --backend cuda --method $2 \
    --histories 1e7 --batches 1 --out "/tmp/mct-prof-$1" >"$OUT/profile/$1.txt" 2>&1
}
profile_phantom() { # NAME INI ARGS...
  local name=$1 ini=$2; shift 2
  $NCU --kernel-name regex:mct_phantom_kernel "$MCT" run "$ini" --backend cuda --batches 1 "$@" \
    --out "/tmp/mct-prof-$name" >"$OUT/profile/$name.txt" 2>&1
}
step profile_scatter_hot profile_scatter scatter_1000_hot block_reduce hot 1000 1
step profile_scatter_uniform profile_scatter scatter_1000_uniform block_reduce uniform 1000 1
step profile_scatter_shared profile_scatter scatter_1000_shared shared uniform 1000 1
step profile_mpc profile_scatter mpc_uniform block_reduce uniform 1000000 9
step profile_phantom_fp64 profile_phantom phantom_fp64 examples/phantom_test2.ini --histories 2e5
step profile_phantom_fp32 profile_phantom phantom_fp32 examples/phantom_test2.ini --histories 2e5 --dtype f32
step profile_phantom_t4 profile_phantom phantom_t4_block_reduce examples/phantom_test4.ini --histories 2e5 \
  --method block_reduce
fi

# The phantom's transport kernel (FP64 engine, 100^3 voxels) down to the instruction, on the uniform
# path (fp64) and on the voxel path (voxels: the same cube as a geometry): Nsight Compute's warp
# states, per-instruction stall samples (the SASS page as CSV) and, in a build with -lineinfo
# (MCT_CUDA_FLAGS), the same per source line; the kernel's resource use; all in profile_phantom.tar.gz.
if stage profile_phantom; then
cube_voxels_ini
profile_phantom_source() { # NAME INI
  local d="$OUT/profile_phantom"
  mkdir -p "$d"
  ncu --clock-control none --launch-count 1 --kernel-name regex:mct_phantom_kernel --import-source yes \
    --section WarpStateStats --section SourceCounters --section Occupancy --section LaunchStats \
    --section InstructionStats -f -o "$d/$1" "$MCT" run "$2" --backend cuda --batches 1 --method atomic --dtype f64 \
    --histories ${MCT_PROFILE_HISTORIES:-1e6} --out "/tmp/mct-prof-src-$1" &&
    ncu -i "$d/$1.ncu-rep" --page details >"$d/$1_details.txt" &&
    ncu -i "$d/$1.ncu-rep" --page source --csv --print-source sass >"$d/$1_sass.csv" &&
    { ncu -i "$d/$1.ncu-rep" --page source --csv --print-source cuda >"$d/$1_cuda.csv" || true; }
  local rc=$?
  cuobjdump -res-usage "$MCT" 2>/dev/null | grep -A1 mct_phantom_kernel >"$d/res_usage.txt"
  return $rc
}
step profile_phantom profile_phantom_source fp64 examples/phantom_test2.ini
step profile_phantom_voxels profile_phantom_source voxels /tmp/mct-cube-voxels.ini
tar -czf "$OUT/profile_phantom.tar.gz" --exclude "*.ncu-rep" -C "$OUT" profile_phantom && rm -rf "$OUT/profile_phantom"
fi

# The MPI launcher of the rank stages (dist, multigpu): $MCT_MPIEXEC, else mpirun or mpiexec.
MPIRUN=${MCT_MPIEXEC:-$(command -v mpirun || command -v mpiexec || true)}

# Ranks (not in the default stages): the multi-rank tests, one batch's sum of a 1e6-bin f64 tally
# through host MPI and NCCL (bench_dist_reduce: one rank per GPU, on 1 GPU and, where there are
# more, on all), the 1-rank path against a plain run of 1e7 phantom histories (both transports),
# and the scaling of phantom 100^3 and tally_only over 1..(GPUs) ranks: dist_*.json and dist.md.
# Needs an MPI launcher and a build with MPI (MCTALLY_MPI: the MPI headers found at configure);
# skipped with a message otherwise.
if stage dist; then
if [ -z "$MPIRUN" ]; then
  log "dist: no MPI launcher (mpirun, mpiexec) on this machine: stage skipped"
  results[dist]=skipped
elif [ ! -x "$BUILD/bench/dist/bench_dist_reduce" ]; then
  log "dist: $BUILD was configured without MPI (no MPI headers: install libopenmpi-dev, MCTALLY_MPI): stage skipped"
  results[dist]=skipped
else
  export MCT_MPIEXEC=$MPIRUN
  NGPU=$(nvidia-smi -L | wc -l)
  step dist_ctest ctest --test-dir "$BUILD" -R dist --output-on-failure
  # Ranks of one machine copy through cross-memory attach (cma) where the kernel allows it, else
  # through shared-memory buffers.
  dist_reduce() { # RANKS
    local run=(tests/dist/mpi_launch.sh "$1" "$BUILD/bench/dist/bench_dist_reduce" --backend cuda --bins 1e6 --reps 50
               --out "$OUT/dist_reduce_${1}gpu.json")
    env MCT_COMMIT="$COMMIT" OMPI_MCA_btl_vader_single_copy_mechanism=cma "${run[@]}" ||
      env MCT_COMMIT="$COMMIT" "${run[@]}"
  }
  step dist_reduce_1gpu dist_reduce 1
  [ "$NGPU" -gt 1 ] && step dist_reduce_${NGPU}gpu dist_reduce "$NGPU"
  step dist_scaling env MCT_COMMIT="$COMMIT" python3 bench/dist/scaling.py --mctally "$MCT" --launcher "$MPIRUN" \
    --backend cuda --ranks "$(seq -s, 1 "$NGPU")" --phantom-histories 1e7 --tally-only-histories 1e9 --overhead \
    --reps ${MCT_DIST_REPS:-3} --machine "$(head -1 "$OUT/gpu.txt") x $NGPU" --out "$OUT/dist_scaling.json"
  step dist_overhead_host env MCT_COMMIT="$COMMIT" python3 bench/dist/scaling.py --mctally "$MCT" \
    --launcher "$MPIRUN" --backend cuda --problems phantom --phantom-histories 1e7 --overhead --modes none \
    --reduce host --reps ${MCT_DIST_REPS:-3} --machine "$(head -1 "$OUT/gpu.txt")" --out "$OUT/dist_overhead_host.json"
  python3 bench/dist/table.py $(ls "$OUT"/dist_reduce_*.json "$OUT"/dist_scaling.json "$OUT"/dist_overhead_host.json \
    2>/dev/null) >"$OUT/dist.md"
fi
fi

# Several GPUs of one host (not in the default stages): bench/dist/multi_gpu.py with one rank per
# GPU on 1, 2, 4, ... of them, strong scaling of phantom 100^3 (4e8 histories), tally_only (3e9) and
# the MPC scatter through NCCL and host MPI, and bitwise equality of exact tallies over GPU counts
# and against the CPU backend: multi_gpu[_TAG].json and .md. MCT_MULTIGPU_ARGS adds flags (e.g.
# "--parts scaling --problems phantom --kinds fixed" to split it over calls: the phantom's cases are
# the long ones, bench/results/*-multigpu.md), with MCT_MULTIGPU_TAG naming each.
if stage multigpu; then
if [ -z "$MPIRUN" ]; then
  log "multigpu: no MPI launcher (mpirun, mpiexec) on this machine: stage skipped"
  results[multigpu]=skipped
else
  NGPU=$(nvidia-smi -L | wc -l)
  RANKS=1; for r in 2 4 8 16; do [ "$r" -le "$NGPU" ] && RANKS="$RANKS,$r"; done
  MG="$OUT/multi_gpu${MCT_MULTIGPU_TAG:+_$MCT_MULTIGPU_TAG}"
  step multigpu${MCT_MULTIGPU_TAG:+_$MCT_MULTIGPU_TAG} env MCT_COMMIT="$COMMIT" python3 bench/dist/multi_gpu.py \
    --mctally "$MCT" --launcher "$MPIRUN" --ranks "$RANKS" --machine "$(head -1 "$OUT/gpu.txt") x $NGPU" \
    ${MCT_MULTIGPU_ARGS:-} --out "$MG.json"
  [ -f "$MG.json" ] && python3 bench/dist/multi_gpu.py --table "$MG.json" >"$MG.md"
fi
fi

# Liu 2018 test 1 (T1 of Tables II and III), then its Markdown and bar chart.
if stage bench_tally_only; then
step bench_tally_only env MCT_COMMIT="$COMMIT" \
  "$MCT" bench tally_only ${MCT_TALLY_ONLY_ARGS:-} --out "$OUT/bench_tally_only.json"
[ -f "$OUT/bench_tally_only.json" ] && python3 bench/tally_only/table.py "$OUT/bench_tally_only.json" \
  --command "scripts/gpu_suite.sh (mctally bench tally_only --out bench_tally_only.json)" \
  --png "$OUT/bench_tally_only.png" >"$OUT/bench_tally_only.md"
fi

# Accuracy study: FP32 atomic / KAS / fixed / FP64 error as additions grow (1e5..1e9, 1 and 8 bins).
if stage bench_accuracy; then
step bench_accuracy env MCT_COMMIT="$COMMIT" \
  "$MCT" bench accuracy --out "$OUT/bench_accuracy.json"
[ -f "$OUT/bench_accuracy.json" ] && python3 bench/accuracy/table.py "$OUT/bench_accuracy.json" \
  "scripts/gpu_suite.sh (mctally bench accuracy --out bench_accuracy.json)" \
  --plot "$OUT/bench_accuracy.png" >"$OUT/bench_accuracy.md"
fi

# The Python package from the working tree, installed as a user would (pip install python/,
# CUDA backend built by the nvcc the C build uses) into a venv that sees the machine's torch
# and CuPy, then pytest with the GPU tests. Without network, pip takes the build tools
# (scikit-build-core, nanobind) and pytest from the machine or from wheels in .whl/.
PYVENV=${MCT_PYVENV:-/tmp/mct-pyvenv}
if stage python; then
py_install() {
  rm -rf "$PYVENV" && python3 -m venv --system-site-packages "$PYVENV" || return 1
  # Where python3 is itself a venv (PyTorch and CuPy in its site-packages), the new venv's
  # system site is the base interpreter's, not that venv's: a .pth line adds its packages.
  python3 -c 'import site; print("\n".join(site.getsitepackages()))' \
    >"$("$PYVENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/mct-parent-site.pth"
  # With wheels carried in .whl/ (no registry on the GPU machine) pip looks nowhere else.
  local find=""; ls .whl/*.whl >/dev/null 2>&1 && find="--no-index --find-links .whl"
  "$PYVENV/bin/python" -c 'import sys; print(sys.version)'
  for mod in scikit_build_core:scikit-build-core nanobind:nanobind pytest:pytest numpy:numpy; do
    "$PYVENV/bin/python" -c "import ${mod%%:*}" 2>/dev/null ||
      "$PYVENV/bin/python" -m pip install --quiet $find "${mod#*:}" || return 1
  done
  "$PYVENV/bin/python" -m pip install --no-build-isolation --no-deps $find \
    -C cmake.define.CMAKE_CUDA_ARCHITECTURES=${MCT_CUDA_ARCH:-90} -C build-dir=/tmp/mct-pybuild ./python
}
step python_install py_install
step python_pytest env -u MCTALLY_CLI "$PYVENV/bin/python" -m pytest -v -p no:cacheprovider tests/python
fi

# mctally.scatter_add from PyTorch tensors beside index_add_ (default and deterministic),
# bincount and cupy.add.at, and the Python layer's per-call overhead (the Python calls less
# the same C calls made from C, bench_c_calls of this build): bench_python.json/.md.
if stage bench_python; then
step bench_python timeout 600 env -u MCTALLY_CLI MCT_COMMIT="$COMMIT" "$PYVENV/bin/python" \
  bench/python/bench_scatter_add.py --n ${MCT_PY_BENCH_N:-1e8} --c-calls "$BUILD/bench/python/bench_c_calls" \
  --out "$OUT/bench_python.json"
[ -f "$OUT/bench_python.json" ] && python3 bench/python/table.py "$OUT/bench_python.json" >"$OUT/bench_python.md"
fi

# The worked example of docs/porting.md (examples/photon_migration) on the GPU: f64 atomic,
# fixed and kahan through mct_add against the kernel's own float atomicAdd (photons per second,
# best of 3; on 40^3 and 100^3 voxels; atomic and fixed in both forms, typed and runtime), the adds the hottest voxel takes (count), and fixed bitwise from run to run with
# >= 1e9 adds into the hottest voxel (about 0.74 per photon) and no range given:
# bench_adopt.json/.md. MCT_ADOPT_PHOTONS sets the timed runs' photons.
if stage adopt; then
PM="$BUILD/examples/photon_migration/photon_migration"
NP=${MCT_ADOPT_PHOTONS:-1e8}
adopt_runs() {
  [ -x "$PM" ] || { echo "no $PM (configure with MCT_BUILD_EXAMPLES=ON and CUDA)"; return 1; }
  local bad=0
  "$PM" --method count --photons 1e7 --batches 1 || bad=1
  "$PM" --method fixed --photons ${MCT_ADOPT_BITWISE_PHOTONS:-1.4e9} --batches 10 --repeat 2 || bad=1
  for g in 40 100; do
    for m in float_atomic atomic fixed; do "$PM" --method $m --grid $g --photons $NP --batches 10 --repeat 3 || bad=1; done
    for m in atomic fixed; do "$PM" --method $m --form runtime --grid $g --photons $NP --batches 10 --repeat 3 || bad=1; done
  done
  for g in 40 100; do "$PM" --method kahan --grid $g --photons $NP --batches 10 --repeat 3 || bad=1; done
  return $bad
}
log "adopt: $PM"
if adopt_runs >"$OUT/adopt_runs.jsonl" 2>"$OUT/adopt.log"; then results[adopt]=pass; else results[adopt]=FAIL; status=1; fi
python3 bench/adopt/table.py "$OUT/adopt_runs.jsonl" --json "$OUT/bench_adopt.json" --commit "$COMMIT" \
  --gpu "$(head -1 "$OUT/gpu.txt")" >"$OUT/bench_adopt.md" || results[adopt]=FAIL
cat "$OUT/bench_adopt.md"
fi

{
  echo "{"
  echo "  \"gpu\": \"$(head -1 "$OUT/gpu.txt")\","
  echo "  \"date\": \"$(date -u +%Y-%m-%dT%H:%M:%SZ)\","
  echo "  \"nvcc\": \"$(nvcc --version | tail -1)\","
  echo "  \"steps\": {"
  first=1
  for k in "${!results[@]}"; do
    [ $first = 1 ] || echo ","
    printf '    "%s": "%s"' "$k" "${results[$k]}"
    first=0
  done
  echo ""
  echo "  }"
  echo "}"
} >"$OUT/suite.json"
# Logs travel as one archive; results and the summary stay beside it.
tar -czf "$OUT/logs.tar.gz" -C "$OUT" $(cd "$OUT" && ls *.log gpu.txt 2>/dev/null) && (cd "$OUT" && rm -f *.log)
log "suite: $([ $status = 0 ] && echo PASS || echo FAIL)"
for k in "${!results[@]}"; do echo "$k ${results[$k]}"; done | sort
exit $status
