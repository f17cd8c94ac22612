#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The planner through the CLI: `mctally plan` prints the ranking and the choice,
# refuses bad input with one line, writes and reuses wisdom (a corrupt file is a
# warning); `mctally run` with no method plans (auto) and result.json records
# the plan; INI `wisdom =` and `--wisdom` record plans.
set -u
MCT=$1
source "$(dirname "$0")/cli_test_lib.sh"

plan_error() { # plan_error NAME PATTERN ARGS: non-zero exit, one line holding PATTERN
    local name=$1 pattern=$2
    shift 2
    if "$MCT" plan "$@" >"$work/stdout" 2>"$work/stderr"; then
        fail "$name: exit 0"
    elif ! grep -q -- "$pattern" "$work/stderr"; then
        fail "$name: message lacks '$pattern': $(cat "$work/stderr")"
    elif [ "$(wc -l <"$work/stderr")" -ne 1 ]; then
        fail "$name: expected one line of error, got: $(cat "$work/stderr")"
    else
        echo "ok: $name -> $(cat "$work/stderr")"
    fi
}

# The ranking: every method once, the chosen one first; the CUDA model needs no GPU.
"$MCT" plan --bins 1000 --backend cuda --pattern hot >"$work/p1" || fail "plan (cuda estimate) failed"
grep -q "^chosen: block_reduce (estimate)" "$work/p1" || fail "1000 hot bins on cuda: $(cat "$work/p1")"
[ "$(grep -c -E '^[0-9]+ +[a-z_]+ +(yes|no) ' "$work/p1")" -eq 13 ] || fail "ranking does not list 13 methods"
grep -q "^1 *block_reduce *yes" "$work/p1" || fail "chosen method not ranked first"
grep -q "shared.*yes" "$work/p1" || fail "shared admissible at 1000 bins"
"$MCT" plan --bins 1000000 --backend cuda >"$work/p2" || fail "plan 1e6 failed"
grep -q "shared *no .*do not fit" "$work/p2" || fail "shared at 1e6 bins not refused for its fit: $(cat "$work/p2")"
# Requirements: bitwise floats get fixed; f32 with a tight loss bound gets kahan.
"$MCT" plan --bins 100 --backend cpu --determinism bitwise >"$work/p3" || fail "bitwise plan failed"
grep -q "^chosen: fixed" "$work/p3" || fail "bitwise f64 on cpu: $(tail -1 "$work/p3")"
"$MCT" plan --bins 100 --backend emulated --dtype f32 --max-rel-loss 1e-5 --adds-per-bin 1e6 >"$work/p4" ||
    fail "f32 loss plan failed"
grep -q "^chosen: kahan\|^chosen: fixed" "$work/p4" || fail "f32 with a loss bound: $(tail -1 "$work/p4")"
grep -q "atomic *no .*rounding loss" "$work/p4" || fail "atomic not refused for its rounding loss"
# A key file is classed.
python3 -c "import struct,sys; sys.stdout.buffer.write(b''.join(struct.pack('<I', i // 100) for i in range(20000)))" >"$work/keys.u32"
"$MCT" plan --bins 1000 --backend cuda --keys "$work/keys.u32" >"$work/p5" || fail "plan with keys failed"
grep -q "sorted keys (20000 sampled" "$work/p5" || fail "sorted keys not classed: $(head -1 "$work/p5")"
# Measure on the emulated backend.
"$MCT" plan --bins 64 --backend emulated --mode measure --budget-s 0.3 >"$work/p6" || fail "measure failed"
grep -q "^chosen: [a-z_]* (measure)" "$work/p6" || fail "measure: $(tail -1 "$work/p6")"

# Errors.
plan_error no_bins "--bins is required" --dtype f64
plan_error bad_det "expected not_guaranteed, run_to_run or bitwise" --bins 10 --determinism always
plan_error bad_mode "expected estimate or measure" --bins 10 --mode guess
plan_error bad_keys "cannot open keys file" --bins 10 --keys "$work/none.u32"
plan_error key_range "not below 10" --bins 10 --keys "$work/keys.u32"
plan_error impossible "no method meets determinism bitwise" --bins 10 --backend cpu --dtype f32 --determinism bitwise \
    --max-rel-loss 1e-12 --adds-per-bin 10
plan_error bad_option "unknown option" --bins 10 --colour red

