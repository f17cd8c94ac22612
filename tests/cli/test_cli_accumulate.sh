#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# `mctally accumulate` end to end: every method the cpu and emulated backends
# serve, on random, hot-key and sorted inputs, against an exact reference
# (Python's math.fsum); fixed bitwise equal across backends; every kind of bad
# input refused with one message and nothing written.
set -u
MCT=$1
source "$(dirname "$0")/cli_test_lib.sh"

python3 - "$work" <<'PY'
import random, struct, sys
work = sys.argv[1]
random.seed(7)
n, bins = 5000, 100
patterns = {
    "random": [random.randrange(bins) for _ in range(n)],
    "hot": [42] * n,
    "sorted": sorted(random.randrange(bins) for _ in range(n)),
}
values = [random.uniform(-1.0, 3.0) * 10 ** random.randint(-3, 3) for _ in range(n)]
for name, keys in patterns.items():
    open(f"{work}/{name}.keys", "wb").write(struct.pack(f"<{n}I", *keys))
open(f"{work}/data.values", "wb").write(struct.pack(f"<{n}d", *values))
open(f"{work}/ints.values", "wb").write(struct.pack(f"<{n}d", *[float(random.randrange(9)) for _ in range(n)]))
PY

# check OUT KEYS VALUES BINS TOLERANCE: compares raw f64 bins with math.fsum per bin.
check() {
    python3 - "$@" <<'PY'
import math, struct, sys
out, keys_path, values_path, bins, rel = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), float(sys.argv[5])
raw = open(keys_path, "rb").read()
keys = struct.unpack(f"<{len(raw)//4}I", raw)
raw = open(values_path, "rb").read()
values = struct.unpack(f"<{len(raw)//8}d", raw)
raw = open(out, "rb").read()
assert len(raw) == 8 * bins, f"{out}: {len(raw)} bytes, expected {8 * bins}"
got = struct.unpack(f"<{bins}d", raw)
per, mag = [[] for _ in range(bins)], [0.0] * bins
for k, v in zip(keys, values):
    per[k].append(v); mag[k] += abs(v)
for k in range(bins):
    want = math.fsum(per[k])
    # Tolerance: rel * (number of additions) * sum |v|, the bound of the method's rounding.
    tol = rel * max(len(per[k]), 1) * mag[k]
    if abs(got[k] - want) > tol:
        sys.exit(f"{out}: bin {k}: {got[k]!r} vs exact {want!r} (tol {tol:.3g})")
PY
}

for pattern in random hot sorted; do
    for b in cpu emulated; do
        for m in atomic replicated cas wag wib wag_match kahan kahan_naive fixed shared warp_reduce block_reduce sort_reduce; do
            out="$work/$pattern.$b.$m"
            if ! "$MCT" accumulate --bins 100 --keys "$work/$pattern.keys" --values "$work/data.values" \
                --method $m --backend $b --out "$out" >"$work/log" 2>&1; then
                grep -q "cannot serve" "$work/log" && continue  # not offered on this backend: checked by `methods`
                fail "$pattern $b $m: $(cat "$work/log")"
                continue
            fi
            case $m in kahan | kahan_naive) rel=1e-7 ;; fixed) rel=1e-12 ;; *) rel=1.2e-16 ;; esac
            check "$out" "$work/$pattern.keys" "$work/data.values" 100 $rel || fail "$pattern $b $m: wrong bins"
        done
        cmp -s "$work/$pattern.cpu.fixed" "$work/$pattern.$b.fixed" || fail "$pattern: fixed differs between cpu and $b"
    done
    # Integer counts are exact.
    "$MCT" accumulate --bins 100 --keys "$work/$pattern.keys" --values "$work/ints.values" --dtype u64 \
        --backend cpu --out "$work/ints.out" >/dev/null && check "$work/ints.out" "$work/$pattern.keys" "$work/ints.values" 100 0 ||
        fail "$pattern: u64 counts not exact"
done
grep -q '"method":[[:space:]]*"fixed"' "$work/random.cpu.fixed.json" || fail "summary lacks method"
grep -q '"fixed_frac_bits"' "$work/random.cpu.fixed.json" || fail "summary lacks fixed_frac_bits"

