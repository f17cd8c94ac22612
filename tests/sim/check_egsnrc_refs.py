#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Checks the committed EGSnrc references of the water beams
(data/reference/egsnrc), of the slab phantoms (data/reference/egsnrc/slabs)
and of the lateral dose (data/reference/egsnrc/lateral), so that a damaged
or hand-edited file fails:

  - water: every beam the phantom compiles in (sim/CMakeLists.txt's
    MCT_PHANTOM_REFS) has its CSV, and where its DOSRZnrc listing is
    committed the CSV is exactly what the converter makes from it; slabs
    contiguous from 0 (1 mm to the listed depth for electrons; 50 x 1 mm then
    5 mm for photons), energies finite and >= 0, errors > 0 where the energy
    is, and the statistical goal of the runs: 1 sigma of a slab at most 0.5 %
    (electrons) or 1.5 % (photons) of the maximum (per cm) wherever the energy
    per cm is >= 5 % of it;
  - slabs and lateral: each CSV is exactly what tools/egsnrc/egsnrc_to_csv.py
    makes from the committed DOSRZnrc listing (same text);
  - slabs: the thick set 210 slabs, contiguous from 0 to 30 cm, 1 mm thick
    to 20 cm, the material interfaces at 3, 5 and 12 cm on slab edges; the
    thin set 200 slabs of 1 mm, interfaces at 1, 2 and 6 cm; energies finite and
    >= 0, every error > 0 where the energy is, and the statistical goal of the
    runs met: 1 sigma <= 1 % of the maximum (per cm) wherever the energy per cm
    is >= 5 % of it;
  - lateral (lat_e6, lat_e10, lat_e20): the complete 50 x 50 grid of 1 mm slabs
    (from 0 and from 1.5 cm) x 1 mm annuli, doses finite and >= 0, errors > 0
    where the dose is, the depths compared on slab edges (1, 2, 3 cm; 2 and
    6 cm), the dose on the axis falling with depth past 1 cm while the beam
    spreads (a file of other slabs or annuli fails that), every slab's
    outermost annulus below 5 % of its maximum (the profile is inside the
    zones), and the statistical goals of lat_e20 and lat_e6: 1 sigma of the
    axis annulus at 6.0-6.1 cm (2.0-2.1 cm) at most 1 %.

usage: check_egsnrc_refs.py REPO_ROOT"""
import math
import os
import subprocess
import sys
import tempfile

# The slab phantoms: beams, slab groups and densities (egsnrc_to_csv.py's lst
# mode), slab count, depth, where the 1 mm slabs end, and the interfaces.
SLAB_SETS = [
    (["slab_g6", "slab_g18", "slab_e10", "slab_e20"], "200x0.1,10x1", "30x1,20x1.85,70x0.26,90x1", 210, 30.0, 20.0,
     (3.0, 5.0, 12.0)),
    (["thin_e6", "thin_e15", "thin_g1.25"], "200x0.1", "10x1,10x1.85,40x0.26,140x1", 200, 20.0, 20.0, (1.0, 2.0, 6.0)),
]
EPS = 1e-9


def fail(msg):
    sys.exit("check_egsnrc_refs: " + msg)


def read_csv(path, header):
    lines = open(path).read().splitlines()
    if not lines or lines[0] != header:
        fail("%s: header is not %r" % (path, header))
    rows = []
    for k, line in enumerate(lines[1:], 2):
        try:
            v = [float(x) for x in line.split(",")]
        except ValueError:
            fail("%s:%d: not numbers: %r" % (path, k, line))
        if len(v) != header.count(",") + 1 or not all(math.isfinite(x) for x in v):
            fail("%s:%d: want %d finite numbers" % (path, k, header.count(",") + 1))
        rows.append(v)
    return rows


def same_as_converted(tool, mode, lst, args, csv):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "x.csv")
        cmd = [sys.executable, tool, mode, lst, args[0]] + ([args[1]] if mode == "rz" else []) + [out] + args[2:]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            fail("%s: converter failed: %s" % (lst, r.stderr.strip() or r.stdout.strip()))
        if open(out).read() != open(csv).read():
            fail("%s is not what %s makes from %s" % (csv, os.path.basename(tool), lst))


# Water beams: the slab groups of the input (as egsnrc_to_csv.py's lst mode
# takes them) and the depth the 1 mm slabs reach (electrons; photons: 50 x
# 1 mm, then 5 mm to 39.5 cm). egs_e10 and egs_e20 were converted from
# listings that are not committed; the rest have theirs.
WATER = {
    "egs_e4": ("egs4", "25x0.1,1x37.5", 2.5),
    "egs_e6": ("egs6", "35x0.1,1x36.5", 3.5),
    "egs_e10": (None, None, 6.9),
    "egs_e15": ("egs15", "90x0.1,1x31", 9.0),
    "egs_e20": (None, None, 13.9),
    "egs_e25": ("egs25", "145x0.1,1x25.5", 14.5),
    "egs_g0.5": ("egsg0.5", "50x0.1,70x0.5", None),
    "egs_g1.25": ("egsg1.25", "50x0.1,70x0.5", None),
    "egs_g6": ("egsg6", "50x0.1,70x0.5", None),
    "egs_g15": ("egsg15", "50x0.1,70x0.5", None),
}


def compiled_refs(root):
    """The CSV names of sim/CMakeLists.txt's MCT_PHANTOM_REFS."""
    text = open(os.path.join(root, "sim", "CMakeLists.txt")).read()
    start = text.index("set(MCT_PHANTOM_REFS")
    body = text[start + len("set(MCT_PHANTOM_REFS"):text.index(")", start)]
    return [entry.split(":")[0] for entry in body.split()]


