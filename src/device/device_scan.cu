/* SPDX-License-Identifier: BSD-3-Clause */
/** @file device_scan.cu  The device-wide scan's entry point for the C API: picks the
 * value type, operator and default policy, and dispatches. The same source builds
 * the CUDA backend (nvcc) and the emulated one (host C++ with MCT_EMULATED, see
 * device_scan_emulated.cpp); the two entry points get different names. */
#include "../common/scan_impl.h"
#include "device_check.cuh"
#include "mctally/device/scan/scan_dispatch.cuh"
#include "mctally/device/thread/thread_operators.cuh"

#if MCT_IS_EMULATED
#define MCT__SCAN_DEVICE mct__scan_emulated
#else
#define MCT__SCAN_DEVICE mct__scan_cuda
#endif

template <typename T, typename Op>
static mct_status_t scan_typed(void* d_temp, size_t* temp_bytes, const void* in, void* out, const void* init,
                               int exclusive, int64_t n, mct_scan_algo_t algo, void* stream) {
    using policy = mct_scan_default_policy<(int)sizeof(T)>;
    const T init_value = init ? *(const T*)init : Op::identity();
    mct_status_t st = mct_dispatch_scan<policy, T, Op>(d_temp, temp_bytes, (const T*)in, (T*)out, n, exclusive != 0,
                                                       init_value, Op(), algo, mct_scan_default_delays(),
                                                       (cudaStream_t)stream);
    /* With MCT_DEBUG_SYNC set, wait for the kernel so that its errors surface here. */
    if (st == MCT_STATUS_SUCCESS && d_temp && n > 0) st = MCT_LAUNCH_CHECK();
    return st;
}

template <typename T>
static mct_status_t scan_op(mct_scan_op_t op, void* d_temp, size_t* temp_bytes, const void* in, void* out,
                            const void* init, int exclusive, int64_t n, mct_scan_algo_t algo, void* stream) {
    switch (op) {
    case MCT_SCAN_SUM: return scan_typed<T, mct_op_sum<T>>(d_temp, temp_bytes, in, out, init, exclusive, n, algo, stream);
    case MCT_SCAN_MAX: return scan_typed<T, mct_op_max<T>>(d_temp, temp_bytes, in, out, init, exclusive, n, algo, stream);
    case MCT_SCAN_MIN: return scan_typed<T, mct_op_min<T>>(d_temp, temp_bytes, in, out, init, exclusive, n, algo, stream);
    default: return MCT_STATUS_INVALID_VALUE;
    }
}

extern "C" mct_status_t MCT__SCAN_DEVICE(void* d_temp, size_t* temp_bytes, const void* in, void* out,
                                         const void* init, int exclusive, int64_t n, mct_scan_type_t type,
                                         mct_scan_op_t op, mct_scan_algo_t algo, void* stream) {
    switch (type) {
    case MCT_SCAN_I32: return scan_op<int32_t>(op, d_temp, temp_bytes, in, out, init, exclusive, n, algo, stream);
    case MCT_SCAN_U32: return scan_op<uint32_t>(op, d_temp, temp_bytes, in, out, init, exclusive, n, algo, stream);
    case MCT_SCAN_I64: return scan_op<int64_t>(op, d_temp, temp_bytes, in, out, init, exclusive, n, algo, stream);
    case MCT_SCAN_U64: return scan_op<uint64_t>(op, d_temp, temp_bytes, in, out, init, exclusive, n, algo, stream);
    case MCT_SCAN_F32: return scan_op<float>(op, d_temp, temp_bytes, in, out, init, exclusive, n, algo, stream);
    case MCT_SCAN_F64: return scan_op<double>(op, d_temp, temp_bytes, in, out, init, exclusive, n, algo, stream);
    default: return MCT_STATUS_INVALID_VALUE;
    }
}
