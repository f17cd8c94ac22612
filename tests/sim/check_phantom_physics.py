#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Checks a set of phantom result.json files of one beam kind at several
energies or step fractions (the GPU suite's phantom_physics stage).

usage: check_phantom_physics.py steps RESULT.json...   (one beam, step fractions in any order)
       check_phantom_physics.py energies RESULT.json... (electron beams of several energies)

- steps: R50 at every step fraction within 3 standard errors of the
  difference from R50 at the smallest fraction, and that error <= 0.3 % of R50
  (the statistical precision the comparison must resolve);
- energies: R50, Rp and R80 grow with the energy, and R50 and Rp stay within
  the bounds monoenergetic electron beams in water have against ESTAR's CSDA
  range r0 (the laterally integrated depth dose of a pencil beam is the central
  axis depth dose of an infinitely broad beam): 0.70 r0 < R50 < 0.97 r0 and
  0.88 r0 < Rp < 1.15 r0 between 4 and 25 MeV (EGSnrc's 10 and 20 MeV beams:
  R50/r0 = 0.825, 0.900; Rp/r0 = 0.99, 1.07)."""
import json
import math
import sys


def load(path):
    r = json.load(open(path))
    return r["phantom"]


def main():
    mode, files = sys.argv[1], sys.argv[2:]
    runs = [load(f) for f in files]
    ok = True
    if mode == "steps":
        runs.sort(key=lambda p: p["step_fraction"])
        base = runs[0]["depth_dose"]
        for p in runs:
            d = p["depth_dose"]
            tol = 3 * math.hypot(d["r50_err_cm"], base["r50_err_cm"])
            good = abs(d["r50_cm"] - base["r50_cm"]) <= tol and d["r50_err_cm"] <= 0.003 * d["r50_cm"]
            print("step fraction %.3f: R50 %.4f +- %.4f cm (%+.3f %% from the smallest, tolerance %.3f %%): %s"
                  % (p["step_fraction"], d["r50_cm"], d["r50_err_cm"], 100 * (d["r50_cm"] / base["r50_cm"] - 1),
                     100 * tol / base["r50_cm"], "ok" if good else "FAIL"))
            ok &= good
    elif mode == "energies":
        runs.sort(key=lambda p: p["energy_MeV"])
        prev = None
        for p in runs:
            d, r0 = p["depth_dose"], p["estar_csda_range_cm"]
            good = 0.70 * r0 < d["r50_cm"] < 0.97 * r0 and 0.88 * r0 < d["rp_cm"] < 1.15 * r0
            if prev:
                good &= all(d[k] > prev[k] for k in ("r50_cm", "rp_cm", "r80_cm"))
            print("%g MeV: R80 %.3f R50 %.3f Rp %.3f cm, CSDA %.3f cm (R50/r0 %.3f, Rp/r0 %.3f), surface %.3f: %s"
                  % (p["energy_MeV"], d["r80_cm"], d["r50_cm"], d["rp_cm"], r0, d["r50_cm"] / r0, d["rp_cm"] / r0,
                     d["surface_dose_ratio"], "ok" if good else "FAIL"))
            ok &= good
            prev = d
    else:
        sys.exit(__doc__)
    sys.exit(0 if ok else 1)


main()
