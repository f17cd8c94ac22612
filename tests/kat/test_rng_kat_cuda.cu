/* SPDX-License-Identifier: BSD-3-Clause */
/** @file test_rng_kat_cuda.cu  Known-answer test of mct_rng.h on the GPU, and a
 * bitwise comparison of its stream API with cuRAND's device API.
 *
 * Usage: test_rng_kat_cuda [PATH/rng_kat_vectors.txt]
 * 1. The vectors of rng_kat_vectors.txt are evaluated in a kernel through the
 *    shared body (kat_body.h) and compared with the expected bits.
 * 2. The property checks of kat_body.h run in a kernel.
 * 3. For many (seed, subsequence, offset) triples, including huge values and
 *    offsets not divisible by 4, one script of mixed draws and skips is run
 *    through real cuRAND (curand_init, curand, curand4, curand_uniform,
 *    curand_uniform_double, curand_uniform2_double, skipahead,
 *    skipahead_sequence) on the GPU, through mct_rng.h on the GPU, and through
 *    mct_rng.h on the host; all three must agree bit for bit.
 * Exits 0 on success, 1 on a mismatch or CUDA error, 77 (ctest SKIP) when no
 * CUDA device is present. */
#include <curand_kernel.h>

#include "kat_body.h"

#ifndef MCT_KAT_DEFAULT_VECTORS
#define MCT_KAT_DEFAULT_VECTORS "rng_kat_vectors.txt"
#endif

#define CUDA_OK(call)                                                                   \
    do {                                                                                \
        cudaError_t e_ = (call);                                                        \
        if (e_ != cudaSuccess) {                                                        \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,        \
                    cudaGetErrorString(e_));                                            \
            exit(1);                                                                    \
        }                                                                               \
    } while (0)

/* ------------------------------------------------------------------------- */
/* 1 and 2: the shared body on the GPU                                         */
/* ------------------------------------------------------------------------- */

__global__ void kat_eval_kernel(const mct_kat_vec_t* in, mct_kat_out_t* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) mct_kat_eval_one(&in[i], &out[i]);
}

__global__ void kat_properties_kernel(int* failed) { *failed = mct_kat_properties(); }

static void eval_device(const mct_kat_vec_t* in, mct_kat_out_t* out, int n, void* ctx)
{
    mct_kat_vec_t* d_in = NULL;
    mct_kat_out_t* d_out = NULL;
    (void)ctx;
    CUDA_OK(cudaMalloc(&d_in, sizeof(*in) * (size_t)n));
    CUDA_OK(cudaMalloc(&d_out, sizeof(*out) * (size_t)n));
    CUDA_OK(cudaMemcpy(d_in, in, sizeof(*in) * (size_t)n, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemset(d_out, 0xA5, sizeof(*out) * (size_t)n)); /* poison */
    kat_eval_kernel<<<(n + 63) / 64, 64>>>(d_in, d_out, n);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaMemcpy(out, d_out, sizeof(*out) * (size_t)n, cudaMemcpyDeviceToHost));
    CUDA_OK(cudaFree(d_in));
    CUDA_OK(cudaFree(d_out));
}

/* ------------------------------------------------------------------------- */
/* 3: mct_rng.h against real cuRAND                                            */
/* ------------------------------------------------------------------------- */

enum { OP_U32, OP_U32X4, OP_F32, OP_F64, OP_F64X2, OP_SKIP, OP_SKIPSEQ, OP_KINDS };
#define N_OPS 96
#define SLOTS_PER_OP 4
#define SLOTS (N_OPS * SLOTS_PER_OP)

/* The script: op kinds and skip amounts, filled on the host, read by both
 * sides from constant memory or the host copy. */
struct Script {
    int op[N_OPS];
    unsigned long long arg[N_OPS];
};
__constant__ Script c_script;

static const unsigned long long k_seeds[] = {
    0ull, 1ull, 0x0123456789abcdefull, 0xdeadbeefcafebabeull, 0xffffffff00000000ull,
    0x00000000ffffffffull, 0xffffffffffffffffull};
static const unsigned long long k_subs[] = {
    0ull, 1ull, 2ull, 3ull, 1000ull, 0xffffffffull, 0x100000000ull, 0x100000001ull,
    0x8000000000000000ull, 0xfffffffffffffffeull, 0xffffffffffffffffull, 0x9e3779b97f4a7c15ull};
static const unsigned long long k_offsets[] = {
    0ull, 1ull, 2ull, 3ull, 4ull, 5ull, 6ull, 7ull, 13ull, 1022ull, 0xfffffffdull, 0xffffffffull,
    0x100000000ull, 0x100000003ull, 0x3fffffffffffffffull, 0x7ffffffffffffffdull,
    0xfffffffffffffffcull, 0xfffffffffffffffdull, 0xfffffffffffffffeull, 0xffffffffffffffffull};
#define N_SEEDS (int)(sizeof k_seeds / sizeof k_seeds[0])
#define N_SUBS (int)(sizeof k_subs / sizeof k_subs[0])
#define N_OFFS (int)(sizeof k_offsets / sizeof k_offsets[0])
#define N_COMBOS (N_SEEDS * N_SUBS * N_OFFS)

