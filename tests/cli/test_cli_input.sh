#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Input that must not fool the CLI: over-long problem-file lines (a comment's
# tail must not become a key), the line of the first error, numbers in hex or
# inf/nan, physically meaningless phantom parameters, files that are a FIFO, a
# device or a directory, and fixed-point values that round to zero.
set -u
MCT=$1
source "$(dirname "$0")/cli_test_lib.sh"

ini() { printf '%b' "$2" >"$work/$1.ini"; }
long=$(printf 'x%.0s' $(seq 197))

# A 197-byte comment whose tail (past inih's 200-byte buffer) reads "histories = 7".
ini long_comment "[problem]\ntype = escape\n# ${long}histories = 7\n"
expect_error long_comment "long_comment.ini:3: line is 212 bytes long; a line of a problem file holds at most 199" \
    run "$work/long_comment.ini"
# The longest line accepted: 199 bytes.
pad=$(printf 'y%.0s' $(seq 197))
ini longest "[problem]\ntype = escape\nhistories = 1000\n# ${pad}\n[escape]\nthickness_m = 10\n"
if "$MCT" run "$work/longest.ini" --backend cpu --out "$work/out_longest" >/dev/null 2>"$work/stderr"; then
    echo "ok: a 199-byte line is read"
else
    fail "longest: a 199-byte line refused: $(cat "$work/stderr")"
fi
# A 1100-byte line before an unknown section: refused at its own line.
ini very_long "# $(printf 'z%.0s' $(seq 1100))\n[problem]\ntype = escape\n"
expect_error very_long "very_long.ini:1: line is 1102 bytes long" run "$work/very_long.ini"
# The first error is reported with its own line and text.
ini two_errors "[problem]\ntype = escape\nnot a key line\nhistories = abc\n"
expect_error two_errors "two_errors.ini:3: not valid INI syntax" run "$work/two_errors.ini"
ini key_then_syntax "[problem]\ntype = escape\nhistories = abc\nnot a key line\n"
expect_error key_then_syntax "key_then_syntax.ini:3: \[problem\] histories = abc" run "$work/key_then_syntax.ini"
ini section_line "; one\n; two\n[problem]\ntype = escape\n\n[bogus]\n"
expect_error section_line "section_line.ini:6: unknown section \[bogus\]" run "$work/section_line.ini"
ini nul_byte "[problem]\ntype = escape\nhistories = 10\0000\n"
expect_error nul_byte "nul_byte.ini:3: line holds a NUL byte" run "$work/nul_byte.ini"

# Decimal numbers only, in the file and in flags.
ini hex "[problem]\ntype = escape\n[escape]\nthickness_m = 0x1p7\n"
expect_error hex "hex.ini:4: \[escape\] thickness_m = 0x1p7: expected a number >= 0 (m)" run "$work/hex.ini"
ini hex_count "[problem]\ntype = escape\nhistories = 0x10\n"
expect_error hex_count "\[problem\] histories = 0x10: expected a whole number" run "$work/hex_count.ini"
ini inf_count "[problem]\ntype = escape\nbatches = inf\n"
expect_error inf_count "\[problem\] batches = inf: expected a whole number" run "$work/inf_count.ini"
ini nan_real "[problem]\ntype = escape\n[escape]\nsigma_per_m = nan\n"
expect_error nan_real "\[escape\] sigma_per_m = nan: expected a number > 0" run "$work/nan_real.ini"
ini ok "[problem]\ntype = escape\nhistories = 1000\n[escape]\nthickness_m = 10\n"
expect_error flag_hex "\-\-histories 0x100: expected a whole number" run "$work/ok.ini" --histories 0x100
expect_error flag_inf "\-\-histories inf: expected a whole number" run "$work/ok.ini" --histories inf
expect_error flag_nan "\-\-loss-threshold nan: expected a fraction" run "$work/ok.ini" --loss-threshold nan
expect_error flag_hexf "\-\-loss-threshold 0x0.1p0: expected a fraction" run "$work/ok.ini" --loss-threshold 0x0.1p0
expect_error flag_seed "\-\-seed +5: expected a whole number" run "$work/ok.ini" --seed +5
expect_error flag_bins "\-\-bins 0x8: expected a whole number" accumulate --bins 0x8 --keys "$work/ok.ini" --values "$work/ok.ini"

# Phantom parameters that would give nonsense or never end.
for v in 1e-15 1e-9 1e-6 1e-4; do
    ini "step_$v" "[problem]\ntype = phantom\n[phantom]\nstep_fraction = $v\n"
    expect_error "step_fraction_$v" "step_fraction = $v: expected a number in \[0.001, 0.5\]" run "$work/step_$v.ini"
done
for v in 0 1e-4 -1 2e4; do
    ini "maxstep_$v" "[problem]\ntype = phantom\n[phantom]\nmax_step_g_cm2 = $v\n"
    expect_error "max_step_$v" "max_step_g_cm2 = $v: expected a number in \[0.001, 10000\]" run "$work/maxstep_$v.ini"
done
for v in 1e-300 1e-4; do
    ini "size_$v" "[problem]\ntype = phantom\n[phantom]\nsize_cm = $v\n"
    expect_error "size_cm_$v" "size_cm = $v: expected a number in \[0.001, 10000\] (cm)" run "$work/size_$v.ini"
done
# The smallest step fraction runs to the end and moves energy past the entry voxels.
ini fine_steps "[problem]\ntype = phantom\nhistories = 20\nbatches = 2\n[phantom]\nvoxels = 10\nsize_cm = 4\nenergy_MeV = 2\nstep_fraction = 1e-3\n"
if timeout 300 "$MCT" run "$work/fine_steps.ini" --backend cpu --out "$work/out_fine" >/dev/null 2>"$work/stderr" &&
    python3 - "$work/out_fine/depth_dose.csv" <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if r and r[0][0].isdigit()]
