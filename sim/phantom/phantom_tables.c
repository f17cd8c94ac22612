/* SPDX-License-Identifier: BSD-3-Clause */
/** @file phantom_tables.c  The engine's tables of one material from its NIST
 * XCOM and ESTAR tables and its composition: photon attenuation and
 * branching, the class II electron quantities (Moller and bremsstrahlung
 * cross sections above the thresholds, the continuous stopping power below
 * them and its range table, inverted, the multiple-scattering transport mean
 * free paths and the elastic cross section as one Wentzel law), and reference
 * values. Mass units (cm2/g, g/cm2): the transport multiplies by the density
 * (1 g/cm3 for the water cube). */
#include <math.h>
#include <stdlib.h>

#include "phantom_tables.h"

#define PH_MEC2 MCT_PHANTOM_MEC2

/* Grids: photons 1 keV to 1 GeV (XCOM starts at 1 keV), electrons 12.5 keV
 * (ESTAR's first row here) to 1 GeV. */
#define PHOTON_E_MIN 1.0e-3
#define ELECTRON_T_MIN 1.25e-2
#define E_MAX 1.0e3

/* Column numbers of the CSV files (see data/water/README.md). */
enum { XCOM_E = 0, XCOM_COH, XCOM_INCOH, XCOM_PHOTO, XCOM_PAIR_N, XCOM_PAIR_E, XCOM_TOT, XCOM_TOT_NOCOH };
enum { ESTAR_E = 0, ESTAR_COL, ESTAR_RAD, ESTAR_TOT, ESTAR_CSDA };

/* Log-log interpolation of column `col` of a row-major table at x (column
 * 0), clamped to the table's ends; linear where a value is 0 (pair
 * production at its threshold). */
static double interp(const double* tab, int rows, int cols, int col, double x) {
    if (x <= tab[0]) return tab[col];
    if (x >= tab[(size_t)(rows - 1) * cols]) return tab[(size_t)(rows - 1) * cols + col];
    int i = 0;
    while (tab[(size_t)(i + 1) * cols] < x) ++i;
    const double x0 = tab[(size_t)i * cols], x1 = tab[(size_t)(i + 1) * cols];
    const double y0 = tab[(size_t)i * cols + col], y1 = tab[(size_t)(i + 1) * cols + col];
    if (y0 > 0.0 && y1 > 0.0) return exp(log(y0) + (log(y1) - log(y0)) * (log(x) - log(x0)) / (log(x1) - log(x0)));
    return y0 + (y1 - y0) * (x - x0) / (x1 - x0);
}

/* What the tables of one material are built from: its NIST tables, and its
 * elements as atoms per unit mass (scale x count[i] per gram) with their Z. */
typedef struct {
    const double *xcom, *estar;
    int xcom_rows, estar_rows;
    int elements;
    int z[MCT_PHANTOM_MAX_ELEMENTS];
    double count[MCT_PHANTOM_MAX_ELEMENTS], scale;
    double electrons_per_g;
} material_t;

static double xcom_of(const material_t* m, int col, double e) { return interp(m->xcom, m->xcom_rows, 8, col, e); }
static double estar_of(const material_t* m, int col, double t) { return interp(m->estar, m->estar_rows, 7, col, t); }
static double xcom(int col, double e) { return interp(sim_water_xcom, sim_water_xcom_rows, sim_water_xcom_cols, col, e); }
static double estar(int col, double t) { return interp(sim_water_estar, sim_water_estar_rows, sim_water_estar_cols, col, t); }

double mct_phantom_xcom_mu(double e, int with_coherent) { return xcom(with_coherent ? XCOM_TOT : XCOM_TOT_NOCOH, e); }
double mct_phantom_srd126_mu(double e) {
    return interp(sim_water_srd126, sim_water_srd126_rows, sim_water_srd126_cols, 1, e);
}
double mct_phantom_estar_csda_cm(double t) { return estar(ESTAR_CSDA, t); }

/* Atomic weights (g/mol) as XCOM's ATWTS.DATA has them (the tables of
 * data/materials were made with these), by Z - 1. */
