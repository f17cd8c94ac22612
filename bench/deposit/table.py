#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Turns the bench_deposit stage's JSON into Markdown: the phantom's Table II layout
(tests 2-4: 100^3, 10^3, 2^3 voxels) with deposit = direct and = buffered, each
beside its own discarding launch, and the random-walk user kernel.
usage: table.py DIRECT.json BUFFERED.json RANDOM_WALK.json [--command TEXT] > FILE.md"""
import json
import sys


def fmt(x, f="%.3g"):
    return "—" if x is None else f % x


def ratio(a, b):
    return a / b if a is not None and b else None


def main():
    args = [a for a in sys.argv[1:]]
    command = None
    if "--command" in args:
        i = args.index("--command")
        command = args[i + 1]
        del args[i:i + 2]
    if len(args) != 3:
        sys.exit("usage: table.py DIRECT.json BUFFERED.json RANDOM_WALK.json [--command TEXT]")
    direct, buffered = json.load(open(args[0])), json.load(open(args[1]))
    try:
        walk = json.load(open(args[2]))
    except (OSError, ValueError):
        walk = None
    print("# Buffered deposits on %s\n" % direct.get("device", "unknown"))
    print("Date %s, commit %s, scale %s, median of %s runs%s. Phantom: %s; FP64 transport, Table II layout.\n" % (
        direct.get("date"), direct.get("commit"), direct.get("scale"), direct.get("reps"),
        (", made by `%s`" % command) if command else "", direct.get("beam")))
    print("Each time is the transport kernel's (synchronized). *own* = the time ÷ the same kernel instance's "
          "discarding launch; *atomic* = ÷ the discarding launch of the `atomic` instance (the transport in the "
          "leanest kernel, the issue's reference). `atomic`, `replicated` and `shared` never buffer.\n")
    print("| method | tally | test | direct s | buffered s | direct ÷ own / ÷ atomic | buffered ÷ own / ÷ atomic |")
    print("|---|---|---|---|---|---|---|")

    def rows(d):
        return {(c["method"], c["dtype"], c["test"]): c for c in d["cases"] if c.get("table") == "table2"}

    dr, br = rows(direct), rows(buffered)
    atomic_discard = {k[2]: c.get("discard_seconds") for k, c in dr.items() if k[0] == "atomic"}
    for key in sorted(dr, key=lambda k: (k[0], k[2])):
        c, b = dr[key], br.get(key, {})
        ref = atomic_discard.get(key[2])
        cs, bs = c.get("seconds") if not c.get("error") else None, b.get("seconds") if not b.get("error") else None
        print("| %s | %s | %d | %s | %s | %s / %s | %s / %s |" % (
            key[0], key[1], key[2], fmt(cs), fmt(bs),
            fmt(c.get("tally_overhead"), "%.3f"), fmt(ratio(cs, ref), "%.3f"),
            fmt(b.get("tally_overhead"), "%.3f"), fmt(ratio(bs, ref), "%.3f")))
    print()
    if walk:
        print("## Random-walk user kernel: %s walkers into %s bins, grid %s × %s\n" % (
            walk["walkers"], walk["bins"], walk["grid"], walk["block"]))
        print("Steps of −3..+3 bins, absorption 1/16 a step, walkers leave at their own times "
              "(bench/deposit/deposit_random_walk.cuh). Overhead = ÷ the discarding launch (the walk alone).\n")
        print("| method | tally | direct s | buffered s | discard s | direct overhead | buffered overhead |")
        print("|---|---|---|---|---|---|---|")
        for c in walk["cases"]:
            dsc = c.get("discard_seconds")
            print("| %s | %s | %s | %s | %s | %s | %s |" % (
                c["method"], c["dtype"], fmt(c.get("direct_seconds")), fmt(c.get("buffered_seconds")), fmt(dsc),
                fmt(ratio(c.get("direct_seconds"), dsc), "%.3f"), fmt(ratio(c.get("buffered_seconds"), dsc), "%.3f")))
        print()


if __name__ == "__main__":
    main()
