#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Makes data/materials/: the XCOM-format and ESTAR-format tables of the
phantom's built-in materials (see data/materials/README.md).

Inputs (snapshots of public repositories, as bare git directories or work trees):
  --demeter  bruceravel/demeter         (XCOM element files lib/Xray/data/xcom/MDATX3.0ZZ, ATWTS.DATA)
  --clan     claus-e-andersen/clanElectrons (ESTAR tables, data/df.NIST.estar.SP.rda)
  --egsnrc   nrc-cnrc/EGSnrc             (compositions: HEN_HOUSE/pegs4/data/521icru.pegs4dat;
                                          ESTAR's I and delta(E): HEN_HOUSE/pegs4/density_corrections)
Needs Python 3 with the `rdata` package (reads the .rda file).

  python3 make_materials.py --demeter D --clan C --egsnrc E --out data/materials
  python3 make_materials.py ... --check-water data/water   # the validation on water

Photon tables: XCOM's mixture rule, mu/rho = sum_i (N_A w_i / A_i) sigma_i, on XCOM's
standard grid plus every absorption edge of the constituents (a doublet: below and above);
an element's cross sections at another element's edge are interpolated linearly in log-log
in its own grid (linearly where a value is 0); every other value is XCOM's own. Electron tables: copied from
ESTAR where the R package holds the material (air); else computed (see estar_computed()).
"""
import argparse, math, os, subprocess, sys

N_A = 0.60221367          # 1e24 / mol (XCOM's value), so barn/atom -> cm2/g with A in g/mol
MEC2 = 0.51099895         # MeV
K_BETHE = 0.153536        # 2 pi r_e^2 m c^2 N_A, MeV cm2 / mol (ICRU 37)

# name: (EGSnrc medium, density file, R package id or None)
MATERIALS = {
    "water":  ("H2O521ICRU",        "water_liquid",                     "water.liquid"),
    "bone":   ("ICRPBONE521ICRU",   "bone_cortical_icrp",               None),
    "lung":   ("LUNG521ICRU",       "lung_inflated_icru_1986",          None),
    "air":    ("AIR521ICRU",        "air_dry_nearsealevel",             "air.dry"),
    "tissue": ("ICRUTISSUE521ICRU", "tissue_soft_icrufour-component",   None),
}
# ESTAR element ids in the R package (graphite for carbon: the radiative
# stopping power does not depend on the phase).
ESTAR_ELEMENT = {1: "hydrogen", 6: "graphite", 7: "nitrogen", 8: "oxygen", 11: "sodium", 12: "magnesium",
                 15: "phosphorus", 16: "sulfur", 17: "chlorine", 18: "argon", 19: "potassium", 20: "calcium",
                 30: "zinc"}

XCOM_HEADER = ("energy_MeV,coherent_cm2_g,incoherent_cm2_g,photoelectric_cm2_g,pair_nuclear_cm2_g,"
               "pair_electron_cm2_g,total_with_coherent_cm2_g,total_without_coherent_cm2_g")
ESTAR_HEADER = ("energy_MeV,collision_stopping_MeV_cm2_g,radiative_stopping_MeV_cm2_g,total_stopping_MeV_cm2_g,"
                "csda_range_g_cm2,radiation_yield,density_effect_delta")


def git_show(repo, path):
    """A file of a snapshot: a work tree, or a bare git directory (HEAD)."""
    if os.path.isfile(os.path.join(repo, path)):
        with open(os.path.join(repo, path), "rb") as f:
            return f.read()
    return subprocess.run(["git", "--git-dir", repo, "show", "HEAD:" + path], check=True,
                          capture_output=True).stdout


def g4(x):
    """4 significant digits, as NIST prints them."""
    return "%.3E" % x


# ---- Compositions and I from EGSnrc -------------------------------------------

def egs_medium(egsnrc, medium):
    """(density, [(Z, mass fraction)]) of a medium of 521icru.pegs4dat (RHOZ normalised)."""
    text = git_show(egsnrc, "HEN_HOUSE/pegs4/data/521icru.pegs4dat").decode()
    lines = text.splitlines()
    for i, l in enumerate(lines):
        if l.strip().startswith("MEDIUM=%s " % medium) or l.strip().startswith("MEDIUM=%s," % medium):
            head = lines[i + 1]
            rho = float(head.split("RHO=")[1].split(",")[0])
            ne = int(head.split("NE=")[1].split(",")[0])
            comp = []
            for k in range(ne):
                e = lines[i + 2 + k]
                z = int(float(e.split("Z=")[1].split(",")[0]))
                w = float(e.split("RHOZ=")[1])
                comp.append((z, w))
            s = sum(w for _, w in comp)
            return rho, [(z, w / s) for z, w in comp]
    raise SystemExit("medium %s not in 521icru.pegs4dat" % medium)


def density_file(egsnrc, name):
    """(I eV, density, [(Z, w)], {E MeV: delta}) of an ESTAR density-effect file."""
    text = git_show(egsnrc, "HEN_HOUSE/pegs4/density_corrections/compounds/%s.density" % name).decode()
    lines = text.splitlines()
    n, i_ev, rho, ne = lines[1].split()
    n, ne = int(n), int(ne)
    tok, k = [], 2
    while len(tok) < 2 * ne:
        tok += lines[k].split()
        k += 1
    comp = [(int(tok[2 * j]), float(tok[2 * j + 1])) for j in range(ne)]
    vals = " ".join(lines[k:]).replace(",", " ").split()
    delta = {}
    for j in range(n):
        delta[round(float(vals[2 * j]), 12)] = float(vals[2 * j + 1])
    return float(i_ev), float(rho), comp, delta


# ---- XCOM ------------------------------------------------------------------

def atomic_weights(demeter):
    text = git_show(demeter, "lib/Xray/data/xcom/ATWTS.DATA").decode()
    vals = []
    for l in text.splitlines()[1:]:
        for t in l[6:].replace("/", " ").split(","):
            t = t.strip()
            if t:
                vals.append(float(t))
    return vals  # index Z-1


def xcom_element(demeter, z):
    """(energies MeV, [5 arrays barn/atom], edges [(index of the upper value)])."""
    tok = git_show(demeter, "lib/Xray/data/xcom/MDATX3.%03d" % z).decode().split()
    p = 2
    nedge, ne = int(tok[p]), int(tok[p + 1])
    p += 2
    edge_idx = [int(t) - 1 for t in tok[p:p + nedge]]
    p += 3 * nedge  # indices, labels, energies
    e = [float(t) * 1e-6 for t in tok[p:p + ne]]
    p += ne
    cols = []
    for _ in range(5):
        cols.append([float(t) for t in tok[p:p + ne]])
        p += ne
    return e, cols, edge_idx


def interp_loglog(xs, ys, x):
    """Log-log interpolation inside xs (linear where a value is 0); xs rising,
    x inside; at a doublet the value of the side x lies on."""
    for i in range(len(xs) - 1):
        if xs[i] <= x <= xs[i + 1] and xs[i + 1] > xs[i]:
            x0, x1, y0, y1 = xs[i], xs[i + 1], ys[i], ys[i + 1]
            if x == x0:
                return y0
            if x == x1:
                return y1
            if y0 > 0 and y1 > 0:
                return math.exp(math.log(y0) + (math.log(y1) - math.log(y0)) * math.log(x / x0) / math.log(x1 / x0))
            return y0 + (y1 - y0) * (x - x0) / (x1 - x0)
    raise ValueError("energy %g outside the table" % x)


def xcom_mixture(demeter, comp):
    """Rows (E, coh, incoh, photo, pair_n, pair_e, total, total without coherent), cm2/g."""
    aw = atomic_weights(demeter)
    elems = {z: xcom_element(demeter, z) for z, _ in comp}
    # The grid: the standard energies (those of H's file) and every edge doublet.
    std = xcom_element(demeter, 1)[0]
    points = [(e, None) for e in std]  # (energy, (Z, side)) side 0: below, 1: above the edge
    for z, (e, _, edges) in elems.items():
        for k in edges:
            points.append((e[k - 1], (z, 0)))
            points.append((e[k], (z, 1)))
    points.sort(key=lambda p: (p[0], p[1][1] if p[1] else 0))
    rows = []
    for energy, tag in points:
        sums = [0.0] * 5
        for z, w in comp:
            e, cols, edges = elems[z]
            f = N_A * w / aw[z - 1]
            for c in range(5):
                if tag and tag[0] == z:  # this element's own edge: its value on that side
                    k = edges_index(e, energy, tag[1])
                    v = cols[c][k]
                elif energy in e:
                    v = cols[c][e.index(energy)]
                else:
                    v = interp_loglog(e, cols[c], energy)
                sums[c] += f * v
        rows.append([energy] + sums)
    out = []
    for r in rows:
        v = [float(g4(x)) for x in r[1:]]
        tot = float(g4(sum(r[1:6])))
        nocoh = float(g4(sum(r[2:6])))
        out.append([r[0]] + v + [tot, nocoh])
    return out


def edges_index(e, energy, side):
    for k in range(len(e)):
        if e[k] == energy:
            return k
    raise ValueError


def write_xcom(path, rows):
    with open(path, "w") as f:
        f.write(XCOM_HEADER + "\n")
        for r in rows:
            f.write(",".join(["%.4E" % r[0]] + [g4(x) for x in r[1:]]) + "\n")


# ---- ESTAR -----------------------------------------------------------------

def estar_tables(clan):
    import io, tempfile
    import rdata
    raw = git_show(clan, "data/df.NIST.estar.SP.rda")
    with tempfile.NamedTemporaryFile(suffix=".rda") as t:
        t.write(raw)
        t.flush()
        df = list(rdata.read_rda(t.name).values())[0]
    tabs = {}
    for mid, g in df.groupby("id"):
        g = g.sort_values("MeV")
        tabs[str(mid)] = [[float(g[c].iloc[i]) for c in ("MeV", "MSP.el", "MSP.rad", "MSP.tot", "range.CSDA",
                                                         "rad.yield", "density.effect")] for i in range(len(g))]
    return tabs


def z_over_a(comp, aw):
    return sum(w * z / aw[z - 1] for z, w in comp)


def bethe_collision(t, i_ev, zoa, delta):
    """ICRU 37 collision stopping power of electrons, MeV cm2/g."""
    tau = t / MEC2
    beta2 = tau * (tau + 2.0) / (tau + 1.0) ** 2
    f = 1.0 - beta2 + (tau * tau / 8.0 - (2.0 * tau + 1.0) * math.log(2.0)) / (tau + 1.0) ** 2
    ir = i_ev * 1e-6 / MEC2
    return K_BETHE * zoa / beta2 * (math.log(tau * tau * (tau + 2.0) / (2.0 * ir * ir)) + f - delta)


def delta_at(dtab, t):
    """delta at t, log-linear in the density file's grid (delta is 0 or smooth)."""
    xs = sorted(dtab)
    if t <= xs[0]:
        return dtab[xs[0]]
    for i in range(len(xs) - 1):
        if xs[i] <= t <= xs[i + 1]:
            f = math.log(t / xs[i]) / math.log(xs[i + 1] / xs[i])
            return dtab[xs[i]] + f * (dtab[xs[i + 1]] - dtab[xs[i]])
    return dtab[xs[-1]]


def estar_computed(comp, i_ev, dtab, aw, tabs, grid):
    """ESTAR's quantities for a compound not in the R package:
    collision: the ICRU 37 Bethe formula with ESTAR's I and delta(E) (the
      density-effect file), Z/A from the composition;
    radiative: Bragg additivity of ESTAR's element values (per-atom cross
      sections add; ESTAR does the same for compounds);
    CSDA range and radiation yield: integrals of 1/S_tot and S_rad/S_tot from
      1 keV (below, S as a power of T) by Simpson's rule on 64 steps per ESTAR interval in
      ln T, the radiative stopping power held at its 12.5 keV value below."""
    zoa = z_over_a(comp, aw)
    elem = {z: tabs[ESTAR_ELEMENT[z]] for z, _ in comp}

    def s_rad(t):
        s = 0.0
        for z, w in comp:
            tab = elem[z]
            xs = [r[0] for r in tab]
            ys = [r[2] for r in tab]
            s += w * (ys[0] if t <= xs[0] else interp_loglog(xs, ys, t))
        return s

    def s_col(t):
        return bethe_collision(t, i_ev, zoa, delta_at(dtab, t))

    def integrals(t0, t1, steps):
        h = math.log(t1 / t0) / steps
        r = y = 0.0
        for k in range(steps + 1):
            t = t0 * math.exp(k * h)
            c = 1.0 if k in (0, steps) else (4.0 if k % 2 else 2.0)
            st = s_col(t) + s_rad(t)
            r += c * t / st          # dT/S = T dlnT / S
            y += c * t * s_rad(t) / st
        return r * h / 3.0, y * h / 3.0

    # Below 1 keV: S taken as a power of T (its log slope p at 1 keV), R(1 keV) = T/(S (1 + p)).
    t0 = 1e-3
    p = -math.log(s_col(t0 * 1.01) / s_col(t0)) / math.log(1.01)
    rows = []
    rng, yld = integrals(t0, grid[0], 256)
    rng += t0 / ((s_col(t0) + s_rad(t0)) * (1.0 + p))
    prev = grid[0]
    for t in grid:
        if t > prev:
            a, b = integrals(prev, t, 64)
            rng += a
            yld += b
        prev = t
        c, rd = s_col(t), s_rad(t)
        rows.append([t, c, rd, c + rd, rng, yld / t, delta_at(dtab, t)])
    return rows


def write_estar(path, rows):
    with open(path, "w") as f:
        f.write(ESTAR_HEADER + "\n")
        for r in rows:
            # total from the rounded parts, as ESTAR prints them
            c, rd = float(g4(r[1])), float(g4(r[2]))
            f.write(",".join([g4(r[0]), g4(c), g4(rd), g4(c + rd), g4(r[4]), g4(r[5]), g4(r[6])]) + "\n")


def read_csv(path):
    with open(path) as f:
        next(f)
        return [[float(x) for x in l.split(",")] for l in f if l.strip()]


def compare(name, a, b, cols, rtol):
    """Largest relative difference of the columns; a failure if above rtol."""
    worst = 0.0
    for ra, rb in zip(a, b):
        if abs(ra[0] - rb[0]) > 1e-9 * rb[0]:
            raise SystemExit("%s: energies differ (%g, %g)" % (name, ra[0], rb[0]))
        for c in cols:
            if rb[c] != 0.0 or ra[c] != 0.0:
                d = abs(ra[c] - rb[c]) / max(abs(rb[c]), 1e-300)
                worst = max(worst, d)
    print("%-34s %d rows, largest relative difference %.2e (limit %.1e)" % (name, len(b), worst, rtol))
    return worst <= rtol


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--demeter", required=True)
    ap.add_argument("--clan", required=True)
    ap.add_argument("--egsnrc", required=True)
    ap.add_argument("--out", help="folder for the CSV files (data/materials)")
    ap.add_argument("--check-water", help="data/water: regenerate water and compare")
    a = ap.parse_args()
    aw = atomic_weights(a.demeter)
    tabs = estar_tables(a.clan)
    grid = [r[0] for r in tabs["water.liquid"]]
    ok = True
    for name, (medium, dfile, clan_id) in MATERIALS.items():
        rho, comp = egs_medium(a.egsnrc, medium)
        i_ev, _, dcomp, dtab = density_file(a.egsnrc, dfile)
        for (z1, w1), (z2, w2) in zip(comp, dcomp):
            if z1 != z2 or abs(w1 - w2) > 2e-4:
                raise SystemExit("%s: EGSnrc composition and density file differ (%d %g, %d %g)" % (name, z1, w1, z2, w2))
        print("%-7s %-18s rho %.6g  I %.3f eV  Z/A %.5f  %s" % (name, medium, rho, i_ev, z_over_a(comp, aw),
                                                              " ".join("%d:%.6f" % c for c in comp)))
        xrows = xcom_mixture(a.demeter, comp)
        erows = tabs[clan_id] if clan_id else estar_computed(comp, i_ev, dtab, aw, tabs, grid)
        if a.out and name != "water":
            write_xcom(os.path.join(a.out, name + "_photon_xcom.csv"), xrows)
            write_estar(os.path.join(a.out, name + "_electron_estar.csv"), erows)
        if a.check_water and name == "water":
            ref_x = read_csv(os.path.join(a.check_water, "water_photon_xcom.csv"))
            ref_e = read_csv(os.path.join(a.check_water, "water_electron_estar.csv"))
            # XCOM water with EGSnrc's fractions (0.111894 vs XCOM's 0.111898):
            # within the 4-digit rounding (5e-4) and the fractions' 4e-5.
            ok &= compare("water XCOM (regenerated)", xrows, ref_x, range(1, 8), 6e-4)
            ok &= compare("water ESTAR (copied)", [[float(g4(x)) for x in r] for r in erows], ref_e, range(1, 7), 0.0)
            calc = estar_computed(comp, i_ev, dtab, aw, tabs, grid)
            ok &= compare("water ESTAR collision (computed)", calc, ref_e, [1], 2e-3)
            ok &= compare("water ESTAR radiative (additivity)", calc, ref_e, [2], 3e-3)
            ok &= compare("water ESTAR CSDA range (computed)", calc, ref_e, [4], 3e-3)
            ok &= compare("water ESTAR radiation yield (computed)", calc, ref_e, [5], 2.5e-2)
            ok &= compare("water ESTAR delta (density file)", calc, ref_e, [6], 2e-3)
            air = estar_computed(egs_medium(a.egsnrc, "AIR521ICRU")[1], density_file(a.egsnrc, "air_dry_nearsealevel")[0],
                                 density_file(a.egsnrc, "air_dry_nearsealevel")[3], aw, tabs, grid)
            ok &= compare("air ESTAR collision (computed)", air, tabs["air.dry"], [1], 2e-3)
            ok &= compare("air ESTAR radiative (additivity)", air, tabs["air.dry"], [2], 3e-3)
            ok &= compare("air ESTAR CSDA range (computed)", air, tabs["air.dry"], [4], 3e-3)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
