#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The lateral comparison ([phantom] lateral_reference) through the CLI on the CPU, at CI's counts:
#  - examples/phantom_lateral_e20.ini (20 MeV electrons on water, 0.5 mm voxels) against EGSnrc's
#    lat_e20.csv at 2 and 6 cm, 2e4 histories in 40 batches: both depths pass, in absolute units and
#    with the integral normalisation. At this count the statistical term dominates the test (the
#    axis annulus's error is about 2 % at 2 cm and 10 % at 6 cm). The run's zone errors are the
#    batch method's on each zone's energy, which includes the covariance of the voxels one track
#    deposits in (test_phantom_lateral_batch_errors checks them against the spread over seeds), so
#    lateral_k is set by the count of zones alone: a zone's difference over its error is Student's t
#    with 39 degrees of freedom (the reference's errors are far smaller), P(|t| > 4) = 2.7e-4, and a
#    correct run fails one of its 36 compared zones with a chance below 36 x 2.7e-4 = 1 % (the
#    2 % of the maximum and the distance to agreement only add to the allowance). k = 3 would be
#    36 x 4.7e-3 = 17 %; with 10 batches (t with 9 degrees of freedom) k = 4 would be 11 %.
#  - the 10 MeV beam against lat_e10 at 2 and 3 cm and the 6 MeV beam against lat_e6 at 1 and
#    2 cm, as the example runs (2e4 histories, 40 batches, k = 4 as above): every depth passes;
#  - the profile at 2 cm at 1e6 histories, where the test is tight enough to see the transport's
#    angular spread: the beam's first 3 cm of water only (a slab phantom of 0.5 mm x 0.5 mm x 1 mm
#    voxels; what lies deeper adds 0.3 % of the dose at 2 cm by backscatter), lateral_k 4 as above
#    (5 zones compared: 0.14 %). The axis annulus's batch error is then 0.25 % of the maximum, 0.29 %
#    with EGSnrc's, the tolerance 2 % + 1.2 %, and the 0.5 mm voxels average that annulus about 1 %
#    low: a transport whose angular core is too wide, and so its profile at 2 cm, fails on the axis.
#  - wrong runs, which must fail where the physics differs, at the same k: a 16 MeV beam against
#    the 20 MeV reference at 2 and 6 cm; the 20 MeV beam against the 10 MeV reference (lat_e10) at
#    2 and 4 cm (1e4 histories, 1 mm voxels).
#  - the GPU suite's command line (the example as it is, k = 3) at a small count: it runs and
#    writes its lateral block.
#  - bad references and keys: one line each, non-zero exit, nothing written.
set -u
MCT=$1
SRC=$2
source "$(dirname "$0")/cli_test_lib.sh"
EX="$SRC/examples/phantom_lateral_e20.ini"
LAT="$SRC/data/reference/egsnrc/lateral"

# The example with: the reference path made absolute, then sed expressions.
ini() { # NAME SED-EXPR...
    local name=$1
    shift
    local args=(-e "s|^lateral_reference = .*|lateral_reference = $LAT/lat_e20.csv|" -e "s/^batches = .*/batches = 40/")
    for e in "$@"; do args+=(-e "$e"); done
    sed "${args[@]}" "$EX" >"$work/$name.ini"
}

