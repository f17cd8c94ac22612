#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Turns an EGSnrc DOSRZnrc depth-dose result into the reference CSV the
phantom compiles in (data/reference/egsnrc/*.csv): one header line
`depth_cm,width_cm,mev,err` (slab centre, slab thickness, energy deposited in
the slab on an arbitrary scale, its 1-sigma error), then one row per slab.

usage: egsnrc_to_csv.py lst LISTING.egslst GROUPS OUT.csv
           GROUPS: the input's slab groups, e.g. 50x0.1,70x0.5 (NSLAB, SLAB THICKNESS)
       egsnrc_to_csv.py csv DEPTH_DOSE.csv WIDTH_cm OUT.csv
           a CSV of depth_cm,mev,err for uniform slabs (comment lines start with #)

A listing gives the dose T (Gy per incident fluence) of each planar zone with
its error in percent; the energy in a slab of one radius is proportional to
T times the slab's thickness, which makes slabs of different thickness
comparable and lets them be summed."""
import re
import sys


def from_listing(path, groups):
    widths = []
    for g in groups.split(","):
        n, w = g.split("x")
        widths += [float(w)] * int(n)
    rows, started = [], False
    for line in open(path):
        if "Z# P# C#" in line:
            started = True
            continue
        m = re.match(r"\s*(\d+)\s+(\d+|\*\*)\s+1\s+([\d.E+-]+)\s+\+/-\s*([\d.]+)%", line)
        if started and m:
            rows.append((int(m.group(1)) - 1, float(m.group(3)), float(m.group(4)) / 100.0))
    # Zone Z# scores planar zone P# = Z# - 1; the listing may stop before the
    # last slab (DOSE ZBOUND MAX). Zones must be the slabs 1, 2, ... in order.
    if len(rows) > len(widths) or [r[0] for r in rows] != list(range(1, len(rows) + 1)):
        sys.exit("%s: zones do not match the %d slabs of the groups" % (path, len(widths)))
    out, z = [], 0.0
    for (plane, dose, rel), w in zip(rows, widths):
        out.append((z + 0.5 * w, w, dose * w * 1e22, dose * w * 1e22 * rel))
        z += w
    return out


def from_csv(path, width):
    out = []
    for line in open(path):
        if line.startswith("#") or line.startswith("depth"):
            continue
        d, v, e = (float(x) for x in line.split(",")[:3])
        out.append((d, width, v, e))
    return out


def main():
    if len(sys.argv) != 5 or sys.argv[1] not in ("lst", "csv"):
        sys.exit(__doc__)
    rows = from_listing(sys.argv[2], sys.argv[3]) if sys.argv[1] == "lst" else from_csv(sys.argv[2], float(sys.argv[3]))
    with open(sys.argv[4], "w") as f:
        f.write("depth_cm,width_cm,mev,err\n")
        for r in rows:
            f.write("%.5f,%.5g,%.8g,%.4g\n" % r)


main()
