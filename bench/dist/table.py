#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Markdown tables of bench/dist results: scaling.py's JSON (strong and weak
scaling, the reduction's share, the 1-rank overhead) and bench_dist_reduce's
(one batch's reduction through host MPI and NCCL).

    bench/dist/table.py FILE.json [FILE.json ...] > results.md
"""
import json
import statistics
import sys


def scaling(doc):
    out = [f"Machine: {doc['machine']} ({doc['cpus']} CPUs), {doc['launcher']}; backend {doc['backend']}, "
           f"{doc['threads_per_rank']} OpenMP thread(s) per rank, median of {doc['reps']} runs; "
           f"{doc.get('commit') or 'commit not recorded'}, {doc['date']}."
           + (f" Load average (1 min) before and after: {doc['load_average_before_after'][0]}, "
              f"{doc['load_average_before_after'][1]}." if "load_average_before_after" in doc else ""), "",
           f"Command: `{doc['command']}`", ""]
    pts = doc["points"]
    over = [p for p in pts if p["mode"] == "overhead"]
    for problem in sorted({p["problem"] for p in pts}):
        ov = [p for p in over if p["problem"] == problem]
        if len(ov) == 2:
            plain, one = (ov[0], ov[1]) if not ov[0]["launcher"] else (ov[1], ov[0])
            out += [f"**{problem}, 1 rank against a plain run** ({plain['histories']:.3g} histories, "
                    f"{plain['bins']} bins, {plain['method']} {plain['dtype']}): plain {plain['seconds']:.3f} s, "
                    f"`mpirun -n 1` {one['seconds']:.3f} s ({one.get('transport')}), overhead "
                    f"{100 * (one['seconds'] / plain['seconds'] - 1):+.1f} %; whole commands "
                    f"{plain.get('command_seconds', 0):.2f} s and {one.get('command_seconds', 0):.2f} s (with the "
                    f"launcher's and MPI's start).", ""]
        for mode in ("strong", "weak"):
            rows = sorted((p for p in pts if p["problem"] == problem and p["mode"] == mode), key=lambda p: p["ranks"])
            if not rows:
                continue
            base = rows[0]
            out += [f"**{problem}, {mode} scaling** ({rows[0]['bins']} bins, {rows[0]['method']} {rows[0]['dtype']}, "
                    f"{rows[0]['batches']} batches; {'histories of the run' if mode == 'strong' else 'histories per rank'}"
                    f" {base['histories'] / (1 if mode == 'strong' else base['ranks']):.3g})", "",
                    "| ranks | histories | seconds | speed-up | efficiency | reduce s | agree s | reduce share |",
                    "|---:|---:|---:|---:|---:|---:|---:|---:|"]
            for p in rows:
                if mode == "strong":
                    speed = base["seconds"] / p["seconds"]
                    eff = speed / (p["ranks"] / base["ranks"])
                else:
                    speed = (p["histories"] / p["seconds"]) / (base["histories"] / base["seconds"])
                    eff = base["seconds"] / p["seconds"]
                out.append(f"| {p['ranks']} | {p['histories']:.3g} | {p['seconds']:.3f} | {speed:.2f} | "
                           f"{100 * eff:.0f} % | {p['reduce_seconds']:.4f} | {p['agree_seconds']:.4f} | "
                           f"{100 * (p['reduce_share'] or 0):.2f} % |")
            out.append("")
    out += ["Speed-up: histories per second against the first row; efficiency: speed-up per rank (strong) or the "
            "first row's seconds over this row's (weak). Reduce: the slowest rank's seconds summing the bins "
            "(MPI_Allreduce of the batches); agree: its seconds in the batches' agreements, mostly waiting for the "
            "slowest rank. The reduce share is the reduce seconds over the run's.", ""]
    return out


def reduce_table(doc):
    out = [f"Machine: {doc['device']}; {doc['ranks']} rank(s), {doc['bins']:.3g} bins of {doc['dtype']}, median of "
           f"{doc['reps']} batches; {doc.get('commit') or 'commit not recorded'}, {doc['date']}.", "",
           f"Command: `{doc['command']}`", "",
           "| path | batch end, ms | of which the sum over ranks, ms | GB/s of bins summed |",
           "|---|---:|---:|---:|"]
    for r in doc["results"]:
        red = r.get("reduce_ms")
        gbs = doc["bins"] * 8 / (red * 1e-3) / 1e9 if red else None
        out.append(f"| {r['path']} | {r['end_batch_ms']:.3f} | {'' if red is None else f'{red:.3f}'} | "
                   f"{'' if gbs is None else f'{gbs:.1f}'} |")
    out += ["", "Batch end: the whole mct_tally_end_batch (plain) or mct_dist_end_batch (agreement, sum, staging to "
            "the host, fold into the statistics). NCCL sums on the GPU before the bins are staged; host MPI sums "
            "after.", ""]
    for note in doc.get("notes", []):
        out.append(f"- {note}")
    return out


def main():
    lines = []
    for path in sys.argv[1:]:
        with open(path) as f:
            doc = json.load(f)
        lines += scaling(doc) if doc.get("suite") == "dist_scaling" else reduce_table(doc)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