dose = [float(r[1]) for r in rows]
assert len(dose) == 10 and sum(dose[1:]) > 0.1 * sum(dose), dose
PY
then
    echo "ok: step_fraction 1e-3 runs and transports energy past the first slab"
else
    fail "fine_steps: $(cat "$work/stderr")"
fi

# Files that are not regular: refused before they are opened (a FIFO would block).
mkfifo "$work/fifo"
printf '\1\0\0\0' >"$work/k.bin"
python3 -c "import struct; open('$work/v.bin','wb').write(struct.pack('<d', 1.0))"
expect_error ini_fifo "problem file '$work/fifo' is a FIFO, not a regular file" run "$work/fifo"
expect_error ini_dir "problem file '$work' is a directory, not a regular file" run "$work"
expect_error ini_dev "problem file '/dev/null' is a character device, not a regular file" run /dev/null
expect_error keys_fifo "keys file '$work/fifo' is a FIFO" accumulate --bins 2 --keys "$work/fifo" --values "$work/v.bin"
expect_error values_dev "values file '/dev/zero' is a character device" accumulate --bins 2 --keys "$work/k.bin" --values /dev/zero
expect_error keys_dir "keys file '$work' is a directory" accumulate --bins 2 --keys "$work" --values "$work/v.bin"
if timeout 20 "$MCT" plan --bins 8 --keys "$work/fifo" >/dev/null 2>"$work/stderr"; then
    fail "plan_keys_fifo: exit 0"
elif ! grep -q "keys file '$work/fifo' is a FIFO" "$work/stderr"; then
    fail "plan_keys_fifo: $(cat "$work/stderr")"
else
    echo "ok: plan_keys_fifo -> $(cat "$work/stderr")"
fi

# fixed: values that round to 0 at the fraction bits are counted and warned about.
python3 - "$work" <<'PY'
import struct, sys
w = sys.argv[1]
open(f"{w}/sub.keys", "wb").write(struct.pack("<3I", 0, 1, 1))
open(f"{w}/sub.values", "wb").write(struct.pack("<3d", 1.0, 5e-324, 2.0 ** -40))
PY
if "$MCT" accumulate --bins 2 --keys "$work/sub.keys" --values "$work/sub.values" --out "$work/sub.out" --method fixed \
    --backend cpu --frac-bits 32 >/dev/null 2>"$work/stderr" &&
    grep -q "warning: 2 non-zero values (the first at item 1: 4.94066e-324) are at most 2^-33 and round to 0" "$work/stderr" &&
    python3 -c "import json,sys; j=json.load(open('$work/sub.out.json')); sys.exit(j['values_rounded_to_zero'] != 2)"; then
    echo "ok: fixed_underflow -> $(cat "$work/stderr")"
else
    fail "fixed_underflow: $(cat "$work/stderr")"
fi

# fixed at any magnitude: the default bits follow the data (1e-17 J: more than 62; 1e25: fewer than 0), the
# total keeps ~61 bits, nothing is warned; --frac-bits outside -960 .. 1022 is refused.
python3 - "$work" <<'PY'
import struct, sys
w = sys.argv[1]
open(f"{w}/mag.keys", "wb").write(struct.pack("<3I", 0, 0, 1))
for name, scale in (("small", 1e-17), ("large", 1e25)):
    open(f"{w}/mag_{name}.values", "wb").write(struct.pack("<3d", 1.5 * scale, 2.25 * scale, 3.0 * scale))
PY
for name in small large; do
    if "$MCT" accumulate --bins 2 --keys "$work/mag.keys" --values "$work/mag_$name.values" --out "$work/mag_$name.out" \
        --method fixed --backend cpu >/dev/null 2>"$work/stderr" && [ ! -s "$work/stderr" ] &&
        python3 - "$work" "$name" <<'PY'
import json, struct, sys
w, name = sys.argv[1], sys.argv[2]
j = json.load(open(f"{w}/mag_{name}.out.json"))
v = struct.unpack("<3d", open(f"{w}/mag_{name}.values", "rb").read())
got = struct.unpack("<2d", open(f"{w}/mag_{name}.out", "rb").read())
bits = j["fixed_frac_bits"]
assert (bits > 62) if name == "small" else (bits < 0), bits
assert j["values_rounded_to_zero"] == 0
# each value rounds once to 2^-bits: the sums within a unit per value of the exact ones
unit = 2.0 ** -bits
assert abs(got[0] - (v[0] + v[1])) <= 2 * unit and abs(got[1] - v[2]) <= unit, (got, v, bits)
assert abs(got[0] - (v[0] + v[1])) <= 1e-15 * (v[0] + v[1])
PY
    then
        echo "ok: fixed_magnitude_$name"
    else
        fail "fixed_magnitude_$name: $(cat "$work/stderr")"
    fi
done
for b in -961 1023; do
    expect_error "frac_bits_$b" "--frac-bits $b: expected a whole number -960 .. 1022" accumulate --bins 2 \
        --keys "$work/mag.keys" --values "$work/mag_small.values" --method fixed --frac-bits "$b"
done

# The scatter benchmark's method list, where the CLI runs benchmarks (a GPU).
if "$MCT" bench scatter --help >/dev/null 2>&1; then
    for m in bogus "fixed,,atomic" "fixed," auto; do
        expect_error "bench_methods_$m" "bench scatter: --methods:" bench scatter --methods "$m"
    done
fi

[ "$failures" -eq 0 ] && echo "all input checks passed" || { echo "$failures failures"; exit 1; }
