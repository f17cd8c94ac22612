/* SPDX-License-Identifier: BSD-3-Clause */
/** @file emu_runtime.cpp  The lane scheduler of the CUDA emulation: runs each block's
 * lanes as fibers, decides warp rendezvous and block barriers, and reports misuse.
 *
 * Scheduling, in one sentence: run every runnable lane of the block until it stops (at
 * a collective or by returning), then decide what can be decided, in this order:
 *   A. warp rendezvous whose mask's lanes have all arrived with that mask;
 *   B. __syncthreads, once every non-exited lane of the block is at one;
 *   C. __activemask, grouping the lanes stopped at the same call site;
 *   D. rendezvous that can never complete because their mask names exited or
 *      nonexistent lanes: reported, then completed among the lanes present;
 *   Y. __nanosleep yields;
 *   E. nothing left: a deadlock, reported, and the block is abandoned.
 * Deciding only when no lane can run means that a warp's runnable lanes have all
 * reached their next intrinsic first, which is what makes __activemask meaningful and
 * lets lanes at different call sites meet at one __syncwarp, as on Volta and later. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <mutex>
#include <string>
#include <vector>

#if defined(_OPENMP)
#include <omp.h>
#endif

#include "emu_internal.h"

__thread const mct_emu_lane_pub* mct_emu_cur = nullptr;

namespace {

enum lane_state { LANE_RUNNABLE, LANE_WAITING, LANE_EXITED };

const int kMaxThreadsPerBlock = 1024;
const size_t kMaxDynamicSmem = 227 * 1024; /* the largest opt-in size of current GPUs */
const int kMaxReported = 8;                /* error lines kept per launch */

struct block_runner;

/** A lane: what it shows the kernel, its fiber, and its pending collective. */
struct lane : mct_emu_lane_pub {
    mct__emu_fiber fiber;
    block_runner* block;
    int id; /* linear thread index in the block */
    int state;
    int op;
    unsigned mask;
    uint64_t value;
    int arg, width, size;
    const char* file;
    int line;
    uint64_t result;
    int pred;
    uint64_t clock; /* clock64(): reads so far in this block run */
};

const char* op_name(int op) {
    switch (op) {
    case MCT_EMU_OP_SYNCWARP: return "__syncwarp";
    case MCT_EMU_OP_SHFL_IDX: return "__shfl_sync";
    case MCT_EMU_OP_SHFL_UP: return "__shfl_up_sync";
    case MCT_EMU_OP_SHFL_DOWN: return "__shfl_down_sync";
    case MCT_EMU_OP_SHFL_XOR: return "__shfl_xor_sync";
    case MCT_EMU_OP_BALLOT: return "__ballot_sync";
    case MCT_EMU_OP_ANY: return "__any_sync";
    case MCT_EMU_OP_ALL: return "__all_sync";
    case MCT_EMU_OP_MATCH_ANY: return "__match_any_sync";
    case MCT_EMU_OP_MATCH_ALL: return "__match_all_sync";
    case MCT_EMU_OP_REDUCE_ADD: return "__reduce_add_sync";
    case MCT_EMU_OP_ACTIVEMASK: return "__activemask";
    case MCT_EMU_OP_SYNCTHREADS: return "__syncthreads";
    case MCT_EMU_OP_SYNCTHREADS_COUNT: return "__syncthreads_count";
    case MCT_EMU_OP_SYNCTHREADS_AND: return "__syncthreads_and";
    case MCT_EMU_OP_SYNCTHREADS_OR: return "__syncthreads_or";
    case MCT_EMU_OP_YIELD: return "__nanosleep";
    default: return "?";
    }
}

bool is_warp_sync(int op) { return op >= MCT_EMU_OP_SYNCWARP && op <= MCT_EMU_OP_REDUCE_ADD; }
bool is_barrier(int op) {
    return op >= MCT_EMU_OP_SYNCTHREADS && op <= MCT_EMU_OP_SYNCTHREADS_OR;
}
bool is_shfl(int op) { return op >= MCT_EMU_OP_SHFL_IDX && op <= MCT_EMU_OP_SHFL_XOR; }

