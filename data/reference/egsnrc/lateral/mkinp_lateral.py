#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Writes the DOSRZnrc input of the lateral (radial) dose of the 10 MeV
electron pencil beam on water, into the current directory:

    python3 mkinp_lateral.py [HISTORIES_SCALE]

The transport settings are those of ../mkinp.py (the water references: the
input is made by it, and only its title, radii and dose-region bounds are
replaced). Geometry: water, 50 slabs of 1 mm (0-5 cm) then 35 cm of water
behind (40 cm deep, as the depth-dose references); cylinders of radius 1, 2,
..., 50 mm and 20 cm. Dose is scored in the 50 x 50 zones of the 1 mm slabs
and 1 mm annuli (0-5 cm deep, 0-5 cm from the axis)."""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import mkinp  # noqa: E402

NAME = "lat_e10"
ENERGY = 10.0
HISTORIES = 600000
SEED = (15, 25)
GROUPS = [(50, 0.1), (1, 35.0)]
RADII = ["%.1f" % (0.1 * i) for i in range(1, 51)] + ["20.0"]
NSCORE_R = 50


def write(nhist):
    mkinp.make(NAME, ENERGY, 0.1, 5.0, nhist, seed=SEED, particle="electron", groups=GROUPS)
    path = NAME + ".egsinp"
    s = open(path).read()
    s = re.sub(r"(?m)^ TITLE=.*$", " TITLE=  %s: %g MeV e- pencil on water, radial dose in 1 mm zones" % (NAME, ENERGY), s, count=1)
    s = re.sub(r"(?m)^ DOSE RBOUND MAX=.*$", " DOSE RBOUND MAX= %d" % NSCORE_R, s, count=1)
    s = re.sub(r"(?m)^ RADII=.*$", " RADII= " + ", ".join(RADII), s, count=1)
    s = re.sub(r"(?m)^ STOP RING=.*$", " STOP RING= %d" % len(RADII), s, count=1)
    open(path, "w").write(s)


if __name__ == "__main__":
    write(max(1, int(HISTORIES * (float(sys.argv[1]) if len(sys.argv) > 1 else 1.0))))
