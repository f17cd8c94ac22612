#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Writes the DOSRZnrc inputs of the slab phantom (water 3 cm / ICRP cortical
bone 1.85 g/cm3 2 cm / ICRU 44 inflated lung 0.26 g/cm3 7 cm / water 18 cm,
30 cm deep, radius 20 cm) for the four pencil beams, into the current directory:

    python3 mkinp_slabs.py [HISTORIES_SCALE]

The transport settings are those of ../mkinp.py (the water references): the
input is made by it and only its title and geometry are replaced, so the two
sets cannot drift apart. Depth zones: 200 slabs of 1 mm (0-20 cm), then 10 of
1 cm (20-30 cm); the interfaces at 3, 5 and 12 cm are slab edges."""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import mkinp  # noqa: E402

GROUPS = [(200, 0.1), (10, 1.0)]
# (medium, first slab, last slab): 1-based DOSRZnrc slab numbers of GROUPS
LAYERS = [("H2O521ICRU", 1, 30), ("ICRPBONE521ICRU", 31, 50), ("LUNG521ICRU", 51, 120), ("H2O521ICRU", 121, 210)]
MEDIA = ["H2O521ICRU", "ICRPBONE521ICRU", "LUNG521ICRU"]
# name, particle, kinetic energy MeV, histories, seeds
BEAMS = [
    ("slab_g6", "photon", 6.0, 4000000, (11, 21)),
    ("slab_g18", "photon", 18.0, 3000000, (12, 22)),
    ("slab_e10", "electron", 10.0, 400000, (13, 23)),
    ("slab_e20", "electron", 20.0, 300000, (14, 24)),
]


def geometry():
    nslab = sum(g[0] for g in GROUPS)
    assert [l[1] for l in LAYERS] == [1] + [l[2] + 1 for l in LAYERS[:-1]] and LAYERS[-1][2] == nslab
    return "\n".join([
        " :start geometrical inputs:",
        " METHOD OF INPUT= groups",
        " Z OF FRONT FACE=  0.",
        " NSLAB= " + ", ".join(str(g[0]) for g in GROUPS),
        " SLAB THICKNESS= " + ", ".join(str(g[1]) for g in GROUPS),
        " RADII=      20.",
        " MEDIA= " + ", ".join(MEDIA),
        " DESCRIPTION BY= planes",
        " MEDNUM= " + ", ".join(str(MEDIA.index(l[0]) + 1) for l in LAYERS),
        " START ZSLAB= " + ", ".join(str(l[1]) for l in LAYERS),
        " STOP ZSLAB= " + ", ".join(str(l[2]) for l in LAYERS),
        " START RING= " + ", ".join("1" for _ in LAYERS),
        " STOP RING= " + ", ".join("1" for _ in LAYERS),
        " :stop geometrical inputs:",
    ])


def write(name, particle, energy, nhist, seed):
    mkinp.make(name, energy, 0.1, 20.0, nhist, seed=seed, particle=particle, groups=GROUPS)
    path = name + ".egsinp"
    s = open(path).read()
    title = " TITLE=  %s: %g MeV %s pencil, water/bone/lung/water slabs, depth dose" % (
        name, energy, "e-" if particle == "electron" else "photons")
    s = re.sub(r"(?m)^ TITLE=.*$", title, s, count=1)
    s = re.sub(r"(?s) :start geometrical inputs:.*? :stop geometrical inputs:", lambda m: geometry(), s, count=1)
    # DOSE ZBOUND MAX is a plane number: planes 1 .. nslab + 1 bound all the slabs
    s = re.sub(r"(?m)^ DOSE ZBOUND MAX=.*$", " DOSE ZBOUND MAX= %d" % (sum(g[0] for g in GROUPS) + 1), s, count=1)
    open(path, "w").write(s)


if __name__ == "__main__":
    scale = float(sys.argv[1]) if len(sys.argv) > 1 else 1.0
    for name, particle, energy, nhist, seed in BEAMS:
        write(name, particle, energy, max(1, int(nhist * scale)), seed)
