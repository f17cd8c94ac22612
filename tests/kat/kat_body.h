/* SPDX-License-Identifier: BSD-3-Clause */
/** @file kat_body.h  Shared known-answer test body for mct_rng.h: parses
 * rng_kat_vectors.txt, evaluates each vector through a caller-supplied batch
 * evaluator (host loop or GPU kernel) and compares bits.
 *
 * Compiled as C11 by test_rng_kat_host.c and as CUDA C++ by
 * test_rng_kat_cuda.cu. The per-vector evaluation (mct_kat_eval_one) and the
 * property checks (mct_kat_properties) are MCT_HD, so the very same code runs
 * on the CPU and inside a kernel. */
#ifndef MCT_KAT_BODY_H
#define MCT_KAT_BODY_H

#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mctally/mct_rng.h"
#include "../test_assert.h" /* tests/test_assert.h */

/* A 64-bit hex equality assert in the style of test_assert.h. */
#define MCT_KAT_ASSERT_EQ_HEX64(a, b) TEST_ASSERT_CMP(uint64_t, "016" PRIx64, a, ==, b)

#define MCT_KAT_MAX_VECTORS 256
#define MCT_KAT_MAX_WORDS 8

/** The kinds of line in rng_kat_vectors.txt. */
typedef enum {
    MCT_KAT_PHILOX = 0,   /* mct_philox4x32_10: 4 words */
    MCT_KAT_STREAM_U32,   /* 8 x next_u32 */
    MCT_KAT_STREAM_U32X4, /* 2 x next4_u32 */
    MCT_KAT_STREAM_F32,   /* 4 x uniform_f32 (bits) */
    MCT_KAT_STREAM_F64,   /* 4 x uniform_f64 (bits) */
    MCT_KAT_STREAM_F64X2, /* 2 x uniform2_f64 (bits) */
    MCT_KAT_STREAM_SKIP,  /* 3 skipaheads, then 8 x next_u32 */
    MCT_KAT_KIND_COUNT
} mct_kat_kind_t;

static const char* const mct_kat_kind_names[MCT_KAT_KIND_COUNT] = {
    "philox4x32_10", "stream_u32", "stream_u32x4", "stream_f32",
    "stream_f64",    "stream_f64x2", "stream_skip"};
/* Number of expected words per kind, and their width in hex digits. */
static const int mct_kat_kind_words[MCT_KAT_KIND_COUNT] = {4, 8, 8, 4, 4, 4, 8};
static const int mct_kat_kind_hexw[MCT_KAT_KIND_COUNT] = {8, 8, 8, 8, 16, 16, 8};

/** One known-answer vector. Plain data, so it can be copied to the GPU. */
typedef struct {
    int kind;
    int line;                  /* line number in the file, for messages */
    mct_ctr4x32_t ctr;         /* MCT_KAT_PHILOX */
    mct_key2x32_t key;         /* MCT_KAT_PHILOX */
    uint64_t seed, sub, off;   /* stream kinds */
    uint64_t skip[3];          /* MCT_KAT_STREAM_SKIP */
    uint64_t expect[MCT_KAT_MAX_WORDS];
} mct_kat_vec_t;

typedef struct {
    int n;
    mct_kat_vec_t v[MCT_KAT_MAX_VECTORS];
} mct_kat_set_t;

/** Results of one vector: the words the implementation produced. */
typedef struct {
    uint64_t got[MCT_KAT_MAX_WORDS];
} mct_kat_out_t;

/** A batch evaluator: fills out[i] for in[0..n-1]. The host test loops over
 * mct_kat_eval_one; the CUDA test runs it in a kernel. */
typedef void (*mct_kat_eval_fn)(const mct_kat_vec_t* in, mct_kat_out_t* out, int n,
                                void* ctx);

MCT_INLINE MCT_HD uint64_t mct_kat_f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

