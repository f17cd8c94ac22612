#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# `mctally run` on the PET problem: a good run writes result.json, lors.bin
# (checked by a reader of the documented format) and sinogram.png; the cpu
# and emulated backends write the same LOR file byte for byte; `index = auto`
# falls back to the compressed index where the full map does not fit (a
# memory limit makes it not fit here), and `index = full` there is one clear
# error; bad input gives one clear line, a non-zero exit and no result file.
set -u
MCT=$1
EXAMPLES=$2
CHECK=$3
source "$(dirname "$0")/cli_test_lib.sh"

ini() { cat >"$work/$1"; }
ini small.ini <<'INI'
[problem]
type = pet
histories = 1e5
batches = 2
[tally]
dtype = i32
[pet]
crystals = 48
rings = 8
source = shapes
doi = on
cylinder = 3 -2 1 24 14 1
ellipsoid = -6 5 -4 5 3 6 4
INI

declare -A digest
for be in cpu emulated; do
    out="$work/good_$be"
    if "$MCT" run "$work/small.ini" --backend "$be" --out "$out" >"$work/stdout" 2>&1; then
        for f in result.json lors.bin sinogram.png; do [ -s "$out/$f" ] || fail "$be: $f missing or empty"; done
        for key in '"problem":[[:space:]]*"pet"' '"efficiency"' '"efficiency_binomial_error"' '"good_events_per_second"' \
                   '"determinism":[[:space:]]*"bitwise"' '"index":[[:space:]]*"full"' '"sums_digest"'; do
            grep -q "$key" "$out/result.json" || fail "$be: result.json lacks $key"
        done
        [ "$(head -c 8 "$out/sinogram.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "$be: PNG signature"
        python3 "$CHECK" "$out" || fail "$be: lors.bin"
        digest[$be]=$(grep -o '"sums_digest":[[:space:]]*"[0-9a-f]*"' "$out/result.json")
        echo "ok: $be -> $(head -1 "$work/stdout")"
    else
        fail "$be run failed: $(cat "$work/stdout")"
    fi
done
[ -n "${digest[cpu]:-}" ] && [ "${digest[cpu]}" = "${digest[emulated]:-}" ] || fail "the LOR tally's digest differs between cpu and emulated: ${digest[cpu]:-none} ${digest[emulated]:-none}"
cmp -s "$work/good_cpu/lors.bin" "$work/good_emulated/lors.bin" || fail "cpu and emulated LOR files differ"

# The examples parse and run (a few decays; the book's scanner made small,
# its Derenzo phantom too, so that the maps stay small here).
for ex in pet_point pet_voxel pet_derenzo; do
    sed -e 's/^crystals = .*//' -e 's/^rings = .*//' -e 's/^voxel_r = .*/voxel_r = 20/' -e 's/^\[pet\]/[pet]\ncrystals = 96\nrings = 16\nderenzo_scale = 0.3/' \
        "$EXAMPLES/$ex.ini" >"$work/$ex.ini"
    "$MCT" run "$work/$ex.ini" --backend cpu --histories 2e4 --out "$work/$ex" >"$work/stdout" 2>&1 &&
        python3 "$CHECK" "$work/$ex" >/dev/null || fail "example $ex: $(cat "$work/stdout")"
done
# On the axis, result.json gives the analytic acceptance.
sed -e 's/^point_x_mm = .*/point_x_mm = 0/' -e 's/^point_y_mm = .*/point_y_mm = 0/' "$EXAMPLES/pet_point.ini" >"$work/axis.ini"
"$MCT" run "$work/axis.ini" --backend cpu --histories 2e5 --out "$work/axis" >/dev/null 2>&1 || fail "axis run"
grep -q '"analytic_efficiency"' "$work/axis/result.json" || fail "axis: no analytic efficiency"
python3 - "$work/axis/result.json" <<'PY' || fail "axis: efficiency off the analytic acceptance"
import json, math, sys
p = json.load(open(sys.argv[1]))["pet"]
print("axis: efficiency %.5f, analytic %.5f, z %.2f" % (p["efficiency"], p["analytic_efficiency"], p["z_score"]))
sys.exit(abs(p["z_score"]) > 4)
PY

# A map that does not fit. Under a 1.2 GB address-space limit the full map of
# 160 x 40 crystals (41 M bins: 1.3 GB with the statistics) cannot be made,
# its compressed index (10.6 M bins) can.
ini big.ini <<'INI'
[problem]
type = pet
histories = 2e4
batches = 1
[tally]
method = atomic
dtype = i32
[pet]
crystals = 160
rings = 40
source = point
point_x_mm = 20
INI
if (ulimit -v 1200000 && "$MCT" run "$work/big.ini" --backend cpu --out "$work/fallback" >"$work/stdout" 2>&1); then
    grep -q '"index":[[:space:]]*"compressed"' "$work/fallback/result.json" || fail "fallback: not the compressed index"
    grep -q '"index_note"' "$work/fallback/result.json" || fail "fallback: no note"
    grep -q "compressed LOR index is used" "$work/stdout" || fail "fallback: not said"
    python3 "$CHECK" "$work/fallback" >/dev/null || fail "fallback: lors.bin"
    echo "ok: fallback -> $(head -1 "$work/stdout")"
else
    fail "fallback run failed: $(cat "$work/stdout")"
fi
sed 's/^source = point/index = full\nsource = point/' "$work/big.ini" >"$work/big_full.ini"
(ulimit -v 1200000 && expect_error map_too_large "does not fit in this machine's memory" run "$work/big_full.ini" --backend cpu)
[ -e "$work/out_map_too_large" ] && [ -n "$(ls -A "$work/out_map_too_large")" ] && fail "map_too_large: files written"

# The system matrix and MLEM, end to end: pet-matrix over 13 radial rings,
# a phantom's LORs, pet-reco's image and result.
ini sm.ini <<'INI'
[problem]
type = pet
histories = 5e4
[tally]
dtype = i32
[pet]
crystals = 48
rings = 8
INI
ini phantom.ini <<'INI'
[problem]
type = pet
histories = 3e5
batches = 2
[tally]
dtype = i32
[pet]
crystals = 48
rings = 8
source = shapes
index = full
cylinder = 0 0 0 32 20 1
cylinder = 9 0 0 32 7 3
INI
if "$MCT" pet-matrix "$work/sm.ini" --voxels 13 --backend cpu --out "$work/sm.bin" >"$work/stdout" 2>&1 &&
    [ "$(head -c 8 "$work/sm.bin")" = MCTPETv1 ] &&
    "$MCT" run "$work/phantom.ini" --backend cpu --out "$work/ph" >/dev/null 2>&1 &&
    "$MCT" pet-reco --matrix "$work/sm.bin" --lors "$work/ph/lors.bin" --iterations 4 --backend cpu --out "$work/reco" \
        >>"$work/stdout" 2>&1; then
    for f in result.json reco.mhd reco.raw reco.png; do [ -s "$work/reco/$f" ] || fail "pet-reco: $f missing or empty"; done
    [ "$(stat -c %s "$work/reco/reco.raw")" -eq $((26 * 26 * 8 * 4)) ] || fail "pet-reco: reco.raw is not 26 x 26 x 8 floats"
    grep -q "DimSize = 26 26 8" "$work/reco/reco.mhd" || fail "pet-reco: MetaImage header"
    python3 - "$work/reco/result.json" <<'PY' || fail "pet-reco: the log-likelihood decreased"
import json, sys
ll = json.load(open(sys.argv[1]))["log_likelihood"]
sys.exit(any(b < a - 1e-9 * abs(a) for a, b in zip(ll, ll[1:])))
PY
    echo "ok: matrix and reco -> $(tail -1 "$work/stdout")"
else
    fail "pet-matrix / pet-reco failed: $(cat "$work/stdout")"
fi
matrix_error() { # NAME PATTERN ARGS: pet-matrix fails with one line holding PATTERN, writes nothing
    local name=$1 pattern=$2
    shift 2
    if "$MCT" pet-matrix "$@" --out "$work/m_$name" >"$work/stdout" 2>"$work/stderr" || ! grep -q -- "$pattern" "$work/stderr" ||
        [ -e "$work/m_$name" ] || [ "$(wc -l <"$work/stderr")" -ne 1 ]; then
        fail "pet-matrix $name: $(cat "$work/stderr")"
    else
        echo "ok: pet-matrix $name -> $(cat "$work/stderr")"
    fi
}
matrix_error outside "outside the scanner" "$work/sm.ini" --voxels 20 --backend cpu
matrix_error float "use dtype = i32 or u64" "$work/sm.ini" --dtype f64 --backend cpu
matrix_error not_pet "not pet" "$EXAMPLES/escape.ini" --backend cpu
sed 's/^crystals = 48/crystals = 64/' "$work/phantom.ini" >"$work/phantom64.ini"
"$MCT" run "$work/phantom64.ini" --backend cpu --histories 1e4 --out "$work/ph64" >/dev/null 2>&1 || fail "run ph64"
"$MCT" run "$work/sm.ini" --backend cpu --histories 1e4 --out "$work/voxrun" >/dev/null 2>&1 || fail "run voxrun"
head -c 3000 "$work/sm.bin" >"$work/truncated.bin"
expect_error reco_scanner "the matrix is of a 48 x 8 scanner" pet-reco --matrix "$work/sm.bin" --lors "$work/ph64/lors.bin" --backend cpu
expect_error reco_voxel_data "holds a voxel run" pet-reco --matrix "$work/sm.bin" --lors "$work/voxrun/lors.bin" --backend cpu
expect_error reco_truncated "truncated or corrupt" pet-reco --matrix "$work/truncated.bin" --lors "$work/ph/lors.bin" --backend cpu
expect_error reco_not_pet "not a PET file" pet-reco --matrix "$EXAMPLES/escape.ini" --lors "$work/ph/lors.bin" --backend cpu
expect_error reco_swapped "expected \"mctally PET system matrix\"" pet-reco --matrix "$work/ph/lors.bin" --lors "$work/ph/lors.bin" --backend cpu
expect_error reco_int "f64 or f32" pet-reco --matrix "$work/sm.bin" --lors "$work/ph/lors.bin" --dtype i32

expect_bad_ini negative_rings "rings = -4: expected a whole number 1 .. 128" --backend cpu <<'INI'
[problem]
type = pet
[tally]
dtype = i32
[pet]
rings = -4
INI
expect_bad_ini shape_outside "source outside the scanner: shape 1 (cylinder)" --backend cpu <<'INI'
[problem]
type = pet
[tally]
dtype = i32
[pet]
crystals = 48
rings = 8
source = shapes
cylinder = 25 0 0 10 6 1
INI
expect_bad_ini point_outside "source outside the scanner: the point" --backend cpu <<'INI'
[problem]
type = pet
[tally]
dtype = i32
[pet]
source = point
point_z_mm = 200
INI
expect_bad_ini bad_cylinder "expected 6 numbers" <<'INI'
[problem]
type = pet
[pet]
source = shapes
cylinder = 1 2 3
INI
expect_bad_ini bad_source "expected voxel, point, derenzo or shapes" <<'INI'
[problem]
type = pet
[pet]
source = banana
INI
expect_bad_ini i32_batch "use at least 2 batches or dtype = u64" --backend cpu <<'INI'
[problem]
type = pet
histories = 3e9
batches = 1
[tally]
dtype = i32
[pet]
crystals = 48
rings = 8
index = total
INI
expect_bad_ini full_too_large "more than the 2^31" --backend cpu <<'INI'
[problem]
type = pet
[tally]
dtype = i32
[pet]
crystals = 512
rings = 128
index = full
INI
expect_bad_ini float_tally "integer tally" --backend cpu <<'INI'
[problem]
type = pet
[tally]
dtype = f64
[pet]
crystals = 48
rings = 8
INI
expect_error checkpoint "serve the escape and phantom" run "$work/small.ini" --backend cpu --checkpoint "$work/ck"
[ "$failures" -eq 0 ] && echo "all ok" || { echo "$failures failure(s)"; exit 1; }
