#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Compares two `mctally bench scatter` / `bench mpc` JSON files of the same suite,
case by case (B x key pattern x method): the ratio of Gupdates/s, new over old, and
whether it stays within a tolerance (default 3 %).

usage: compare.py [--tolerance 0.03] [--label-old base] [--label-new main] OLD.json NEW.json > OUT.md

Exit status 0 always (a comparison, not a gate); the table flags every case outside
the tolerance and the summary counts them. Cases either side skipped, too slow or
failed are listed apart."""
import argparse
import json
import statistics


def cases(doc):
    out = {}
    for c in doc.get("cases", []):
        if c.get("kind") != "mctally":
            continue
        out[(c["bins"], c["pattern"], c["name"])] = c
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--tolerance", type=float, default=0.03)
    ap.add_argument("--label-old", default="old")
    ap.add_argument("--label-new", default="new")
    a = ap.parse_args()
    old, new = json.load(open(a.old)), json.load(open(a.new))
    co, cn = cases(old), cases(new)
    print(f"# {new.get('suite', '?')}: {a.label_new} against {a.label_old}\n")
    print(f"- {a.label_old}: {a.old}, commit {old.get('commit')}, {old.get('date')}, reps {old.get('reps')}")
    print(f"- {a.label_new}: {a.new}, commit {new.get('commit')}, {new.get('date')}, reps {new.get('reps')}")
    print(f"- tolerance: ±{a.tolerance * 100:.1f} % on Gupdates/s (median of the timed runs)\n")
    print(f"| B | keys | method | {a.label_old} Gupd/s | {a.label_new} Gupd/s | new/old | |")
    print("|---|---|---|---|---|---|---|")
    ratios, outside, unpaired = [], [], []
    for key in sorted(set(co) | set(cn), key=lambda k: (k[0], k[1], k[2])):
        o, n = co.get(key), cn.get(key)
        go = o.get("gupdates_per_s") if o and o.get("status") == "ok" else None
        gn = n.get("gupdates_per_s") if n and n.get("status") == "ok" else None
        if go is None or gn is None:
            unpaired.append((key, o.get("status") if o else "absent", n.get("status") if n else "absent"))
            continue
        r = gn / go
        ratios.append(r)
        flag = "" if abs(r - 1) <= a.tolerance else ("faster" if r > 1 else "**slower**")
        if flag:
            outside.append((key, r))
        print(f"| {key[0]:,} | {key[1]} | `{key[2]}` | {go:.3g} | {gn:.3g} | {r:.3f} | {flag} |")
    print()
    if ratios:
        print(f"{len(ratios)} cases compared; geometric-mean ratio "
              f"{statistics.geometric_mean(ratios):.3f}; {len(outside)} outside ±{a.tolerance * 100:.0f} % "
              f"({sum(1 for _, r in outside if r < 1)} slower, {sum(1 for _, r in outside if r > 1)} faster).")
    if unpaired:
        print("\nNot compared (status old / new): " +
              "; ".join(f"{k[0]} {k[1]} {k[2]}: {so} / {sn}" for k, so, sn in unpaired))


if __name__ == "__main__":
    main()