std::string strprintf(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
std::string strprintf(const char* fmt, ...) {
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return buf;
}

/** One launch: its configuration and the errors its blocks found. Blocks on several
 * OS threads report into it, hence the mutex. */
struct launch {
    const char* name;
    const char* file;
    int line;
    dim3 grid, block;
    size_t smem;
    void (*body)(void*);
    void* arg;
    int threads_per_block;
    std::mutex mu;
    int nerrors = 0;
    std::string report;

    void error(const std::string& what) {
        std::lock_guard<std::mutex> g(mu);
        if (nerrors < kMaxReported) report += "  " + what + "\n";
        ++nerrors;
    }
};

/** Stacks for the lanes of the blocks this OS thread runs, allocated once and reused
 * by every block and launch on the thread (each with a guard page below it, so an
 * overflow faults instead of overwriting the next lane's stack). Per-thread, so it is
 * not shared mutable state. */
struct stack_pool {
    char* base = nullptr;
    size_t bytes = 0, stride = 0, usable = 0;
    int count = 0;

    ~stack_pool() {
        if (base) munmap(base, bytes);
    }
    bool reserve(int lanes) {
        if (lanes <= count) return true;
        if (base) munmap(base, bytes);
        base = nullptr;
        count = 0;
        size_t page = (size_t)sysconf(_SC_PAGESIZE);
        size_t kb = 64;
        if (const char* e = getenv("MCT_EMU_STACK_KB")) {
            long v = atol(e);
            if (v >= 16) kb = (size_t)v;
        }
        usable = (kb * 1024 + page - 1) / page * page;
        stride = usable + page;
        bytes = stride * (size_t)lanes;
        void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (p == MAP_FAILED) return false;
        base = (char*)p;
        for (int i = 0; i < lanes; ++i) mprotect(base + stride * (size_t)i, page, PROT_NONE);
        count = lanes;
        return true;
    }
    char* stack(int i) const { return base + stride * (size_t)i + (stride - usable); }
};

thread_local stack_pool t_stacks;

/** Runs blocks of one launch on the calling OS thread, one after another. */
struct block_runner {
    launch& L;
    std::vector<lane> lanes;
    void* smem = nullptr;
    mct__emu_fiber sched;
    uint3 bidx{0, 0, 0};
    int nwarps;

    explicit block_runner(launch& l) : L(l), lanes((size_t)l.threads_per_block) {
        nwarps = (l.threads_per_block + 31) / 32;
        if (L.smem) smem = aligned_alloc(64, (L.smem + 63) / 64 * 64);
    }
    ~block_runner() { free(smem); }

    int warp_size(int w) const {
        int n = (int)lanes.size() - 32 * w;
        return n < 32 ? n : 32;
    }
    lane& at(int w, int l) { return lanes[(size_t)(32 * w + l)]; }

    std::string where(const lane& ln) const {
        return strprintf("block (%u,%u,%u) warp %d lane %d (thread (%u,%u,%u))", bidx.x,
                         bidx.y, bidx.z, ln.id / 32, ln.id % 32, ln.thread_idx.x,
                         ln.thread_idx.y, ln.thread_idx.z);
    }
    std::string site(const lane& ln) const {
        return strprintf("%s at %s:%d", op_name(ln.op), ln.file ? ln.file : "?", ln.line);
    }
    /** Why lane l of warp w is not at the rendezvous of mask. */
    std::string absence(int w, int l, unsigned mask) {
        if (l >= warp_size(w)) return strprintf("lane %d does not exist (blockDim %u)", l,
                                                (unsigned)lanes.size());
        lane& o = at(w, l);
        if (o.state == LANE_EXITED) return strprintf("lane %d has exited", l);
        if (o.state == LANE_WAITING) {
            if (is_warp_sync(o.op) && o.mask != mask)
                return strprintf("lane %d waits at %s with a different mask 0x%08x", l,
                                 site(o).c_str(), o.mask);
            return strprintf("lane %d waits at %s", l, site(o).c_str());
        }
        return strprintf("lane %d is still running", l);
    }

    void run_block(uint64_t b);
    bool decide_warps(bool allow_broken);
    bool decide_barrier();
    bool decide_activemask();
    bool decide_yields();
    void report_deadlock();
    void complete(int w, unsigned mask, unsigned present);
};

void lane_main(void* p) {
    lane* me = static_cast<lane*>(p);
    me->block->L.body(me->block->L.arg);
    me->state = LANE_EXITED;
    mct__emu_fiber_switch(&me->fiber, &me->block->sched);
    abort(); /* an exited lane is never resumed */
}

/** PTX shfl.sync's source-lane rule, width segments included; returns i itself where
 * CUDA gives the lane its own value. */
int shfl_source(int op, int i, int b, int width) {
    int segmask = 32 - width;
    int clamp = op == MCT_EMU_OP_SHFL_UP ? 0 : 31;
    int max_lane = (i & segmask) | (clamp & ~segmask & 31);
    int min_lane = i & segmask;
    int b5 = b & 31, j;
    bool ok;
    switch (op) {
    case MCT_EMU_OP_SHFL_UP: j = i - b5; ok = j >= max_lane; break;
    case MCT_EMU_OP_SHFL_DOWN: j = i + b5; ok = j <= max_lane; break;
    case MCT_EMU_OP_SHFL_XOR: j = i ^ b5; ok = j <= max_lane; break;
    default: j = min_lane | (b5 & ~segmask & 31); ok = j <= max_lane; break;
    }
    return ok ? j : i;
}

uint64_t truncate_bits(uint64_t v, int size) {
    return size >= 8 ? v : v & ((1ull << (8 * size)) - 1);
}

/** Computes the results of the rendezvous of warp w on mask, among the lanes in
 * present (mask itself unless lanes of it can never come), and releases them. */
void block_runner::complete(int w, unsigned mask, unsigned present) {
    int first = __builtin_ctz(present);
    lane& f = at(w, first);
    for (unsigned m = present; m; m &= m - 1) {
        lane& o = at(w, __builtin_ctz(m));
        if (o.op != f.op || o.size != f.size || (is_shfl(f.op) && o.width != f.width)) {
            L.error(strprintf("%s: lanes of one rendezvous (mask 0x%08x) disagree: lane %d "
                              "at %s (size %d, width %d), lane %d at %s (size %d, width %d)",
                              where(f).c_str(), mask, first, site(f).c_str(), f.size,
                              f.width, o.id % 32, site(o).c_str(), o.size, o.width));
            for (unsigned r = present; r; r &= r - 1) {
                lane& x = at(w, __builtin_ctz(r));
                x.result = 0;
                x.pred = 0;
                x.state = LANE_RUNNABLE;
            }
            return;
        }
    }
    unsigned ballot = 0;
    uint32_t sum = 0; /* __reduce_add_sync: wraps as the hardware does */
    bool all_equal = true;
    for (unsigned m = present; m; m &= m - 1) {
        lane& o = at(w, __builtin_ctz(m));
        if (o.value) ballot |= 1u << (o.id % 32);
        if (o.value != f.value) all_equal = false;
        sum += (uint32_t)o.value;
    }
    bool bad_width = is_shfl(f.op) && (f.width < 1 || f.width > 32 || (f.width & (f.width - 1)));
    if (bad_width)
        L.error(strprintf("%s: %s width %d is not a power of two in [1, 32]",
                          where(f).c_str(), site(f).c_str(), f.width));
    unsigned bad_readers = 0;
    std::string first_bad;
    for (unsigned m = present; m; m &= m - 1) {
        int i = __builtin_ctz(m);
        lane& o = at(w, i);
        o.pred = 0;
        switch (o.op) {
        case MCT_EMU_OP_SHFL_IDX:
        case MCT_EMU_OP_SHFL_UP:
        case MCT_EMU_OP_SHFL_DOWN:
        case MCT_EMU_OP_SHFL_XOR: {
            int j = bad_width ? i : shfl_source(o.op, i, o.arg, o.width);
            if (j != i && !((present >> j) & 1u)) {
                if (!bad_readers) { /* one report per rendezvous, naming the first reader */
                    std::string why = absence(w, j, mask);
                    if (!((mask >> j) & 1u))
                        why = strprintf("lane %d is not in the mask (%s)", j, why.c_str());
                    first_bad = strprintf("%s: %s (mask 0x%08x) reads lane %d, but %s",
                                          where(o).c_str(), site(o).c_str(), mask, j,
                                          why.c_str());
                }
                bad_readers |= 1u << i;
                o.result = 0;
            } else {
                o.result = truncate_bits(at(w, j).value, o.size);
            }
            break;
        }
        case MCT_EMU_OP_BALLOT: o.result = ballot; break;
        case MCT_EMU_OP_ANY: o.result = ballot != 0; break;
        case MCT_EMU_OP_ALL: o.result = ballot == present; break;
        case MCT_EMU_OP_MATCH_ANY: {
            unsigned r = 0;
            for (unsigned k = present; k; k &= k - 1)
                if (at(w, __builtin_ctz(k)).value == o.value) r |= k & -k;
            o.result = r;
            break;
        }
        case MCT_EMU_OP_MATCH_ALL:
            o.result = all_equal ? present : 0;
            o.pred = all_equal;
            break;
        case MCT_EMU_OP_REDUCE_ADD: o.result = sum; break;
        default: o.result = 0; break; /* __syncwarp */
        }
    }
    if (bad_readers)
        L.error(first_bad + strprintf(" (lanes reading outside the rendezvous: 0x%08x; they "
                                      "got 0)", bad_readers));
    for (unsigned m = present; m; m &= m - 1) at(w, __builtin_ctz(m)).state = LANE_RUNNABLE;
}

/** Phase A (and D when allow_broken): completes every warp rendezvous whose mask's
 * lanes have all arrived with that mask (or, for D, can never arrive). */
bool block_runner::decide_warps(bool allow_broken) {
    bool progress = false;
    for (int w = 0; w < nwarps; ++w) {
        int nw = warp_size(w);
        for (int l = 0; l < nw; ++l) {
            lane& ln = at(w, l);
            if (ln.state != LANE_WAITING || !is_warp_sync(ln.op)) continue;
            unsigned mask = ln.mask, present = 0, dead = 0;
            bool can_wait = false;
            for (unsigned m = mask; m; m &= m - 1) {
                int k = __builtin_ctz(m);
                if (k >= nw || at(w, k).state == LANE_EXITED) {
                    dead |= m & -m;
                    continue;
                }
                lane& o = at(w, k);
                if (o.state == LANE_WAITING && is_warp_sync(o.op) && o.mask == mask)
                    present |= m & -m;
                else
                    can_wait = true;
            }
            if (can_wait || (dead && !allow_broken)) continue;
            if (dead) {
                int k = __builtin_ctz(dead);
                L.error(strprintf("%s: %s with mask 0x%08x can never complete: %s",
                                  where(ln).c_str(), site(ln).c_str(), mask,
                                  absence(w, k, mask).c_str()));
            }
            complete(w, mask, present);
            progress = true;
        }
    }
    return progress;
}

/** Phase B: a barrier of all non-exited lanes (exited ones count as arrived, as on
 * sm_70 and later). */
bool block_runner::decide_barrier() {
    int live = 0, count = 0, op = 0;
    const lane* first = nullptr;
    for (lane& ln : lanes) {
        if (ln.state == LANE_EXITED) continue;
        if (ln.state != LANE_WAITING || !is_barrier(ln.op)) return false;
        ++live;
        count += ln.value != 0;
        if (!first) {
            first = &ln;
            op = ln.op;
        } else if (ln.op != op && op != -1) { /* reported once per barrier */
            L.error(strprintf("%s: threads of one barrier disagree: %s, but %s is at %s",
                              where(*first).c_str(), site(*first).c_str(), where(ln).c_str(),
                              site(ln).c_str()));
            op = -1;
        }
    }
    if (!live) return false;
    for (lane& ln : lanes) {
        if (ln.state == LANE_EXITED) continue;
        ln.state = LANE_RUNNABLE;
        switch (ln.op) {
        case MCT_EMU_OP_SYNCTHREADS_COUNT: ln.result = (uint64_t)count; break;
        case MCT_EMU_OP_SYNCTHREADS_AND: ln.result = count == live; break;
        case MCT_EMU_OP_SYNCTHREADS_OR: ln.result = count > 0; break;
        default: ln.result = 0; break;
        }
    }
    return true;
}

/** Phase C: each group of a warp's lanes stopped at one __activemask call site gets
 * the mask of that group. */
bool block_runner::decide_activemask() {
    bool progress = false;
    for (int w = 0; w < nwarps; ++w) {
        int nw = warp_size(w);
        for (int l = 0; l < nw; ++l) {
            lane& ln = at(w, l);
            if (ln.state != LANE_WAITING || ln.op != MCT_EMU_OP_ACTIVEMASK) continue;
            unsigned group = 0;
            for (int k = l; k < nw; ++k) {
                lane& o = at(w, k);
                if (o.state == LANE_WAITING && o.op == MCT_EMU_OP_ACTIVEMASK &&
                    o.line == ln.line && (o.file == ln.file || !strcmp(o.file, ln.file)))
                    group |= 1u << k;
            }
            for (unsigned m = group; m; m &= m - 1) {
                lane& o = at(w, __builtin_ctz(m));
                o.result = group;
                o.state = LANE_RUNNABLE;
            }
            progress = true;
        }
    }
    return progress;
}

bool block_runner::decide_yields() {
    bool progress = false;
    for (lane& ln : lanes)
        if (ln.state == LANE_WAITING && ln.op == MCT_EMU_OP_YIELD) {
            ln.state = LANE_RUNNABLE;
            progress = true;
        }
    return progress;
}

/** Phase E: nothing can move. Names the stuck lanes and, for the first of them, which
 * lane it is waiting for and where that lane is. */
void block_runner::report_deadlock() {
    std::string msg = strprintf("block (%u,%u,%u): deadlock, no waiting lane can proceed",
                                bidx.x, bidx.y, bidx.z);
    int shown = 0, stuck = 0;
    std::string reason;
    for (lane& ln : lanes) {
        if (ln.state != LANE_WAITING) continue;
        ++stuck;
        if (shown < 4) {
            msg += strprintf("; warp %d lane %d waits at %s", ln.id / 32, ln.id % 32,
                             site(ln).c_str());
            if (is_warp_sync(ln.op)) msg += strprintf(" (mask 0x%08x)", ln.mask);
            ++shown;
        }
        if (!reason.empty()) continue;
        int w = ln.id / 32;
        if (is_warp_sync(ln.op)) {
            for (unsigned m = ln.mask; m; m &= m - 1) {
                int k = __builtin_ctz(m);
                lane& o = at(w, k);
                if (!(o.state == LANE_WAITING && is_warp_sync(o.op) && o.mask == ln.mask)) {
                    reason = strprintf("warp %d lane %d's mask 0x%08x names lane %d, but %s", w,
                                       ln.id % 32, ln.mask, k, absence(w, k, ln.mask).c_str());
                    break;
                }
            }
        } else if (is_barrier(ln.op)) {
            for (lane& o : lanes)
                if (o.state == LANE_WAITING && !is_barrier(o.op)) {
                    reason = strprintf("%s at %s:%d waits for thread %d, which waits at %s",
                                       op_name(ln.op), ln.file, ln.line, o.id, site(o).c_str());
                    break;
                }
        }
    }
    if (stuck > shown) msg += strprintf("; and %d more", stuck - shown);
    if (!reason.empty()) msg += "; " + reason;
    L.error(msg + "; the block was abandoned");
}

void block_runner::run_block(uint64_t b) {
    const dim3 g = L.grid, bd = L.block;
    bidx = uint3{(unsigned)(b % g.x), (unsigned)(b / g.x % g.y), (unsigned)(b / g.x / g.y)};
    if (smem) memset(smem, 0xA5, L.smem); /* garbage, as fresh shared memory is */
    int n = (int)lanes.size();
    for (int i = 0; i < n; ++i) {
        lane& ln = lanes[(size_t)i];
        ln.thread_idx = uint3{(unsigned)i % bd.x, (unsigned)i / bd.x % bd.y,
                              (unsigned)i / bd.x / bd.y};
        ln.block_idx = bidx;
        ln.block_dim = bd;
        ln.grid_dim = g;
        ln.dyn_smem = smem;
        ln.block = this;
        ln.id = i;
        ln.state = LANE_RUNNABLE;
        ln.clock = 0;
        mct__emu_fiber_init(&ln.fiber, t_stacks.stack(i), t_stacks.usable, lane_main, &ln);
    }
    for (;;) {
        int exited = 0;
        for (lane& ln : lanes) {
            if (ln.state == LANE_RUNNABLE) {
                mct_emu_cur = &ln;
                mct__emu_fiber_switch(&sched, &ln.fiber);
                mct_emu_cur = nullptr;
            }
            exited += ln.state == LANE_EXITED;
        }
        if (exited == n) return;
        if (decide_warps(false) || decide_barrier() || decide_activemask() ||
            decide_warps(true) || decide_yields())
            continue;
        report_deadlock();
        return; /* the lanes' stacks are simply reused by the next block */
    }
}

/* Per-OS-thread setting of mct_emu_set_threads(); 0 means the default. */
thread_local int t_thread_setting = 0;

std::string launch_header(const launch& L) {
    return strprintf("mctally emulation: kernel %s<<<(%u,%u,%u), (%u,%u,%u), %zu>>> launched "
                     "at %s:%d failed:",
                     L.name ? L.name : "?", L.grid.x, L.grid.y, L.grid.z, L.block.x,
                     L.block.y, L.block.z, L.smem, L.file ? L.file : "?", L.line);
}

} // namespace

