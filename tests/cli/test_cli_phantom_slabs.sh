#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The slab phantom (water / bone / lung / water, examples/phantom_slabs.ini)
# against EGSnrc DOSRZnrc (data/reference/egsnrc/slabs) through the problem
# file's `reference` key, at CI's counts on the CPU: the 10 and 20 MeV
# electron and 6 and 18 MeV photon beams, every depth with >= 5 % of the
# maximum within 2 %/1 mm plus 3 standard errors of the difference (doses to
# the medium; check_phantom_result.py). The GPU suite runs them at 1e7
# histories, where the statistical allowance is a small part of the 2 %.
# Then the `reference` key's bad inputs: one line each, nothing written.
set -u
MCT=$1
SRC=$2
source "$(dirname "$0")/cli_test_lib.sh"

beam() { # NAME PARTICLE ENERGY HISTORIES
    sed -e "s|^slabs = |reference = $SRC/data/reference/egsnrc/slabs/slab_$1.csv\nslabs = |" \
        -e "s/^energy_MeV = .*/energy_MeV = $3/" -e "s/^particle = .*/particle = $2/" \
        "$SRC/examples/phantom_slabs.ini" >"$work/$1.ini"
    if ! "$MCT" run "$work/$1.ini" --backend cpu --histories "$4" --out "$work/out_$1" >"$work/$1.log" 2>&1; then
        fail "$1: run failed: $(cat "$work/$1.log")"
        return
    fi
    grep "against the reference" "$work/$1.log"
    python3 "$SRC/tests/sim/check_phantom_result.py" "$work/out_$1/result.json" || fail "$1: not within 2 %/1 mm"
    python3 - "$work/out_$1/result.json" <<'PY' || fail "$1: no comparison in result.json"
import json, sys
c = json.load(open(sys.argv[1]))["phantom"]["depth_dose"]["reference"]
sys.exit(0 if c["points"] >= 30 else 1)
PY
}
beam e10 electron 10 20000
beam e20 electron 20 20000
beam g6 photon 6 100000
beam g18 photon 18 100000

# Bad references: one line, non-zero exit, nothing written.
ref_ini() { # NAME CSV-PATH
    sed "s|^slabs = |reference = $2\nslabs = |" "$SRC/examples/phantom_slabs.ini" >"$work/$1.ini"
}
ref_ini missing "$work/none.csv"
expect_error ref_missing "cannot open" run "$work/missing.ini" --histories 10 --backend cpu
printf 'depth,width\n0.05,0.1,1,0.1\n' >"$work/header.csv" && ref_ini header "$work/header.csv"
expect_error ref_header "header.csv:1: the header is not \"depth_cm,width_cm,mev,err\"" run "$work/header.ini" --histories 10 --backend cpu
printf 'depth_cm,width_cm,mev,err\n0.05,0.1,1,0.1\n0.15,0.1,x,0.1\n' >"$work/number.csv" && ref_ini number "$work/number.csv"
expect_error ref_number "number.csv:3: column 3: \"x\" is not a decimal number" run "$work/number.ini" --histories 10 --backend cpu
printf 'depth_cm,width_cm,mev,err\n0.05,0.1,1,0.1\n0.15,0.1,1\n' >"$work/short.csv" && ref_ini short "$work/short.csv"
expect_error ref_short "short.csv:3: 3 columns, not 4" run "$work/short.ini" --histories 10 --backend cpu
printf 'depth_cm,width_cm,mev,err\n0.15,0.1,1,0.1\n0.05,0.1,1,0.1\n' >"$work/order.csv" && ref_ini order "$work/order.csv"
expect_error ref_order "out of order" run "$work/order.ini" --histories 10 --backend cpu
printf 'depth_cm,width_cm,mev,err\n0.05,0.1,1,0.1\n' >"$work/one.csv" && ref_ini one "$work/one.csv"
expect_error ref_one "one.csv: 1 row, fewer than 2" run "$work/one.ini" --histories 10 --backend cpu
printf 'depth_cm,width_cm,mev,err\n40.05,0.1,1,0.1\n40.15,0.1,1,0.1\n' >"$work/far.csv" && ref_ini far "$work/far.csv"
expect_error ref_far "fewer than 10" run "$work/far.ini" --histories 10 --backend cpu

[ "$failures" -eq 0 ] && echo "test_cli_phantom_slabs: OK"
exit $((failures > 0))
