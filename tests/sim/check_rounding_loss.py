#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Checks the rounding-loss verdict in a `mctally run` result.json: whether the
dose tally's estimate exceeds its threshold (the warning on stderr) as expected.

usage: check_rounding_loss.py RESULT.json yes|no

Prints the tally's estimate; exit 0 when the verdict is the expected one, 1 when
it is not or the result carries no estimate."""
import json
import sys


def main():
    path, want = sys.argv[1], sys.argv[2] == "yes"
    doc = json.load(open(path))
    tallies = doc.get("tallies") or {}
    entries = tallies.values() if isinstance(tallies, dict) else tallies
    found = [t["rounding_loss"] for t in entries if isinstance(t, dict) and "rounding_loss" in t]
    if not found:
        print(f"{path}: no rounding_loss estimate")
        return 1
    ok = True
    for r in found:
        w = r["worst_bin"]
        print(f"{doc.get('method')} {doc.get('dtype')} {doc.get('histories')} histories: worst bin {w['bin']} "
              f"loss {w['loss']} +- {w['loss_err']}, total {r['total_loss']} +- {r['total_loss_err']}, "
              f"significant {r['significant']}, exceeds {r['threshold']}: {r['exceeds_threshold']} (expected {want})")
        ok = ok and (r["exceeds_threshold"] == want)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
