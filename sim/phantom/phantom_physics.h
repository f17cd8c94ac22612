/* SPDX-License-Identifier: BSD-3-Clause */
/** @file phantom_physics.h  The water phantom's physics, written once for host C,
 * host C++ (the emulated backend) and CUDA device code, in both precisions.
 *
 * One source, two precisions: the real-valued physics lives in
 * phantom_physics_body.inc, which this header includes twice, once with
 * MCT_PH_REAL = double (names ending in _f64) and once with float (_f32). C has
 * no templates, and this keeps a single copy of every formula. The history loop,
 * which adds energy into a tally, is in phantom_transport.inc: each engine
 * includes it after saying how a deposit reaches its tally (see that file).
 *
 * Units: cm, MeV, g/cm3. The tables are per unit mass (cm2/g, g/cm2) of
 * one material at its nominal density (phantom_tables.h); for the water cube
 * (density 1) mass and linear coefficients are equal. The phantom is the box -L/2 <= x, y <= L/2,
 * 0 <= z <= L; the beam enters at the origin along +z. */
#ifndef MCT_SIM_PHANTOM_PHYSICS_H
#define MCT_SIM_PHANTOM_PHYSICS_H

#include <math.h>
#include <stdint.h>

#include "mctally/mct_config.h"
#include "mctally/mct_rng.h"
#include "phantom_materials.h"
#include "sim_detmath.h"

/** 1 in the engines of bitwise tallies (phantom_*_bitwise.*, defined before
 * any include): the transport's transcendental functions are sim_detmath.h's,
 * so that those engines give the same bits on every backend
 * (phantom_physics_body.inc). */
#ifndef MCT_PH_BITWISE
#define MCT_PH_BITWISE 0
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** Electron rest energy (MeV), CODATA 2018. */
#define MCT_PHANTOM_MEC2 0.51099895
/** Radiation length of liquid water (cm at density 1; PDG: 36.08 g/cm2). */
#define MCT_PHANTOM_X0_CM 36.08
/** The most elements of a material's bremsstrahlung shape (MCT_PH(tables_t)). */
#define MCT_PH_BREMS_MAX MCT_PHANTOM_MAX_ELEMENTS
/** Electrons per gram of water: N_A * Z/A = 6.02214076e23 * 10 / 18.01528. */
#define MCT_PHANTOM_ELECTRONS_PER_G 3.342774e23
/** Classical electron radius (cm). */
#define MCT_PHANTOM_RE_CM 2.8179403262e-13
/** Depth of a history's stack of pending particles. A secondary is tracked
 * at once and its parent waits on the stack, so the depth is the number of
 * generations in flight (plus one for pairs), not the number of secondaries:
 * 4 at 20 MeV, 7 at 1000 MeV with the lowest cut-offs allowed (0.0125 and
 * 0.001 MeV), so 16 leaves twice that. Each GPU thread holds the stack in its
 * local memory (1 KiB in double). */
#define MCT_PHANTOM_STACK 16
/** The most steps one history may take: a 20 MeV history takes thousands, a
 * 1000 MeV one some 1e5. One that reaches it never ends (a particle that makes
 * no progress): it is cut there, its energy deposited where its particles are,
 * and the run reports OVERFLOW, so a run cannot hang on it. */
#ifndef MCT_PHANTOM_MAX_STEPS
#define MCT_PHANTOM_MAX_STEPS (1u << 24)
#endif
#define MCT_PHANTOM_PI 3.14159265358979323846
/** The multiple-scattering sampler (MCT_PH(mcs_one_minus_cos)): the mean
 * number of a step's elastic collisions drawn one by one (those deflecting
 * most), its exponential, and the longest step, in first transport mean free
 * paths, that it splits so (longer ones use the modified Wentzel law). */
#define MCT_PH_MCS_HARD 0.5
#define MCT_PH_MCS_EXP_HARD 0.60653065971263342
#define MCT_PH_MCS_MIXED_X1 0.1