static const double atomic_weight[] = {
    1.00794,   4.002602, 6.941,     9.012182,  10.811,    12.011,    14.00674,  15.9994,   18.9984032, 20.1797,
    22.989768, 24.3050,  26.981539, 28.0855,   30.973762, 32.066,    35.4527,   39.948,    39.0983,    40.078,
    44.955910, 47.88,    50.9415,   51.9961,   54.93805,  55.847,    58.93320,  58.69,   63.546,     65.39,
    69.723,    72.61,    74.92159,  78.96,     79.904,    83.80,     85.4678,   87.62,     88.90585,   91.224,
    92.90638,  95.94,    97.9072,   101.07,    102.90550, 106.42,    107.8682,  112.411,   114.82,    118.710,
    121.75,   127.60,   126.90447, 131.29,    132.90543, 137.327,   138.9055,  140.115,   140.90765,  144.24,
    144.9127,  150.36,   151.965,   157.25,    158.92534, 162.50,    164.93032, 167.26,    168.93421,  173.04,
    174.967,   178.49,   180.9479,  183.85,    186.207,   190.2,    192.22,    195.08,    196.96654,  200.59,
    204.3833,  207.2,    208.98037, 208.9824,  209.9871,  222.0176,  223.0197,  226.0254,  227.0278,   232.0381,
    231.03588, 238.0289};

double mct_phantom_atomic_weight(int z) {
    return z >= 1 && z <= (int)(sizeof atomic_weight / sizeof *atomic_weight) ? atomic_weight[z - 1] : 0.0;
}

/* Water as the engine always had it (m NULL): H2O molecules per gram. */
static material_t water_material(void) {
    material_t w = {sim_water_xcom, sim_water_estar, sim_water_xcom_rows, sim_water_estar_rows, 2, {1, 8}, {2.0, 1.0},
                    6.02214076e23 / 18.01528, MCT_PHANTOM_ELECTRONS_PER_G};
    return w;
}

/* A material's: atoms of element i per gram = N_A w_i / A_i. */
static material_t material_of(const mct_phantom_material_t* m) {
    material_t r = {m->xcom, m->estar, m->xcom_rows, m->estar_rows, m->elements, {0}, {0}, 6.02214076e23, 0.0};
    double zoa = 0.0;
    for (int i = 0; i < m->elements; ++i) {
        r.z[i] = m->z[i];
        r.count[i] = m->w[i] / mct_phantom_atomic_weight(m->z[i]);
        zoa += r.count[i] * m->z[i];
    }
    r.electrons_per_g = r.scale * zoa;
    return r;
}

static double* table(sim_phantom_tables_t* t, int k) { return t->f64 + (size_t)k * t->n; }

/* ---- Class II electron quantities ---------------------------------------- */

/* dcut: Moller delta rays made above it; hcut: the larger of dcut and the
 * electron cut-off, above which a delta ray is transported (a hard event that
 * ends its step); those between stop where they are made (MCT_PH_T_SIG_LOCAL). */
typedef struct {
    double dcut, hcut, kcut;
} thresholds_t;

static thresholds_t thresholds_of(const mct_phantom_params_t* p) {
    thresholds_t th;
    th.dcut = p->delta_threshold_MeV > 0.0 ? p->delta_threshold_MeV : MCT_PHANTOM_DELTA_DEFAULT_MEV;
    th.hcut = p->electron_cutoff_MeV > th.dcut ? p->electron_cutoff_MeV : th.dcut;
    th.kcut = p->brems_threshold_MeV > 0.0 ? p->brems_threshold_MeV : p->photon_cutoff_MeV;
    return th;
}

/* The Moller cross section's scale at kinetic energy t, 2 pi re^2 mc^2
 * (electrons per gram) / beta^2, and its r^2 = (tau / (tau + 1))^2. */
static double moller_scale(const material_t* m, double t, double* r2) {
    const double tau = t / PH_MEC2, beta2 = tau * (tau + 2.0) / ((tau + 1.0) * (tau + 1.0));
    *r2 = (tau / (tau + 1.0)) * (tau / (tau + 1.0));
    return 2.0 * MCT_PHANTOM_PI * MCT_PHANTOM_RE_CM * MCT_PHANTOM_RE_CM * PH_MEC2 * m->electrons_per_g / beta2;
}

