#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Nothing lost, nothing clobbered: outputs are never written through a
# symbolic link or over a directory, device or input; what mctally did not
# create is never removed; a SIGTERM leaves either the complete previous state
# or the complete new set (result.json last), never temporaries; a reused
# directory does not keep another run's files beside a new result.json.
set -u
MCT=$1
EXAMPLES=$2
source "$(dirname "$0")/cli_test_lib.sh"

esc=("$EXAMPLES/escape.ini" --backend cpu --histories 1000 --batches 2)
echo keep >"$work/victim"
victim_kept() { [ "$(cat "$work/victim")" = keep ] || fail "$1: the victim file changed"; }
no_temporaries() {
    local left
    left=$(ls -A "$1" 2>/dev/null | grep '^\.' || true)
    [ -z "$left" ] || fail "$2: temporaries left in $1: $left"
}

# Symbolic links where the old temporaries were named: ignored, target untouched.
mkdir -p "$work/d1"
ln -s "$work/victim" "$work/d1/result.json.tmp"
"$MCT" run "${esc[@]}" --out "$work/d1" >/dev/null 2>&1 || fail "tmp_symlink: run failed"
victim_kept tmp_symlink
[ -L "$work/d1/result.json.tmp" ] || fail "tmp_symlink: the link was removed"
[ -s "$work/d1/result.json" ] && echo "ok: tmp_symlink" || fail "tmp_symlink: no result"

# A symbolic link at the target: refused, the link and its target untouched.
mkdir -p "$work/d2"
ln -s "$work/victim" "$work/d2/result.json"
expect_error_dir() {
    local name=$1 pattern=$2
    shift 2
    if "$MCT" "$@" >"$work/stdout" 2>"$work/stderr"; then
        fail "$name: exit 0"
    elif ! grep -q -- "$pattern" "$work/stderr"; then
        fail "$name: message lacks '$pattern': $(cat "$work/stderr")"
    else
        echo "ok: $name -> $(cat "$work/stderr")"
    fi
}
expect_error_dir target_symlink "symbolic link" run "${esc[@]}" --out "$work/d2"
victim_kept target_symlink
[ -L "$work/d2/result.json" ] || fail "target_symlink: the link was removed"

# A directory in the way of result.json and of a phantom file.
mkdir -p "$work/d3/result.json"
expect_error_dir target_dir "is a directory" run "${esc[@]}" --out "$work/d3"
[ -d "$work/d3/result.json" ] || fail "target_dir: the directory was removed"
mkdir -p "$work/d4/dose.raw"
expect_error_dir phantom_dir "dose.raw' is a directory" run "$EXAMPLES/phantom_test4.ini" --backend cpu --histories 20 --batches 2 --out "$work/d4"
[ -d "$work/d4/dose.raw" ] || fail "phantom_dir: the directory was removed"
[ -e "$work/d4/result.json" ] && fail "phantom_dir: result.json written"
no_temporaries "$work/d4" phantom_dir

# accumulate: data files, then the hazards.
python3 -c 'import struct,sys; open(sys.argv[1]+"/k","wb").write(struct.pack("<4I",0,1,2,1)); open(sys.argv[1]+"/v","wb").write(struct.pack("<4d",1,2,3,4))' "$work"
acc=(accumulate --bins 3 --keys "$work/k" --values "$work/v" --backend cpu --method atomic)
cp "$work/k" "$work/k.orig"
expect_error_dir out_is_keys "is the input" "${acc[@]}" --out "$work/k"
ln "$work/k" "$work/k_hard"
expect_error_dir out_is_keys_hardlink "is the input" "${acc[@]}" --out "$work/k_hard"
cmp -s "$work/k" "$work/k.orig" || fail "out_is_keys: the keys changed"
mkdir "$work/o.tmp"
"$MCT" "${acc[@]}" --out "$work/o" >/dev/null 2>&1 || fail "acc_tmp_dir: run failed"
[ -d "$work/o.tmp" ] || fail "acc_tmp_dir: the directory o.tmp was removed"
[ -s "$work/o" ] && [ -s "$work/o.json" ] && echo "ok: acc_tmp_dir" || fail "acc_tmp_dir: outputs missing"
ln -s "$work/victim" "$work/o2.json"
expect_error_dir acc_json_symlink "symbolic link" "${acc[@]}" --out "$work/o2"
[ -e "$work/o2" ] && fail "acc_json_symlink: FILE written although FILE.json was refused"
victim_kept acc_json_symlink
if [ -e /dev/null ] && [ "$(id -u)" = 0 ]; then
    expect_error_dir acc_device "is a device" "${acc[@]}" --out /dev/null
    [ -c /dev/null ] || fail "acc_device: /dev/null replaced"