/* MCT_PH_COLD: a function the GPU compiles once and calls, instead of a copy
 * at every call site (MCT_INLINE): for code that many sites reach (the
 * generator's rounds) or that runs rarely, so that a kernel's code and
 * registers are those of its hot path. Arguments and results go by value,
 * so what they carry stays in registers. Inline on the host, as MCT_INLINE. */
#if defined(__CUDACC__)
#define MCT_PH_COLD static __noinline__
#else
#define MCT_PH_COLD static inline
#endif

/** Particle kinds. */
enum { MCT_PH_PHOTON = 0, MCT_PH_ELECTRON = 1, MCT_PH_POSITRON = 2 };
/** What a history's next step is (MCT_PH(track_next)): an electron's or
 * positron's step, a photon's, or the hard event that ended an electron step.
 * They run different code, and a GPU warp runs one kind at a time. */
enum { MCT_PH_NEXT_ELECTRON = 0, MCT_PH_NEXT_PHOTON = 1, MCT_PH_NEXT_EVENT = 2 };
/** Particle flags: the source particle (and the continuation of the primary
 * electron after it makes a secondary); a photon that has interacted. */
enum { MCT_PH_PRIMARY = 1, MCT_PH_COLLIDED = 2 };

/** The tables, each of `n` points on a uniform grid (table-major): photon
 * quantities on a grid in ln E, electron ones on a grid in ln T, and the
 * energy as a function of the residual range on a grid in ln R. */
enum {
    MCT_PH_T_MU = 0,        /**< photon: total attenuation without coherent, cm2/g */
    MCT_PH_T_P_PHOTO,       /**< photon: photoelectric / total */
    MCT_PH_T_P_PHOTO_INCOH, /**< photon: (photoelectric + incoherent) / total; pair is the rest */
    MCT_PH_T_RANGE,         /**< electron: range from the continuous stopping power, g/cm2 */
    MCT_PH_T_SIG_BREM,      /**< electron: bremsstrahlung with k > brems threshold, cm2/g */
    MCT_PH_T_SIG_MOLLER,    /**< electron: Moller collisions whose delta ray is transported (transfer > the larger of
                                 the delta threshold and the electron cut-off): the hard ones, cm2/g */
    MCT_PH_T_SIG_MAJ,       /**< electron: a majorant of the sum of both for all energies <= T, cm2/g */
    MCT_PH_T_INV_LAMBDA1,   /**< electron: inverse first transport mean free path (screened Rutherford), cm2/g */
    MCT_PH_T_INV_LAMBDA2,   /**< electron: inverse second transport mean free path (screened Rutherford), cm2/g */
    MCT_PH_T_E_OF_R,        /**< range grid (g/cm2): kinetic energy with this residual range, MeV */
    MCT_PH_T_MW_LN_A,       /**< logit grid: ln A of the Wentzel law whose mean of u = (1 - cos)/2 is m, at logit ln(m/(1/2 - m)) */
    MCT_PH_T_MW_RATIO,      /**< logit grid: <u^2>/<u> of that Wentzel law */
    MCT_PH_T_MW_INV_LN_A,   /**< ratio grid: ln A of the Wentzel law whose <u^2>/<u> is 1/t, at t */
    MCT_PH_T_MW_INV_LN_M,   /**< ratio grid: ln <u> of that Wentzel law */
    MCT_PH_T_MS_K,          /**< electron: the screened Rutherford cross section's scale K, dsigma/du = K/(u + eta)^2, cm2/g */
    MCT_PH_T_MS_ETA,        /**< electron: the material's one screening parameter eta (K-weighted mean of ln eta_i) */
    MCT_PH_T_SIG_LOCAL,     /**< electron: Moller collisions whose delta ray is made but stops at once (transfer
                                 between the delta threshold and the electron cut-off), cm2/g */
    MCT_PH_T_LOCAL_INV_LAMBDA1, /**< electron: those collisions' deflection of the primary, integral of
                                     (1 - cos) dsigma, cm2/g */
    MCT_PH_T_LOCAL_INV_LAMBDA2, /**< electron: the same, integral of (1 - P2(cos)) dsigma, cm2/g */
    MCT_PH_T_COUNT
};