extern "C" int mct_emu_set_threads(int n) {
    int old = t_thread_setting;
    t_thread_setting = n > 0 ? n : 0;
    return old;
}

extern "C" int mct_emu_threads(void) {
#if !defined(_OPENMP)
    return 1; /* built without OpenMP: blocks run on the launching thread */
#endif
    if (t_thread_setting > 0) return t_thread_setting;
    if (const char* e = getenv("MCT_EMU_THREADS")) {
        int v = atoi(e);
        if (v > 0) return v;
    }
#if defined(_OPENMP)
    return omp_get_max_threads();
#else
    return 1;
#endif
}

/* Inside a kernel, a lane's clock64() is a counter of its own reads (each read
 * advances it by one), not the host's time: a lane's reads still differ and
 * increase, as a GPU's cycle counter does, and everything a kernel derives from
 * them (the rounding-loss sampling keys of thread_loss.cuh) is the same from run
 * to run whatever the host's load and the OS threads' interleaving, so that
 * emulated results are reproducible. Outside a kernel: the host's steady clock
 * in nanoseconds. */
extern "C" long long mct_emu_clock64(void) {
    if (mct_emu_cur) {
        lane* me = const_cast<lane*>(static_cast<const lane*>(mct_emu_cur));
        return (long long)++me->clock;
    }
    return (long long)std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

namespace {
/* Whole 16-byte accesses: a spin lock per address class (the address's 16-byte slot
 * modulo the table size) makes each copy indivisible for the other OS threads. The
 * holder never switches fibers inside, so a lock is held for one memcpy only. */
const unsigned kAccess16Locks = 64;
bool g_access16_lock[kAccess16Locks];

void access_16(void* dst, const void* src, const void* slot, const char* what) {
    if ((uintptr_t)slot & 15u) {
        lane* me = const_cast<lane*>(static_cast<const lane*>(mct_emu_cur));
        const std::string msg = strprintf("16-byte %s at %p, which is not 16-byte aligned", what, slot);
        if (me) me->block->L.error(me->block->where(*me) + ": " + msg);
        else fprintf(stderr, "mctally emulation: %s\n", msg.c_str());
    }
    bool* lk = &g_access16_lock[((uintptr_t)slot >> 4) % kAccess16Locks];
    while (__atomic_test_and_set(lk, __ATOMIC_ACQUIRE)) {
    }
    memcpy(dst, src, 16);
    __atomic_clear(lk, __ATOMIC_RELEASE);
}
} // namespace

extern "C" void mct_emu_load_16(void* dst, const void* src) { access_16(dst, src, src, "load"); }
extern "C" void mct_emu_store_16(void* dst, const void* src) { access_16(dst, src, dst, "store"); }

extern "C" uint64_t mct_emu_collective(int op, unsigned mask, uint64_t value, int arg,
                                        int width, int size, int* pred, const char* file,
                                        int line) {
    lane* me = const_cast<lane*>(static_cast<const lane*>(mct_emu_cur));
    if (!me) {
        fprintf(stderr, "mctally emulation: %s called outside a kernel at %s:%d\n",
                op_name(op), file, line);
        abort();
    }
    unsigned self = 1u << (me->id % 32);
    if (is_warp_sync(op) && !(mask & self)) {
        me->block->L.error(strprintf("%s: %s at %s:%d with mask 0x%08x that does not name the "
                                     "calling lane",
                                     me->block->where(*me).c_str(), op_name(op), file, line,
                                     mask));
        mask |= self;
    }
    me->op = op;
    me->mask = mask;
    me->value = value;
    me->arg = arg;
    me->width = width;
    me->size = size;
    me->file = file;
    me->line = line;
    me->state = LANE_WAITING;
    mct__emu_fiber_switch(&me->fiber, &me->block->sched);
    if (pred) *pred = me->pred;
    return me->result;
}

extern "C" void mct_emu_launch(const char* kernel_name, const char* file, int line, dim3 grid,
                               dim3 block, size_t smem_bytes, mct_emu_stream_t stream,
                               void (*body)(void*), void* arg) {
    (void)stream; /* streams are synchronous: the grid is done when this returns */
    launch L;
    L.name = kernel_name;
    L.file = file;
    L.line = line;
    L.grid = grid;
    L.block = block;
    L.smem = smem_bytes;
    L.body = body;
    L.arg = arg;
    uint64_t nthreads = (uint64_t)block.x * block.y * block.z;
    uint64_t nblocks = (uint64_t)grid.x * grid.y * grid.z;
    if (mct_emu_cur) {
        mct__emu_set_error(mct_emu_error_not_supported,
                           launch_header(L) + " launches from device code are not emulated");
        return;
    }
    if (nthreads == 0 || nthreads > (uint64_t)kMaxThreadsPerBlock || block.z > 64 ||
        nblocks == 0 || grid.x > 0x7fffffffu || grid.y > 65535 || grid.z > 65535 ||
        smem_bytes > kMaxDynamicSmem) {
        mct__emu_set_error(mct_emu_error_invalid_configuration,
                           launch_header(L) + " invalid launch configuration");
        return;
    }
    L.threads_per_block = (int)nthreads;
    int nt = mct_emu_threads();
    if ((uint64_t)nt > nblocks) nt = (int)nblocks;
    bool no_stacks = false;
    /* schedule(dynamic, 1) hands blocks out in increasing order, so a block may wait
     * for a lower-numbered one (decoupled look-back): that block has already started. */
#if defined(_OPENMP)
#pragma omp parallel num_threads(nt) reduction(|| : no_stacks)
#endif
    {
        /* Every thread of the team must reach the worksharing loop, so a thread without
         * stacks still takes its share of blocks and flags each as not run. */
        bool have_stacks = t_stacks.reserve(L.threads_per_block);
        block_runner r(L);
#if defined(_OPENMP)
#pragma omp for schedule(dynamic, 1)
#endif
        for (uint64_t b = 0; b < nblocks; ++b) {
            if (have_stacks)
                r.run_block(b);
            else
                no_stacks = true;
        }
    }
    if (no_stacks) {
        mct__emu_set_error(mct_emu_error_memory_allocation,
                           launch_header(L) + " could not map the lanes' stacks");
        return;
    }
    if (L.nerrors) {
        std::string msg = launch_header(L) + "\n" + L.report;
        if (L.nerrors > kMaxReported)
            msg += strprintf("  (%d more errors not shown)\n", L.nerrors - kMaxReported);
        fputs(msg.c_str(), stderr);
        mct__emu_set_error(mct_emu_error_launch_failure, msg);
    }
}
