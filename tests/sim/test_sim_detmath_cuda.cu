/* SPDX-License-Identifier: BSD-3-Clause */
/** @file test_sim_detmath_cuda.cu  sim_detmath.h's promise: the device gives
 * the host's bits. Every function of the header on the GPU and on the host
 * for the same inputs (random over each range, the edges, the special values),
 * compared bit for bit; the first difference is printed with both results.
 * Exits 77 (skipped) without a GPU. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <vector>

#include "sim_detmath.h"
#include "test_device.h"
#include "test_random.h"

/* The results per input: in double, log, exp, expm1, sin(pi x) and cos(pi x)
 * (sincospi within its domain, |x| < 2^50); in float, the same five and
 * PET's logf, sin and cos of the turn, atan2 turn and cbrtf, on finite
 * inputs of each function's domain. */
enum { D_OUT = 5, F_OUT = 10 };

MCT_HD static void eval(double x, float xf, double* d, float* f) {
    d[0] = sim_log_f64(x);
    d[1] = sim_exp_f64(x);
    d[2] = sim_expm1_f64(x);
    sim_sincospi_f64(fabs(x) < 0x1p50 ? x : 0.25, &d[3], &d[4]);
    const float xt = fabsf(xf) < 4.0f ? xf : 0.3f;              /* finite, small */
    const float xl = xt > 0.0f ? xt : 1.0f - xt;                 /* positive */
    f[0] = sim_log_f32(xf);
    f[1] = sim_exp_f32(xf);
    f[2] = sim_expm1_f32(xf);
    sim_sincospi_f32(xt, &f[3], &f[4]);
    f[5] = sim_logf(xl);
    sim_sincos_turn(xt, &f[6], &f[7]);
    f[8] = sim_atan2_turn(xt, 1.0f - xt);
    f[9] = sim_cbrtf(xf > 0.0f && xf <= 1.0f ? xf : 0.5f);
}

__global__ void eval_kernel(const double* x, const float* xf, double* d, float* f, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) eval(x[i], xf[i], d + (size_t)i * D_OUT, f + (size_t)i * F_OUT);
}

int main(void) {
    if (!test_have_device()) return 77;
    std::vector<double> x;
    uint64_t s = 7;
    const double specials[] = {0.0, -0.0, 1.0, -1.0, 0.5, 1.5, 2.0, 3.0, 709.78, 710.0, -745.0, -746.0, -740.0,
                               1e-310, 4.9e-324, 1.7976931348623157e308, INFINITY, -INFINITY, NAN};
    for (double v : specials) x.push_back(v);
    for (int i = 0; i < 1000000; ++i) {
        const double u = test_u01(&s);
        switch (i % 4) {
        case 0: x.push_back(-745.0 + 1455.0 * u); break;       /* exp's range */
        case 1: x.push_back(3.0 * u); break;                   /* the transport's azimuths, cospi */
        case 2: x.push_back(ldexp(u, -(int)(test_splitmix64(&s) % 80))); break; /* small: expm1, logs of small numbers */
        default: {                                             /* any positive double, by its bits */
            uint64_t b = test_splitmix64(&s) >> 1;
            double v;
            memcpy(&v, &b, sizeof v);
            x.push_back(v == v && v != INFINITY ? v : 1.0);
        }
        }
    }
    const int n = (int)x.size();
    std::vector<float> xf(n);
    /* The float functions' inputs: exp's range and beyond, small and subnormal
     * values, the azimuths; the specials of the list as themselves. */
    for (int i = 0; i < n; ++i) {
        const double v = x[i];
        xf[i] = i < (int)(sizeof specials / sizeof *specials) ? (float)v
                : i % 3 == 0 ? (float)fmod(v, 120.0)
                : i % 3 == 1 ? (float)ldexp(fmod(v, 1.0), -(i % 140))
                             : (float)fmod(v, 4.0);
    }
    double *dx, *dd;
    float *dxf, *df;
    CHECK_CUDA(cudaMalloc(&dx, n * sizeof(double)));
    CHECK_CUDA(cudaMalloc(&dxf, n * sizeof(float)));
    CHECK_CUDA(cudaMalloc(&dd, (size_t)n * D_OUT * sizeof(double)));
    CHECK_CUDA(cudaMalloc(&df, (size_t)n * F_OUT * sizeof(float)));
    CHECK_CUDA(cudaMemcpy(dx, x.data(), n * sizeof(double), cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(dxf, xf.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    eval_kernel<<<(n + 255) / 256, 256>>>(dx, dxf, dd, df, n);
    CHECK_CUDA(cudaGetLastError());
    std::vector<double> gd((size_t)n * D_OUT);
    std::vector<float> gf((size_t)n * F_OUT);
    CHECK_CUDA(cudaMemcpy(gd.data(), dd, gd.size() * sizeof(double), cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(gf.data(), df, gf.size() * sizeof(float), cudaMemcpyDeviceToHost));
    const char* dname[D_OUT] = {"log", "exp", "expm1", "sinpi", "cospi"};
    const char* fname[F_OUT] = {"log_f32", "exp_f32",  "expm1_f32", "sinpi_f32",  "cospi_f32",
                                "logf",    "sin_turn", "cos_turn",  "atan2_turn", "cbrtf"};
    long long differ = 0;
    for (int i = 0; i < n; ++i) {
        double hd[D_OUT];
        float hf[F_OUT];
        eval(x[i], xf[i], hd, hf);
        for (int k = 0; k < D_OUT; ++k)
            if (memcmp(&hd[k], &gd[(size_t)i * D_OUT + k], sizeof(double)) != 0 && differ++ < 5)
                printf("%s(%a): host %a, device %a\n", dname[k], x[i], hd[k], gd[(size_t)i * D_OUT + k]);
        for (int k = 0; k < F_OUT; ++k)
            if (memcmp(&hf[k], &gf[(size_t)i * F_OUT + k], sizeof(float)) != 0 && differ++ < 5)
                printf("%s(%a): host %a, device %a\n", fname[k], (double)xf[i], (double)hf[k],
                       (double)gf[(size_t)i * F_OUT + k]);
    }
    printf("test_sim_detmath_cuda: %d inputs, %lld results differ\n", n, differ);
    ASSERT_EQ_I64(differ, 0);
    cudaFree(dx);
    cudaFree(dxf);
    cudaFree(dd);
    cudaFree(df);
    return 0;
}
