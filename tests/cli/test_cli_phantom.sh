#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# `mctally run` on the phantom: a good run writes result.json, the MetaImage
# grids, the depth-dose CSV and a PNG; bad input gives one clear line, a
# non-zero exit and no result file.
set -u
MCT=$1
EXAMPLE=$2
source "$(dirname "$0")/cli_test_lib.sh"

out="$work/good"
if "$MCT" run "$EXAMPLE" --backend cpu --histories 300 --batches 3 --out "$out" >"$work/stdout" 2>&1; then
    for f in result.json dose.mhd dose.raw dose_rel_err.mhd dose_rel_err.raw depth_dose.csv depth_dose.png dose_slice.png; do
        [ -s "$out/$f" ] || fail "good run: $f missing or empty"
    done
    for key in '"problem":[[:space:]]*"phantom"' '"incident_MeV"' '"deposited_MeV"' '"escaped_MeV"' \
               '"energy_balance_rel"' '"max_dose"' '"rel_err"' '"r50_cm"' '"rp_cm"'; do
        grep -q "$key" "$out/result.json" || fail "good run: result.json lacks $key"
    done
    [ "$(head -c 8 "$out/depth_dose.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "PNG signature"
    [ "$(head -c 8 "$out/dose_slice.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "slice PNG signature"
    [ "$(wc -l <"$out/depth_dose.csv")" -eq 101 ] || fail "depth_dose.csv: expected 100 slabs and a header"
    echo "ok: good run -> $(head -1 "$work/stdout")"
else
    fail "good run failed: $(cat "$work/stdout")"
fi
# The FP32 engine and KAS engine run too.
for m in "atomic f32" "kahan f32"; do
    set -- $m
    "$MCT" run "$EXAMPLE" --backend cpu --method "$1" --dtype "$2" --histories 100 --batches 2 --out "$work/$1" \
        >/dev/null 2>&1 && grep -q '"transport":[[:space:]]*"f32"' "$work/$1/result.json" || fail "$m engine"
done

# A beam with an EGSnrc reference: the summary and result.json compare with it.
ref_ini="$(dirname "$EXAMPLE")/phantom_egsnrc_e10.ini"
if "$MCT" run "$ref_ini" --backend cpu --histories 2000 --batches 4 --out "$work/egs" >"$work/egs_stdout" 2>&1; then
    grep -q "against EGSnrc (egs_e10): [0-9]* of [0-9]* depths within 2 %/1 mm" "$work/egs_stdout" ||
        fail "EGSnrc beam: no comparison in the summary: $(cat "$work/egs_stdout")"
    for key in '"egsnrc"' '"reference":[[:space:]]*"egs_e10"' '"passed"' '"r80_cm"' '"surface_dose_ratio"' \
               '"dmax_mev_per_history"'; do
        grep -q "$key" "$work/egs/result.json" || fail "EGSnrc beam: result.json lacks $key"
    done
    # The 20 MeV example on 4 mm slabs is compared on the slabs both grids share.
    grep -q '"reference":[[:space:]]*"egs_e20"' "$out/result.json" || fail "20 MeV on 4 mm slabs: not compared"
    echo "ok: $(grep EGSnrc "$work/egs_stdout")"
else
    fail "EGSnrc beam run failed: $(cat "$work/egs_stdout")"
fi

cat >"$work/bad_particle.ini" <<'INI'
[problem]
type = phantom
[phantom]
particle = neutron
INI
cat >"$work/bad_key.ini" <<'INI'
[problem]
type = phantom
[phantom]
colour = blue
INI
cat >"$work/highland.ini" <<'INI'
[problem]
type = phantom
[phantom]
mcs = highland
INI
cat >"$work/low_energy.ini" <<'INI'
[problem]
type = phantom
histories = 10
[phantom]
energy_MeV = 0.1
INI
expect_error integer_dtype "float tally" run "$EXAMPLE" --backend cpu --dtype u64 --histories 10
expect_error shared_too_big "shared memory" run "$EXAMPLE" --backend emulated --method shared --histories 10
expect_error bad_particle "electron or photon" run "$work/bad_particle.ini"
expect_error bad_key "unknown key" run "$work/bad_key.ini"
expect_error highland "highland was removed" run "$work/highland.ini"
expect_error low_energy "out of range" run "$work/low_energy.ini" --backend cpu
expect_error sort_reduce_too_big "more batches" run "$EXAMPLE" --backend cpu --method sort_reduce --histories 1e7 --batches 1
[ "$failures" -eq 0 ] && echo "all ok" || { echo "$failures failure(s)"; exit 1; }
