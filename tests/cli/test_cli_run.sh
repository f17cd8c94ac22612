#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The CLI end to end: a good run writes result.json with the fields the README
# promises; the emulated backend gives the CPU's integer count; every kind of
# bad input gives one clear message, a non-zero exit and no result file.
set -u
MCT=$1
EXAMPLE=$2
source "$(dirname "$0")/cli_test_lib.sh"

ini() { # ini FILE: writes a problem file from stdin
    cat >"$work/$1"
}

ini good.ini <<'INI'
[problem]
type = escape
histories = 20000
seed = 5
batches = 4
[tally]
method = atomic
dtype = i32
[escape]
thickness_m = 100
INI

# A good run, and the same seed through the emulated backend and another method.
"$MCT" run "$work/good.ini" --backend cpu --out "$work/cpu" >/dev/null || fail "cpu run failed"
"$MCT" run "$work/good.ini" --backend emulated --method warp_reduce --out "$work/emu" >/dev/null || fail "emulated run failed"
for key in problem backend device method dtype histories seed batches seconds tallies mean rel_err total \
           sums_digest fraction std_error analytic; do
    grep -q "\"$key\"" "$work/cpu/result.json" || fail "result.json lacks $key"
done
count() { grep -o '"escapes":[[:space:]]*[0-9.e+]*' "$1" | grep -o '[0-9.e+]*$'; }
[ -n "$(count "$work/cpu/result.json")" ] || fail "no escape count"
[ "$(count "$work/cpu/result.json")" = "$(count "$work/emu/result.json")" ] ||
    fail "cpu and emulated counts differ: $(count "$work/cpu/result.json") vs $(count "$work/emu/result.json")"
grep -q '"backend":[[:space:]]*"emulated"' "$work/emu/result.json" || fail "emulated run not recorded as emulated"
# sums_digest: FNV-1a (64 bits) of the bins' sums as little-endian doubles; the same tally gives the
# same digest on every backend, another tally another digest.
digest() { grep -o '"sums_digest":[[:space:]]*"[0-9a-f]*"' "$1" | grep -o '[0-9a-f]\{16\}'; }
want=$(python3 -c '
import json, struct, sys
j = json.load(open(sys.argv[1]))
h = 0xcbf29ce484222325
for m in j["tallies"][0]["mean"]:  # an integer tally: each sum is a whole number of histories
    for b in struct.pack("<d", float(round(m * j["histories"]))):
        h = ((h ^ b) * 0x100000001b3) % 2**64
print(f"{h:016x}")' "$work/cpu/result.json")
[ "$(digest "$work/cpu/result.json")" = "$want" ] ||
    fail "sums_digest $(digest "$work/cpu/result.json") is not the FNV-1a of the sums ($want)"
[ "$(digest "$work/cpu/result.json")" = "$(digest "$work/emu/result.json")" ] || fail "cpu and emulated digests differ"
"$MCT" run "$work/good.ini" --backend cpu --histories 1e3 --batches 2 --seed 9 --dtype f64 --out "$work/over" >/dev/null ||
    fail "overrides run failed"
grep -q '"histories":[[:space:]]*1000' "$work/over/result.json" || fail "--histories did not override"
grep -q '"dtype":[[:space:]]*"f64"' "$work/over/result.json" || fail "--dtype did not override"
[ "$(digest "$work/over/result.json")" != "$(digest "$work/cpu/result.json")" ] || fail "another tally, the same digest"
"$MCT" run "$EXAMPLE" --backend cpu --histories 100000 --out "$work/example" >/dev/null || fail "example failed"

# Bad input.
expect_error missing_file "cannot open problem file" run "$work/nope.ini"
expect_error no_file "missing problem file" run
expect_bad_ini unknown_key "unknown key" <<'INI'
[problem]
type = escape
colour = blue
INI
expect_bad_ini unknown_section "unknown section \[geometry\]" <<'INI'
[problem]
type = escape
[geometry]
INI
expect_bad_ini unknown_method "unknown method" <<'INI'
[problem]
type = escape
[tally]
method = magic
INI
expect_bad_ini unknown_dtype "unknown type" <<'INI'
[problem]
type = escape
[tally]
dtype = f16
INI
expect_bad_ini negative_thickness "expected a number >= 0" <<'INI'
[problem]
type = escape
[escape]
thickness_m = -3
INI
expect_bad_ini non_numeric "expected a whole number" <<'INI'
[problem]
type = escape
histories = many
INI
expect_bad_ini missing_type "missing \[problem\] type" <<'INI'
[problem]
histories = 10
INI
expect_bad_ini bad_syntax "not valid INI syntax" <<'INI'
[problem]
type = escape
this line is not ini
INI
expect_error cpu_cannot_warp "cannot serve" run "$work/good.ini" --backend cpu --method shared
expect_error bad_flag "unknown option" run "$work/good.ini" --colour red
expect_error bad_backend "unknown backend" run "$work/good.ini" --backend tpu
expect_error negative_seed "expected a whole number" run "$work/good.ini" --seed -4
expect_error zero_histories "expected a whole number >= 1" run "$work/good.ini" --histories 0
expect_error fewer_histories "must be at least batches" run "$work/good.ini" --histories 3 --batches 4
expect_error i32_overflow "exceed the range of i32" run "$work/good.ini" --backend cpu --histories 5e9 --batches 1
expect_error unknown_command "unknown command" frobnicate
# An output directory that cannot be written is refused before the run.
touch "$work/plain_file"
for out in "$work/plain_file" "$work/no/such/dir"; do
    if "$MCT" run "$work/good.ini" --backend cpu --out "$out" >"$work/stdout" 2>"$work/stderr"; then
        fail "--out $out: exit 0"
    elif ! grep -q "output directory" "$work/stderr" || [ "$(wc -l <"$work/stderr")" -ne 1 ]; then
        fail "--out $out: expected one line naming the output directory: $(cat "$work/stderr")"
    elif [ -s "$work/stdout" ]; then
        fail "--out $out: the run went ahead: $(cat "$work/stdout")"
    else
        echo "ok: --out $out -> $(cat "$work/stderr")"
    fi
done
"$MCT" methods | grep -q "block_reduce" || fail "methods lacks block_reduce"
"$MCT" methods | grep -q "never wrapped" || fail "methods lacks the integer overflow rule"
"$MCT" --version | grep -q "mctally " || fail "--version"
"$MCT" --help | grep -q "usage" || fail "--help"
"$MCT" run --help | grep -q "usage" || fail "run --help"

echo "cli: $failures failure(s)"
[ "$failures" -eq 0 ]
