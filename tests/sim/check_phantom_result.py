#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Checks a phantom result.json against the references (the GPU suite's
large-count validation; the CI tests do the same at small counts).
usage: check_phantom_result.py RESULT.json
- energy balance: |deposited + escaped - incident| / incident <= 1e-9 with
  FP64 transport and an f64 tally, <= 1e-5 with FP32 transport. An f32 tally
  itself may lose energy to rounding (Liu 2018's FP32 loss, what the kahan
  tally fixes): there the balance is checked on the energy handed to the tally
  (scored_MeV), and the tally's own loss against it is reported;
- beams with an EGSnrc reference (data/reference/egsnrc; result.json's
  depth_dose.egsnrc, or depth_dose.reference for the problem file's
  `reference`, doses per unit mass with a geometry): every depth with >= 5 % of the maximum within 2 %/1 mm
  plus 3 standard errors of the difference, and (electrons) R50 and Rp within
  1 % plus 3 standard errors of the difference (mct_phantom_comparison_t);
- the problem file's `lateral_reference` (result.json's lateral): every
  annulus with >= 5 % of its slab's maximum, in every compared slab, within
  2 %/1 mm plus k standard errors of the difference (mct_phantom_lateral_t);
- photon beams: uncollided fraction within 4 binomial standard errors of
  exp(-mu L) with XCOM's mu (without coherent)."""
import json
import math
import sys

r = json.load(open(sys.argv[1]))
p = r["phantom"]
n = r["histories"]
tol = 1e-9 if (p["transport"] == "f64" and r["dtype"] == "f64") else 1e-5
bal = abs(p["energy_balance_rel"])
if r["dtype"] == "f32":
    bal = abs(p["scored_MeV"] + p["escaped_MeV"] - p["incident_MeV"]) / p["incident_MeV"]
    print("f32 tally: total vs energy scored into it %.2e" % p["tally_vs_scored_rel"])
print("balance %.2e (tolerance %.0e)" % (bal, tol))
ok = bal <= tol
dd = p["depth_dose"]
eg = dd.get("egsnrc") or dd.get("reference")
if eg:
    good = eg["passed"] == eg["points"]
    print("EGSnrc %s: %d of %d depths within 2 %%/1 mm (+%g sigma), worst %.2f %% at %.2f cm: %s"
          % (eg["reference"], eg["passed"], eg["points"], eg["k"], 100 * eg["worst_dose_difference"],
             eg["worst_depth_cm"], "ok" if good else "FAIL"))
    ok &= good
    for key in ("r50", "rp"):
        if key in eg:
            c = eg[key]
            good = abs(c["rel_diff"]) <= 0.01 + 3 * c["rel_err"]
            print("%s %.3f cm, EGSnrc %.3f cm: %+.2f %% (+- %.2f %%): %s" % (key.upper(), c["run_cm"], c["egsnrc_cm"],
                  100 * c["rel_diff"], 100 * c["rel_err"], "ok" if good else "FAIL"))
            ok &= good
lat = p.get("lateral")
if lat:
    for d in lat["depths"]:
        print("lateral %s, %.2f-%.2f cm: %d of %d annuli within 2 %%/1 mm (+%g sigma), worst %.2f %% of the slab's "
              "maximum at r %.2f-%.2f cm: %s" % (lat["reference"], d["z_lo_cm"], d["z_hi_cm"], d["passed"], d["points"],
              lat["k"], 100 * d["worst_dose_difference"], d["worst_r_lo_cm"], d["worst_r_hi_cm"],
              "ok" if d["pass"] else "FAIL"))
    if "run_over_reference" in lat:
        print("lateral: run / reference (absolute) %.4f +- %.4f" % (lat["run_over_reference"], lat["run_over_reference_err"]))
    ok &= lat["pass"]
if p["particle"] == "photon" and "geometry" not in p:  # exp(-mu L) is the water cube's
    f, x = p["uncollided_fraction"], p["uncollided_expected"]
    sd = math.sqrt(x * (1 - x) / n)
    good = abs(f - x) <= 4 * sd
    print("uncollided %.5f, exp(-mu L) %.5f +- %.5f: %s" % (f, x, sd, "ok" if good else "FAIL"))
    ok &= good
sys.exit(0 if ok else 1)
