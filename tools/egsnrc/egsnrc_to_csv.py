#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Turns an EGSnrc DOSRZnrc depth-dose result into the reference CSV the
phantom compiles in (data/reference/egsnrc/*.csv): one header line
`depth_cm,width_cm,mev,err` (slab centre, slab thickness, energy deposited in
the slab on an arbitrary scale, its 1-sigma error), then one row per slab.

usage: egsnrc_to_csv.py lst LISTING.egslst GROUPS OUT.csv [DENSITIES]
           GROUPS: the input's slab groups, e.g. 50x0.1,70x0.5 (NSLAB, SLAB THICKNESS)
           DENSITIES: the mass density of each slab in g/cm3, in the same
           COUNTxVALUE form (e.g. 30x1,20x1.85,70x0.26,90x1); 1 when omitted
       egsnrc_to_csv.py rz LISTING.egslst ZGROUPS RGROUPS OUT.csv
           a listing of dose in slabs x annuli: ZGROUPS the input's slab groups
           (all of them), RGROUPS the radial widths of the cylinders from the
           axis (e.g. 50x0.1,1x19.9); writes one row per zone listed,
           z_lo_cm,z_hi_cm,r_lo_cm,r_hi_cm,dose,err (dose = T x 1e22)
       egsnrc_to_csv.py csv DEPTH_DOSE.csv WIDTH_cm OUT.csv
           a CSV of depth_cm,mev,err for uniform slabs (comment lines start with #)

A listing gives the dose T (Gy per incident fluence) of each planar zone with
its error in percent; the energy in a slab of one radius is proportional to
T times the slab's mass, its thickness times its density, which makes slabs of
different thickness and material comparable and lets them be summed."""
import re
import sys


def expand(groups):
    out = []
    for g in groups.split(","):
        n, w = g.split("x")
        if int(n) < 1 or float(w) <= 0:
            sys.exit("bad group %r: want COUNTxVALUE with COUNT >= 1 and VALUE > 0" % g)
        out += [float(w)] * int(n)
    return out


def from_listing(path, groups, densities=None):
    widths = expand(groups)
    rhos = expand(densities) if densities else [1.0] * len(widths)
    if len(rhos) != len(widths):
        sys.exit("%d densities for %d slabs" % (len(rhos), len(widths)))
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
    for (plane, dose, rel), w, rho in zip(rows, widths, rhos):
        out.append((z + 0.5 * w, w, dose * w * rho * 1e22, dose * w * rho * 1e22 * rel))
        z += w
    return out


def from_listing_rz(path, zgroups, rgroups):
    dz, dr = expand(zgroups), expand(rgroups)
    ze = [0.0]
    for w in dz:
        ze.append(ze[-1] + w)
    re_ = [0.0]
    for w in dr:
        re_.append(re_[-1] + w)
    rows, started = [], False
    for line in open(path):
        if "Z# P# C#" in line:
            started = True
            continue
        m = re.match(r"\s*(\d+|\*+)\s+(\d+|\*+)\s+(\d+|\*+)\s+([\d.E+-]+)\s+\+/-\s*([\d.]+)%", line)
        if started and m:
            # The listing prints zone Z#, slab P# and cylinder C# in fixed
            # widths, *** where one overflows: take P# and C# where printed,
            # else derive them from Z# = P# + NZ (C# - 1) + 1 (DOSRZnrc's
            # $GET-IRL), and require all that are printed to agree.
            z, p, c = (int(g) if g.isdigit() else None for g in m.group(1, 2, 3))
            if p is None or c is None:
                if z is None:
                    sys.exit("%s: a zone with neither its number nor its slab and cylinder: %r" % (path, line.strip()))
                p, c = (z - 2) % len(dz) + 1, (z - 2) // len(dz) + 1
            iz, ir = p - 1, c - 1
            if not (0 <= iz < len(dz) and 0 <= ir < len(dr)) or (z is not None and z != iz + len(dz) * ir + 2):
                sys.exit("%s: zone %r does not match the %d slabs x %d cylinders of the groups" % (path, line.strip()[:12], len(dz), len(dr)))
            t = float(m.group(4))
            rows.append((ze[iz], ze[iz + 1], re_[ir], re_[ir + 1], t * 1e22, t * 1e22 * float(m.group(5)) / 100.0))
    if not rows:
        sys.exit("%s: no dose zones found" % path)
    return rows


def from_csv(path, width):
    out = []
    for line in open(path):
        if line.startswith("#") or line.startswith("depth"):
            continue
        d, v, e = (float(x) for x in line.split(",")[:3])
        out.append((d, width, v, e))
    return out


def main():
    if not (len(sys.argv) == 5 or (len(sys.argv) == 6 and sys.argv[1] in ("lst", "rz"))) or \
            sys.argv[1] not in ("lst", "csv", "rz") or (sys.argv[1] == "rz" and len(sys.argv) != 6):
        sys.exit(__doc__)
    if sys.argv[1] == "rz":
        rows = from_listing_rz(sys.argv[2], sys.argv[3], sys.argv[4])
        with open(sys.argv[5], "w") as f:
            f.write("z_lo_cm,z_hi_cm,r_lo_cm,r_hi_cm,dose,err\n")
            for r in rows:
                f.write("%.5f,%.5f,%.5f,%.5f,%.8g,%.4g\n" % r)
        return
    if sys.argv[1] == "lst":
        rows = from_listing(sys.argv[2], sys.argv[3], sys.argv[5] if len(sys.argv) == 6 else None)
    else:
        rows = from_csv(sys.argv[2], float(sys.argv[3]))
    with open(sys.argv[4], "w") as f:
        f.write("depth_cm,width_cm,mev,err\n")
        for r in rows:
            f.write("%.5f,%.5g,%.8g,%.4g\n" % r)


main()
