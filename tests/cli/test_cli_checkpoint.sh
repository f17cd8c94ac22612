#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# `mctally run --checkpoint/--resume`: runs killed with SIGKILL at random
# points and resumed (again and again) give the same bits as an uninterrupted
# run, for escape with a u64 tally and the phantom with fixed (cpu backend), the phantom's lateral
# comparison included;
# checkpoints of another seed, parameter or problem, and corrupt or truncated
# ones, are refused with one line and no result.
set -u
MCT=$1
EXAMPLES=$2
source "$(dirname "$0")/cli_test_lib.sh"

# run_killed NAME ARGS...: runs ARGS with --checkpoint, killing it with
# SIGKILL after a random delay until one attempt completes (the 13th attempt
# is left to finish, so a loaded machine cannot make the test fail).
run_killed() {
    local name=$1
    shift
    local ck="$work/$name.ckpt" out="$work/${name}_killed" kills=0 done=0
    for attempt in $(seq 1 13); do
        local resume=()
        [ -e "$ck" ] && resume=(--resume "$ck")
        "$MCT" run "$@" --checkpoint "$ck" "${resume[@]}" --out "$out" >"$work/stdout" 2>"$work/stderr" &
        local pid=$!
        # 0.05 .. 0.6 s: some kills land before the first checkpoint, some during writes.
        [ "$attempt" -lt 13 ] && sleep "0.$(printf '%02d' $((RANDOM % 55 + 5)))"
        if [ "$attempt" -lt 13 ] && kill -9 "$pid" 2>/dev/null; then
            wait "$pid" 2>/dev/null
            kills=$((kills + 1))
        else
            wait "$pid" || { fail "$name: attempt $attempt failed: $(cat "$work/stderr")"; return; }
            done=1
            break
        fi
    done
    [ "$done" = 1 ] || { fail "$name: never completed"; return; }
    [ "$kills" -ge 1 ] || fail "$name: no attempt was killed (the run is too short for this test)"
    echo "ok: $name completed after $kills kills"
}