struct Triple {
    unsigned long long seed, sub, off;
};

static void combo(int i, Triple* t)
{
    t->seed = k_seeds[i % N_SEEDS];
    t->sub = k_subs[(i / N_SEEDS) % N_SUBS];
    t->off = k_offsets[i / (N_SEEDS * N_SUBS)];
}

static void make_script(Script* s)
{
    /* A fixed mix; skip amounts include huge values so the 64-bit block index
     * wraps into the subsequence words. */
    static const unsigned long long skips[] = {
        0ull, 1ull, 2ull, 3ull, 5ull, 0x100000001ull, 0xffffffffffffffffull,
        0xfffffffffffffffeull, 0x4000000000000001ull, 0x123456789abcdefull};
    uint32_t x = 12345u;
    int i;
    for (i = 0; i < N_OPS; ++i) {
        x = x * 1664525u + 1013904223u;
        int k = (int)((x >> 16) % 16u);
        /* Mostly draws, some skips, a few subsequence skips. */
        s->op[i] = k < 4 ? OP_U32 : k < 6 ? OP_U32X4 : k < 8 ? OP_F32 : k < 10 ? OP_F64
                 : k < 12 ? OP_F64X2 : k < 15 ? OP_SKIP : OP_SKIPSEQ;
        s->arg[i] = skips[(x >> 8) % (sizeof skips / sizeof skips[0])];
    }
}

/* Runs the script with cuRAND's device API. */
__global__ void curand_script_kernel(const Triple* tr, unsigned long long* out, int n)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    curandStatePhilox4_32_10_t st;
    curand_init(tr[t].seed, tr[t].sub, tr[t].off, &st);
    unsigned long long* o = out + (size_t)t * SLOTS;
    for (int i = 0; i < N_OPS; ++i) {
        unsigned long long* s = o + i * SLOTS_PER_OP;
        switch (c_script.op[i]) {
        case OP_U32: s[0] = curand(&st); break;
        case OP_U32X4: {
            uint4 w = curand4(&st);
            s[0] = w.x; s[1] = w.y; s[2] = w.z; s[3] = w.w;
            break;
        }
        case OP_F32: s[0] = mct_kat_f32_bits(curand_uniform(&st)); break;
        case OP_F64: s[0] = mct_kat_f64_bits(curand_uniform_double(&st)); break;
        case OP_F64X2: {
            double2 d = curand_uniform2_double(&st);
            s[0] = mct_kat_f64_bits(d.x); s[1] = mct_kat_f64_bits(d.y);
            break;
        }
        case OP_SKIP: skipahead(c_script.arg[i], &st); s[0] = curand(&st); break;
        case OP_SKIPSEQ: skipahead_sequence(c_script.arg[i], &st); s[0] = curand(&st); break;
        }
    }
}

/* Runs the script with mct_rng.h (host and device). */
MCT_INLINE MCT_HD void mct_script_run(const Script* sc, Triple tr, unsigned long long* o)
{
    mct_philox_stream_t st;
    mct_philox_stream_init(&st, tr.seed, tr.sub, tr.off);
    for (int i = 0; i < N_OPS; ++i) {
        unsigned long long* s = o + i * SLOTS_PER_OP;
        switch (sc->op[i]) {
        case OP_U32: s[0] = mct_philox_stream_next_u32(&st); break;
        case OP_U32X4: {
            mct_ctr4x32_t w = mct_philox_stream_next4_u32(&st);
            s[0] = w.v[0]; s[1] = w.v[1]; s[2] = w.v[2]; s[3] = w.v[3];
            break;
        }
        case OP_F32: s[0] = mct_kat_f32_bits(mct_philox_stream_uniform_f32(&st)); break;
        case OP_F64: s[0] = mct_kat_f64_bits(mct_philox_stream_uniform_f64(&st)); break;
        case OP_F64X2: {
            double d[2];
            mct_philox_stream_uniform2_f64(&st, d);
            s[0] = mct_kat_f64_bits(d[0]); s[1] = mct_kat_f64_bits(d[1]);
            break;
        }
        case OP_SKIP:
            mct_philox_stream_skipahead(&st, sc->arg[i]);
            s[0] = mct_philox_stream_next_u32(&st);
            break;
        case OP_SKIPSEQ:
            mct_philox_stream_skipahead_sequence(&st, sc->arg[i]);
            s[0] = mct_philox_stream_next_u32(&st);
            break;
        }
    }
}

__global__ void mct_script_kernel(const Triple* tr, unsigned long long* out, int n)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < n) mct_script_run(&c_script, tr[t], out + (size_t)t * SLOTS);
}

static const char* const k_op_names[OP_KINDS] = {
    "curand", "curand4", "curand_uniform", "curand_uniform_double",
    "curand_uniform2_double", "skipahead+curand", "skipahead_sequence+curand"};