# run NAME HISTORIES WANT(pass|fail) DEPTHS...: runs, then checks result.json's lateral block:
# the overall flag and every listed depth's flag are WANT, and each listed depth was compared.
run() {
    local name=$1 n=$2 want=$3
    shift 3
    if ! "$MCT" run "$work/$name.ini" --backend cpu --histories "$n" --out "$work/out_$name" >"$work/$name.log" 2>&1; then
        fail "$name: run failed: $(cat "$work/$name.log")"
        return
    fi
    grep "lateral against" "$work/$name.log"
    python3 - "$work/out_$name/result.json" "$want" "$@" <<'PY' || fail "$name: lateral block not as expected ($want)"
import json, sys
lat = json.load(open(sys.argv[1]))["phantom"]["lateral"]
want = sys.argv[2] == "pass"
depths = [float(d) for d in sys.argv[3:]]
ok = lat["pass"] == want and len(lat["depths"]) == len(depths) and lat["run_error_method"].startswith("batch")
for d, s in zip(depths, lat["depths"]):
    inside = s["z_lo_cm"] <= d + 1e-9 and d < s["z_hi_cm"] - 1e-9
    ok &= inside and s["pass"] == want and s["points"] >= 5 and len(s["profile"]["run"]) == s["zones"]
    print("  %.2f-%.2f cm: %d of %d zones pass, worst %.1f %% of the slab's maximum" %
          (s["z_lo_cm"], s["z_hi_cm"], s["passed"], s["points"], 100 * s["worst_dose_difference"]))
sys.exit(0 if ok else 1)
PY
}

ini pass_abs "s/^lateral_scale = .*/&\nlateral_k = 4/"
run pass_abs 2e4 pass 2 6
grep -q "(absolute)" "$work/pass_abs.log" || fail "pass_abs: the summary does not say absolute"
ini pass_int "s/^lateral_scale = .*/lateral_k = 4/"
run pass_int 2e4 pass 2 6
grep -q "(integral)" "$work/pass_int.log" || fail "pass_int: the summary does not say integral"

# The other beams with a lateral reference, as the example runs them: 10 MeV at 2 and 3 cm (32
# zones compared; at 1 cm the profile is 3 annuli wide), 6 MeV at 1 and 2 cm (22 zones).
ini pass_e10 "s|lat_e20.csv|lat_e10.csv|" "s/^energy_MeV = .*/energy_MeV = 10/" \
    "s/^lateral_depths = .*/lateral_depths = 2, 3/" "s/^lateral_scale = .*/&\nlateral_k = 4/"
run pass_e10 2e4 pass 2 3
ini pass_e6 "s|lat_e20.csv|lat_e6.csv|" "s/^energy_MeV = .*/energy_MeV = 6/" \
    "s/^lateral_depths = .*/lateral_depths = 1, 2/" "s/^lateral_scale = .*/&\nlateral_k = 4/"
run pass_e6 2e4 pass 1 2

ini axis_2cm "s/^size_cm = .*/geometry = slabs\nslabs = water 1.0 3\ndepth_voxel_cm = 0.1\n&/" \
    "s/^lateral_depths = .*/lateral_depths = 2/" "s/^lateral_scale = .*/&\nlateral_k = 4/"
run axis_2cm 1e6 pass 2

ini wrong_e16 "s/^energy_MeV = .*/energy_MeV = 16/" "s/^voxels = .*/voxels = 100/" "s/^lateral_scale = .*/&\nlateral_k = 4/"
run wrong_e16 1e4 fail 2 6
ini wrong_ref "s|lat_e20.csv|lat_e10.csv|" "s/^voxels = .*/voxels = 100/" "s/^lateral_depths = .*/lateral_depths = 2, 4/" \
    "s/^lateral_scale = .*/&\nlateral_k = 4/"
run wrong_ref 1e4 fail 2 4

# The GPU suite's step (scripts/gpu_suite.sh stage lateral) on the CPU at a small count: the
# example as it is, its result checked by check_phantom_result.py (which reads the lateral block;
# at this count and k = 3 the test may go either way, so only that it ran and reported).
ini suite
if "$MCT" run "$work/suite.ini" --backend cpu --histories 1e4 --batches 20 --method atomic \
    --out "$work/out_suite" >"$work/suite.log" 2>&1; then
    python3 "$SRC/tests/sim/check_phantom_result.py" "$work/out_suite/result.json" | grep "^lateral" ||
        fail "suite: check_phantom_result.py printed no lateral lines"
else
    fail "suite: run failed: $(cat "$work/suite.log")"
fi