/* Moller scattering on the material's electrons at kinetic energy t with
 * energy transfers in [dcut, t/2]: the mass cross section (cm2/g) and the
 * energy loss rate (MeV cm2/g), both in closed form from
 * dsigma/dx = 2 pi re^2 mc^2 / (beta^2 t) [1/x^2 + 1/(1-x)^2 + r^2 - (1-r^2)/(x(1-x))]. */
static void moller(const material_t* m, double t, double dcut, double* sigma, double* loss) {
    *sigma = *loss = 0.0;
    if (t <= 2.0 * dcut) return;
    double r2;
    const double c = moller_scale(m, t, &r2);
    const double xc = dcut / t;
    *sigma = c / t * (1.0 / xc - 1.0 / (1.0 - xc) + r2 * (0.5 - xc) - (1.0 - r2) * log((1.0 - xc) / xc));
    *loss = c * (log(0.5 / xc) + 2.0 - log(2.0) - 1.0 / (1.0 - xc) - log(1.0 - xc) + r2 * (0.125 - 0.5 * xc * xc) -
                 (1.0 - r2) * log(2.0 * (1.0 - xc)));
}

/* The primary's deflection in the Moller collisions with transfers in
 * [lo, hi] at kinetic energy t: the integrals of (1 - cos) and of
 * 1 - P2(cos) = 3/2 sin^2 over the cross section (cm2/g), Simpson's rule in
 * ln eps (the integrands are smooth there: 64 intervals give 1e-7), with
 * sin^2 = 2 m eps / (t (t - eps + 2 m)) from energy and momentum. */
static void moller_deflection(const material_t* m, double t, double lo, double hi, double* l1, double* l2) {
    *l1 = *l2 = 0.0;
    if (!(hi > lo)) return;
    double r2;
    const double c = moller_scale(m, t, &r2);
    const int n = 64;
    const double l0 = log(lo), h = (log(hi) - l0) / n;
    for (int i = 0; i <= n; ++i) {
        const double e = exp(l0 + i * h), x = e / t;
        const double w = (i == 0 || i == n ? 1.0 : (i % 2 ? 4.0 : 2.0)) * h / 3.0 * e; /* d eps = eps d ln eps */
        const double ds = c / (t * t) * mct_ph_moller_bracket_f64(x, r2) / (x * x);
        const double s2 = 2.0 * PH_MEC2 * e / (t * (t - e + 2.0 * PH_MEC2));
        *l1 += w * ds * s2 / (1.0 + sqrt(1.0 - s2));
        *l2 += w * ds * 1.5 * s2;
    }
}

/* Simpson's rule with this many intervals (even) for the integrals of the
 * bremsstrahlung shape: it is smooth in k and in ln k, so 512 intervals give
 * its integrals to better than 1e-6. */
#define BREMS_INTERVALS 512

/* The integral of the bremsstrahlung shape g(k/E) (mct_ph_brems_shape_f64)
 * over k in [0, x], E the total energy. */
static double brems_g_integral(const mct_ph_tables_t_f64* v, double x, double etot) {
    const double h = x / BREMS_INTERVALS;
    double s = 0.0;
    for (int i = 0; i <= BREMS_INTERVALS; ++i)
        s += (i == 0 || i == BREMS_INTERVALS ? 1.0 : (i % 2 ? 4.0 : 2.0)) * mct_ph_brems_shape_f64(v, i * h / etot, etot);
    return s * h / 3.0;
}

/* The integral of g(k/E)/k over k in [lo, hi], in ln k. */
static double brems_g_over_k_integral(const mct_ph_tables_t_f64* v, double lo, double hi, double etot) {
    const double l0 = log(lo), h = (log(hi) - l0) / BREMS_INTERVALS;
    double s = 0.0;
    for (int i = 0; i <= BREMS_INTERVALS; ++i)
        s += (i == 0 || i == BREMS_INTERVALS ? 1.0 : (i % 2 ? 4.0 : 2.0)) *
             mct_ph_brems_shape_f64(v, exp(l0 + i * h) / etot, etot);
    return s * h / 3.0;
}

