#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Writes the DOSRZnrc inputs of a slab phantom for its pencil beams, into the
current directory:

    python3 mkinp_slabs.py [HISTORIES_SCALE] [--set thick|thin]

thick (the default): water 3 cm / ICRP cortical bone 1.85 g/cm3 2 cm / ICRU 44
inflated lung 0.26 g/cm3 7 cm / water 18 cm, 30 cm deep, radius 20 cm; 6 and
18 MeV photons, 10 and 20 MeV electrons. Depth zones: 200 slabs of 1 mm
(0-20 cm), then 10 of 1 cm (20-30 cm); the interfaces at 3, 5 and 12 cm are
slab edges.

thin: water 1 cm / bone 1 cm / lung 4 cm / water 14 cm, 20 cm deep, radius
20 cm, the same media, in 200 slabs of 1 mm (interfaces at 1, 2 and 6 cm on
slab edges): layers thin enough for electron beams to cross them and end their
ranges in them or behind them, 6 MeV electrons in the bone (at the lung's front
face), 15 MeV electrons in the water behind the lung, and a photon beam of
cobalt-60 energy, 1.25 MeV.

The transport settings are those of ../mkinp.py (the water references): the
input is made by it and only its title and geometry are replaced, so the two
sets cannot drift apart."""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import mkinp  # noqa: E402

MEDIA = ["H2O521ICRU", "ICRPBONE521ICRU", "LUNG521ICRU"]
# set: (GROUPS, LAYERS, BEAMS). GROUPS: (NSLAB, SLAB THICKNESS cm); LAYERS:
# (medium, first slab, last slab), 1-based DOSRZnrc slab numbers of GROUPS;
# BEAMS: name, particle, kinetic energy MeV, histories, seeds
SETS = {
    "thick": (
        [(200, 0.1), (10, 1.0)],
        [("H2O521ICRU", 1, 30), ("ICRPBONE521ICRU", 31, 50), ("LUNG521ICRU", 51, 120), ("H2O521ICRU", 121, 210)],
        [
            ("slab_g6", "photon", 6.0, 4000000, (11, 21)),
            ("slab_g18", "photon", 18.0, 3000000, (12, 22)),
            ("slab_e10", "electron", 10.0, 400000, (13, 23)),
            ("slab_e20", "electron", 20.0, 300000, (14, 24)),
        ]),
    "thin": (
        [(200, 0.1)],
        [("H2O521ICRU", 1, 10), ("ICRPBONE521ICRU", 11, 20), ("LUNG521ICRU", 21, 60), ("H2O521ICRU", 61, 200)],
        [
            ("thin_e6", "electron", 6.0, 400000, (15, 25)),
            ("thin_e15", "electron", 15.0, 300000, (16, 26)),
            ("thin_g1.25", "photon", 1.25, 10000000, (17, 27)),
        ]),
}


def geometry(groups, layers):
    nslab = sum(g[0] for g in groups)
    assert [l[1] for l in layers] == [1] + [l[2] + 1 for l in layers[:-1]] and layers[-1][2] == nslab
    return "\n".join([
        " :start geometrical inputs:",
        " METHOD OF INPUT= groups",
        " Z OF FRONT FACE=  0.",
        " NSLAB= " + ", ".join(str(g[0]) for g in groups),
        " SLAB THICKNESS= " + ", ".join(str(g[1]) for g in groups),
        " RADII=      20.",
        " MEDIA= " + ", ".join(MEDIA),
        " DESCRIPTION BY= planes",
        " MEDNUM= " + ", ".join(str(MEDIA.index(l[0]) + 1) for l in layers),
        " START ZSLAB= " + ", ".join(str(l[1]) for l in layers),
        " STOP ZSLAB= " + ", ".join(str(l[2]) for l in layers),
        " START RING= " + ", ".join("1" for _ in layers),
        " STOP RING= " + ", ".join("1" for _ in layers),
        " :stop geometrical inputs:",
    ])


def write(name, particle, energy, nhist, seed, groups, layers):
    mkinp.make(name, energy, 0.1, 20.0, nhist, seed=seed, particle=particle, groups=groups)
    path = name + ".egsinp"
    s = open(path).read()
    title = " TITLE=  %s: %g MeV %s pencil, water/bone/lung/water slabs, depth dose" % (
        name, energy, "e-" if particle == "electron" else "photons")
    s = re.sub(r"(?m)^ TITLE=.*$", title, s, count=1)
    s = re.sub(r"(?s) :start geometrical inputs:.*? :stop geometrical inputs:", lambda m: geometry(groups, layers), s,
               count=1)
    # DOSE ZBOUND MAX is a plane number: planes 1 .. nslab + 1 bound all the slabs
    s = re.sub(r"(?m)^ DOSE ZBOUND MAX=.*$", " DOSE ZBOUND MAX= %d" % (sum(g[0] for g in groups) + 1), s, count=1)
    open(path, "w").write(s)


if __name__ == "__main__":
    args = sys.argv[1:]
    which = "thick"
    if "--set" in args:
        i = args.index("--set")
        which = args[i + 1]
        del args[i:i + 2]
    groups, layers, beams = SETS[which]
    scale = float(args[0]) if args else 1.0
    for name, particle, energy, nhist, seed in beams:
        write(name, particle, energy, max(1, int(nhist * scale)), seed, groups, layers)
