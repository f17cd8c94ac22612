#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The phantom's geometry keys through `mctally run`: every bad input (a key
# that does not parse or does not fit the geometry, an unknown material, a
# bad density, a slab that is no whole number of depth voxels, a MetaImage
# whose data, dims or spacing do not fit, Hounsfield units outside the
# calibration, too many voxels or materials) gives one clear line, a non-zero
# exit and nothing in the output directory; the water cube named explicitly
# is the homogeneous run it always was; a CT-like image and slabs run, with
# outputs on their grids.
set -u
MCT=$1
EXAMPLES=$2
MAKE_CT=$3
source "$(dirname "$0")/cli_test_lib.sh"

# A problem file: the [problem] and [phantom] heads and the given [phantom] lines.
ini() {
    local name=$1
    shift
    {
        printf '[problem]\ntype = phantom\nhistories = 20\nbatches = 2\n[phantom]\nvoxels = 4\nsize_cm = 4\n'
        printf '%s\n' "$@"
    } >"$work/$name"
}

# expect_error plus: the output directory was not even made.
bad() {
    local name=$1 pattern=$2
    shift 2
    expect_error "$name" "$pattern" run "$@" --backend cpu
    [ -e "$work/out_$name" ] && fail "$name: $work/out_$name was created"
}

# ---- Keys that do not parse or do not go together (the file's line named).
ini geo.ini 'geometry = sphere'
bad unknown_geometry 'geo.ini:8: \[phantom\] geometry = sphere: expected cube, slabs or image' "$work/geo.ini"
ini slabs_syntax.ini 'geometry = slabs' 'slabs = water 1.0; bone 1.85 2'
bad slabs_syntax "expected slabs 'material density_g_cm3 thickness_cm', separated by ';' or ','" "$work/slabs_syntax.ini"
ini slabs_comment.ini 'geometry = slabs' 'slabs = water 1.0 3 ; bone 1.85 2'
bad slabs_inline_comment "a ';' after a blank starts an INI comment" "$work/slabs_comment.ini"
ini slabs_density.ini 'geometry = slabs' 'slabs = water -1 3'
bad slabs_negative_density "a slab's density (g/cm3) must be a decimal number > 0" "$work/slabs_density.ini"
ini slabs_nan.ini 'geometry = slabs' 'slabs = water nan 3'
bad slabs_nan_density "a slab's density (g/cm3) must be a decimal number > 0" "$work/slabs_nan.ini"
ini density.ini 'material = bone' 'density = 0'
bad cube_zero_density 'density = 0: expected a density in g/cm3, a decimal number > 0' "$work/density.ini"
ini cube_slabs.ini 'slabs = water 1 3'
bad slabs_on_cube '\[phantom\] slabs does not apply to geometry = cube' "$work/cube_slabs.ini"
ini no_slabs.ini 'geometry = slabs'
bad slabs_missing 'geometry = slabs needs slabs' "$work/no_slabs.ini"
ini no_image.ini 'geometry = image'
bad image_missing 'geometry = image needs image = FILE.mhd' "$work/no_image.ini"
ini pair.ini 'geometry = image' 'image = idx.mhd' 'density_image = den.mhd'
bad pair_without_names 'density_image and image_materials go together' "$work/pair.ini"
ini many.ini 'geometry = image' 'image = idx.mhd' 'density_image = den.mhd' \
    'image_materials = m0 m1 m2 m3 m4 m5 m6 m7 m8 m9 m10 m11 m12 m13 m14 m15 m16'
bad too_many_materials 'image_materials = .*: more than 16 materials' "$work/many.ini"
ini twice.ini 'geometry = slabs' 'geometry = slabs'
bad key_twice 'geometry = slabs: given twice' "$work/twice.ini"