/* Compares two result arrays; prints the first mismatches and returns their count. */
static long compare(const char* what, const Script* sc, const Triple* tr,
                    const unsigned long long* ref, const unsigned long long* got)
{
    long bad = 0;
    for (int t = 0; t < N_COMBOS; ++t)
        for (int i = 0; i < SLOTS; ++i) {
            size_t k = (size_t)t * SLOTS + i;
            if (ref[k] == got[k]) continue;
            if (bad++ < 10)
                fprintf(stderr,
                        "[%s] seed %016llx sub %016llx off %016llx: op %d (%s, arg %llx) "
                        "slot %d: cuRAND %016llx, mct %016llx\n",
                        what, tr[t].seed, tr[t].sub, tr[t].off, i / SLOTS_PER_OP,
                        k_op_names[sc->op[i / SLOTS_PER_OP]], sc->arg[i / SLOTS_PER_OP],
                        i % SLOTS_PER_OP, ref[k], got[k]);
        }
    return bad;
}

static mct_kat_set_t g_set; /* large: keep it off the stack */

int main(int argc, char** argv)
{
    const char* path = argc > 1 ? argv[1] : MCT_KAT_DEFAULT_VECTORS;
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
        printf("no CUDA device, skipping\n");
        return 77;
    }
    cudaDeviceProp prop;
    CUDA_OK(cudaGetDeviceProperties(&prop, 0));
    printf("device: %s (sm_%d%d)\n", prop.name, prop.major, prop.minor);

    /* 1. Vectors on the GPU, then 2. properties on the GPU. */
    ASSERT_EQ_I64(mct_kat_parse(path, &g_set), 0);
    mct_kat_check(&g_set, eval_device, NULL, "device");
    {
        int* d_failed = NULL;
        int failed = -1;
        CUDA_OK(cudaMalloc(&d_failed, sizeof(int)));
        kat_properties_kernel<<<1, 1>>>(d_failed);
        CUDA_OK(cudaGetLastError());
        CUDA_OK(cudaMemcpy(&failed, d_failed, sizeof(int), cudaMemcpyDeviceToHost));
        CUDA_OK(cudaFree(d_failed));
        ASSERT_EQ_I64(failed, 0);
        printf("[device] properties hold\n");
    }

    /* 3. Against cuRAND. */
    Script sc;
    make_script(&sc);
    CUDA_OK(cudaMemcpyToSymbol(c_script, &sc, sizeof sc));
    Triple* tr = (Triple*)malloc(sizeof(Triple) * N_COMBOS);
    size_t bytes = sizeof(unsigned long long) * (size_t)N_COMBOS * SLOTS;
    unsigned long long* ref = (unsigned long long*)malloc(bytes);
    unsigned long long* dev = (unsigned long long*)malloc(bytes);
    unsigned long long* host = (unsigned long long*)calloc((size_t)N_COMBOS * SLOTS, 8);
    ASSERT_TRUE(tr && ref && dev && host);
    for (int t = 0; t < N_COMBOS; ++t) combo(t, &tr[t]);
    Triple* d_tr = NULL;
    unsigned long long* d_out = NULL;
    CUDA_OK(cudaMalloc(&d_tr, sizeof(Triple) * N_COMBOS));
    CUDA_OK(cudaMalloc(&d_out, bytes));
    CUDA_OK(cudaMemcpy(d_tr, tr, sizeof(Triple) * N_COMBOS, cudaMemcpyHostToDevice));
    int blocks = (N_COMBOS + 127) / 128;
    CUDA_OK(cudaMemset(d_out, 0, bytes));
    curand_script_kernel<<<blocks, 128>>>(d_tr, d_out, N_COMBOS);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaMemcpy(ref, d_out, bytes, cudaMemcpyDeviceToHost));
    CUDA_OK(cudaMemset(d_out, 0, bytes));
    mct_script_kernel<<<blocks, 128>>>(d_tr, d_out, N_COMBOS);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaMemcpy(dev, d_out, bytes, cudaMemcpyDeviceToHost));
    for (int t = 0; t < N_COMBOS; ++t) mct_script_run(&sc, tr[t], host + (size_t)t * SLOTS);
    CUDA_OK(cudaFree(d_tr));
    CUDA_OK(cudaFree(d_out));

    long bad_dev = compare("mct device vs cuRAND", &sc, tr, ref, dev);
    long bad_host = compare("mct host vs cuRAND", &sc, tr, ref, host);
    int counts[OP_KINDS] = {0};
    for (int i = 0; i < N_OPS; ++i) ++counts[sc.op[i]];
    printf("[cuRAND] %d (seed, subsequence, offset) triples x %d ops (", N_COMBOS, N_OPS);
    for (int k = 0; k < OP_KINDS; ++k) printf("%s%s=%d", k ? ", " : "", k_op_names[k], counts[k]);
    printf("): %ld device and %ld host mismatches\n", bad_dev, bad_host);
    free(tr);
    free(ref);
    free(dev);
    free(host);
    ASSERT_EQ_I64(bad_dev, 0);
    ASSERT_EQ_I64(bad_host, 0);
    printf("[cuRAND] mct_rng.h matches cuRAND bit for bit on device and host\n");
    return 0;
}
