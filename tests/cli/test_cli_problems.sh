#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The tally_only and scatter problems through the CLI: the presets
# (examples/tally_only.ini, scatter.ini, mpc.ini) at small sizes on the cpu and
# emulated backends write result.json with the promised fields and answers
# within statistics; fixed-point totals are equal on both backends; bad input
# gives one clear message, a non-zero exit and no result file.
set -u
MCT=$1
EXAMPLES=$2
source "$(dirname "$0")/cli_test_lib.sh"

# run NAME ARGS...: a run that must succeed.
run() {
    local name=$1
    shift
    if ! "$MCT" run "$@" --out "$work/$name" >"$work/$name.log" 2>&1; then
        fail "$name: run failed: $(cat "$work/$name.log")"
        return 1
    fi
    echo "ok: $name: $(head -n 1 "$work/$name.log")"
}

# check FILE EXPRESSIONS: each line, a Python expression (or `a; b` with the
# last part the test) over r = the parsed result, must be true. Thresholds
# |z| < 5 fail by chance with probability 6e-7.
check() {
    local file=$1 expr=$2
    if ! python3 - "$file" "$expr" 2>"$work/check.err" <<'PY'; then
import json, sys
r = json.load(open(sys.argv[1]))
for line in sys.argv[2].strip().splitlines():
    line = line.strip()
    try:
        *setup, test = line.split("; ")
        env = {"r": r}
        for part in setup:
            exec(part, env)
        ok = eval(test, env)
    except Exception as e:
        ok, line = False, f"{line} ({e!r})"
    if not ok:
        sys.exit(f"check failed: {line}")
PY
        fail "$file: $(tail -n 1 "$work/check.err")"
    fi
}

# ---- tally_only ----------------------------------------------------------------
# The kernels use the mean as a float: 0.1f = 0.10000000149011612.
TO="$EXAMPLES/tally_only.ini"
run to_cpu "$TO" --backend cpu --histories 2e5 --batches 8
check "$work/to_cpu/result.json" '
r["problem"] == "tally_only" and r["backend"] == "cpu" and r["histories"] == 200000
t = r["tally_only"]; t["particles"] == 200000 and t["collisions"] == 10 and t["bins"] == 8 and t["launch"] == "paper"
t = r["tally_only"]; t["updates"] == 2000000 and abs(t["expected_MeV"] - 2e6 * 0.10000000149011612) < 1e-6
t = r["tally_only"]; abs(t["std_error_MeV"] - 0.10000000149011612 * 2e6 ** 0.5) < 1e-9 and abs(t["z_score"]) < 5 and t["max_bin_z"] < 5
t = r["tally_only"]; abs(t["total_MeV"] - r["tallies"][0]["total"]) <= 1e-9 * t["total_MeV"]
t = r["tally_only"]; t["batch_std_error_MeV"] > 0 and t["updates_per_second"] > 0
len(r["tallies"][0]["mean"]) == 8 and len(r["tallies"][0]["rel_err"]) == 8
'
run to_emu "$TO" --backend emulated --histories 2e4 --method wib --batches 4
check "$work/to_emu/result.json" '
r["backend"] == "emulated" and r["method"] == "wib" and abs(r["tally_only"]["z_score"]) < 5
'
# A fixed-point tally: the same bits on both backends, any launch.
run to_fixed_cpu "$TO" --backend cpu --histories 2e4 --method fixed --batches 4
run to_fixed_emu "$TO" --backend emulated --histories 2e4 --method fixed --batches 4
ini_full="$work/to_full.ini"
sed 's/^launch = paper/launch = full/' "$TO" >"$ini_full"
run to_fixed_full "$ini_full" --backend emulated --histories 2e4 --method fixed --batches 4 --dtype f32
check "$work/to_fixed_full/result.json" 'r["tally_only"]["launch"] == "full" and r["dtype"] == "f32"'
python3 - "$work/to_fixed_cpu/result.json" "$work/to_fixed_emu/result.json" <<'PY' || fail "fixed totals differ between cpu and emulated"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
assert a["determinism"] == "bitwise", a["determinism"]
assert a["tally_only"]["total_MeV"] == b["tally_only"]["total_MeV"], (a["tally_only"]["total_MeV"], b["tally_only"]["total_MeV"])
assert a["tallies"][0]["mean"] == b["tallies"][0]["mean"]
PY
# Buffered deposits (deposit = buffered): fixed keeps its bits; result.json says how it ran.
sed 's/^launch = paper/launch = paper\ndeposit = buffered/' "$TO" >"$work/to_buffered.ini"
run to_fixed_buffered "$work/to_buffered.ini" --backend emulated --histories 2e4 --method fixed --batches 4
check "$work/to_fixed_buffered/result.json" 'r["tally_only"]["deposit"] == "buffered"'
check "$work/to_fixed_emu/result.json" 'r["tally_only"]["deposit"] == "auto"'
python3 - "$work/to_fixed_cpu/result.json" "$work/to_fixed_buffered/result.json" <<'PY' || fail "fixed totals differ between direct and buffered deposits"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
assert a["tally_only"]["total_MeV"] == b["tally_only"]["total_MeV"], (a["tally_only"]["total_MeV"], b["tally_only"]["total_MeV"])
assert a["tallies"][0]["mean"] == b["tallies"][0]["mean"]
PY