# Bad input: one message, non-zero exit, nothing written.
expect_error() {
    local name=$1 pattern=$2
    shift 2
    rm -f "$work/bad.out" "$work/bad.out.json"
    if "$MCT" accumulate "$@" --out "$work/bad.out" >/dev/null 2>"$work/err"; then
        fail "$name: exit 0"
    elif ! grep -q -- "$pattern" "$work/err"; then
        fail "$name: message lacks '$pattern': $(cat "$work/err")"
    elif [ -e "$work/bad.out" ] || [ -e "$work/bad.out.json" ]; then
        fail "$name: output written"
    else
        echo "ok: $name -> $(cat "$work/err")"
    fi
}
printf '\x01\x00\x00\x00\x63\x00\x00\x00' >"$work/two.keys"
python3 -c "import struct,sys; open(sys.argv[1],'wb').write(struct.pack('<2d', 1.0, float('nan')))" "$work/nan.values"
python3 -c "import struct,sys; open(sys.argv[1],'wb').write(struct.pack('<2d', 1.0, 2.0))" "$work/two.values"
python3 -c "import struct,sys; open(sys.argv[1],'wb').write(struct.pack('<3d', 1.0, 2.0, 3.0))" "$work/three.values"
head -c 13 "$work/two.values" >"$work/trunc.values"
python3 -c "import struct,sys; open(sys.argv[1],'wb').write(struct.pack('<2d', 1.0, 3e9))" "$work/big.values"
python3 -c "import struct,sys; open(sys.argv[1],'wb').write(struct.pack('<2d', 1.0, -1.0))" "$work/neg.values"
python3 -c "import struct,sys; open(sys.argv[1],'wb').write(struct.pack('<2d', 1e308, 1e308))" "$work/huge.values"
: >"$work/empty.keys"
expect_error out_of_range "outside the 50 bins" --bins 50 --keys "$work/two.keys" --values "$work/two.values"
expect_error nan "not a finite number" --bins 100 --keys "$work/two.keys" --values "$work/nan.values"
expect_error mismatched "holds 2 keys but" --bins 100 --keys "$work/two.keys" --values "$work/three.values"
expect_error truncated "is truncated" --bins 100 --keys "$work/two.keys" --values "$work/trunc.values"
expect_error empty "is empty" --bins 100 --keys "$work/empty.keys" --values "$work/two.values"
expect_error missing "cannot open" --bins 100 --keys "$work/nope.keys" --values "$work/two.values"
expect_error no_bins "--bins is required" --keys "$work/two.keys" --values "$work/two.values"
expect_error zero_bins "expected a whole number 1" --bins 0 --keys "$work/two.keys" --values "$work/two.values"
expect_error shared_too_large "do not fit in a block's 48 KiB" --bins 7000 --keys "$work/two.keys" --values "$work/two.values" --method shared --backend emulated
expect_error kahan_f64 "cannot serve" --bins 100 --keys "$work/two.keys" --values "$work/two.values" --method kahan --dtype f64 --backend cpu
expect_error fixed_overflow "fixed-point overflow" --bins 100 --keys "$work/two.keys" --values "$work/two.values" --method fixed --frac-bits 62 --backend cpu
# Integer tallies never wrap: a value that does not fit the type is refused (3e9 into i32, -1 into u64).
for b in cpu emulated; do
    expect_error i32_overflow_$b "integer overflow" --bins 100 --keys "$work/two.keys" --values "$work/big.values" --dtype i32 --backend $b
    expect_error u64_negative_$b "integer overflow" --bins 100 --keys "$work/two.keys" --values "$work/neg.values" --dtype u64 --backend $b
done
# Values whose total passes the double range: the default fraction bits stay defined (the fewest, -960) and fixed
# reports the overflow (a sum past 2^63 units would not read back finite).
expect_error fixed_default_bits_huge "fixed-point overflow with -960 fraction bits" --bins 100 --keys "$work/two.keys" --values "$work/huge.values" --method fixed --backend cpu
# An output path that cannot be written is refused before any work.
if "$MCT" accumulate --bins 100 --keys "$work/two.keys" --values "$work/two.values" --out "$work/no/dir/x.out" \
    >/dev/null 2>"$work/err"; then
    fail "unwritable --out: exit 0"
elif ! grep -q "is not a writable directory" "$work/err"; then
    fail "unwritable --out: $(cat "$work/err")"
else
    echo "ok: unwritable --out -> $(cat "$work/err")"
fi

echo "accumulate: $failures failure(s)"
[ "$failures" -eq 0 ]