def check_water(root, tool):
    d = os.path.join(root, "data", "reference", "egsnrc")
    names = compiled_refs(root)
    if sorted(names) != sorted(WATER):
        fail("MCT_PHANTOM_REFS lists %s, this check knows %s" % (sorted(names), sorted(WATER)))
    for name in names:
        listing, groups, mm_depth = WATER[name]
        csv = os.path.join(d, name + ".csv")
        if not os.path.isfile(csv):
            fail("missing " + csv)
        if listing:
            for ext in (".egslst", ".egsinp"):
                if not os.path.isfile(os.path.join(d, listing + ext)):
                    fail("missing " + os.path.join(d, listing + ext))
            same_as_converted(tool, "lst", os.path.join(d, listing + ".egslst"), [groups, None], csv)
        rows = read_csv(csv, "depth_cm,width_cm,mev,err")
        electron = mm_depth is not None
        edge = 0.0
        for z, w, e, s in rows:
            want = 0.1 if (electron or z < 5.0) else 0.5
            if abs((z - 0.5 * w) - edge) > 1e-4 or abs(w - want) > EPS:
                fail("%s: slab at %g cm (%g cm thick) does not follow the previous (ends at %g cm)" % (csv, z, w, edge))
            if e < 0 or s < 0 or (e > 0 and s <= 0):
                fail("%s: slab at %g cm: energy %g, error %g" % (csv, z, e, s))
            edge = z + 0.5 * w
        last = mm_depth if electron else 39.5
        if abs(edge - last) > 1e-4:
            fail("%s: slabs end at %g cm, want %g" % (csv, edge, last))
        goal = 0.005 if electron else 0.015
        peak = max(e / w for z, w, e, s in rows)
        for z, w, e, s in rows:
            if e / w >= 0.05 * peak and s / w > goal * peak:
                fail("%s: slab at %g cm: error %.3g %% of the maximum (goal %g %%)" % (csv, z, 100 * s / w / peak, 100 * goal))


def check_slabs(root, tool):
    d = os.path.join(root, "data", "reference", "egsnrc", "slabs")
    for beams, groups, densities, count, depth, fine_to, interfaces in SLAB_SETS:
        for b in beams:
            csv, lst = os.path.join(d, b + ".csv"), os.path.join(d, b + ".egslst")
            for p in (csv, lst, os.path.join(d, b + ".egsinp")):
                if not os.path.isfile(p):
                    fail("missing " + p)
            same_as_converted(tool, "lst", lst, [groups, None, densities], csv)
            rows = read_csv(csv, "depth_cm,width_cm,mev,err")
            if len(rows) != count:
                fail("%s: %d slabs, want %d" % (csv, len(rows), count))
            edge, edges = 0.0, [0.0]
            for z, w, e, s in rows:
                if abs((z - 0.5 * w) - edge) > 1e-4:
                    fail("%s: slab at %g cm does not start where the previous ends (%g cm)" % (csv, z, edge))
                if abs(w - (0.1 if z < fine_to else 1.0)) > EPS:
                    fail("%s: slab at %g cm is %g cm thick" % (csv, z, w))
                if e < 0 or (e > 0 and s <= 0) or s < 0:
                    fail("%s: slab at %g cm: energy %g, error %g" % (csv, z, e, s))
                edge = z + 0.5 * w
                edges.append(edge)
            if abs(edge - depth) > 1e-4:
                fail("%s: slabs end at %g cm, want %g" % (csv, edge, depth))
            for x in interfaces:
                if min(abs(x - e) for e in edges) > 1e-4:
                    fail("%s: the interface at %g cm is not a slab edge" % (csv, x))
            peak = max(e / w for z, w, e, s in rows)
            for z, w, e, s in rows:
                if e / w >= 0.05 * peak and s / w > 0.01 * peak:
                    fail("%s: slab at %g cm: error %.3g %% of the maximum (goal 1 %%)" % (csv, z, 100 * s / w / peak))