# ---- scatter and the MPC preset -----------------------------------------------
SC="$EXAMPLES/scatter.ini"
for pattern in uniform sorted hot; do
    sed "s/^pattern = uniform/pattern = $pattern/" "$SC" >"$work/sc_$pattern.ini"
    run "sc_cpu_$pattern" "$work/sc_$pattern.ini" --backend cpu --histories 1e5 --method fixed
    run "sc_emu_$pattern" "$work/sc_$pattern.ini" --backend emulated --histories 1e4 --method wag_match --dtype f32
    for b in cpu emu; do
        check "$work/sc_${b}_$pattern/result.json" '
r["problem"] == "scatter" and r["scatter"]["pattern"] == "'"$pattern"'" and r["scatter"]["cells"] == 1000
s = r["scatter"]; s["check"]["checked"] and s["check"]["passed"] and s["check"]["max_dev_over_bound"] <= 1
s = r["scatter"]; abs(s["z_score"]) < 5 and s["expected"] == s["particles"] * s["width"] / 2
s = r["scatter"]; s["updates"] == s["particles"] and s["updates_per_second"] > 0
len(r["tallies"][0]["mean"]) == 1000
'
    done
done
MPC="$EXAMPLES/mpc.ini"
run mpc_cpu "$MPC" --backend cpu --histories 2e5 --method replicated
check "$work/mpc_cpu/result.json" '
s = r["scatter"]; s["cells"] == 1e6 and s["width"] == 9 and s["updates"] == 1800000 and s["check"]["passed"]
"mean" not in r["tallies"][0] and r["tallies"][0]["bins"] == 9e6
abs(r["scatter"]["z_score"]) < 5
'
run mpc_emu "$MPC" --backend emulated --histories 2e4 --method block_reduce
check "$work/mpc_emu/result.json" 'r["scatter"]["check"]["passed"] and abs(r["scatter"]["z_score"]) < 5'

# ---- bad input ------------------------------------------------------------------
ini() { cat >"$work/$1"; }
ini bad_pattern.ini <<'INI'
[problem]
type = scatter
[scatter]
pattern = zipf
INI
expect_error unknown_pattern "unknown pattern" run "$work/bad_pattern.ini"
ini width0.ini <<'INI'
[problem]
type = scatter
[scatter]
width = 0
INI
expect_error width_zero "width = 0: expected a whole number 1 .. 1024" run "$work/width0.ini"
ini bins0.ini <<'INI'
[problem]
type = scatter
[scatter]
bins = 0
INI
expect_error scatter_bins_zero "bins = 0: expected a whole number 1 .. 2^31" run "$work/bins0.ini"
ini to_bins0.ini <<'INI'
[problem]
type = tally_only
[tally_only]
bins = 0
INI
expect_error tally_only_bins_zero "bins = 0: expected a whole number 1 .. 2^31" run "$work/to_bins0.ini"
ini to_key.ini <<'INI'
[problem]
type = tally_only
[tally_only]
colour = blue
INI
expect_error tally_only_unknown_key "unknown key (known: bins, collisions" run "$work/to_key.ini"
ini sc_key.ini <<'INI'
[problem]
type = scatter
[scatter]
cells = 10
INI
expect_error scatter_unknown_key "unknown key (known: bins, width" run "$work/sc_key.ini"
ini to_launch.ini <<'INI'
[problem]
type = tally_only
[tally_only]
launch = wide
INI
expect_error bad_launch "expected paper or full" run "$work/to_launch.ini"
ini to_deposit.ini <<'INI'
[problem]
type = tally_only
[tally_only]
deposit = sideways
INI
expect_error bad_deposit "deposit = sideways: expected auto, direct or buffered" run "$work/to_deposit.ini"
ini to_mean.ini <<'INI'
[problem]
type = tally_only
[tally_only]
mean_energy_MeV = -1
INI
expect_error bad_mean "expected a number in (0, 1e30]" run "$work/to_mean.ini"
ini sc_big.ini <<'INI'
[problem]
type = scatter
[scatter]
bins = 1e9
width = 9
INI
expect_error too_many_bins "exceeds the 2\^31 bins" run "$work/sc_big.ini"
ini sc_check.ini <<'INI'
[problem]
type = scatter
[scatter]
check = maybe
INI
expect_error bad_check "expected auto, yes or no" run "$work/sc_check.ini"
expect_error integer_tally "need a float tally" run "$TO" --backend cpu --histories 100 --dtype u64
expect_error shared_on_cpu "cannot serve" run "$SC" --backend cpu --histories 100 --method shared
ini bad_type.ini <<'INI'
[problem]
type = pinball
INI
expect_error unknown_problem "known: escape, phantom, tally_only, scatter" run "$work/bad_type.ini"

echo "cli problems: $failures failure(s)"
[ "$failures" -eq 0 ]
