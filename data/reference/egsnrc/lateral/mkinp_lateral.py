#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Writes the DOSRZnrc input of a lateral (radial) dose reference of an
electron pencil beam on water, into the current directory:

    python3 mkinp_lateral.py [NAME [HISTORIES_SCALE]]

NAME is lat_e10 (the default), lat_e20 or lat_e6. The transport settings
are those of ../mkinp.py (the water references: the input is made by it, and
only its title, radii and dose-region bounds are replaced). Radii: cylinders of 1, 2,
..., 50 mm and 20 cm; dose is scored in 1 mm annuli from the axis to 5 cm.
  lat_e10: 10 MeV, 50 slabs of 1 mm (0-5 cm) then 35 cm of water behind
           (40 cm deep, as the depth-dose references); dose in the 50 x 50
           zones of the 1 mm slabs and annuli.
  lat_e20: 20 MeV, one slab of 1.5 cm, 50 slabs of 1 mm (1.5-6.5 cm), then
           33.5 cm of water behind (40 cm deep); dose in the 50 x 50 zones of
           the 1 mm slabs (planes 2 to 52) and annuli, so that the profiles
           at 2 and 6 cm and every millimetre between are resolved.
  lat_e6:  6 MeV, as lat_e10 (its range, 3 cm, inside the 5 cm of 1 mm
           slabs)."""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import mkinp  # noqa: E402

RADII = ["%.1f" % (0.1 * i) for i in range(1, 51)] + ["20.0"]
NSCORE_R = 50
# name: energy (MeV), histories, seeds, slab groups (count, thickness cm),
# first plane of the dose region (1: the front face)
BEAMS = {
    "lat_e6": (6.0, 1200000, (19, 29), [(50, 0.1), (1, 35.0)], 1),
    "lat_e10": (10.0, 600000, (15, 25), [(50, 0.1), (1, 35.0)], 1),
    "lat_e20": (20.0, 2800000, (17, 27), [(1, 1.5), (50, 0.1), (1, 33.5)], 2),
}


def write(name, nhist):
    energy, _, seed, groups, zmin = BEAMS[name]
    mkinp.make(name, energy, 0.1, 5.0, nhist, seed=seed, particle="electron", groups=groups)
    path = name + ".egsinp"
    s = open(path).read()
    s = re.sub(r"(?m)^ TITLE=.*$", " TITLE=  %s: %g MeV e- pencil on water, radial dose in 1 mm zones" % (name, energy), s, count=1)
    s = re.sub(r"(?m)^ DOSE ZBOUND MIN=.*$", " DOSE ZBOUND MIN= %d" % zmin, s, count=1)
    s = re.sub(r"(?m)^ DOSE RBOUND MAX=.*$", " DOSE RBOUND MAX= %d" % NSCORE_R, s, count=1)
    s = re.sub(r"(?m)^ RADII=.*$", " RADII= " + ", ".join(RADII), s, count=1)
    s = re.sub(r"(?m)^ STOP RING=.*$", " STOP RING= %d" % len(RADII), s, count=1)
    open(path, "w").write(s)


if __name__ == "__main__":
    name = sys.argv[1] if len(sys.argv) > 1 else "lat_e10"
    if name not in BEAMS or len(sys.argv) > 3:
        sys.exit(__doc__)
    scale = float(sys.argv[2]) if len(sys.argv) > 2 else 1.0
    write(name, max(1, int(BEAMS[name][1] * scale)))