# The tallies' per-bin values, totals and errors of a result.json (seconds and
# the input line aside).
tally_bits() { python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(json.dumps([r["tallies"], r.get("escape",{}).get("escapes"), r.get("phantom",{}).get("depth_dose")], sort_keys=True))' "$1"; }

# Escape, u64 counts.
esc=("$EXAMPLES/escape.ini" --backend cpu --dtype u64 --method atomic --histories 4e8 --batches 400)
"$MCT" run "${esc[@]}" --out "$work/escape_full" >/dev/null 2>&1 || fail "escape: uninterrupted run failed"
run_killed escape "${esc[@]}"
[ "$(tally_bits "$work/escape_full/result.json")" = "$(tally_bits "$work/escape_killed/result.json")" ] &&
    echo "ok: escape u64 resumed = uninterrupted" || fail "escape: resumed run differs from the uninterrupted one"

# Phantom, fixed point.
ph=("$EXAMPLES/phantom_test3.ini" --backend cpu --method fixed --dtype f64 --histories 60000 --batches 60)
"$MCT" run "${ph[@]}" --out "$work/phantom_full" >/dev/null 2>&1 || fail "phantom: uninterrupted run failed"
run_killed phantom "${ph[@]}"
# The identity names the revision of the phantom's histories (a build whose histories differ refuses it).
grep -a -q '"history_revision"' "$work/phantom.ckpt" && echo "ok: the phantom's checkpoint names its history revision" ||
    fail "phantom: the checkpoint's identity lacks the history revision"
for f in dose.raw dose_rel_err.raw depth_dose.csv; do
    cmp -s "$work/phantom_full/$f" "$work/phantom_killed/$f" || fail "phantom: $f of the resumed run differs"
done
[ "$(tally_bits "$work/phantom_full/result.json")" = "$(tally_bits "$work/phantom_killed/result.json")" ] &&
    echo "ok: phantom fixed resumed = uninterrupted" || fail "phantom: resumed result.json differs"
leftover=$(ls -A "$work/phantom_killed" | grep "^\\." || true); [ -z "$leftover" ] || fail "phantom: temporaries left: $leftover"

# Phantom with a lateral reference: the zones' batch energies are in the checkpoint, so the resumed
# run's lateral block (doses and batch errors) is the uninterrupted one's; a checkpoint of other
# zones is refused.
lat_ini() { # DEPTHS: the 20 MeV lateral example on 1 mm voxels, compared at DEPTHS
    sed -e "s|^lateral_reference = .*|lateral_reference = $EXAMPLES/../data/reference/egsnrc/lateral/lat_e20.csv|" \
        -e "s/^voxels = .*/voxels = 100/" -e "s/^lateral_depths = .*/lateral_depths = $1/" \
        "$EXAMPLES/phantom_lateral_e20.ini"
}
lat_ini 2 >"$work/lat.ini"
lat=("$work/lat.ini" --backend cpu --method fixed --dtype f64 --histories 20000 --batches 40)
"$MCT" run "${lat[@]}" --out "$work/lat_full" >/dev/null 2>&1 || fail "lateral: uninterrupted run failed"
run_killed lat "${lat[@]}"
lat_block() { python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["phantom"]["lateral"]; print(json.dumps(r, sort_keys=True) if r["run_error_method"].startswith("batch") else "no batch errors")' "$1"; }
[ "$(lat_block "$work/lat_full/result.json")" = "$(lat_block "$work/lat_killed/result.json")" ] &&
    echo "ok: lateral resumed = uninterrupted" || fail "lateral: resumed lateral block differs"
lat_ini 6 >"$work/lat6.ini"
expect_error other_zones "zones 50 " run "$work/lat6.ini" --backend cpu --method fixed --dtype f64 --histories 20000 \
    --batches 40 --resume "$work/lat.ckpt"

# Refusals: a checkpoint of 4e8 escape histories at seed 2018.
ck="$work/escape.ckpt"
expect_error other_seed "seed 2018 there, 7 here" run "${esc[@]}" --seed 7 --resume "$ck"
sed 's/^thickness_m.*/thickness_m = 50/' "$EXAMPLES/escape.ini" >"$work/thin.ini"
expect_error other_thickness "thickness_m 100 there, 50 here" run "$work/thin.ini" --backend cpu --dtype u64 --method atomic --histories 4e8 --batches 400 --resume "$ck"
expect_error other_dtype "dtype u64 there, f64 here" run "$EXAMPLES/escape.ini" --backend cpu --dtype f64 --method atomic --histories 4e8 --batches 400 --resume "$ck"
expect_error other_problem "problem escape there, phantom here" run "${ph[@]}" --resume "$ck"
head -c 200 "$ck" >"$work/trunc.ckpt"
expect_error truncated "corrupt or truncated" run "${esc[@]}" --resume "$work/trunc.ckpt"
cp "$ck" "$work/flip.ckpt"
printf '\x55' | dd of="$work/flip.ckpt" bs=1 seek=300 conv=notrunc 2>/dev/null
expect_error corrupt "corrupt or truncated" run "${esc[@]}" --resume "$work/flip.ckpt"
echo "not a checkpoint" >"$work/text.ckpt"
expect_error not_checkpoint "not an mctally checkpoint" run "${esc[@]}" --resume "$work/text.ckpt"
expect_error missing "cannot read" run "${esc[@]}" --resume "$work/none.ckpt"
expect_error every_alone "needs --checkpoint" run "${esc[@]}" --checkpoint-every 3
expect_error every_zero "checkpoint-every 0" run "${esc[@]}" --checkpoint "$work/x.ckpt" --checkpoint-every 0
expect_error other_problem_kind "serve the escape and phantom" run "$EXAMPLES/tally_only.ini" --checkpoint "$work/t.ckpt"
ln -s "$work/victim" "$work/link.ckpt"
echo keep >"$work/victim"
expect_error checkpoint_symlink "symbolic link" run "${esc[@]}" --checkpoint "$work/link.ckpt"
[ "$(cat "$work/victim")" = keep ] || fail "checkpoint_symlink: the link's target changed"

[ "$failures" -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
echo "all checkpoint tests passed"
