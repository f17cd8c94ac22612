#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The run over several GPUs of one host, one rank per GPU: strong scaling and
bitwise equality of `mpirun -n R mctally run`.

Scaling: phantom (Liu 2018 test 2: 100^3 water, FP64 engine), tally_only at
Table III's size (3e9 histories into 8 bins) and Westphal's MPC scatter (9
components of each particle into 9e6 bins), each with an f64 float tally
(FLOAT_METHOD) summed over the ranks through NCCL and through host MPI, and
with `fixed` (exact tallies always take host MPI), on every rank count of
--ranks. Per point: the run's
seconds (rank 0, from the first batch's set-up to the results), seconds per
history, speed-up and efficiency against 1 GPU of the same method and
transport, and the reductions' share (the slowest rank's seconds summing the
bins over the run's).

Bitwise: every `fixed` and integer result (the tally's sums_digest, the
phantom's dose grids, pet's LOR file) on every GPU count against 1 GPU, and,
at a smaller history count with the same seed, the CPU backend's against the
GPU's. Problems whose arithmetic is built to give the same bits on every
backend (escape, tally_only, scatter, pet) must match the CPU; the phantom's
physics calls each platform's libm (log, exp, sincos), whose last bits differ
between glibc and CUDA, so its CPU comparison is recorded, not required.

    bench/dist/multi_gpu.py --mctally build-gpu/tools/mctally/mctally --ranks 1,2,4 \\
        --out multi_gpu.json
    bench/dist/multi_gpu.py --table multi_gpu.json > multi_gpu.md

Python standard library only. NVLink multicast stays off in every rank
(NCCL_NVLS_ENABLE=0 is exported to each through the launcher).
"""
import argparse
import datetime
import hashlib
import json
import os
import shutil
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from scaling import launcher_cmd, launcher_version, run_cli  # noqa: E402

# Set in every rank: NVLink multicast can take a shared host's GPUs out of service.
NO_MULTICAST = {"NCCL_NVLS_ENABLE": "0", "TORCH_SYMM_MEM_DISABLE_MULTICAST": "1", "NVSHMEM_DISABLE_NVLS": "1"}
INI = {"phantom": "phantom_test2.ini", "tally_only": "tally_only.ini", "scatter": "mpc.ini", "escape": "escape.ini",
       "pet": "pet_voxel.ini"}
FILES = {"phantom": ("dose.raw", "dose_rel_err.raw"), "pet": ("lors.bin",)}
# The float tally's method per problem: the phantom's as Liu's test 2 runs it, and for the others the one
# the planner picks for their shape (8 hot bins: block_reduce; 9e6 uniform bins: atomic).
FLOAT_METHOD = {"phantom": "atomic", "tally_only": "block_reduce", "scatter": "atomic"}
# Bitwise by construction on every backend (no libm on the path, or sim_detmath.h), so the CPU must match.
SAME_ON_CPU = {"escape", "tally_only", "scatter", "pet"}


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mctally", default=os.path.join(ROOT, "build-gpu", "tools", "mctally", "mctally"))
    ap.add_argument("--launcher", default=os.environ.get("MCT_MPIEXEC", "mpirun"))
    ap.add_argument("--ranks", default="1,2,4")
    ap.add_argument("--parts", default="bitwise,scaling", help="bitwise, scaling or both")
    ap.add_argument("--problems", default="tally_only,scatter,phantom", help="the scaling's problems")
    ap.add_argument("--phantom-histories", type=float, default=4e8)
    ap.add_argument("--tally-only-histories", type=float, default=3e9)
    ap.add_argument("--scatter-histories", type=float, default=1e8)
    ap.add_argument("--reps", type=int, default=3, help="runs per point under 10 s (median); longer points run once")
    ap.add_argument("--transports", default="nccl,host", help="for the float tallies")
    ap.add_argument("--kinds", default="float,fixed", help="the scaling's tallies: float (FLOAT_METHOD), fixed or both")
    ap.add_argument("--bitwise-scale", type=float, default=1.0, help="scales the bitwise cases' histories")
    ap.add_argument("--cases", default="", help="the bitwise cases to run (default: all of BITWISE)")
    ap.add_argument("--backend", default="cuda", help="the ranks' backend (emulated or cpu: to try it without GPUs)")
    ap.add_argument("--cpu-threads", type=int, default=os.cpu_count())
    ap.add_argument("--machine", default="")
    ap.add_argument("--out")
    ap.add_argument("--table", help="print the Markdown tables of this JSON file and exit")
    return ap.parse_args()


def digest(out_dir, j):
    """What must be bitwise equal: every tally's sums_digest and the problem's binary outputs."""
    h = hashlib.sha256(json.dumps([t.get("sums_digest") for t in j["tallies"]]).encode())
    for name in FILES.get(j["problem"], ()):
        with open(os.path.join(out_dir, name), "rb") as f:
            h.update(f.read())
    return h.hexdigest()[:16]


def run(args, problem, ranks, backend, flags, work):
    """One `mctally run` (ranks 0: no launcher). Returns (result, digest, command seconds)."""
    out = tempfile.mkdtemp(dir=work)
    ini = os.path.join(ROOT, "examples", INI[problem])
    if problem == "pet":  # one LOR index for every backend (auto picks by the memory there); written once
        fixed_index = os.path.join(work, "pet_compressed.ini")
        if not os.path.exists(fixed_index):
            with open(ini) as f, open(fixed_index, "w") as g:
                g.write(f.read().replace("index = auto", "index = compressed"))
        ini = fixed_index
    cmd = [args.mctally, "run", ini, "--backend", backend, "--out", out,
           "--loss-sample", "off"] + flags
    if ranks:
        cmd = launcher_cmd(args.launcher, ranks, export=NO_MULTICAST) + cmd
    env = dict(os.environ, OMP_NUM_THREADS=str(args.cpu_threads if backend == "cpu" else 1),
               OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", **NO_MULTICAST)
    j, wall = run_cli(cmd, env, out, "multi_gpu")
    d = digest(out, j)
    shutil.rmtree(out, ignore_errors=True)
    return j, d, wall


def scaling(args, ranks, work, points, save):
    """Strong scaling points (problem, method, transport, ranks), appended to `points`, each saved."""
    sizes = {"phantom": args.phantom_histories, "tally_only": args.tally_only_histories,
             "scatter": args.scatter_histories}
    for problem in args.problems.split(","):
        histories = int(sizes[problem])
        # The float tally's first transport, then fixed, then the others (a run cut short has one of each).
        ts = args.transports.split(",")
        kinds = args.kinds.split(",")
        cases = [c for c in [(FLOAT_METHOD[problem], ts[0]), ("fixed", "host")] + [(FLOAT_METHOD[problem], t) for t in ts[1:]]
                 if ("fixed" if c[0] == "fixed" else "float") in kinds]
        for method, transport in cases:
            reps = args.reps
            for r in ranks:
                flags = ["--method", method, "--dtype", "f64", "--histories", str(histories), "--reduce", transport]
                runs = []
                for _ in range(reps):
                    runs.append(run(args, problem, r, args.backend, flags, work))
                    if runs[-1][0]["seconds"] > 10:
                        reps = 1  # long points are stable; later rank counts of this case too
                        break
                secs = [x[0]["seconds"] for x in runs]
                med = statistics.median(secs)
                j, d, _ = min(runs, key=lambda x: abs(x[0]["seconds"] - med))
                red = j.get("reduction", {})
                p = {"problem": problem, "method": method, "dtype": j["dtype"], "transport": red.get("transport"),
                     "asked_transport": transport, "ranks": r, "histories": histories, "batches": j["batches"],
                     "bins": j["tallies"][0]["bins"], "seconds": med, "seconds_all": secs,
                     "ns_per_history": 1e9 * med / histories, "reduce_seconds": red.get("reduce_seconds", 0.0),
                     "agree_seconds": red.get("agree_seconds", 0.0), "command_seconds": statistics.median(x[2] for x in runs),
                     "digest": d, "total": j["tallies"][0]["total"], "device": j["device"]}
                p["reduce_share"] = p["reduce_seconds"] / med if med > 0 else None
                one = [q for q in points + [p] if (q["problem"], q["method"], q["asked_transport"], q["ranks"]) ==
                       (problem, method, transport, 1)]
                if one:
                    p["speedup"] = one[0]["seconds"] / p["seconds"]
                    p["efficiency"] = p["speedup"] / p["ranks"]
                    if method == "fixed":
                        p["bitwise_equal_to_1gpu"] = p["digest"] == one[0]["digest"]
                points.append(p)
                save()
                print(f"{problem:10s} {method:6s} {transport:4s} R={r}: {med:.3f} s (reduce {p['reduce_seconds']:.4f} s)"
                      f" digest {d}", file=sys.stderr, flush=True)


# The bitwise cases at a history count the CPU backend runs in seconds on a many-core host.
BITWISE = [
    ("escape_i32_atomic", "escape", ["--method", "atomic", "--dtype", "i32", "--histories", "1e7"]),
    ("escape_u64_replicated", "escape", ["--method", "replicated", "--dtype", "u64", "--histories", "1e7"]),
    ("tally_only_fixed", "tally_only", ["--method", "fixed", "--dtype", "f64", "--histories", "1e7"]),
    ("scatter_fixed", "scatter", ["--method", "fixed", "--dtype", "f64", "--histories", "1e6"]),
    ("phantom_fixed", "phantom", ["--method", "fixed", "--dtype", "f64", "--histories", "2e5"]),
    ("pet_i32", "pet", ["--method", "atomic", "--dtype", "i32", "--histories", "2e6", "--batches", "4"]),
]


def bitwise(args, ranks, work, cases, save):
    """The bitwise cases, appended to `cases`, each saved."""
    for name, problem, flags in BITWISE:
        if args.cases and name not in args.cases.split(","):
            continue
        t0 = time.monotonic()
        i = flags.index("--histories") + 1
        flags = flags[:i] + [str(max(1, int(float(flags[i]) * args.bitwise_scale)))] + flags[i + 1:]
        cpu, dcpu, _ = run(args, problem, 0, "cpu", flags, work)
        gpu = {}
        for r in [0] + ranks:
            j, d, _ = run(args, problem, r, args.backend, flags, work)
            gpu[r] = d
        c = {"case": name, "problem": problem, "flags": flags, "histories": cpu["histories"],
             "method": cpu["method"], "dtype": cpu["dtype"], "cpu_digest": dcpu,
             "gpu_digests": {str(r): d for r, d in gpu.items()},
             "gpu_counts_equal": len(set(gpu.values())) == 1, "cpu_equal": dcpu == gpu[0],
             "cpu_required": problem in SAME_ON_CPU}
        cases.append(c)
        save()
        print(f"{name}: GPU counts {'equal' if c['gpu_counts_equal'] else 'DIFFER'}, CPU "
              f"{'equal' if c['cpu_equal'] else 'differs'} ({time.monotonic() - t0:.1f} s)", file=sys.stderr, flush=True)


def table(doc):
    out = [f"Machine: {doc['machine']}; {doc['launcher']}; {doc['commit'] or 'commit not recorded'}, {doc['date']}.",
           "", f"Command: `{doc['command']}`", ""]
    pts = doc.get("scaling", [])
    for problem in dict.fromkeys(p["problem"] for p in pts):
        rows = [p for p in pts if p["problem"] == problem]
        r0 = rows[0]
        out += [f"**{problem}, strong scaling** ({r0['histories']:.3g} histories, {r0['bins']} bins of f64, "
                f"{r0['batches']} batches; median of up to {doc['reps']} runs, one where a run takes over 10 s)", "",
                "| method | transport | GPUs | seconds | ns/history | speed-up | efficiency | reduce s | reduce share "
                "| bits = 1 GPU |", "|---|---|---:|---:|---:|---:|---:|---:|---:|---|"]
        for p in rows:
            bits = {True: "yes", False: "**no**"}.get(p.get("bitwise_equal_to_1gpu"), "(float)")
            out.append(f"| {p['method']} | {p['transport'] or '-'} | {p['ranks']} | {p['seconds']:.3f} | "
                       f"{p['ns_per_history']:.3g} | {p.get('speedup', float('nan')):.2f} | "
                       f"{100 * p.get('efficiency', float('nan')):.0f} % | {p['reduce_seconds']:.4f} | "
                       f"{100 * (p['reduce_share'] or 0):.2f} % | {bits} |")
        out.append("")
    cases = doc.get("bitwise", [])
    if cases:
        out += ["**Bitwise equality** of exact tallies (sums digest and binary outputs) on every GPU count, and "
                "against the CPU backend (same seed and histories)", "",
                "| case | histories | GPU digests (1 process, then 1, 2, ... ranks) | all GPU counts equal | "
                "CPU digest | CPU equal | CPU required |", "|---|---:|---|---|---|---|---|"]
        for c in cases:
            out.append(f"| {c['case']} | {c['histories']:.3g} | {' '.join(dict.fromkeys(c['gpu_digests'].values()))} | "
                       f"{'yes' if c['gpu_counts_equal'] else '**no**'} | {c['cpu_digest']} | "
                       f"{'yes' if c['cpu_equal'] else 'no'} | {'yes' if c['cpu_required'] else 'no (libm)'} |")
        out.append("")
    out += ["Seconds: rank 0's run, first batch's set-up to results (without the launcher's and MPI's start). "
            "Speed-up: 1 GPU's seconds over this row's, same method and transport; efficiency: speed-up per GPU. "
            "Reduce: the slowest rank's seconds summing the bins over the ranks (NCCL on the GPUs, or host MPI "
            "after staging); its share is of the run's seconds. `fixed` is exact and always sums on the host."]
    return "\n".join(out)


def main():
    args = parse_args()
    if args.table:
        with open(args.table) as f:
            print(table(json.load(f)))
        return
    if not args.out:
        sys.exit("multi_gpu: --out FILE is needed")
    ranks = [int(r) for r in args.ranks.split(",")]
    work = tempfile.mkdtemp(prefix="mct-multigpu-")
    doc = {"suite": "multi_gpu", "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
           "commit": os.environ.get("MCT_COMMIT", ""), "machine": args.machine, "cpus": os.cpu_count(),
           "command": " ".join([os.path.relpath(sys.argv[0], ROOT)] + sys.argv[1:]), "reps": args.reps,
           "ranks": ranks, "env": NO_MULTICAST}
    doc["launcher"] = (launcher_version(args.launcher).splitlines() or [""])[0]
    parts = args.parts.split(",")

    def save():  # after every point: a run cut short keeps what it measured
        tmp = args.out + ".tmp"
        with open(tmp, "w") as f:
            json.dump(doc, f, indent=1)
        os.replace(tmp, args.out)

    try:
        if "bitwise" in parts:
            bitwise(args, ranks, work, doc.setdefault("bitwise", []), save)
        if "scaling" in parts:
            scaling(args, ranks, work, doc.setdefault("scaling", []), save)
    finally:
        shutil.rmtree(work, ignore_errors=True)
        save()
    bad = [c["case"] for c in doc.get("bitwise", []) if not c["gpu_counts_equal"] or
           (c["cpu_required"] and not c["cpu_equal"])]
    bad += [f"{p['problem']} fixed R={p['ranks']}" for p in doc.get("scaling", []) if p.get("bitwise_equal_to_1gpu") is False]
    if bad:
        sys.exit(f"multi_gpu: not bitwise equal: {', '.join(bad)}")


if __name__ == "__main__":
    main()