# Bad references and keys: one line, non-zero exit, nothing written.
lat_ini() { # CSV-PATH [SED]: the example against this reference (edited by SED), on stdout
    sed -e "s|^lateral_reference = .*|lateral_reference = $1|" -e "${2:-}" "$EX"
}
bad_csv() { # NAME PATTERN CONTENT [SED]: a run against the reference $work/NAME.csv of CONTENT must be refused
    printf "$3" >"$work/$1.csv"
    lat_ini "$work/$1.csv" "${4:-}" | expect_bad_ini "lat_$1" "$2" --histories 10 --backend cpu
}
H='z_lo_cm,z_hi_cm,r_lo_cm,r_hi_cm,dose,err\n'
Z1='2.0,2.1,0.0,0.1,1.0,0.01\n'
bad_csv header "header.csv:1: the header is not" 'z_lo,z_hi,r_lo,r_hi,dose,err\n2.0,2.1,0,0.1,1,0.1\n'
bad_csv column "column.csv:3: 5 columns, not 6" "$H$Z1"'2.0,2.1,0.1,0.2,1.0\n'
bad_csv nan "nan.csv:3: column 5: \"nan\" is not a decimal number" "$H$Z1"'2.0,2.1,0.1,0.2,nan,0.01\n'
bad_csv negerr "row 2 (z 2-2.1 cm, r 0.1-0.2 cm): the error -0.01 is negative" "$H$Z1"'2.0,2.1,0.1,0.2,1.0,-0.01\n'
bad_csv side "the annulus reaches beyond the phantom's sides (5 cm from the axis)" "$H$Z1"'2.0,2.1,0.1,5.2,1.0,0.01\n' \
    's/^lateral_depths = .*/lateral_depths = 2/'
bad_csv deep "row 2 (z 10-10.1 cm, r 0-0.1 cm): the zone is outside the phantom (10 cm deep)" \
    "$H"'6.0,6.1,0.0,0.1,1.0,0.01\n10.0,10.1,0.0,0.1,1.0,0.01\n' 's/^lateral_depths = .*/lateral_depths = 6, 10.05/'
bad_csv order "r_hi_cm is not above r_lo_cm" "$H$Z1"'2.0,2.1,0.3,0.2,1.0,0.01\n'
bad_csv overlap "their annuli overlap" "$H$Z1"'2.0,2.1,0.05,0.2,1.0,0.01\n'
bad_csv slabs "their slabs overlap" "$H$Z1"'2.05,2.15,0.0,0.1,1.0,0.01\n'
bad_csv nodepth "no slab contains the depth 6 cm" "$H$Z1"
bad_csv empty "empty.csv: 0 rows, fewer than 1" "$H"
lat_ini "$work/none.csv" | expect_bad_ini lat_missing "none.csv: cannot open" --histories 10 --backend cpu
ini batches
expect_error lat_batches "lateral_reference needs batches >= 2" run "$work/batches.ini" --histories 10 --batches 1 \
    --backend cpu
ini depths "s/^lateral_depths = .*/lateral_depths = 2, x/"
expect_error lat_depths "lateral_depths = 2, x: expected depths in cm" run "$work/depths.ini" --histories 10 --backend cpu
ini scale "s/^lateral_scale = .*/lateral_scale = -1/"
expect_error lat_scale "lateral_scale = -1: expected the factor" run "$work/scale.ini" --histories 10 --backend cpu
ini k "s/^lateral_scale = .*/&\nlateral_k = -3/"
expect_error lat_k "lateral_k = -3: expected the standard errors allowed" run "$work/k.ini" --histories 10 --backend cpu
ini alone "s/^lateral_reference = .*//"
expect_error lat_alone "lateral_depths, lateral_scale and lateral_k need lateral_reference" run "$work/alone.ini" \
    --histories 10 --backend cpu

[ "$failures" -eq 0 ] && echo "test_cli_phantom_lateral: OK"
exit $((failures > 0))