# name: slab groups of the input, first slab edge (cm), depths that must be
# slab edges, the 1 mm slabs and annuli listed (z from first edge, 50 x 50),
# and the statistical goal: 1 sigma of the axis annulus of the slab at
# goal_depth at most goal.
LATERAL = {
    "lat_e6": ("50x0.1,1x35", 0.0, (1.0, 2.0, 3.0), 2.0, 0.01),
    "lat_e10": ("50x0.1,1x35", 0.0, (1.0, 2.0, 3.0), None, None),
    "lat_e20": ("1x1.5,50x0.1,1x33.5", 1.5, (2.0, 6.0), 6.0, 0.01),
}


def check_lateral(root, tool, name):
    zgroups, z_first, edges_wanted, goal_depth, goal = LATERAL[name]
    d = os.path.join(root, "data", "reference", "egsnrc", "lateral")
    csv, lst = os.path.join(d, name + ".csv"), os.path.join(d, name + ".egslst")
    for p in (csv, lst, os.path.join(d, name + ".egsinp")):
        if not os.path.isfile(p):
            fail("missing " + p)
    same_as_converted(tool, "rz", lst, [zgroups, "50x0.1,1x15"], csv)
    rows = read_csv(csv, "z_lo_cm,z_hi_cm,r_lo_cm,r_hi_cm,dose,err")
    first = round(z_first * 10)
    grid = {(round(z0 * 10), round(r0 * 10)) for z0, z1, r0, r1, v, s in rows}
    want = {(first + i, j) for i in range(50) for j in range(50)}
    if len(rows) != 2500 or grid != want:
        fail("%s: want the 50 x 50 grid of 1 mm slabs from %g cm x 1 mm annuli" % (csv, z_first))
    for z0, z1, r0, r1, v, s in rows:
        if abs(z1 - z0 - 0.1) > 1e-6 or abs(r1 - r0 - 0.1) > 1e-6 or v < 0 or s < 0 or (v > 0 and s <= 0):
            fail("%s: zone z %g-%g r %g-%g: dose %g error %g" % (csv, z0, z1, r0, r1, v, s))
    edges = sorted({round(z0, 6) for z0, *_ in rows})
    for x in edges_wanted:
        if round(x, 6) not in edges:
            fail("%s: no slab edge at %g cm" % (csv, x))
    # The beam spreads with depth: the dose on the axis falls from each
    # centimetre to the next past 1 cm (a file of other slabs or annuli fails).
    axis = {round(z0 * 10): (v, s) for z0, z1, r0, r1, v, s in rows if r0 == 0.0}
    for i in range(max(10, first), first + 41, 10):
        if i + 10 in axis and not axis[i][0] > axis[i + 10][0]:
            fail("%s: the dose on the axis does not fall from %g to %g cm" % (csv, i / 10, i / 10 + 1))
    # The annuli reach beyond the profile: the outermost below 5 % of its slab's maximum.
    for z in edges:
        slab = [(r0, v) for z0, z1, r0, r1, v, s in rows if round(z0, 6) == z]
        if max(slab)[1] >= 0.05 * max(v for r0, v in slab):
            fail("%s: the slab at %g cm has >= 5 %% of its maximum in its outermost annulus" % (csv, z))
    if goal_depth is not None:
        v, s = axis[round(goal_depth * 10)]
        if s > goal * v:
            fail("%s: 1 sigma of the axis annulus at %g cm is %.2f %% (goal %g %%)" % (csv, goal_depth, 100 * s / v, 100 * goal))


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    root = sys.argv[1]
    tool = os.path.join(root, "tools", "egsnrc", "egsnrc_to_csv.py")
    check_water(root, tool)
    check_slabs(root, tool)
    for name in sorted(LATERAL):
        check_lateral(root, tool, name)
    print("check_egsnrc_refs: water, slab and lateral references complete")


main()