/** Per-thread (per-engine) totals of a run, in double whatever the transport
 * precision: they are the energy-balance and diagnostic side of the run, not
 * the dose engine under test. */
typedef struct {
    double escaped;            /**< kinetic energy (+ 2 mc^2 per positron) leaving the phantom, MeV */
    double scored;             /**< exact double sum of every value passed to the tally, MeV */
    double uncollided;         /**< source photons leaving through the back face without interacting */
    double path_sum;           /**< summed path length of the primary electron, cm */
    double path_max;           /**< longest primary electron path of any history, cm */
    unsigned long long adds;   /**< contributions passed to the tally */
    unsigned int max_stack;    /**< deepest particle stack of any history */
    unsigned int overflow;     /**< 1 when a stack overflowed (the energy was deposited locally) */
} mct_phantom_counters_t;

/** A history's random numbers: Philox4x32-10 with key = seed and counter =
 * (history low, history high, draw block, 0), so a history's numbers depend on
 * (seed, history) only, never on the thread or launch shape that runs it.
 *
 * Every step of the transport starts with fresh blocks (mct_phantom_rng_step:
 * four in double, whose uniform takes two words, two in float), enough for
 * most steps (an electron step draws about 12 words in double, at least 9).
 * On a GPU the lanes of a warp then run the generator together, at one site,
 * once a step. A word that runs out mid-step refills one block for the lanes
 * that need it, at their own draw, while the warp's other lanes wait: so the
 * step's share is sized to cover most steps. The words a step leaves are
 * dropped. */
#define MCT_PHANTOM_RNG_WORDS 16u
typedef struct {
    mct_key2x32_t key;
    mct_ctr4x32_t ctr;
    uint32_t buf[MCT_PHANTOM_RNG_WORDS];
    uint32_t idx; /**< next word of buf; MCT_PHANTOM_RNG_WORDS: empty */
} mct_phantom_rng_t;

MCT_INLINE MCT_HD void mct_phantom_rng_init(mct_phantom_rng_t* r, uint64_t seed, uint64_t history) {
    r->key = mct_philox_key_from_seed(seed);
    r->ctr = mct_philox_ctr_history(history, 0u, 0u);
    r->idx = MCT_PHANTOM_RNG_WORDS;
}

/** Fills buf[from..] with the next blocks of the stream (from a multiple of
 * 4) and starts there. Compiled once and called. */
MCT_PH_COLD MCT_HD void sim_phantom_rng_fill(mct_phantom_rng_t* r, uint32_t from) {
    for (uint32_t i = from; i < MCT_PHANTOM_RNG_WORDS; i += 4u) {
        const mct_ctr4x32_t b = mct_philox4x32_10(r->ctr, r->key);
        ++r->ctr.v[2];
        for (uint32_t j = 0; j < 4u; ++j) r->buf[i + j] = b.v[j];
    }
    r->idx = from;
}

/** The start of a step: `words` (a multiple of 4, at most
 * MCT_PHANTOM_RNG_WORDS) fresh words. */
MCT_INLINE MCT_HD void mct_phantom_rng_step(mct_phantom_rng_t* r, uint32_t words) {
    sim_phantom_rng_fill(r, MCT_PHANTOM_RNG_WORDS - words);
}

MCT_INLINE MCT_HD uint32_t mct_phantom_rng_u32(mct_phantom_rng_t* r) {
    if (r->idx == MCT_PHANTOM_RNG_WORDS) sim_phantom_rng_fill(r, MCT_PHANTOM_RNG_WORDS - 4u);
    return r->buf[r->idx++];
}

#ifdef __cplusplus
}
#endif

/* The real-valued physics, once per precision. */
#define MCT_PH_BODY "phantom_physics_body.inc"
#include "phantom_instantiate.h"

#endif /* MCT_SIM_PHANTOM_PHYSICS_H */
