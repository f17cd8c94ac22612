// SPDX-License-Identifier: BSD-3-Clause
// _mctally: the Python extension over the public C API (include/mctally) only.
// Every call that can fail returns the C status as an int; the Python layer
// (mctally/_core.py) turns a non-zero status into mctally.MctallyError with the
// status's name and message, so the error rules live in one place. Arrays
// arrive without copies: host arrays (NumPy) through the buffer protocol, other
// array objects through DLPack (nanobind's ndarray), or as pointers the Python
// layer has checked (PyTorch tensors, CuPy arrays: no DLPack capsule per call);
// the checks here are the ones that need the array's own metadata (device,
// element type, layout). scatter_add's per-call work is one call here
// (add_take*: the add, then mct_tally_take_sums into the result array).
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <mctally/mct.h>

namespace nb = nanobind;

namespace {

// DLPack device types (dlpack.h): kDLCPU, kDLCUDA, kDLCUDAHost, kDLCUDAManaged.
constexpr int kCPU = 1, kCUDA = 2, kCUDAHost = 3, kCUDAManaged = 13;

// Status codes the binding itself gives, beside the C library's: a wrong
// dtype, layout or device is INVALID_VALUE, a GPU array given to a host
// backend BACKEND_UNAVAILABLE; the message says which (last_message).
thread_local std::string g_message;

int fail(mct_status_t st, std::string msg) {
    g_message = std::move(msg);
    return (int)st;
}

// What an array argument holds: its element type, its elements (when it is
// C-contiguous and at least 1-d: data[0 .. n)) and where they live (DLPack's
// device type and ordinal).
enum class Elem { U32, I32, I64, F64, Other };

struct Flat {
    void* data = nullptr;
    int64_t n = 0;
    Elem elem = Elem::Other;
    bool contiguous = false;
    int dev_type = kCPU, dev_id = 0;
};

// C order, any shape: element i at offset i (strides in elements, or bytes
// with `unit` the element size).
template <typename Shape, typename Stride>
bool c_contiguous(size_t ndim, Shape shape, Stride stride, int64_t unit) {
    if (ndim == 0) return false;
    int64_t expect = unit;
    for (size_t d = ndim; d-- > 0;) {
        if ((int64_t)shape(d) != 1 && (int64_t)stride(d) != expect) return false;
        expect *= (int64_t)shape(d);
    }
    return true;
}

// The element type of a buffer-protocol format (struct module codes, native
// or little-endian order on a little-endian host).
Elem elem_of_format(const char* f, Py_ssize_t itemsize) {
    if (!f) return Elem::Other;
    const uint16_t one = 1;
    const bool little = *(const uint8_t*)&one == 1;
    if (*f == '@' || *f == '=' || (*f == '<' && little)) ++f;
    if (!f[0] || f[1]) return Elem::Other;
    if (itemsize == 4 && std::strchr("BHILQN", f[0])) return Elem::U32;
    if (itemsize == 4 && std::strchr("bhilqn", f[0])) return Elem::I32;
    if (itemsize == 8 && std::strchr("lqn", f[0])) return Elem::I64;
    if (itemsize == 8 && f[0] == 'd') return Elem::F64;
    return Elem::Other;
}

Elem elem_of_dtype(nb::dlpack::dtype t) {
    if (t == nb::dtype<uint32_t>()) return Elem::U32;
    if (t == nb::dtype<int32_t>()) return Elem::I32;
    if (t == nb::dtype<int64_t>()) return Elem::I64;
    if (t == nb::dtype<double>()) return Elem::F64;
    return Elem::Other;
}

// One array argument, held while the call runs: an object with the buffer
// protocol is host memory read through it (NumPy's export makes no Python
// object per call); any other object is imported through DLPack.
class ArrayArg {
public:
    ArrayArg() = default;
    ArrayArg(const ArrayArg&) = delete;
    ArrayArg& operator=(const ArrayArg&) = delete;
    ~ArrayArg() {
        if (held_) PyBuffer_Release(&buf_);
    }
    // 0, or INVALID_VALUE with the message set (`what` names the argument).
    int load(nb::handle h, bool writable, const char* what, Flat* f) {
        if (PyObject_CheckBuffer(h.ptr())) {
            const int flags = PyBUF_FORMAT | PyBUF_STRIDES | (writable ? PyBUF_WRITABLE : 0);
            if (PyObject_GetBuffer(h.ptr(), &buf_, flags) != 0) {
                PyErr_Clear();
                return fail(MCT_STATUS_INVALID_VALUE, std::string(what) + (writable ? " must be a writable array" : " cannot be read as an array"));
            }
            held_ = true;
            f->data = buf_.buf;
            f->n = buf_.itemsize > 0 ? (int64_t)(buf_.len / buf_.itemsize) : 0;
            f->elem = elem_of_format(buf_.format, buf_.itemsize);
            f->contiguous = c_contiguous((size_t)buf_.ndim, [&](size_t d) { return buf_.shape[d]; },
                                         [&](size_t d) { return buf_.strides[d]; }, (int64_t)buf_.itemsize);
            f->dev_type = kCPU, f->dev_id = 0;
            return 0;
        }
        if (!nb::try_cast(h, nd_))
            return fail(MCT_STATUS_INVALID_VALUE, std::string(what) + " must be an array (buffer protocol or DLPack)");
        f->data = (void*)nd_.data();
        f->n = (int64_t)nd_.size();
        f->elem = elem_of_dtype(nd_.dtype());
        f->contiguous = c_contiguous(nd_.ndim(), [&](size_t d) { return nd_.shape(d); },
                                     [&](size_t d) { return nd_.stride(d); }, 1);
        f->dev_type = nd_.device_type(), f->dev_id = nd_.device_id();
        return 0;
    }

private:
    Py_buffer buf_{};
    bool held_ = false;
    nb::ndarray<nb::ro> nd_;
};

class Tally {
public:
    mct_tally_t t = nullptr;
    mct_wisdom_t wisdom = nullptr;
    ~Tally() { close(); }
    void close() {
        mct_tally_destroy(t);
        t = nullptr;
        mct_wisdom_destroy(wisdom);
        wisdom = nullptr;
    }
};

int check_open(const Tally& s) {
    return s.t ? 0 : fail(MCT_STATUS_INVALID_STATE, "the tally is closed");
}

// Where the tally's adds must come from: host memory for cpu/emulated, the
// tally's GPU (or host memory, staged by the library) for cuda. dev_id < 0:
// a GPU array whose ordinal is not known (__cuda_array_interface__), which the
// library's own pointer checks meet on use.
int check_device(const Tally& s, int dev, int dev_id, bool* on_device) {
    mct_tally_desc_t d;
    mct_tally_get_desc(s.t, &d);
    if (dev == kCPU || dev == kCUDAHost) {
        *on_device = d.backend != MCT_BACKEND_CUDA;  // host arrays are device arrays of the host backends
        return 0;
    }
    if (dev == kCUDA || dev == kCUDAManaged) {
        if (d.backend != MCT_BACKEND_CUDA)
            return fail(MCT_STATUS_BACKEND_UNAVAILABLE,
                        std::string("a GPU array was given to a tally on the ") + mct_backend_name(d.backend) +
                            " backend (copy it to the host, or create the tally with backend='cuda')");
        if (dev_id >= 0 && dev_id != d.device)
            return fail(MCT_STATUS_INVALID_VALUE, "the arrays are on cuda:" + std::to_string(dev_id) +
                                                      ", the tally on cuda:" + std::to_string(d.device));
        *on_device = true;
        return 0;
    }
    return fail(MCT_STATUS_NOT_SUPPORTED, "arrays of DLPack device type " + std::to_string(dev) + " are not supported");
}

int check_arrays(const Tally& s, const Flat& k, const Flat& v, int width, bool* on_device) {
    // int32 keys are read as their bits: a negative key is >= 2^31 as uint32,
    // past the last bin of any tally (bins <= 2^31), so it is reported; int64
    // keys are read as they are (mct_tally_add_device_keys).
    if (k.elem != Elem::U32 && k.elem != Elem::I32 && k.elem != Elem::I64)
        return fail(MCT_STATUS_INVALID_VALUE,
                    "keys must be uint32, int32 or int64 (convert with the array's own library first)");
    if (v.elem != Elem::F64) return fail(MCT_STATUS_INVALID_VALUE, "values must be float64");
    if (!k.contiguous) return fail(MCT_STATUS_INVALID_VALUE, "keys must be C-contiguous and at least 1-d");
    if (!v.contiguous) return fail(MCT_STATUS_INVALID_VALUE, "values must be C-contiguous and at least 1-d");
    if (v.n != k.n * (int64_t)width)
        return fail(MCT_STATUS_INVALID_VALUE, "values must hold width values per key (" + std::to_string(k.n) + " keys x " +
                                                  std::to_string(width) + ", got " + std::to_string(v.n) + ")");
    if (k.dev_type != v.dev_type || k.dev_id != v.dev_id)
        return fail(MCT_STATUS_INVALID_VALUE, "keys and values are on different devices");
    return check_device(s, k.dev_type, k.dev_id, on_device);
}

// A take's destination: one float64 per bin, C-contiguous, in the tally's
// own memory (its GPU on cuda, host memory on cpu and emulated).
int check_out(const Tally& s, const Flat& o) {
    mct_tally_desc_t d;
    mct_tally_get_desc(s.t, &d);
    if (o.elem != Elem::F64 || !o.contiguous || o.n != d.bins)
        return fail(MCT_STATUS_INVALID_VALUE, "out must be a C-contiguous float64 array of " + std::to_string(d.bins) + " elements");
    const bool gpu = o.dev_type == kCUDA || o.dev_type == kCUDAManaged;
    const bool host = o.dev_type == kCPU || o.dev_type == kCUDAHost;
    if (d.backend == MCT_BACKEND_CUDA ? !(gpu && (o.dev_id < 0 || o.dev_id == d.device)) : !host)
        return fail(MCT_STATUS_INVALID_VALUE, std::string("out must be in the tally's memory (") +
                                                  (d.backend == MCT_BACKEND_CUDA ? "cuda:" + std::to_string(d.device) : "host") + ")");
    return 0;
}

mct_key_type_t key_type_of(bool keys64) { return keys64 ? MCT_KEY_I64 : MCT_KEY_U32; }

// n keys (64-bit when keys64) and n * width values, in the backend's memory
// (on_device: read in place) or on the host (the cuda backend stages them;
// width 1 only).
int add_checked(Tally& s, const void* kp, bool keys64, const double* vp, int64_t n, int width, bool on_device) {
    if (n == 0) return 0;
    mct_status_t st;
    {
        nb::gil_scoped_release nogil;
        if (on_device) {
            st = mct_tally_add_device_keys(s.t, kp, key_type_of(keys64), vp, n, width, n);
        } else if (width > 1) {
            st = MCT_STATUS_NOT_SUPPORTED;
        } else {
            st = mct_tally_add_keys(s.t, kp, key_type_of(keys64), vp, n);
        }
    }
    if (st == MCT_STATUS_NOT_SUPPORTED && width > 1 && !on_device)
        return fail(st, "grouped adds on the cuda backend need GPU arrays");
    return (int)st;
}

// One scatter-add: n keys and values in the backend's memory added, then the
// batch taken into `out` (the tally's memory) by mct_tally_take_sums, which
// zeroes the bins for the next call. A status from the add comes before the
// take; the take's own (BIN_OUT_OF_RANGE, OVERFLOW, NONFINITE_VALUE) leave the
// tally clean and `out` untouched.
int add_take(Tally& s, const void* kp, bool keys64, const double* vp, int64_t n, double* out) {
    nb::gil_scoped_release nogil;
    mct_status_t st = n > 0 ? mct_tally_add_device_keys(s.t, kp, key_type_of(keys64), vp, n, 1, n) : MCT_STATUS_SUCCESS;
    if (!st) st = mct_tally_take_sums(s.t, out);
    return (int)st;
}

}  // namespace

