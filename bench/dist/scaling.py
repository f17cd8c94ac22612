#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Strong and weak scaling of `mpirun -n R mctally run` (phantom 100^3 and
tally_only), with the share of the run spent combining the ranks' batches, and
the cost of the multi-rank path on one rank against a plain run.

Each point runs the CLI through the MPI launcher and reads its result.json:
the run's seconds (rank 0's wall time of the problem, from its first batch's
set-up to its results; the command's own wall time, with the launcher's and
MPI's start, is recorded beside it), and the reduction
record (the slowest rank's seconds in the agreements, which include waiting
for the slowest rank, and in the sums of the bins). Strong scaling keeps the
histories of the whole run; weak scaling gives each rank the same histories.
`--overhead` also times plain runs beside `mpirun -n 1` runs of the same
problem, alternately, for the cost of the multi-rank path itself.

    bench/dist/scaling.py --mctally build/tools/mctally/mctally --ranks 1,2 \\
        --backend cpu --threads 1 --out scaling.json
    bench/dist/table.py scaling.json > scaling.md

Writes one JSON file: the machine, the command, and per point the problem,
mode, ranks, histories, the median seconds over --reps and the reduction's
seconds. Python standard library only.
"""
import argparse
import datetime
import functools
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


@functools.lru_cache(maxsize=None)
def launcher_version(launcher):
    """What `launcher --version` prints (asked once per launcher)."""
    out = subprocess.run([launcher, "--version"], capture_output=True, text=True)
    return out.stdout + out.stderr


def launcher_cmd(launcher, ranks, export=None):
    """The launcher's command for `ranks` ranks of this machine; `export` (a dict) is set in every
    rank, by name where the launcher is Open MPI's (the caller's environment carries it for others)."""
    cmd = [launcher]
    version = launcher_version(launcher)
    if "Open MPI" in version or "OpenRTE" in version:
        # As many ranks as asked for, bound to nothing: the OpenMP threads of
        # a rank (--threads) must not share one core.
        cmd += ["--oversubscribe", "--bind-to", "none"]
        for k, v in (export or {}).items():
            cmd += ["-x", f"{k}={v}"]
    return cmd + ["-n", str(ranks)]


def run_cli(cmd, env, out, who):
    """Runs one `mctally run` command writing into `out`; returns (its result.json, the command's wall
    seconds). A failed run stops the benchmark with its message."""
    t0 = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    wall = time.monotonic() - t0
    if p.returncode != 0:
        sys.exit(f"{who}: {' '.join(cmd)} failed ({p.returncode}):\n{p.stderr[-4000:]}")
    with open(os.path.join(out, "result.json")) as f:
        return json.load(f), wall


def one_run(args, problem, histories, ranks, extra, work):
    """One run; returns (seconds, agree_seconds, reduce_seconds, result, wall seconds of the command)."""
    ini = {"phantom": "phantom_test2.ini", "tally_only": "tally_only.ini"}[problem]
    out = tempfile.mkdtemp(dir=work)
    cmd = [args.mctally, "run", os.path.join(ROOT, "examples", ini), "--backend", args.backend, "--histories",
           str(histories), "--batches", str(args.batches), "--out", out, "--loss-sample", "off"] + extra
    if ranks:
        cmd = launcher_cmd(args.launcher, ranks) + cmd
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads), OMPI_ALLOW_RUN_AS_ROOT="1",
               OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    j, wall = run_cli(cmd, env, out, "scaling")
    shutil.rmtree(out, ignore_errors=True)
    red = j.get("reduction", {})
    return j["seconds"], red.get("agree_seconds", 0.0), red.get("reduce_seconds", 0.0), j, wall


def point(args, problem, mode, ranks, histories, extra, work, plain=False):
    runs = [one_run(args, problem, histories, 0 if plain else ranks, extra, work) for _ in range(args.reps)]
    secs = [r[0] for r in runs]
    med = statistics.median(secs)
    k = secs.index(min(secs, key=lambda s: abs(s - med)))
    seconds, agree, reduce_, j, _ = runs[k]
    p = {"problem": problem, "mode": mode, "ranks": ranks, "launcher": not plain, "histories": histories,
         "batches": args.batches, "bins": j["tallies"][0]["bins"], "method": j["method"], "dtype": j["dtype"],
         "device": j["device"], "seconds": seconds, "seconds_all": secs,
         "command_seconds": statistics.median(r[4] for r in runs), "agree_seconds": agree,
         "reduce_seconds": reduce_, "reduce_share": reduce_ / seconds if seconds > 0 else None,
         "transport": j.get("reduction", {}).get("transport")}
    if problem == "phantom":
        p["transport_seconds"] = j["phantom"]["transport_seconds"]
    print(f"{problem:10s} {mode:8s} R={ranks} n={histories:.3g}{' plain' if plain else ''}: {seconds:.3f} s "
          f"(reduce {reduce_:.4f} s, agree {agree:.4f} s)", file=sys.stderr)
    return p


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mctally", default=os.path.join(ROOT, "build", "tools", "mctally", "mctally"))
    ap.add_argument("--launcher", default=os.environ.get("MCT_MPIEXEC", "mpirun"))
    ap.add_argument("--ranks", default="1,2", help="rank counts, e.g. 1,2,4")
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--threads", type=int, default=1, help="OpenMP threads per rank (cpu backend)")
    ap.add_argument("--problems", default="phantom,tally_only")
    ap.add_argument("--phantom-histories", type=float, default=8000, help="strong scaling: the run's; weak: per rank")
    ap.add_argument("--tally-only-histories", type=float, default=4e6)
    ap.add_argument("--batches", type=int, default=10)
    ap.add_argument("--method", default="", help="the tally's method (default: the problem file's, auto)")
    ap.add_argument("--reduce", default="", help="the CLI's --reduce (auto, host, nccl; default auto)")
    ap.add_argument("--modes", default="strong,weak")
    ap.add_argument("--overhead", action="store_true", help="also plain runs beside 1-rank runs")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--machine", default="", help="a description of the machine for the record")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    ranks = [int(r) for r in args.ranks.split(",")]
    extra = (["--method", args.method] if args.method else []) + (["--reduce", args.reduce] if args.reduce else [])
    work = tempfile.mkdtemp(prefix="mct-scaling-")
    load_before = os.getloadavg()
    points = []
    for problem in args.problems.split(","):
        base = int(args.phantom_histories if problem == "phantom" else args.tally_only_histories)
        if args.overhead:
            points.append(point(args, problem, "overhead", 1, base, extra, work, plain=True))
            points.append(point(args, problem, "overhead", 1, base, extra, work))
        for mode in [m for m in args.modes.split(",") if m in ("strong", "weak")]:
            for r in ranks:
                points.append(point(args, problem, mode, r, base if mode == "strong" else base * r, extra, work))
    shutil.rmtree(work, ignore_errors=True)
    ver = subprocess.run(launcher_cmd(args.launcher, 1)[:1] + ["--version"], capture_output=True, text=True)
    doc = {"suite": "dist_scaling", "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
           "commit": os.environ.get("MCT_COMMIT", ""), "machine": args.machine or platform.node(),
           "cpus": os.cpu_count(), "launcher": (ver.stdout or ver.stderr).splitlines()[0] if (ver.stdout or ver.stderr) else "",
           "command": " ".join([os.path.relpath(sys.argv[0], ROOT)] + sys.argv[1:]), "backend": args.backend,
           "threads_per_rank": args.threads, "reps": args.reps, "reduce": args.reduce or "auto",
           "load_average_before_after": [round(load_before[0], 2), round(os.getloadavg()[0], 2)], "points": points}
    with open(args.out, "w") as f:
        json.dump(doc, f, indent=1)


if __name__ == "__main__":
    main()
