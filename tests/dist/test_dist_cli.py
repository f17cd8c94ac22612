#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""`mpirun -n R mctally run FILE` for every problem, against one process.

- Integer and fixed-point tallies of escape, tally_only, scatter, phantom and
  pet (a small scanner):
  on 1, 2, 3 and 4 ranks the tally in result.json (every bin's mean and
  relative error, the total) and the problem's own tally-derived results are
  bitwise those of a plain run (JSON numbers round-trip doubles exactly), and
  the phantom's dose grids (raw doubles) and pet's LOR file are byte for byte
  the same.
- Float tallies: the same histories summed in another order. tally_only f32 on
  3 ranks: every bin within 4 standard errors (from both runs' batch errors) of
  the plain run's; phantom f64 on 2 ranks: the deposited total within 1e-12
  (the same deposits, rounded differently) and every voxel within 4 standard
  errors; scatter f64 on 3 ranks: every bin within its rounding bound of a
  long-double reference (the problem's own check).
- result.json records the ranks, and only rank 0 writes it.
- Failures: checkpoints with ranks are refused on every rank; ranks given
  different problems (an MPMD launch) all stop with a message naming the rank;
  a rank killed in the middle of the run ends the job (no hang, no result).

Usage: test_dist_cli.py MCTALLY EXAMPLES_DIR
"""
import json
import os
import subprocess
import sys
import tempfile
import time

MCT, EXAMPLES = sys.argv[1], sys.argv[2]
LAUNCH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mpi_launch.sh")
WORK = tempfile.mkdtemp(prefix="mct-dist-")
failures = []


def fail(msg):
    print("FAIL:", msg)
    failures.append(msg)


def run(ranks, ini, args, out, expect_ok=True, timeout=300):
    """mctally run on `ranks` ranks (0: a plain run, no launcher)."""
    cmd = [MCT, "run", ini if os.path.isabs(ini) else os.path.join(EXAMPLES, ini), "--backend", "cpu", "--out",
           out] + args
    if ranks:
        cmd = [LAUNCH, str(ranks)] + cmd
    env = dict(os.environ, OMP_NUM_THREADS="1")
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    if expect_ok and p.returncode != 0:
        fail(f"{' '.join(cmd)} exited {p.returncode}: {p.stderr.strip()[-800:]}")
        return None
    if not expect_ok:
        return p
    with open(os.path.join(out, "result.json")) as f:
        return json.load(f)


def tally_fields(j, problem):
    """What must be bitwise equal: the tallies and the results made from them."""
    keys = {"escape": ["escapes", "fraction", "std_error"], "tally_only": ["total_MeV", "batch_std_error_MeV"],
            "scatter": ["total"], "phantom": ["deposited_MeV", "deposited_rel_err"],
            "pet": ["good_events", "stored_events", "efficiency", "index"]}[problem]
    return {"tallies": [{k: t[k] for k in ("bins", "mean", "rel_err", "total", "total_rel_err", "sums_digest") if k in t}
                        for t in j["tallies"]],
            "problem": {k: j[problem][k] for k in keys}, "histories": j["histories"], "batches": j["batches"]}


def read(path):
    with open(path, "rb") as f:
        return f.read()


# ---- bitwise equal for every rank count ----
# pet on a small scanner (64 crystals x 8 rings, the full LOR map of 131072 bins).
PET_INI = os.path.join(WORK, "pet_small.ini")
with open(os.path.join(EXAMPLES, "pet_voxel.ini")) as f, open(PET_INI, "w") as g:
    for line in f:
        key = line.split("=")[0].strip()
        g.write({"crystals": "crystals = 64\n", "rings": "rings = 8\n", "index": "index = full\n",
                 "voxel_r": "voxel_r = 10\n"}.get(key, line))
CASES = [
    ("escape_i32", "escape.ini", ["--method", "atomic", "--dtype", "i32", "--histories", "2e5", "--batches", "4"]),
    ("escape_u64", "escape.ini", ["--method", "replicated", "--dtype", "u64", "--histories", "2e5", "--batches", "3"]),
    ("tally_only_fixed", "tally_only.ini", ["--method", "fixed", "--histories", "2e4", "--batches", "4"]),
    ("scatter_fixed", "scatter.ini", ["--method", "fixed", "--histories", "3e4", "--batches", "3"]),
    ("phantom_fixed", "phantom_test3.ini", ["--method", "fixed", "--histories", "300", "--batches", "3"]),
    ("pet_i32", PET_INI, ["--histories", "4e4", "--batches", "3"]),
]
for name, ini, args in CASES:
    t0 = time.time()
    ref_dir = os.path.join(WORK, name + "_plain")
    ref = run(0, ini, args, ref_dir)
    if ref is None:
        continue
    problem = ref["problem"]
    want = tally_fields(ref, problem)
    for r in (1, 2, 3, 4):
        out = os.path.join(WORK, f"{name}_{r}")
        j = run(r, ini, args, out)
        if j is None:
            continue
        if j.get("ranks") != r:
            fail(f"{name} on {r} ranks: result.json says ranks = {j.get('ranks')}")
        if "reduction" not in j:
            fail(f"{name} on {r} ranks: no reduction record")
        if tally_fields(j, problem) != want:
            fail(f"{name} on {r} ranks: the tally differs from one process's")
        for f in {"phantom": ("dose.raw", "dose_rel_err.raw"), "pet": ("lors.bin",)}.get(problem, ()):
            if read(os.path.join(out, f)) != read(os.path.join(ref_dir, f)):
                fail(f"{name} on {r} ranks: {f} differs from one process's")
        if problem == "scatter" and not j["scatter"]["check"].get("passed"):
            fail(f"{name} on {r} ranks: the bin check failed")
    if ref.get("ranks") != 1 or "reduction" in ref:
        fail(f"{name}: a plain run records ranks {ref.get('ranks')}")
    print(f"ok: {name}: 1-4 ranks bitwise equal to one process ({time.time() - t0:.1f} s)")

# ---- float tallies within statistics ----
args = ["--method", "atomic", "--dtype", "f32", "--histories", "2e4", "--batches", "5"]
a = run(0, "tally_only.ini", args, os.path.join(WORK, "to_f32_plain"))
b = run(3, "tally_only.ini", args, os.path.join(WORK, "to_f32_3"))
if a and b:
    ta, tb = a["tallies"][0], b["tallies"][0]
    worst = 0.0
    for ma, ra, mb, rb in zip(ta["mean"], ta["rel_err"], tb["mean"], tb["rel_err"]):
        se = ((ma * ra) ** 2 + (mb * rb) ** 2) ** 0.5
        worst = max(worst, abs(ma - mb) / se)
    if not worst <= 4.0:
        fail(f"tally_only f32 on 3 ranks: a bin is {worst:.2f} standard errors from one process's")
    if b["determinism"] != "not_guaranteed":
        fail(f"tally_only f32 on 3 ranks: determinism {b['determinism']}")
    print(f"ok: tally_only f32, 3 ranks: largest bin difference {worst:.2e} standard errors")

args = ["--method", "atomic", "--dtype", "f64", "--histories", "300", "--batches", "3"]
pa_dir, pb_dir = os.path.join(WORK, "ph_f64_plain"), os.path.join(WORK, "ph_f64_2")
a = run(0, "phantom_test3.ini", args, pa_dir)
b = run(2, "phantom_test3.ini", args, pb_dir)
if a and b:
    import array
    da, db = array.array("d", read(os.path.join(pa_dir, "dose.raw"))), array.array("d", read(os.path.join(pb_dir, "dose.raw")))
    ea = array.array("d", read(os.path.join(pa_dir, "dose_rel_err.raw")))
    eb = array.array("d", read(os.path.join(pb_dir, "dose_rel_err.raw")))
    worst = 0.0
    for x, y, rx, ry in zip(da, db, ea, eb):
        se = ((x * rx) ** 2 + (y * ry) ** 2) ** 0.5
        if x != y:
            worst = max(worst, abs(x - y) / se if se > 0 else float("inf"))
    rel = abs(a["phantom"]["deposited_MeV"] - b["phantom"]["deposited_MeV"]) / a["phantom"]["deposited_MeV"]
    if not worst <= 4.0:
        fail(f"phantom f64 on 2 ranks: a voxel is {worst:.2f} standard errors from one process's")
    if not rel <= 1e-12:
        fail(f"phantom f64 on 2 ranks: deposited energy differs by {rel:.3g} (relative)")
    print(f"ok: phantom f64, 2 ranks: deposited within {rel:.1e}, voxels within {worst:.1e} standard errors")

j = run(3, "scatter.ini", ["--method", "atomic", "--histories", "3e4", "--batches", "3"], os.path.join(WORK, "sc_f64"))
if j and not j["scatter"]["check"].get("passed"):
    fail("scatter f64 on 3 ranks: a bin is outside its rounding bound")
elif j:
    print(f"ok: scatter f64, 3 ranks: bins within {j['scatter']['check']['max_dev_over_bound']:.2g} of their bound")

# ---- failures ----
out = os.path.join(WORK, "ckpt")
p = run(2, "escape.ini", ["--histories", "1e4", "--checkpoint", os.path.join(WORK, "ck")], out, expect_ok=False)
lines = [l for l in p.stderr.splitlines() if l.startswith("mctally:")]
if p.returncode == 0 or len(lines) != 2 or not all("one process" in l for l in lines):
    fail(f"checkpoint with 2 ranks: exit {p.returncode}, messages {lines}")
else:
    print("ok: checkpoints refused on every rank:", lines[0])

out = os.path.join(WORK, "mpmd")
base = [MCT, "run", os.path.join(EXAMPLES, "tally_only.ini"), "--backend", "cpu", "--out", out]
p = subprocess.run([LAUNCH, "-", "-n", "2"] + base + ["--histories", "1e4", ":", "-n", "1"] + base +
                   ["--histories", "2e4"], capture_output=True, text=True, timeout=120)
lines = [l for l in p.stderr.splitlines() if l.startswith("mctally:")]
if (p.returncode == 0 or len(lines) != 3 or not any("rank 2 of 3 runs another problem" in l for l in lines) or
        sum("stops: rank 2 failed" in l for l in lines) != 2 or os.path.exists(os.path.join(out, "result.json"))):
    fail(f"ranks with different problems: exit {p.returncode}, messages {lines}")
else:
    print("ok: ranks with different problems all stop:", " | ".join(lines))

out = os.path.join(WORK, "killed")
base = [MCT, "run", os.path.join(EXAMPLES, "phantom_test3.ini"), "--backend", "cpu", "--histories", "1e6", "--out", out]
t0 = time.time()
try:
    p = subprocess.run([LAUNCH, "-", "-n", "2"] + base + [":", "-n", "1", "timeout", "-s", "KILL", "3"] + base,
                       capture_output=True, text=True, timeout=120)
    took = time.time() - t0
    if p.returncode == 0 or os.path.exists(os.path.join(out, "result.json")):
        fail(f"a killed rank: exit {p.returncode}, result written: {os.path.exists(os.path.join(out, 'result.json'))}")
    else:
        print(f"ok: a rank killed after 3 s ends the job in {took:.1f} s (exit {p.returncode})")
except subprocess.TimeoutExpired:
    fail("a killed rank: the other ranks hung")

subprocess.run(["rm", "-rf", WORK])
if failures:
    print(f"{len(failures)} failure(s)")
    sys.exit(1)
print("test_dist_cli: all passed")
