#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Compares the electron data of two media in PEGS4 data sets (.pegs4dat):
the piecewise-linear fits, evaluated at the centre of every interval in
ln(E), of the eight functions EGSnrc reads per medium (ESIG, PSIG, EDEDX,
PDEDX, EBR1, PBR1, PBR2, TMXS). Prints the largest relative difference of
each, at the kinetic energies >= KMIN MeV (default 0.2, the ECUT of the
references).

usage: compare_pegs4_media.py A.pegs4dat MEDIUM_A B.pegs4dat MEDIUM_B [KMIN]

Layout of a medium (as EGSnrc's HATCH reads it): the MEDIUM= line, the
material lines, then RLC AE AP UE UP; MSGE MGE MSEKE MEKE and five more
integers; 43 bremsstrahlung and pair constants; XR0 TEFF0 BLCC XCC; EKE0 EKE1;
MEKE intervals of 16 numbers (intercept and slope of each function in ln E)."""
import math
import sys

NAMES = ["ESIG", "PSIG", "EDEDX", "PDEDX", "EBR1", "PBR1", "PBR2", "TMXS"]


def medium(path, name):
    lines = open(path).read().split("\n")
    starts = [k for k, l in enumerate(lines) if l.startswith(" MEDIUM=")]
    hit = [k for k in starts if lines[k][8:].split(",")[0].strip() == name]
    if not hit:
        sys.exit("%s: no medium %s" % (path, name))
    k = hit[0] + 1
    ne = int(lines[k].split("NE=")[1].split(",")[0])
    nums, j = [], k + 1 + ne
    while j < len(lines) and not lines[j].startswith(" MEDIUM="):
        nums += [float(x.replace("D", "E")) for x in lines[j].split()]
        j += 1
    return nums


def functions(n):
    meke, eke0, eke1 = int(n[8]), n[61], n[62]
    out = {}
    for i in range(1, meke + 1):
        lne = (i - 0.5 - eke0) / eke1
        base = 63 + (i - 1) * 16
        for k, nm in enumerate(NAMES):
            out[(i, nm)] = (math.exp(lne), n[base + 2 * k] + n[base + 2 * k + 1] * lne)
    return meke, out


def main():
    if len(sys.argv) not in (5, 6):
        sys.exit(__doc__)
    kmin = float(sys.argv[5]) if len(sys.argv) == 6 else 0.2
    a, b = medium(sys.argv[1], sys.argv[2]), medium(sys.argv[3], sys.argv[4])
    if a[8] != b[8] or a[61:63] != b[61:63]:
        sys.exit("the two media have different energy grids")
    meke, fa = functions(a)
    _, fb = functions(b)
    for nm in NAMES:
        worst = (0.0, 0.0)
        for i in range(1, meke + 1):
            e, va = fa[(i, nm)]
            vb = fb[(i, nm)][1]
            if e >= kmin and va != 0:
                worst = max(worst, (abs(va - vb) / abs(va), e))
        print("%-6s max relative difference %.2e (at %.4g MeV)" % (nm, worst[0], worst[1]))


main()