MCT_INLINE MCT_HD uint64_t mct_kat_f64_bits(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

/** Evaluates one vector with mct_rng.h. Runs on host and device. */
MCT_INLINE MCT_HD void mct_kat_eval_one(const mct_kat_vec_t* v, mct_kat_out_t* o)
{
    mct_philox_stream_t s;
    int i;
    for (i = 0; i < MCT_KAT_MAX_WORDS; ++i) o->got[i] = 0;
    if (v->kind == MCT_KAT_PHILOX) {
        mct_ctr4x32_t r = mct_philox4x32_10(v->ctr, v->key);
        for (i = 0; i < 4; ++i) o->got[i] = r.v[i];
        return;
    }
    mct_philox_stream_init(&s, v->seed, v->sub, v->off);
    switch (v->kind) {
    case MCT_KAT_STREAM_SKIP:
        for (i = 0; i < 3; ++i) mct_philox_stream_skipahead(&s, v->skip[i]);
        for (i = 0; i < 8; ++i) o->got[i] = mct_philox_stream_next_u32(&s);
        break;
    case MCT_KAT_STREAM_U32:
        for (i = 0; i < 8; ++i) o->got[i] = mct_philox_stream_next_u32(&s);
        break;
    case MCT_KAT_STREAM_U32X4:
        for (i = 0; i < 2; ++i) {
            mct_ctr4x32_t r = mct_philox_stream_next4_u32(&s);
            int j;
            for (j = 0; j < 4; ++j) o->got[4 * i + j] = r.v[j];
        }
        break;
    case MCT_KAT_STREAM_F32:
        for (i = 0; i < 4; ++i) o->got[i] = mct_kat_f32_bits(mct_philox_stream_uniform_f32(&s));
        break;
    case MCT_KAT_STREAM_F64:
        for (i = 0; i < 4; ++i) o->got[i] = mct_kat_f64_bits(mct_philox_stream_uniform_f64(&s));
        break;
    case MCT_KAT_STREAM_F64X2:
        for (i = 0; i < 2; ++i) {
            double d[2];
            mct_philox_stream_uniform2_f64(&s, d);
            o->got[2 * i] = mct_kat_f64_bits(d[0]);
            o->got[2 * i + 1] = mct_kat_f64_bits(d[1]);
        }
        break;
    default:
        break;
    }
}

/** Property checks that need no vectors: interval ends of the conversions and
 * consistency of the stream API (skipahead == repeated next_u32, next4 ==
 * four next_u32 at every alignment). Returns 0 if all hold, else the number
 * (1-based) of the first failing check. Runs on host and device. */
MCT_INLINE MCT_HD int mct_kat_properties(void)
{
    int check = 0;
    uint32_t a;
    /* Interval ends of the conversions. */
    ++check;
    if (mct_u01_open_open_f64(0u, 0u) != 0x1p-53) return check;
    ++check;
    if (mct_u01_open_open_f64(0xffffffffu, 0xffffffffu) != 1.0 - 0x1p-53) return check;
    ++check;
    if (mct_u01_open_closed_f32(0u) != 0x1p-33f) return check;
    ++check;
    if (mct_u01_open_closed_f32(0xffffffffu) != 1.0f) return check;
    ++check;
    if (mct_u01_open_open_f32(0u) != 0x1p-24f) return check;
    ++check;
    if (mct_u01_open_open_f32(0xffffffffu) != 1.0f - 0x1p-24f) return check;
    ++check;
    if (mct_u01_open_closed_f64_32(0u) != 0x1p-32) return check;
    ++check;
    if (mct_u01_open_closed_f64_32(0xffffffffu) != 1.0) return check;
    ++check;
    if (mct_u01_open_closed_f64_53(0u, 0u) != 0x1p-54) return check;
    ++check; /* z = 2^53 - 1, the largest: a tie that rounds to even, 1.0. */
    if (mct_u01_open_closed_f64_53(0x001fffffu, 0xffffffffu) != 1.0) return check;
    ++check; /* z = 2^53 - 2: 1 - 3 * 2^-54 is a tie too; even is 1 - 2^-52. */
    if (mct_u01_open_closed_f64_53(0x001ffffeu, 0xffffffffu) != 1.0 - 0x1p-52) return check;
    ++check;
    if (mct_u01_closed_open_f64(0u, 0u) != 0.0) return check;
    ++check;
    if (mct_u01_closed_open_f64(0xffffffffu, 0xffffffffu) != 1.0 - 0x1p-53) return check;
    /* Stream consistency at each alignment 0..3 and a few skips. */
    for (a = 0; a < 8u; ++a) {
        mct_philox_stream_t s, t;
        mct_ctr4x32_t w;
        uint32_t i;
        mct_philox_stream_init(&s, UINT64_C(0x0123456789abcdef), 5u, a);
        mct_philox_stream_init(&t, UINT64_C(0x0123456789abcdef), 5u, 0u);
        for (i = 0; i < a; ++i) (void)mct_philox_stream_next_u32(&t);
        ++check;
        for (i = 0; i < 9u; ++i)
            if (mct_philox_stream_next_u32(&s) != mct_philox_stream_next_u32(&t)) return check;
        w = mct_philox_stream_next4_u32(&s);
        ++check;
        for (i = 0; i < 4u; ++i)
            if (w.v[i] != mct_philox_stream_next_u32(&t)) return check;
        mct_philox_stream_skipahead(&s, 4u * a + 3u);
        for (i = 0; i < 4u * a + 3u; ++i) (void)mct_philox_stream_next_u32(&t);
        ++check;
        if (mct_philox_stream_next_u32(&s) != mct_philox_stream_next_u32(&t)) return check;
    }
    /* The first cuRAND draw of subsequence s is Philox({0, 0, s_lo, s_hi}, seed). */
    {
        mct_philox_stream_t s;
        mct_ctr4x32_t w = mct_philox4x32_10(mct_ctr4x32_make(0u, 0u, 7u, 1u),
                                            mct_philox_key_from_seed(UINT64_C(99)));
        mct_philox_stream_init(&s, 99u, UINT64_C(0x100000007), 0u);
        ++check;
        if (mct_philox_stream_next_u32(&s) != w.v[0]) return check;
    }
    return 0;
}

/* ------------------------------------------------------------------------- */
/* Host side: parse and check                                                  */
/* ------------------------------------------------------------------------- */

/** Parses the vectors file into set. Returns 0 on success; prints why and
 * returns non-zero otherwise. */
static int mct_kat_parse(const char* path, mct_kat_set_t* set)
{
    char buf[1024];
    int lineno = 0;
    FILE* f = fopen(path, "r");
    set->n = 0;
    if (!f) {
        fprintf(stderr, "cannot open vectors file %s\n", path);
        return 1;
    }
    while (fgets(buf, (int)sizeof buf, f)) {
        char name[32];
        char* p = buf;
        char* end;
        int kind, nhead, i, k, used;
        mct_kat_vec_t* v;
        uint64_t nums[16];
        ++lineno;
        if (sscanf(p, "%31s%n", name, &used) != 1 || name[0] == '#') continue;
        p += used;
        for (kind = 0; kind < MCT_KAT_KIND_COUNT; ++kind)
            if (strcmp(name, mct_kat_kind_names[kind]) == 0) break;
        if (kind == MCT_KAT_KIND_COUNT) {
            fprintf(stderr, "%s:%d: unknown vector kind '%s'\n", path, lineno, name);
            fclose(f);
            return 1;
        }
        nhead = kind == MCT_KAT_PHILOX ? 6 : kind == MCT_KAT_STREAM_SKIP ? 6 : 3;
        k = nhead + mct_kat_kind_words[kind];
        for (i = 0; i < k; ++i) {
            nums[i] = strtoull(p, &end, 16);
            if (end == p) {
                fprintf(stderr, "%s:%d: expected %d numbers, found %d\n", path, lineno, k, i);
                fclose(f);
                return 1;
            }
            p = end;
        }
        if (set->n == MCT_KAT_MAX_VECTORS) {
            fprintf(stderr, "%s: more than %d vectors\n", path, MCT_KAT_MAX_VECTORS);
            fclose(f);
            return 1;
        }
        v = &set->v[set->n++];
        memset(v, 0, sizeof *v);
        v->kind = kind;
        v->line = lineno;
        if (kind == MCT_KAT_PHILOX) {
            v->ctr = mct_ctr4x32_make((uint32_t)nums[0], (uint32_t)nums[1], (uint32_t)nums[2],
                                      (uint32_t)nums[3]);
            v->key = mct_key2x32_make((uint32_t)nums[4], (uint32_t)nums[5]);
        } else {
            v->seed = nums[0];
            v->sub = nums[1];
            v->off = nums[2];
            if (kind == MCT_KAT_STREAM_SKIP)
                for (i = 0; i < 3; ++i) v->skip[i] = nums[3 + i];
        }
        for (i = 0; i < mct_kat_kind_words[kind]; ++i) v->expect[i] = nums[nhead + i];
    }
    fclose(f);
    if (set->n == 0) {
        fprintf(stderr, "%s: no vectors\n", path);
        return 1;
    }
    return 0;
}

/** Evaluates every vector of set through eval and asserts bitwise equality
 * with the expected words. On the first mismatch it prints the vector, the
 * whole expected and computed rows, then fails through test_assert.h (exit 1).
 * Returns the number of vectors checked. */
static int mct_kat_check(const mct_kat_set_t* set, mct_kat_eval_fn eval, void* ctx,
                         const char* who)
{
    int i, j, counts[MCT_KAT_KIND_COUNT] = {0};
    mct_kat_out_t* out = (mct_kat_out_t*)calloc((size_t)set->n, sizeof *out);
    ASSERT_TRUE(out != NULL);
    eval(set->v, out, set->n, ctx);
    for (i = 0; i < set->n; ++i) {
        const mct_kat_vec_t* v = &set->v[i];
        int nw = mct_kat_kind_words[v->kind], hw = mct_kat_kind_hexw[v->kind];
        for (j = 0; j < nw; ++j) {
            if (out[i].got[j] != v->expect[j]) {
                int m;
                fprintf(stderr, "[%s] %s vector at line %d, word %d differs\n  expected:", who,
                        mct_kat_kind_names[v->kind], v->line, j);
                for (m = 0; m < nw; ++m) fprintf(stderr, " %0*" PRIx64, hw, v->expect[m]);
                fprintf(stderr, "\n  computed:");
                for (m = 0; m < nw; ++m) fprintf(stderr, " %0*" PRIx64, hw, out[i].got[m]);
                fprintf(stderr, "\n");
            }
            MCT_KAT_ASSERT_EQ_HEX64(out[i].got[j], v->expect[j]);
        }
        ++counts[v->kind];
    }
    free(out);
    printf("[%s] %d vectors match:", who, set->n);
    for (i = 0; i < MCT_KAT_KIND_COUNT; ++i)
        if (counts[i]) printf(" %s=%d", mct_kat_kind_names[i], counts[i]);
    printf("\n");
    return set->n;
}

#endif /* MCT_KAT_BODY_H */
