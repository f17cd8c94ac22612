#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The lateral comparison's zone errors (result.json's phantom.lateral) against
the spread of the zones' doses over independent runs.

    check_phantom_lateral_errors.py MCTALLY EXAMPLE.ini REFERENCE.csv [SEEDS [HISTORIES [BATCHES]]]

Runs EXAMPLE (examples/phantom_lateral_e20.ini: 20 MeV electrons on water in
0.5 mm voxels against lat_e20.csv at 2 and 6 cm, absolute units) on the CPU
for SEEDS seeds (10) at HISTORIES histories (2e4) in BATCHES batches (40), and
for every compared zone (annulus x slab) checks that the doses' spread over
the seeds is the one the runs report (`run_err`, the batch method on the
zone's energy batch by batch), then that the error propagated from the
voxels as if independent (`run_err_independent`) is smaller on the beam axis.

The tolerance. Zone j's dose in run s is D_sj, its reported error e_sj. If
the errors are right, e_sj^2 estimates the variance sigma_j^2 of D_sj
without bias, and over M runs the sample variance S_j^2 of D_sj has
(M - 1) S_j^2 / sigma_j^2 ~ chi^2(M - 1) (D_sj is a sum over thousands of
histories, so normal). The batch method's e_sj^2 has (B - 1) e_sj^2 /
sigma_j^2 ~ chi^2(B - 1) for normal batch means, so the mean of e_sj^2 over
the M independent runs has M (B - 1) degrees of freedom, and
F_j = S_j^2 / mean_s(e_sj^2) ~ F(M - 1, M (B - 1)). Zone j passes when F_j
lies between that distribution's ALPHA / (2 J) and 1 - ALPHA / (2 J)
quantiles, J the zones tested (Bonferroni: a correct code fails any of them
with a chance below ALPHA = 1e-3). The batch means of a zone far off the axis
are not quite normal (a batch holds few of the tracks that reach it), which
widens the spread of e_sj^2 beyond chi^2's; with M (B - 1) = 390 degrees of
freedom the denominator's spread (7 %) is small beside the numerator's
(47 % for M = 10), so the quantiles above stay a fair bound.
"""
import json
import math
import os
import subprocess
import sys
import tempfile

ALPHA = 1e-3


def betacf(a, b, x):
    """The continued fraction of the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 10000):
        m2 = 2 * m
        for num in (m * (b - m) * x / ((a + m2 - 1.0) * (a + m2)),
                    -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0))):
            d = 1.0 + num * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + num / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-15:
            break
    return h


