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

# same_bits A B WHAT: the tally_only runs A and B have the same total and bin
# means, to the bit.
same_bits() {
    python3 - "$work/$1/result.json" "$work/$2/result.json" <<'PY' || fail "fixed totals differ between $3"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
assert a["tally_only"]["total_MeV"] == b["tally_only"]["total_MeV"], (a["tally_only"]["total_MeV"], b["tally_only"]["total_MeV"])
assert a["tallies"][0]["mean"] == b["tallies"][0]["mean"]
PY
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
check "$work/to_fixed_cpu/result.json" 'r["determinism"] == "bitwise"'
same_bits to_fixed_cpu to_fixed_emu "cpu and emulated"
# Buffered deposits (deposit = buffered): fixed keeps its bits; result.json says how it ran.
sed 's/^launch = paper/launch = paper\ndeposit = buffered/' "$TO" >"$work/to_buffered.ini"
run to_fixed_buffered "$work/to_buffered.ini" --backend emulated --histories 2e4 --method fixed --batches 4
check "$work/to_fixed_buffered/result.json" 'r["tally_only"]["deposit"] == "buffered"'
check "$work/to_fixed_emu/result.json" 'r["tally_only"]["deposit"] == "auto"'
same_bits to_fixed_cpu to_fixed_buffered "direct and buffered deposits"

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
# bad_key NAME PROBLEM PATTERN LINES...: a PROBLEM file whose [PROBLEM] section
# holds LINES must fail as expect_error says.
bad_key() {
    local name=$1 problem=$2 pattern=$3
    shift 3
    expect_bad_ini "$name" "$pattern" < <(printf '[problem]\ntype = %s\n[%s]\n' "$problem" "$problem"; printf '%s\n' "$@")
}
bad_key unknown_pattern scatter "unknown pattern" 'pattern = zipf'
bad_key width_zero scatter "width = 0: expected a whole number 1 .. 1024" 'width = 0'
bad_key scatter_bins_zero scatter "bins = 0: expected a whole number 1 .. 2^31" 'bins = 0'
bad_key tally_only_bins_zero tally_only "bins = 0: expected a whole number 1 .. 2^31" 'bins = 0'
bad_key tally_only_unknown_key tally_only "unknown key (known: bins, collisions" 'colour = blue'
bad_key scatter_unknown_key scatter "unknown key (known: bins, width" 'cells = 10'
bad_key bad_launch tally_only "expected paper or full" 'launch = wide'
bad_key bad_deposit tally_only "deposit = sideways: expected auto, direct or buffered" 'deposit = sideways'
bad_key bad_mean tally_only "expected a number in (0, 1e30]" 'mean_energy_MeV = -1'
bad_key too_many_bins scatter "exceeds the 2\^31 bins" 'bins = 1e9' 'width = 9'
bad_key bad_check scatter "expected auto, yes or no" 'check = maybe'
expect_error integer_tally "need a float tally" run "$TO" --backend cpu --histories 100 --dtype u64
expect_error shared_on_cpu "cannot serve" run "$SC" --backend cpu --histories 100 --method shared
expect_bad_ini unknown_problem "known: escape, phantom, tally_only, scatter" <<'INI'
[problem]
type = pinball
INI

echo "cli problems: $failures failure(s)"
[ "$failures" -eq 0 ]
