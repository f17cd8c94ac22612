#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Builds the libFuzzer harnesses (fuzz/) with clang under ASan and UBSan in
# build-fuzz/ and runs each for SECONDS (default 60). Installs clang with apt
# when it is missing. A crash, leak, sanitizer report or timeout stops the
# target and fails the script; libFuzzer writes the input as
# build-fuzz/findings/<target>/crash-* (keep it under fuzz/regressions/<target>/
# once fixed: ctest replays that directory). Prints the executions of each
# target and their total.
#   scripts/fuzz.sh [SECONDS] [TARGET...]     targets: ini args accumulate wisdom
set -eu
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
targets=${*:-ini args accumulate wisdom}
. scripts/apt_need.sh
mct_apt_need fuzz clang libclang-rt-dev cmake make pkg-config libcjson-dev libinih-dev zlib1g-dev
launcher=""
command -v ccache >/dev/null 2>&1 && launcher="-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache"
# No CUDA and no tests: the harnesses need the library, the problems' tables and the CLI's readers.
cmake -S . -B build-fuzz -DMCT_FUZZ=ON -DMCT_ENABLE_CUDA=OFF -DMCT_BUILD_TESTS=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ $launcher >/dev/null
build_targets=""
for t in $targets; do build_targets="$build_targets fuzz_$t"; done
cmake --build build-fuzz -j "$(nproc)" --target $build_targets
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
total=0
status=0
for t in $targets; do
  corpus=build-fuzz/corpus/$t findings=build-fuzz/findings/$t
  mkdir -p "$corpus" "$findings"
  seeds="fuzz/corpus/$t fuzz/regressions/$t"
  [ "$t" = ini ] && seeds="$seeds examples"
  log=build-fuzz/fuzz_$t.log
  # The first directory collects what the run finds; the others are read only.
  # A 10 s timeout per input and 2 GB of memory: an input that hangs or
  # allocates without bound is a finding too.
  if build-fuzz/fuzz/fuzz_$t "$corpus" $seeds -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
       -max_len=4096 -artifact_prefix="$findings/" -print_final_stats=1 >"$log" 2>&1; then
    result=ok
  else
    result=FAILED
    status=1
    tail -n 40 "$log"
  fi
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  runs=${runs:-0}
  total=$((total + runs))
  echo "fuzz: $t: $runs executions in ${seconds} s: $result (log: $log)"
done
echo "fuzz: $total executions in total"
exit $status