/* Bremsstrahlung at kinetic energy t with ESTAR's radiative stopping power
 * srad, the shape of v: the cross section for photons above kcut (cm2/g) and
 * the radiative loss to photons below it (MeV cm2/g). */
static void brems(const mct_ph_tables_t_f64* v, double t, double srad, double kcut, double* sigma, double* soft) {
    if (t <= kcut) {
        *sigma = 0.0;
        *soft = srad;
        return;
    }
    const double etot = t + PH_MEC2, norm = srad / brems_g_integral(v, t, etot);
    *sigma = norm * brems_g_over_k_integral(v, kcut, t, etot);
    *soft = norm * brems_g_integral(v, kcut, etot);
}

/* Screened Rutherford (Wentzel) scattering of an electron of kinetic energy
 * t on element Z, in u = (1 - cos)/2: dsigma/du = k / (u + eta)^2 per atom,
 * k = pi Z(Z+1) re^2 (mc^2/(beta c p))^2, with Moliere's screening parameter
 * eta = 1/4 (alpha Z^(1/3) mc^2 / (0.885 p c))^2 (1.13 + 3.76 (alpha Z / beta)^2). */
static void wentzel_of(double z, double t, double* k, double* eta) {
    const double alpha = 7.2973525693e-3;
    const double pc2 = t * (t + 2.0 * PH_MEC2), bcp = pc2 / (t + PH_MEC2), beta2 = pc2 / ((t + PH_MEC2) * (t + PH_MEC2));
    const double a = alpha * cbrt(z) * PH_MEC2 / (0.885 * sqrt(pc2));
    *eta = 0.25 * a * a * (1.13 + 3.76 * alpha * alpha * z * z / beta2);
    *k = MCT_PHANTOM_PI * z * (z + 1.0) * MCT_PHANTOM_RE_CM * MCT_PHANTOM_RE_CM * (PH_MEC2 / bcp) * (PH_MEC2 / bcp);
}

/* Inverse first (order 1) or second (order 2) transport mean free path
 * (cm2/g) of an electron of kinetic energy t in the material, from the
 * screened Rutherford cross sections of its elements (wentzel_of), summed over
 * the atoms per gram, each element with its own screening parameter (the
 * atoms scatter independently, so the sum is exact for this model):
 * sigma1 = integral of 2u dsigma = 2 k [ln(1 + 1/eta) - 1/(1 + eta)],
 * sigma2 = integral of 6u(1 - u) dsigma = 6 k [(1 + 2 eta) ln(1 + 1/eta) - 2]. */
static double inv_lambda(const material_t* m, double t, int order) {
    double sum = 0.0;
    for (int i = 0; i < m->elements; ++i) {
        double k, eta;
        wentzel_of(m->z[i], t, &k, &eta);
        const double shape = order == 1 ? log(1.0 + 1.0 / eta) - 1.0 / (1.0 + eta)
                                        : (1.0 + 2.0 * eta) * log1p(1.0 / eta) - 2.0;
        sum += m->count[i] * (order == 1 ? 2.0 : 6.0) * k * shape;
    }
    return m->scale * sum;
}

/* The material's cross section as one Wentzel law, for the hard collisions
 * of the multiple-scattering sampler (MCT_PH(mcs_one_minus_cos)): the scale
 * K = sum of the elements' k per gram (cm2/g), exact, since every element's
 * cross section is K_i/u^2 above its screening angle; and one eta, ln eta =
 * sum K_i ln eta_i / K, which gives the sum's 1/lambda1 to order eta (it
 * enters as sum K_i ln(1/eta_i)). */
static void wentzel_material(const material_t* m, double t, double* kk, double* eta) {
    double ks = 0.0, kl = 0.0;
    for (int i = 0; i < m->elements; ++i) {
        double k, e;
        wentzel_of(m->z[i], t, &k, &e);
        ks += m->count[i] * k;
        kl += m->count[i] * k * log(e);
    }
    *kk = m->scale * ks;
    *eta = exp(kl / ks);
}