def betai(a, b, x):
    """The regularised incomplete beta function I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    lbt = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(lbt) * betacf(a, b, x) / a
    return 1.0 - math.exp(lbt) * betacf(b, a, 1.0 - x) / b


def f_cdf(f, d1, d2):
    return betai(0.5 * d1, 0.5 * d2, d1 * f / (d1 * f + d2))


def f_quantile(p, d1, d2):
    lo, hi = 0.0, 1.0
    while f_cdf(hi, d1, d2) < p:
        hi *= 2.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if f_cdf(mid, d1, d2) < p else (lo, mid)
    return 0.5 * (lo + hi)


def self_test():
    """The F quantiles against tabulated values (F(9, 390): 95 % 1.90; F(5, 10): 99 % 5.64)."""
    assert abs(f_quantile(0.95, 9, 390) - 1.90) < 0.01, f_quantile(0.95, 9, 390)
    assert abs(f_quantile(0.99, 5, 10) - 5.636) < 0.005, f_quantile(0.99, 5, 10)
    assert abs(f_quantile(0.5, 10, 10) - 1.0) < 1e-9


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    mct, example, ref = sys.argv[1], sys.argv[2], os.path.abspath(sys.argv[3])
    seeds = int(sys.argv[4]) if len(sys.argv) > 4 else 10
    histories = sys.argv[5] if len(sys.argv) > 5 else "2e4"
    batches = int(sys.argv[6]) if len(sys.argv) > 6 else 40
    self_test()
    runs = []
    with tempfile.TemporaryDirectory() as work:
        ini = os.path.join(work, "lateral.ini")
        with open(example) as f, open(ini, "w") as o:
            for line in f:
                o.write("lateral_reference = %s\n" % ref if line.startswith("lateral_reference") else line)
        for seed in range(1, seeds + 1):
            out = os.path.join(work, "out%d" % seed)
            cmd = [mct, "run", ini, "--backend", "cpu", "--histories", histories, "--batches", str(batches),
                   "--seed", str(seed), "--out", out]
            p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
            if p.returncode:
                sys.exit("run failed: %s\n%s" % (" ".join(cmd), p.stdout))
            with open(os.path.join(out, "result.json")) as f:
                lat = json.load(f)["phantom"]["lateral"]
            if not lat["run_error_method"].startswith("batch") or lat["run_error_batches"] != batches:
                sys.exit("seed %d: the zone errors are not the batch method's over %d batches" % (seed, batches))
            runs.append(lat["depths"])
    # zones[(slab, annulus)] = (dose, batch error, independent error) per seed, for the compared zones.
    zones = {}
    for depths in runs:
        for si, s in enumerate(depths):
            p = s["profile"]
            for a in range(s["zones"]):
                if p["result"][a] == "below 5 %":
                    continue
                zones.setdefault((si, a), []).append((p["run"][a], p["run_err"][a], p["run_err_independent"][a]))
    tested = {k: v for k, v in zones.items() if len(v) == seeds}
    J = len(tested)
    d1, d2 = seeds - 1, seeds * (batches - 1)
    lo, hi = f_quantile(ALPHA / (2 * J), d1, d2), f_quantile(1.0 - ALPHA / (2 * J), d1, d2)
    print("%d seeds x %s histories x %d batches, %d compared zones; F(%d, %d) bounds %.3f .. %.3f" %
          (seeds, histories, batches, J, d1, d2, lo, hi))
    failures = 0
    pooled = {}
    for (si, a), v in sorted(tested.items()):
        s = runs[0][si]
        r_lo, r_hi = s["profile"]["r_lo_cm"][a], s["profile"]["r_hi_cm"][a]
        dose = [x[0] for x in v]
        mean = sum(dose) / seeds
        s2 = sum((x - mean) ** 2 for x in dose) / (seeds - 1)
        batch2 = sum(x[1] ** 2 for x in v) / seeds
        indep2 = sum(x[2] ** 2 for x in v) / seeds
        ratio = sum(x[1] / x[2] for x in v) / seeds
        f = s2 / batch2
        ok = lo <= f <= hi
        failures += not ok
        pooled.setdefault(si, []).append((f, s2 / indep2, ratio))
        print("  z %.1f-%.1f cm, r %.1f-%.1f cm: spread over seeds / batch error %.2f, / independent error %.2f; "
              "batch / independent error %.2f%s" % (s["z_lo_cm"], s["z_hi_cm"], r_lo, r_hi, math.sqrt(f),
                                                      math.sqrt(s2 / indep2), ratio, "" if ok else "  FAIL"))
    for si, v in sorted(pooled.items()):
        s = runs[0][si]
        n = len(v)
        print("z %.1f-%.1f cm, mean over its %d zones: spread / batch error %.2f, spread / independent error %.2f, "
              "batch / independent error %.2f" % (s["z_lo_cm"], s["z_hi_cm"], n, math.sqrt(sum(x[0] for x in v) / n),
                                                   math.sqrt(sum(x[1] for x in v) / n), sum(x[2] for x in v) / n))
    if failures:
        sys.exit("%d of %d zones: the spread over the seeds disagrees with the batch errors" % (failures, J))
    # The physics being fixed: one track deposits in neighbouring voxels, so on the axis (the narrowest
    # zones, crossed by the most tracks) the batch error is larger than the independent voxels' error.
    for si in sorted(pooled):
        axis = tested.get((si, 0))
        if axis is None:
            sys.exit("slab %d: its axis zone was not compared" % si)
        ratio = sum(x[1] / x[2] for x in axis) / seeds
        if not ratio > 1.0:
            sys.exit("z %.1f cm: the axis zone's batch error is not above its independent-voxel error (%.3f)" %
                     (runs[0][si]["z_lo_cm"], ratio))
    print("check_phantom_lateral_errors: OK")


if __name__ == "__main__":
    main()