# ---- Inputs that parse but cannot be built.
ini slab_material.ini 'geometry = slabs' 'slabs = water 1 3; unobtainium 2 1'
bad unknown_material "phantom: unknown material 'unobtainium' (known: water, bone, lung, air, tissue)" "$work/slab_material.ini"
ini slab_fraction.ini 'geometry = slabs' 'slabs = water 1 3; bone 1.85 0.25' 'depth_voxel_cm = 0.1'
bad slab_not_whole 'slab 2 (bone): thickness 0.25 cm is not a whole number of depth voxels of 0.1 cm' "$work/slab_fraction.ini"
ini cube_material.ini 'material = cheese'
bad cube_unknown_material "unknown material 'cheese'" "$work/cube_material.ini"

# A small HU phantom made by the repository's script, and images made from it.
python3 "$MAKE_CT" "$work/ct" --voxels 16 16 8 --spacing 24 24 40 >/dev/null || fail "make_ct_phantom.py failed"
# With noise: the same bytes twice, every value within the default calibration, a spread near the SD
# asked for in the body's soft tissue (40 HU); a negative SD refused.
for k in 1 2; do
    python3 "$MAKE_CT" "$work/noisy$k" --voxels 16 16 8 --spacing 24 24 40 --noise 20 >/dev/null || fail "make_ct_phantom.py --noise failed"