# Wisdom: written, then reused; a corrupt file is a warning and is replaced.
"$MCT" plan --bins 300 --backend cpu --wisdom "$work/w.json" >/dev/null || fail "plan --wisdom failed"
grep -q '"mctally-wisdom"' "$work/w.json" || fail "wisdom file not written"
"$MCT" plan --bins 300 --backend cpu --wisdom "$work/w.json" >"$work/p7" || fail "plan with wisdom failed"
grep -q "^chosen: [a-z_]* (wisdom)" "$work/p7" || fail "wisdom not reused: $(tail -1 "$work/p7")"
head -c 40 "$work/w.json" >"$work/w_bad.json"
"$MCT" plan --bins 300 --backend cpu --wisdom "$work/w_bad.json" >"$work/p8" 2>"$work/e8" ||
    fail "corrupt wisdom stopped the plan"
grep -q "warning: .*wisdom ignored" "$work/e8" || fail "no warning for corrupt wisdom: $(cat "$work/e8")"
grep -q '"mctally-wisdom"' "$work/w_bad.json" || fail "corrupt wisdom not replaced"

# `run` with no method plans; result.json records the plan.
cat >"$work/auto.ini" <<'INI'
[problem]
type = scatter
histories = 2000
batches = 2
[tally]
dtype = f64
[scatter]
bins = 50
pattern = hot
INI
# A file that is not wisdom is refused before any work, and left as it is.
printf '{"problem": "escape", "histories": 7}\n' >"$work/notes.json"
cp "$work/notes.json" "$work/notes.orig"
for cmd in "plan --bins 300 --backend cpu" "run $work/auto.ini --backend cpu --histories 100 --out $work/out_foreign"; do
    if $MCT $cmd --wisdom "$work/notes.json" >"$work/p9" 2>"$work/e9"; then fail "$cmd: a foreign --wisdom file was accepted"; fi
    grep -q "holds something other than mctally wisdom" "$work/e9" || fail "$cmd: unclear refusal: $(cat "$work/e9")"
    [ "$(wc -l <"$work/e9")" -eq 1 ] || fail "$cmd: more than one line: $(cat "$work/e9")"
    cmp -s "$work/notes.json" "$work/notes.orig" || fail "$cmd: the foreign --wisdom file was changed"
done
[ ! -e "$work/out_foreign" ] || fail "run wrote output although its --wisdom was refused"
"$MCT" run "$work/auto.ini" --backend emulated --out "$work/auto" >"$work/r1" || fail "auto run failed"
python3 - "$work/auto/result.json" <<'PY' || fail "result.json plan"
import json, sys
r = json.load(open(sys.argv[1]))
p = r["plan"]
assert p["source"] == "estimate" and p["method"] == r["method"] != "auto", p
assert p["pattern"] == "hot" and len(p["ranking"]) == 13 and p["ranking"][0]["method"] == r["method"], p
assert r["determinism_required"] == "not_guaranteed"
PY
grep -q "^plan: " "$work/r1" || fail "run does not print the plan"
# The escape problem's kernel serves Bossler's five methods: auto stays among them.
cat >"$work/escape.ini" <<'INI'
[problem]
type = escape
histories = 4000
batches = 2
[tally]
dtype = f64
wisdom = WISDOM
INI
sed -i "s|WISDOM|$work/run_wisdom.json|" "$work/escape.ini"
for b in cpu emulated; do
    "$MCT" run "$work/escape.ini" --backend $b --determinism run_to_run --out "$work/esc_$b" >/dev/null ||
        fail "escape auto run_to_run on $b failed"
    grep -q '"method":[[:space:]]*"replicated"' "$work/esc_$b/result.json" ||
        fail "escape run_to_run on $b: not replicated"
done
grep -q '"backend":[[:space:]]*"emulated"' "$work/run_wisdom.json" || fail "INI wisdom = did not record the plan"
"$MCT" run "$work/escape.ini" --backend cpu --determinism run_to_run --out "$work/esc_again" >/dev/null || fail "rerun"
grep -q '"source":[[:space:]]*"wisdom"' "$work/esc_again/result.json" || fail "run did not reuse wisdom"
expect_error run_impossible "no method meets determinism bitwise" run "$work/escape.ini" --backend cpu --determinism bitwise
expect_error run_bad_plan "expected estimate or measure" run "$work/escape.ini" --plan guess
"$MCT" plan --help | grep -q "usage" || fail "plan --help"

echo "cli plan: $failures failure(s)"
[ "$failures" -eq 0 ]