/* ---- The Wentzel law of the sampler's long steps ------------------------ *
 * W_A(u) = A (1 + A) / (u + A)^2 on u = (1 - cos)/2 in [0, 1]. Its moments
 * <u^k> = (1 + y) sum_j (j + 1) (-y)^j / (j + k + 1), y = 1/A, for A > 5
 * (the closed forms cancel there); below, in closed form with L = ln(1 + 1/A):
 * <u> = A (1 + A) L - A, <u^2> = A (1 + A) (1 - 2 A L + A/(1 + A)). */
static void wentzel_moments(double a, double* m1, double* m2) {
    if (a > 5.0) {
        const double y = 1.0 / a;
        double s1 = 0.0, s2 = 0.0, p = 1.0;
        for (int j = 0; j < 60; ++j, p *= -y) {
            s1 += (j + 1) * p / (j + 2);
            s2 += (j + 1) * p / (j + 3);
        }
        *m1 = (1.0 + y) * s1;
        *m2 = (1.0 + y) * s2;
        return;
    }
    const double l = log1p(1.0 / a);
    *m1 = a * (1.0 + a) * l - a;
    *m2 = a * (1.0 + a) * (1.0 - 2.0 * a * l + a / (1.0 + a));
}

/* ln A of the Wentzel law whose <u> (which = 0) or <u^2>/<u> (which = 1) is
 * `target`: both grow with A; bisection in ln A over [-120, 60]. */
