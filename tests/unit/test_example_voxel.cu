/* SPDX-License-Identifier: BSD-3-Clause */
/** @file test_example_voxel.cu  Compiles and runs examples/voxel_dose_kernel.cu
 * with several methods and checks every voxel against the host's replay of
 * the same histories (exact for fixed, within the rounding bound otherwise). */
#include "../../examples/voxel_dose_kernel.cu"
#include "mct_add_harness.cuh"

template <typename T>
static void check_method(mct_method_t m, voxel_grid_t g, uint64_t histories, bool block_form,
                         bool buffered = false) {
    const int64_t nbins = (int64_t)g.nx * g.ny * g.nz;
    /* sort_reduce: room for every deposit (a particle makes at most 48 here). */
    harness_tally t = harness_tally_create(m, harness_dtype<T>(), sizeof(T), nbins, 0, (int64_t)histories * 64, 30);
    snprintf(harness_case_text, sizeof harness_case_text, "voxel example, method %s%s", mct_method_name(m),
             buffered ? ", buffered form" : block_form ? ", block form" : "");
    harness_buffered = buffered;
    if (buffered) {
        CHECK_CUDA(voxel_dose_launch_buffered<T>(t.view, g, histories, 2024, 0, 96));
    } else if (block_form) {
        const size_t smem = mct_block_tally_smem_bytes<T>(t.view);
        MCT_LAUNCH(voxel_dose_kernel_block<T>, 7, 65, smem, 0, t.view, g, histories, (uint64_t)2024);
        CHECK_CUDA(cudaGetLastError());
    } else {
        CHECK_CUDA(voxel_dose_launch<T>(t.view, g, histories, 2024, 0));
    }
    CHECK_CUDA(cudaDeviceSynchronize());
    std::vector<harness_contrib> reached;
    for (uint64_t h = 0; h < histories; ++h)
        for (voxel_particle_t p = voxel_start(g, 2024, h); voxel_alive(g, p);) {
            int64_t voxel;
            const double edep = voxel_step(g, &p, &voxel);
            reached.push_back({voxel, (double)(T)edep});
        }
    harness_check<T>(t, reached);
    harness_tally_free(t);
}

int main(void) {
    if (!test_have_device()) return 77;
    const voxel_grid_t g = {10, 10, 12};
    const uint64_t histories = harness_quick() ? 500 : 3000;
    check_method<double>(MCT_METHOD_ATOMIC, g, histories, false);
    check_method<double>(MCT_METHOD_WIB, g, histories, false);
    check_method<double>(MCT_METHOD_WAG_MATCH, g, histories, false);
    check_method<double>(MCT_METHOD_FIXED, g, histories, false);
    check_method<double>(MCT_METHOD_SHARED, g, histories, false);
    check_method<double>(MCT_METHOD_FIXED, g, histories, true);
    check_method<float>(MCT_METHOD_KAHAN, g, histories, false);
    check_method<float>(MCT_METHOD_SHARED, g, histories, true);
    check_method<double>(MCT_METHOD_CAS, g, histories, false, true);
    check_method<double>(MCT_METHOD_WAG, g, histories, false, true);
    check_method<double>(MCT_METHOD_FIXED, g, histories, false, true);
    check_method<double>(MCT_METHOD_SORT_REDUCE, g, histories, false, true);
    check_method<double>(MCT_METHOD_ATOMIC, g, histories, false, true);
    check_method<float>(MCT_METHOD_KAHAN, g, histories, false, true);
    printf("voxel dose example: every voxel right\n");
    return 0;
}