fi
no_temporaries "$work" accumulate

# A reused directory: a phantom set, then an escape run there, leaves no dose
# files beside the escape result.json.
"$MCT" run "$EXAMPLES/phantom_test4.ini" --backend cpu --histories 50 --batches 2 --out "$work/d5" >/dev/null 2>&1 ||
    fail "reuse: phantom failed"
touch "$work/d5/mine.txt"
"$MCT" run "${esc[@]}" --out "$work/d5" >/dev/null 2>&1 || fail "reuse: escape failed"
for f in dose.mhd dose.raw dose_rel_err.mhd dose_rel_err.raw depth_dose.csv depth_dose.png dose_slice.png; do
    [ -e "$work/d5/$f" ] && fail "reuse: stale $f beside the new result.json"
done
[ -e "$work/d5/mine.txt" ] || fail "reuse: a file mctally does not name was removed"
grep -q '"problem":[[:space:]]*"escape"' "$work/d5/result.json" && echo "ok: reuse" || fail "reuse: no escape result"

# SIGTERM at random points of phantom runs writing 8 MB grids into a directory
# that holds a complete previous set: afterwards either a complete set (with
# result.json) or no result.json, never temporaries, and the exit is non-zero
# when the signal arrived.
ph=("$EXAMPLES/phantom_test2.ini" --backend cpu --histories 40 --batches 2)
"$MCT" run "${ph[@]}" --seed 1 --out "$work/d6" >/dev/null 2>&1 || fail "sigterm: first run failed"
killed=0
for i in $(seq 1 20); do
    "$MCT" run "${ph[@]}" --seed $((i + 1)) --out "$work/d6" >/dev/null 2>&1 &
    pid=$!
    # 0 .. 0.15 s: the run takes about 0.1 s, much of it writing.
    sleep "0.$(printf '%03d' $((RANDOM % 150)))"
    kill -TERM "$pid" 2>/dev/null && sent=1 || sent=0
    wait "$pid"
    rc=$?
    [ "$sent" = 1 ] && [ "$rc" -ne 0 ] && killed=$((killed + 1))
    no_temporaries "$work/d6" "sigterm $i"
    if [ -e "$work/d6/result.json" ]; then
        seed=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["seed"])' "$work/d6/result.json")
        for f in dose.mhd dose.raw dose_rel_err.mhd dose_rel_err.raw depth_dose.csv depth_dose.png dose_slice.png; do
            [ -s "$work/d6/$f" ] || fail "sigterm $i: result.json (seed $seed) without $f"
        done
        [ "$(stat -c %s "$work/d6/dose.raw")" -eq 8000000 ] || fail "sigterm $i: truncated dose.raw"
        # The set is one run's: dose.raw must be older than or as old as result.json.
        [ "$work/d6/dose.raw" -nt "$work/d6/result.json" ] && fail "sigterm $i: dose.raw newer than result.json"
    fi
done
[ "$killed" -ge 1 ] || fail "sigterm: no run was stopped by the signal"
echo "ok: sigterm ($killed runs stopped)"

# The temporaries of a writer killed by SIGKILL (which no handler sees): the next
# writer of the same name (an escape run writes result.json alone) removes them
# once their process is gone, and leaves a live process's, other names' and
# names that are no temporary's alone.
mkdir -p "$work/d7"
sh -c 'exit 0' &
dead=$!
wait "$dead"
kill -0 "$dead" 2>/dev/null && dead=999999999 # reused already: a PID no process has
for f in ".result.json.$dead.a1B2c3" ".result.json.$$.a1B2c3" ".result.json.$dead.a1B2" ".dose.raw.$dead.a1B2c3"; do
    echo partial >"$work/d7/$f"
done
"$MCT" run "${esc[@]}" --out "$work/d7" >/dev/null 2>&1 || fail "dead_temporaries: run failed"
[ -e "$work/d7/.result.json.$dead.a1B2c3" ] && fail "dead_temporaries: a dead writer's temporary left"
for f in ".result.json.$$.a1B2c3" ".result.json.$dead.a1B2" ".dose.raw.$dead.a1B2c3"; do
    [ -e "$work/d7/$f" ] || fail "dead_temporaries: $f removed (a live writer's, or not a temporary's name)"
done
[ -s "$work/d7/result.json" ] && echo "ok: dead_temporaries" || fail "dead_temporaries: no result"

[ "$failures" -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
echo "all output tests passed"