static double wentzel_ln_a(int which, double target) {
    double lo = -120.0, hi = 60.0;
    for (int it = 0; it < 200 && hi - lo > 1e-13; ++it) {
        const double mid = 0.5 * (lo + hi);
        double m1, m2;
        wentzel_moments(exp(mid), &m1, &m2);
        const double v = which ? m2 / m1 : m1;
        if (v < target)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

/* The tables of the sampler's long steps (MCT_PH(mcs_wentzel)): on the logit grid,
 * ln A and <u^2>/<u> of the Wentzel law with <u> = m; on the grid of t =
 * <u>/<u^2>, ln A and ln <u> of the law with that ratio. */
static void build_wentzel(sim_phantom_tables_t* t) {
    for (int i = 0; i < t->n; ++i) {
        const double v = t->q_ln0 + i / t->q_inv, m = 0.5 / (1.0 + exp(-v));
        const double la = wentzel_ln_a(0, m);
        double m1, m2;
        wentzel_moments(exp(la), &m1, &m2);
        table(t, MCT_PH_T_MW_LN_A)[i] = la;
        table(t, MCT_PH_T_MW_RATIO)[i] = m2 / m1;
        const double k = t->k_lo + i / t->k_inv;
        const double lb = wentzel_ln_a(1, 1.0 / k);
        wentzel_moments(exp(lb), &m1, &m2);
        table(t, MCT_PH_T_MW_INV_LN_A)[i] = lb;
        table(t, MCT_PH_T_MW_INV_LN_M)[i] = log(m1);
    }
}

/* The continuous stopping power (MeV cm2/g): collision minus hard Moller
 * collisions, plus soft bremsstrahlung. */
static double s_cont(const material_t* m, const mct_ph_tables_t_f64* v, double t, thresholds_t th) {
    double sm, lm, sb, soft;
    moller(m, t, th.dcut, &sm, &lm);
    brems(v, t, estar_of(m, ESTAR_RAD, t), th.kcut, &sb, &soft);
    return estar_of(m, ESTAR_COL, t) - lm + soft;
}

/* ---- Building ------------------------------------------------------------ */


static void build_photon(sim_phantom_tables_t* t, const material_t* m) {
    for (int i = 0; i < t->n; ++i) {
        const double e = exp(t->p_ln0 + i / t->p_inv);
        const double incoh = xcom_of(m, XCOM_INCOH, e), photo = xcom_of(m, XCOM_PHOTO, e);
        const double pair = xcom_of(m, XCOM_PAIR_N, e) + xcom_of(m, XCOM_PAIR_E, e);
        const double total = incoh + photo + pair;
        table(t, MCT_PH_T_MU)[i] = total;
        table(t, MCT_PH_T_P_PHOTO)[i] = photo / total;
        table(t, MCT_PH_T_P_PHOTO_INCOH)[i] = (photo + incoh) / total;
    }
}

/* Range by Simpson's rule on each grid interval of ln T (the integrand
 * T/S(T) is smooth there), starting from ESTAR's CSDA range at the first
 * point, where no threshold is passed. */
static void build_electron(sim_phantom_tables_t* t, const material_t* m, thresholds_t th) {
    const mct_ph_tables_t_f64 v = sim_phantom_tables_view_f64(t, t->f64);
    double* range = table(t, MCT_PH_T_RANGE);
    const double h = 1.0 / t->e_inv;
    double prev_f = 0.0;
    for (int i = 0; i < t->n; ++i) {
        const double lt = t->e_ln0 + i * h, e = exp(lt);
        double sm, lm, sh, lh, sb, soft;
        moller(m, e, th.dcut, &sm, &lm);
        moller(m, e, th.hcut, &sh, &lh);
        brems(&v, e, estar_of(m, ESTAR_RAD, e), th.kcut, &sb, &soft);
        table(t, MCT_PH_T_SIG_MOLLER)[i] = sh;
        table(t, MCT_PH_T_SIG_LOCAL)[i] = sm - sh > 0.0 ? sm - sh : 0.0;
        moller_deflection(m, e, th.dcut, e / 2.0 < th.hcut ? e / 2.0 : th.hcut,
                          &table(t, MCT_PH_T_LOCAL_INV_LAMBDA1)[i], &table(t, MCT_PH_T_LOCAL_INV_LAMBDA2)[i]);
        table(t, MCT_PH_T_SIG_BREM)[i] = sb;
        table(t, MCT_PH_T_INV_LAMBDA1)[i] = inv_lambda(m, e, 1);
        table(t, MCT_PH_T_INV_LAMBDA2)[i] = inv_lambda(m, e, 2);
        wentzel_material(m, e, &table(t, MCT_PH_T_MS_K)[i], &table(t, MCT_PH_T_MS_ETA)[i]);
        const double f = e / s_cont(m, &v, e, th);
        if (i == 0) {
            range[i] = estar_of(m, ESTAR_CSDA, e);
        } else {
            const double em = exp(lt - 0.5 * h);
            range[i] = range[i - 1] + h / 6.0 * (prev_f + 4.0 * em / s_cont(m, &v, em, th) + f);
        }
        prev_f = f;
    }
    /* Majorant: maj[i] = max of the sum over points 0 .. i+1, so it bounds the
     * interpolated sum at every energy below the interpolated majorant's. */
    double run = 0.0;
    for (int i = 0; i < t->n; ++i) {
        const int j = i + 1 < t->n ? i + 1 : i;
        const double a = table(t, MCT_PH_T_SIG_BREM)[i] + table(t, MCT_PH_T_SIG_MOLLER)[i];
        const double b = table(t, MCT_PH_T_SIG_BREM)[j] + table(t, MCT_PH_T_SIG_MOLLER)[j];
        if (a > run) run = a;
        table(t, MCT_PH_T_SIG_MAJ)[i] = b > run ? b : run;
    }
}

/* Energy as a function of residual range: the exact inverse of the engine's
 * forward look-up (linear in ln T between grid points). */
static void build_inverse_range(sim_phantom_tables_t* t) {
    const double* range = table(t, MCT_PH_T_RANGE);
    double* e_of_r = table(t, MCT_PH_T_E_OF_R);
    t->r_ln0 = log(range[0]);
    t->r_inv = (t->n - 1) / (log(range[t->n - 1]) - t->r_ln0);
    int i = 0;
    for (int j = 0; j < t->n; ++j) {
        double r = exp(t->r_ln0 + j / t->r_inv);
        if (j == t->n - 1) r = range[t->n - 1];
        while (i < t->n - 2 && range[i + 1] < r) ++i;
        double f = (r - range[i]) / (range[i + 1] - range[i]);
        f = f < 0.0 ? 0.0 : (f > 1.0 ? 1.0 : f);
        e_of_r[j] = exp(t->e_ln0 + (i + f) / t->e_inv);
    }
}

/* The bremsstrahlung shape's parameters (MCT_PH(brems_shape)): water's as
 * the engine always had them (per molecule: weights 2 x 1 x 2 and 1 x 8 x 9),
 * or per element of the material (atoms per unit mass / N_A times Z(Z+1)). */
static void brems_parameters(sim_phantom_tables_t* t, const material_t* m, int water) {
    if (water) {
        t->brems_n = 2;
        t->brems_w[0] = 4.0, t->brems_w[1] = 72.0;
        t->brems_zm13[0] = 1.0, t->brems_zm13[1] = 0.5;
        t->brems_c[0] = 0.0, t->brems_c[1] = 2.7725887222397811; /* 4/3 ln 8 */
        t->brems_bound = 2772.5;                                /* above 2 sum_i w_i (20.867 - c_i) = 2772.49 */
        return;
    }
    t->brems_n = m->elements;
    double bound = 0.0;
    for (int i = 0; i < m->elements; ++i) {
        const double z = m->z[i];
        t->brems_w[i] = m->count[i] * z * (z + 1.0);
        t->brems_zm13[i] = 1.0 / cbrt(z);
        t->brems_c[i] = 4.0 / 3.0 * log(z);
        bound += t->brems_w[i] * (20.867 - t->brems_c[i]);
    }
    /* 2 sum_i w_i (phi1(0) - c_i): the shape's bound, as for water, since
     * phi1 >= phi2 and both fall with d; c_i < phi1(0) for every Z <= 92. */
    t->brems_bound = 2.0 * bound;
}

/* Whether m is data/water's water: NULL, a material without tables (a
 * geometry's placeholder), or one with data/water's tables and H2O's
 * elements (the built-in "water", whose mass fractions are H2O's to 1e-6).
 * Those all get the tables the water cube always had, from H2O molecules. */
static int is_water(const mct_phantom_material_t* m) {
    if (!m || (!m->xcom && !m->estar)) return 1;
    return m->xcom == sim_water_xcom && m->estar == sim_water_estar && m->elements == 2 && m->z[0] == 1 &&
           m->z[1] == 8 && fabs(m->w[0] - 2.0 * 1.00794 / 18.01528) < 1e-5;
}

mct_status_t sim_phantom_tables_build(const mct_phantom_params_t* p, const mct_phantom_material_t* mat,
                                      sim_phantom_tables_t* t) {
    const int n = MCT_PHANTOM_TABLE_POINTS;
    const int water = is_water(mat);
    if (!water && (mat->elements < 1 || mat->elements > MCT_PHANTOM_MAX_ELEMENTS || !mat->xcom || !mat->estar ||
                   mat->xcom_rows < 2 || mat->estar_rows < 2))
        return MCT_STATUS_INVALID_VALUE;
    if (!water)
        for (int i = 0; i < mat->elements; ++i)
            if (mct_phantom_atomic_weight(mat->z[i]) == 0.0) return MCT_STATUS_INVALID_VALUE;
    const material_t m = water ? water_material() : material_of(mat);
    t->n = n;
    t->f64 = malloc((size_t)MCT_PH_T_COUNT * n * sizeof(double));
    t->f32 = malloc((size_t)MCT_PH_T_COUNT * n * sizeof(float));
    if (!t->f64 || !t->f32) {
        sim_phantom_tables_free(t);
        return MCT_STATUS_OUT_OF_MEMORY;
    }
    t->p_ln0 = log(PHOTON_E_MIN);
    t->p_inv = (n - 1) / (log(E_MAX) - t->p_ln0);
    t->e_ln0 = log(ELECTRON_T_MIN);
    t->e_inv = (n - 1) / (log(E_MAX) - t->e_ln0);
    brems_parameters(t, &m, water);
    build_photon(t, &m);
    build_electron(t, &m, thresholds_of(p));
    build_inverse_range(t);
    t->q_ln0 = log(1e-12 / (0.5 - 1e-12));
    t->q_inv = (n - 1) / (12.0 - t->q_ln0);
    t->k_lo = 1.5;
    t->k_inv = (n - 1) / (MCT_PHANTOM_MW_K_MAX - 1.5);
    build_wentzel(t);
    for (size_t k = 0; k < (size_t)MCT_PH_T_COUNT * n; ++k) t->f32[k] = (float)t->f64[k];
    return MCT_STATUS_SUCCESS;
}

void sim_phantom_tables_free(sim_phantom_tables_t* t) {
    if (!t) return;
    free(t->f64);
    free(t->f32);
    t->f64 = NULL;
    t->f32 = NULL;
}

/* Both views: the grids and the bremsstrahlung parameters in precision R. */
#define PHANTOM_VIEW(R)                                                                                             \
    v.t = data;                                                                                                     \
    v.n = t->n;                                                                                                     \
    v.p_ln0 = (R)t->p_ln0, v.p_inv = (R)t->p_inv, v.e_ln0 = (R)t->e_ln0, v.e_inv = (R)t->e_inv;                     \
    v.r_ln0 = (R)t->r_ln0, v.r_inv = (R)t->r_inv, v.q_ln0 = (R)t->q_ln0, v.q_inv = (R)t->q_inv;                     \
    v.k_lo = (R)t->k_lo, v.k_inv = (R)t->k_inv;                                                                     \
    v.brems_n = t->brems_n;                                                                                         \
    for (int i = 0; i < MCT_PH_BREMS_MAX; ++i) {                                                                    \
        v.brems_w[i] = (R)t->brems_w[i], v.brems_zm13[i] = (R)t->brems_zm13[i], v.brems_c[i] = (R)t->brems_c[i];   \
    }                                                                                                               \
    v.brems_bound = (R)t->brems_bound

mct_ph_tables_t_f64 sim_phantom_tables_view_f64(const sim_phantom_tables_t* t, const double* data) {
    mct_ph_tables_t_f64 v;
    PHANTOM_VIEW(double);
    return v;
}

mct_ph_tables_t_f32 sim_phantom_tables_view_f32(const sim_phantom_tables_t* t, const float* data) {
    mct_ph_tables_t_f32 v;
    PHANTOM_VIEW(float);
    return v;
}

#define PHANTOM_GEOM_ARGS(p, th, n, d)                                                                            \
    n, d, (p)->energy_MeV, (p)->particle == MCT_PHANTOM_PHOTON ? MCT_PH_PHOTON : MCT_PH_ELECTRON,                 \
        (p)->electron_cutoff_MeV, (p)->photon_cutoff_MeV, (th).dcut, (th).hcut, (th).kcut, (p)->step_fraction,       \
        (p)->max_step_g_cm2, (p)->seed

/* The grid as geom_make takes it. */
static void grid_of(const mct_phantom_params_t* p, int n[3], double d[3]) {
    mct_phantom_grid_t gr;
    mct_phantom_grid(p, &gr);
    n[0] = gr.nx, n[1] = gr.ny, n[2] = gr.nz;
    d[0] = gr.dx_cm, d[1] = gr.dy_cm, d[2] = gr.dz_cm;
}

mct_ph_geom_t_f64 sim_phantom_geom_f64(const mct_phantom_params_t* p) {
    const thresholds_t th = thresholds_of(p);
    int n[3];
    double d[3];
    grid_of(p, n, d);
    return mct_ph_geom_make_f64(PHANTOM_GEOM_ARGS(p, th, n, d));
}

mct_ph_geom_t_f32 sim_phantom_geom_f32(const mct_phantom_params_t* p) {
    const thresholds_t th = thresholds_of(p);
    int n[3];
    double d[3];
    grid_of(p, n, d);
    return mct_ph_geom_make_f32(PHANTOM_GEOM_ARGS(p, th, n, d));
}

double mct_phantom_engine_range_cm(const mct_phantom_params_t* p, double energy_MeV) {
    sim_phantom_tables_t t = {0};
    if (sim_phantom_tables_build(p, NULL, &t)) return NAN;
    mct_ph_tables_t_f64 v = sim_phantom_tables_view_f64(&t, t.f64);
    const double r = mct_ph_range_f64(&v, energy_MeV);
    sim_phantom_tables_free(&t);
    return r;
}