done
cmp -s "$work/noisy1.raw" "$work/noisy2.raw" || fail "make_ct_phantom.py --noise: not the same bytes twice"
python3 - "$work" <<'PY' || fail "make_ct_phantom.py --noise: values"
import struct, sys, statistics
w = sys.argv[1]
plain = struct.unpack("<2048h", open(w + "/ct.raw", "rb").read())
noisy = struct.unpack("<2048h", open(w + "/noisy1.raw", "rb").read())
assert all(-1024 <= v <= 1976 for v in noisy)
d = [n - p for p, n in zip(plain, noisy) if p == 40]
sd = statistics.pstdev(d)
assert len(d) > 100 and 16.0 < sd < 24.0 and abs(statistics.mean(d)) < 4.0, (len(d), sd)
print("ok: CT noise, SD %.1f HU over %d tissue voxels" % (sd, len(d)))
PY
python3 "$MAKE_CT" "$work/bad_noise" --noise -1 >/dev/null 2>&1 && fail "make_ct_phantom.py --noise -1 accepted"
python3 - "$work" <<'PY'
import struct, sys
w = sys.argv[1]
raw = open(w + "/ct.raw", "rb").read()
hu = list(struct.unpack("<%dh" % (len(raw) // 2), raw))
def image(name, etype, fmt, values, dims="16 16 8", spacing="24 24 40"):
    open("%s/%s.raw" % (w, name), "wb").write(struct.pack("<%d%s" % (len(values), fmt), *values))
    open("%s/%s.mhd" % (w, name), "w").write(
        "NDims = 3\nDimSize = %s\nElementSpacing = %s\nElementType = %s\nElementDataFile = %s.raw\n"
        % (dims, spacing, etype, name))
low = hu[:]
low[5] = -1025
image("low", "MET_SHORT", "h", low)
image("short", "MET_SHORT", "h", hu[:-3])
image("idx", "MET_UCHAR", "B", [0 if v < -900 else 1 for v in hu])
image("den", "MET_FLOAT", "f", [0.0012 if v < -900 else 1.0 for v in hu])
image("den_neg", "MET_FLOAT", "f", [-0.5] + [1.0] * (len(hu) - 1))
image("den_spacing", "MET_FLOAT", "f", [1.0] * len(hu), spacing="24 24 30")
image("den_dims", "MET_FLOAT", "f", [1.0] * (len(hu) // 2), dims="16 16 4")
open(w + "/huge.mhd", "w").write("NDims = 3\nDimSize = 2048 2048 1024\nElementSpacing = 1 1 1\n"
                                 "ElementType = MET_SHORT\nElementDataFile = ct.raw\n")
open(w + "/cal.txt", "w").write("-1000 0 air 0.001 1\n0 3000 adamantium 1 2\n")
open(w + "/cal_neg.txt", "w").write("-1000 3000 water -1 1\n")
PY
ini hu_low.ini 'geometry = image' 'image = low.mhd'
bad hu_outside 'phantom: image .*low.mhd: -1025 HU at voxel (5, 0, 0) is outside the calibration (-1024 .. 1976 HU' "$work/hu_low.ini"
ini raw_size.ini 'geometry = image' 'image = short.mhd'
bad raw_size_mismatch 'holds 4090 bytes of voxels, but 16 x 16 x 8 MET_SHORT voxels need 4096' "$work/raw_size.ini"
ini huge.ini 'geometry = image' 'image = huge.mhd'
bad too_many_voxels "voxels, more than the 2147483647 a tally's bins hold" "$work/huge.ini"
ini cal.ini 'geometry = image' 'image = ct.mhd' 'calibration = cal.txt'
bad calibration_material "unknown material 'adamantium'" "$work/cal.ini"
ini cal_neg.ini 'geometry = image' 'image = ct.mhd' 'calibration = cal_neg.txt'
bad calibration_density 'cal_neg.txt:1: densities -1 and 1 g/cm3 must be > 0 and finite' "$work/cal_neg.ini"
ini no_file.ini 'geometry = image' 'image = absent.mhd'
bad image_absent 'absent.mhd: cannot open' "$work/no_file.ini"
ini den_neg.ini 'geometry = image' 'image = idx.mhd' 'density_image = den_neg.mhd' 'image_materials = air tissue'
bad negative_density 'density -0.5 g/cm3 at voxel (0, 0, 0) must be > 0 and finite' "$work/den_neg.ini"
ini den_spacing.ini 'geometry = image' 'image = idx.mhd' 'density_image = den_spacing.mhd' 'image_materials = air tissue'
bad spacing_mismatch 'differ in ElementSpacing (40 and 30 mm along axis 2)' "$work/den_spacing.ini"
ini den_dims.ini 'geometry = image' 'image = idx.mhd' 'density_image = den_dims.mhd' 'image_materials = air tissue'
bad dims_mismatch 'differ in DimSize' "$work/den_dims.ini"
ini idx_names.ini 'geometry = image' 'image = idx.mhd' 'density_image = den.mhd' 'image_materials = air'
bad index_outside 'material index 1 at voxel .* is not one of 0 .. 0' "$work/idx_names.ini"
ini idx_unknown.ini 'geometry = image' 'image = idx.mhd' 'density_image = den.mhd' 'image_materials = air vibranium'
bad index_unknown_material "unknown material 'vibranium'" "$work/idx_unknown.ini"

# ---- A material list file (materials = FILE, relative to the problem file).
root=$(cd "$(dirname "$MAKE_CT")/../.." && pwd)
comp='composition = 1:0.047234 6:0.144330 7:0.041990 8:0.446096 12:0.002200 15:0.104970 16:0.003150 20:0.209930 30:0.000100'
printf '[bone2]\ndensity = 1.85\nI = 106.414\n%s\nxcom = %s\nestar = %s\n' "$comp" \
    "$root/data/materials/bone_photon_xcom.csv" "$root/data/materials/bone_electron_estar.csv" >"$work/list.ini"
ini run_list.ini 'geometry = slabs' 'materials = list.ini' 'slabs = water 1 3; bone2 1.85 0.25'
# bone2 is known (the error is its thickness, not its name).
bad list_material 'slab 2 (bone2): thickness 0.25 cm is not a whole number' "$work/run_list.ini"
printf '[water]\ndensity = 1\nI = 75\ncomposition = 1:0.111894 8:0.888106\nxcom = %s\nestar = %s\n' \
    "$root/data/materials/bone_photon_xcom.csv" "$root/data/materials/bone_electron_estar.csv" >"$work/list_water.ini"
ini run_list_water.ini 'geometry = slabs' 'materials = list_water.ini' 'slabs = water 1 3'
bad list_builtin_name 'material water is already a built-in one' "$work/run_list_water.ini"
printf '[broken]\ndensity = -1\n' >"$work/list_bad.ini"
ini run_list_bad.ini 'geometry = slabs' 'materials = list_bad.ini' 'slabs = water 1 3'
bad list_bad 'phantom: .*list_bad.ini' "$work/run_list_bad.ini"

# ---- The water cube named explicitly is the homogeneous run: the same dose bits.
ini water.ini 'geometry = cube' 'material = water' 'density = 1.0'
ini plain.ini
for f in water plain; do
    "$MCT" run "$work/$f.ini" --backend cpu --method fixed --out "$work/run_$f" >/dev/null 2>&1 || fail "$f run failed"
done
cmp -s "$work/run_water/dose.raw" "$work/run_plain/dose.raw" && echo "ok: explicit water cube" ||
    fail "explicit water cube: another dose than the default phantom"
[ -s "$work/run_water/dose_slice.png" ] || fail "explicit water cube: no dose_slice.png"

# ---- Runs on a geometry: the HU phantom (written by the script, read, run) and slabs; the
# outputs have the geometry's grid.
ini ct_run.ini 'geometry = image' 'image = ct.mhd'
if "$MCT" run "$work/ct_run.ini" --backend cpu --histories 200 --out "$work/run_ct" >/dev/null 2>"$work/stderr"; then
    grep -q '^DimSize = 16 16 8$' "$work/run_ct/dose.mhd" || fail "ct run: dose.mhd is not 16 x 16 x 8"
    grep -q '^ElementSpacing = 24 24 40$' "$work/run_ct/dose.mhd" || fail "ct run: dose.mhd spacing"
    [ "$(stat -c %s "$work/run_ct/dose.raw")" -eq $((16 * 16 * 8 * 8)) ] || fail "ct run: dose.raw size"
    [ "$(wc -l <"$work/run_ct/depth_dose.csv")" -eq 9 ] || fail "ct run: depth_dose.csv: expected 8 slabs and a header"
    python3 - "$work/run_ct/result.json" <<'PY' || fail "ct run: result.json geometry"
import json, sys
g = json.load(open(sys.argv[1]))["phantom"]["geometry"]
assert g["voxels_xyz"] == [16, 16, 8] and g["voxel_mm_xyz"] == [24, 24, 40], g
assert set(g["materials"]) <= {"air", "lung", "tissue", "bone"} and "tissue" in g["materials"], g
PY
    [ "$(head -c 8 "$work/run_ct/dose_slice.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
        fail "ct run: dose_slice.png is no PNG"
    echo "ok: ct run"
else
    fail "ct run failed: $(cat "$work/stderr")"
fi
ini slab_run.ini 'geometry = slabs' 'slabs = water 1 0.5; bone 1.85 0.3' 'slabs = lung 0.26 0.6, lung 0.26 0.6' \
    'depth_voxel_cm = 0.1'
if "$MCT" run "$work/slab_run.ini" --backend cpu --histories 200 --out "$work/run_slabs" >/dev/null 2>"$work/stderr"; then
    grep -q '^DimSize = 4 4 20$' "$work/run_slabs/dose.mhd" || fail "slab run: dose.mhd is not 4 x 4 x 20"
    [ "$(wc -l <"$work/run_slabs/depth_dose.csv")" -eq 21 ] || fail "slab run: depth_dose.csv: expected 20 slabs"
    grep -q '"egsnrc"' "$work/run_slabs/result.json" && fail "slab run: compared with the water cube's EGSnrc reference"
    echo "ok: slab run"
else
    fail "slab run failed: $(cat "$work/stderr")"
fi

[ "$failures" -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
echo "all phantom geometry CLI tests passed"
