#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The slab phantoms against EGSnrc DOSRZnrc (data/reference/egsnrc/slabs)
# through the problem file's `reference` key, at CI's counts on the CPU: the
# thick set (water 3 / bone 2 / lung 7 / water 18 cm, examples/phantom_slabs.ini)
# with the 10 and 20 MeV electron and 6 and 18 MeV photon beams, and the thin
# set (water 1 / bone 1 / lung 4 / water 14 cm, examples/phantom_slabs_thin.ini) with 6 and 15 MeV electrons,
# whose ranges end in the bone and in the water behind the lung, and 1.25 MeV
# photons: every depth with >= 5 % of the maximum within 2 %/1 mm plus 3
# standard errors of the difference (doses to the medium;
# check_phantom_result.py). The GPU suite runs them at 1e7 histories, where the
# statistical allowance is a small part of the 2 %. The 18 MeV photon beam
# runs 2e5: in the water before the bone its dose is about 1 % of the maximum
# below EGSnrc's (1e6 histories), so at 1e5 the 3 sigma of 208 depths left a
# correct run failing one of them in a few percent of seeds. The 6 MeV photon
# beam runs 4e5: in the lung's 1 mm slabs (0.026 g/cm2) a few electrons make
# a slab's dose, and with errors from 10 batches a correct run failed a depth
# there for 2 to 4 of 30 seeds at 1e5, 1 to 3 of 40 at 2e5, none of 30 at 4e5
# (before and after the phantom's random streams changed).
# Then the `reference` key's bad inputs: one line each, nothing written.
set -u
MCT=$1
SRC=$2
source "$(dirname "$0")/cli_test_lib.sh"

beam() { # NAME PARTICLE ENERGY HISTORIES: slab_NAME.csv in phantom_slabs.ini, or NAME.csv in phantom_slabs_thin.ini (thin_*)
    local ini=phantom_slabs.ini csv=slab_$1.csv
    case $1 in thin_*) ini=phantom_slabs_thin.ini csv=$1.csv ;; esac
    sed -e "s|^slabs = |reference = $SRC/data/reference/egsnrc/slabs/$csv\nslabs = |" \
        -e "s/^energy_MeV = .*/energy_MeV = $3/" -e "s/^particle = .*/particle = $2/" \
        "$SRC/examples/$ini" >"$work/$1.ini"
    if ! "$MCT" run "$work/$1.ini" --backend cpu --histories "$4" --out "$work/out_$1" >"$work/$1.log" 2>&1; then
        fail "$1: run failed: $(cat "$work/$1.log")"
        return
    fi
    grep "against the reference" "$work/$1.log"
    python3 "$SRC/tests/sim/check_phantom_result.py" "$work/out_$1/result.json" || fail "$1: not within 2 %/1 mm"
    python3 - "$work/out_$1/result.json" <<'PY' || fail "$1: no comparison in result.json"
import json, sys
c = json.load(open(sys.argv[1]))["phantom"]["depth_dose"]["reference"]
sys.exit(0 if c["points"] >= 20 else 1)  # thin_e6: 27 depths (it stops in the bone)
PY
}
beam e10 electron 10 20000
beam e20 electron 20 20000
beam g6 photon 6 400000
beam g18 photon 18 200000
beam thin_e6 electron 6 40000
beam thin_e15 electron 15 20000
beam thin_g1.25 photon 1.25 200000

# Bad references: one line, non-zero exit, nothing written.
ref_ini() { # CSV-PATH: the slab example against this reference, on stdout
    sed "s|^slabs = |reference = $1\nslabs = |" "$SRC/examples/phantom_slabs.ini"
}
bad_ref() { # NAME PATTERN CONTENT: a run against the reference $work/NAME.csv of CONTENT must be refused
    printf "$3" >"$work/$1.csv"
    ref_ini "$work/$1.csv" | expect_bad_ini "ref_$1" "$2" --histories 10 --backend cpu
}
ref_ini "$work/none.csv" | expect_bad_ini ref_missing "cannot open" --histories 10 --backend cpu
bad_ref header "header.csv:1: the header is not \"depth_cm,width_cm,mev,err\"" 'depth,width\n0.05,0.1,1,0.1\n'
bad_ref number "number.csv:3: column 3: \"x\" is not a decimal number" 'depth_cm,width_cm,mev,err\n0.05,0.1,1,0.1\n0.15,0.1,x,0.1\n'
bad_ref short "short.csv:3: 3 columns, not 4" 'depth_cm,width_cm,mev,err\n0.05,0.1,1,0.1\n0.15,0.1,1\n'
bad_ref order "out of order" 'depth_cm,width_cm,mev,err\n0.15,0.1,1,0.1\n0.05,0.1,1,0.1\n'
bad_ref one "one.csv: 1 row, fewer than 2" 'depth_cm,width_cm,mev,err\n0.05,0.1,1,0.1\n'
bad_ref far "fewer than 10" 'depth_cm,width_cm,mev,err\n40.05,0.1,1,0.1\n40.15,0.1,1,0.1\n'

[ "$failures" -eq 0 ] && echo "test_cli_phantom_slabs: OK"
exit $((failures > 0))