NB_MODULE(_mctally, m) {
    m.doc() = "Low-level binding of the mctally C API; use the mctally package instead.";

    m.def("version", []() { return std::string(mct_version()); });
    m.attr("FIXED_FRAC_BITS_MIN") = MCT_FIXED_FRAC_BITS_MIN;
    m.attr("FIXED_FRAC_BITS_MAX") = MCT_FIXED_FRAC_BITS_MAX;
    m.def("status_name", [](int st) { return std::string(mct_status_name((mct_status_t)st)); });
    m.def("status_string", [](int st) { return std::string(mct_status_string((mct_status_t)st)); });
    m.def("last_message", []() { return g_message; });
    m.def("clear_message", []() { g_message.clear(); });
    m.def("method_names", []() {
        std::vector<std::string> v;
        for (int i = 0; i < MCT_METHOD_COUNT; ++i) v.emplace_back(mct_method_name((mct_method_t)i));
        return v;
    });
    m.def("method_determinism", [](const std::string& method, const std::string& dtype) {
        mct_method_t me;
        mct_dtype_t dt;
        if (mct_method_from_name(method.c_str(), &me) || mct_dtype_from_name(dtype.c_str(), &dt)) return std::string();
        return std::string(mct_determinism_name(mct_method_determinism(me, dt)));
    });

    m.def("method_supports", [](const std::string& method, const std::string& dtype, const std::string& backend) {
        mct_method_t me;
        mct_dtype_t dt;
        mct_backend_t be;
        if (mct_method_from_name(method.c_str(), &me) || mct_dtype_from_name(dtype.c_str(), &dt) ||
            mct_backend_from_name(backend.c_str(), &be))
            return false;
        return mct_method_supports(me, dt, be) == MCT_STATUS_SUCCESS;
    });

    nb::class_<Tally>(m, "Tally")
        .def(nb::init<>())
        // create(bins, dtype, method, backend, device, frac_bits, pair_capacity, determinism,
        //        max_rel_loss, adds_per_bin, plan_mode, key_sample, key_pattern, width, plan_budget_s, wisdom_path)
        .def("create",
             [](Tally& s, int64_t bins, const std::string& dtype, const std::string& method, const std::string& backend,
                int device, std::optional<int> frac_bits, int64_t pair_capacity, const std::string& determinism, double max_rel_loss,
                double adds_per_bin, const std::string& plan_mode,
                std::optional<nb::ndarray<const uint32_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>> key_sample,
                const std::string& key_pattern, int width, double plan_budget_s, const std::string& wisdom_path) -> int {
                 if (s.t) return fail(MCT_STATUS_INVALID_STATE, "the tally is already created");
                 mct_tally_desc_t d;
                 mct_tally_desc_init(&d);
                 d.bins = bins;
                 mct_status_t st;
                 if ((st = mct_dtype_from_name(dtype.c_str(), &d.dtype)))
                     return fail(st, "dtype '" + dtype + "': expected i32, u64, f32 or f64");
                 if ((st = mct_method_from_name(method.c_str(), &d.method)))
                     return fail(st, "method '" + method + "': expected auto or one of mctally.methods()");
                 if ((st = mct_backend_from_name(backend.c_str(), &d.backend)))
                     return fail(st, "backend '" + backend + "': expected auto, cpu, cuda or emulated");
                 if ((st = mct_determinism_from_name(determinism.c_str(), &d.determinism)))
                     return fail(st, "determinism '" + determinism + "': expected not_guaranteed, run_to_run or bitwise");
                 if ((st = mct_plan_mode_from_name(plan_mode.c_str(), &d.plan_mode)))
                     return fail(st, "plan '" + plan_mode + "': expected estimate or measure");
                 if ((st = mct_key_pattern_from_name(key_pattern.c_str(), &d.key_pattern)))
                     return fail(st, "key_pattern '" + key_pattern + "': expected unknown, uniform, sorted, hot or few");
                 d.device = device;
                 if (frac_bits) d.fixed_frac_bits = *frac_bits;
                 if (pair_capacity > 0) d.pair_capacity = pair_capacity;
                 d.max_rel_loss = max_rel_loss;
                 d.adds_per_bin = adds_per_bin;
                 d.width = width;
                 if (plan_budget_s > 0) d.plan_budget_s = plan_budget_s;
                 if (key_sample) {
                     d.key_sample = key_sample->data();
                     d.key_sample_n = (int64_t)key_sample->shape(0);
                 }
                 if (!wisdom_path.empty()) {
                     /* Wisdom is written back only over wisdom: anything else is refused here, untouched. */
                     if ((st = mct_wisdom_file_writable(wisdom_path.c_str())))
                         return fail(st, "wisdom file " + wisdom_path +
                                             (st == MCT_STATUS_INVALID_VALUE ? " holds something other than mctally wisdom"
                                                                             : " cannot be read"));
                     if ((st = mct_wisdom_create(&s.wisdom))) return fail(st, "wisdom");
                     st = mct_wisdom_import_file(s.wisdom, wisdom_path.c_str());
                     if (st != MCT_STATUS_SUCCESS && st != MCT_STATUS_IO_ERROR && st != MCT_STATUS_WISDOM_IGNORED)
                         return fail(st, "wisdom file " + wisdom_path);
                     d.wisdom = s.wisdom;
                 }
                 if ((st = mct_tally_create(&s.t, &d))) {
                     std::string why;
                     if (st == MCT_STATUS_UNSATISFIABLE) {
                         mct_plan_info_t info;
                         if (mct_plan(&d, &info) == MCT_STATUS_UNSATISFIABLE) why = info.reason;
                     }
                     s.close();
                     return fail(st, why.empty() ? mct_status_string(st) : why);
                 }
                 if (s.wisdom) mct_wisdom_export_file(s.wisdom, wisdom_path.c_str());
                 return 0;
             },
             nb::arg("bins"), nb::arg("dtype"), nb::arg("method"), nb::arg("backend"), nb::arg("device"),
             nb::arg("frac_bits"), nb::arg("pair_capacity"), nb::arg("determinism"), nb::arg("max_rel_loss"),
             nb::arg("adds_per_bin"), nb::arg("plan_mode"), nb::arg("key_sample").none(), nb::arg("key_pattern"),
             nb::arg("width"), nb::arg("plan_budget_s"), nb::arg("wisdom"))
        .def("close", &Tally::close)
        .def_prop_ro("is_open", [](const Tally& s) { return s.t != nullptr; })
        // (bins, dtype, method, backend, device, frac_bits, width) as the tally resolved them.
        .def("desc",
             [](const Tally& s) {
                 mct_tally_desc_t d;
                 mct_tally_desc_init(&d);
                 if (s.t) mct_tally_get_desc(s.t, &d);
                 return std::make_tuple(d.bins, std::string(mct_dtype_name(d.dtype)), std::string(mct_method_name(d.method)),
                                        std::string(mct_backend_name(d.backend)), d.device, d.fixed_frac_bits, d.width,
                                        std::string(mct_determinism_name(d.determinism)));
             })
        .def("device_name",
             [](const Tally& s) {
                 char buf[256] = "";
                 if (s.t) mct_tally_device_name(s.t, buf, sizeof buf);
                 return std::string(buf);
             })
        .def("determinism",
             [](const Tally& s) {
                 mct_determinism_t det = MCT_NOT_GUARANTEED;
                 if (s.t) mct_tally_determinism(s.t, &det);
                 return std::string(mct_determinism_name(det));
             })
        .def("plan_info",
             [](const Tally& s) {
                 nb::dict out;
                 mct_plan_info_t info;
                 if (!s.t || mct_tally_plan_info(s.t, &info)) return out;
                 out["method"] = mct_method_name(info.method);
                 out["source"] = mct_plan_source_name(info.source);
                 out["mode"] = mct_plan_mode_name(info.mode);
                 out["backend"] = mct_backend_name(info.backend);
                 out["pattern"] = mct_key_pattern_name(info.pattern);
                 out["distinct_per_warp"] = info.distinct_per_warp;
                 out["mean_run"] = info.mean_run;
                 out["hot_share"] = info.hot_share;
                 out["seconds"] = info.seconds;
                 out["reason"] = std::string(info.reason);
                 nb::list ranking;
                 for (int i = 0; i < info.nentries; ++i) {
                     const mct_plan_entry_t& e = info.ranking[i];
                     nb::dict r;
                     r["method"] = mct_method_name(e.method);
                     r["admissible"] = (bool)e.admissible;
                     r["seconds_per_update"] = e.seconds_per_update;
                     r["why"] = std::string(e.why);
                     ranking.append(r);
                 }
                 out["ranking"] = ranking;
                 return out;
             })
        .def("set_stream",
             [](Tally& s, uintptr_t stream) -> int {
                 if (int e = check_open(s)) return e;
                 return (int)mct_tally_set_stream(s.t, (void*)stream);
             })
        // add(keys, values, width): array objects (ArrayArg); host arrays on a
        // cuda tally go through mct_tally_add (staged copies), everything
        // else through mct_tally_add_device[_grouped] in place.
        .def("add",
             [](Tally& s, nb::handle keys, nb::handle values, int width) -> int {
                 if (int e = check_open(s)) return e;
                 if (width < 1) return fail(MCT_STATUS_INVALID_VALUE, "width must be >= 1");
                 ArrayArg ka, va;
                 Flat k, v;
                 bool on_device = false;
                 if (int e = ka.load(keys, false, "keys", &k)) return e;
                 if (int e = va.load(values, false, "values", &v)) return e;
                 if (int e = check_arrays(s, k, v, width, &on_device)) return e;
                 return add_checked(s, k.data, k.elem == Elem::I64, (const double*)v.data, k.n, width, on_device);
             },
             nb::arg("keys"), nb::arg("values"), nb::arg("width"))
        // The same from raw pointers, for arrays whose dtype and layout the
        // caller has checked (PyTorch tensors and CuPy arrays, which skip a
        // DLPack export per call, and __cuda_array_interface__ producers):
        // device_type is DLPack's, device_id < 0 when the producer does not say;
        // keys64: the keys are int64.
        .def("add_pointers",
             [](Tally& s, uintptr_t keys, uintptr_t values, int64_t n, int width, int device_type, int device_id,
                bool keys64) -> int {
                 if (int e = check_open(s)) return e;
                 if (width < 1 || n < 0) return fail(MCT_STATUS_INVALID_VALUE, "width must be >= 1 and n >= 0");
                 bool on_device = false;
                 if (int e = check_device(s, device_type, device_id, &on_device)) return e;
                 return add_checked(s, (const void*)keys, keys64, (const double*)values, n, width, on_device);
             },
             nb::arg("keys"), nb::arg("values"), nb::arg("n"), nb::arg("width"), nb::arg("device_type"),
             nb::arg("device_id"), nb::arg("keys64") = false)
        // add_take(keys, values, out): scatter_add's call on a kept tally, in
        // one: the add, then the batch's sums into `out` (float64, one per
        // bin, in the tally's memory) and the bins zeroed (mct_tally_take_sums).
        // The arrays must be in the tally's memory (no staging of host arrays
        // on cuda: NOT_SUPPORTED).
        .def("add_take",
             [](Tally& s, nb::handle keys, nb::handle values, nb::handle out) -> int {
                 if (int e = check_open(s)) return e;
                 ArrayArg ka, va, oa;
                 Flat k, v, o;
                 bool on_device = false;
                 if (int e = ka.load(keys, false, "keys", &k)) return e;
                 if (int e = va.load(values, false, "values", &v)) return e;
                 if (int e = oa.load(out, true, "out", &o)) return e;
                 if (int e = check_arrays(s, k, v, 1, &on_device)) return e;
                 if (!on_device) return fail(MCT_STATUS_NOT_SUPPORTED, "add_take needs the arrays in the tally's memory");
                 if (int e = check_out(s, o)) return e;
                 return add_take(s, k.data, k.elem == Elem::I64, (const double*)v.data, k.n, (double*)o.data);
             },
             nb::arg("keys"), nb::arg("values"), nb::arg("out"))
        // The same from pointers checked by the caller, as add_pointers; `out`
        // is one float64 per bin in the same memory as the keys.
        .def("add_take_pointers",
             [](Tally& s, uintptr_t keys, uintptr_t values, int64_t n, int device_type, int device_id,
                uintptr_t out, bool keys64) -> int {
                 if (int e = check_open(s)) return e;
                 if (n < 0) return fail(MCT_STATUS_INVALID_VALUE, "n must be >= 0");
                 bool on_device = false;
                 if (int e = check_device(s, device_type, device_id, &on_device)) return e;
                 if (!on_device) return fail(MCT_STATUS_NOT_SUPPORTED, "add_take needs the arrays in the tally's memory");
                 return add_take(s, (const void*)keys, keys64, (const double*)values, n, (double*)out);
             },
             nb::arg("keys"), nb::arg("values"), nb::arg("n"), nb::arg("device_type"), nb::arg("device_id"),
             nb::arg("out"), nb::arg("keys64") = false)
        .def("flush",
             [](Tally& s) -> int {
                 if (int e = check_open(s)) return e;
                 nb::gil_scoped_release nogil;
                 return (int)mct_tally_flush(s.t);
             })
        .def("end_batch",
             [](Tally& s, int64_t histories) -> int {
                 if (int e = check_open(s)) return e;
                 nb::gil_scoped_release nogil;
                 return (int)mct_tally_end_batch(s.t, histories);
             })
        // enable_abs_max() -> status; last_abs_max() -> (status, largest |value| of the
        // last ended batch): fixed tallies that keep it.
        .def("enable_abs_max",
             [](Tally& s) -> int {
                 if (int e = check_open(s)) return e;
                 return (int)mct_tally_enable_abs_max(s.t);
             })
        .def("last_abs_max",
             [](const Tally& s) {
                 double m = 0.0;
                 const int st = s.t ? (int)mct_tally_last_abs_max(s.t, &m) : (int)MCT_STATUS_INVALID_STATE;
                 return std::make_tuple(st, m);
             })
        .def("counts",
             [](const Tally& s) {
                 int64_t b = 0, h = 0;
                 if (s.t) mct_tally_counts(s.t, &b, &h);
                 return std::make_tuple(b, h);
             })
        .def("results",
             [](Tally& s, nb::ndarray<double, nb::ndim<1>, nb::c_contig, nb::device::cpu> mean,
                nb::ndarray<double, nb::ndim<1>, nb::c_contig, nb::device::cpu> rel) -> int {
                 if (int e = check_open(s)) return e;
                 return (int)mct_tally_results(s.t, mean.data(), rel.data());
             })
        .def("sums",
             [](Tally& s, nb::ndarray<double, nb::ndim<1>, nb::c_contig, nb::device::cpu> out) -> int {
                 if (int e = check_open(s)) return e;
                 return (int)mct_tally_sums(s.t, out.data());
             })
        .def("sums_i64",
             [](Tally& s, nb::ndarray<int64_t, nb::ndim<1>, nb::c_contig, nb::device::cpu> out) -> int {
                 if (int e = check_open(s)) return e;
                 return (int)mct_tally_sums_i64(s.t, out.data());
             });
}
