/* SPDX-License-Identifier: BSD-3-Clause */
/** @file emu_internal.h  Pieces shared by the emulation runtime's files: fibers and the
 * process-wide error record (the one piece of global mutable state, under a mutex). */
#ifndef MCT_EMU_INTERNAL_H
#define MCT_EMU_INTERNAL_H

#include <stddef.h>
#include <string>

#include "mctally/emu/mct_emu.h"

#if defined(__x86_64__) && !defined(MCT_EMU_USE_UCONTEXT)
#define MCT__EMU_ASM_FIBERS 1
#else
#define MCT__EMU_ASM_FIBERS 0
#include <ucontext.h>
#endif

/** An execution context: the saved stack pointer of a suspended fiber (hand-written
 * x86-64 switch, which avoids ucontext's signal-mask system call on every switch), or a
 * ucontext on other platforms. */
struct mct__emu_fiber {
#if MCT__EMU_ASM_FIBERS
    void* sp;
#else
    ucontext_t uc;
#endif
};

/** Prepares f to run fn(arg) on the stack [lo, lo + size) at its first switch. */
void mct__emu_fiber_init(mct__emu_fiber* f, void* lo, size_t size, void (*fn)(void*),
                         void* arg);
/** Saves the running context in from and resumes to. */
void mct__emu_fiber_switch(mct__emu_fiber* from, mct__emu_fiber* to);

/** Sets the error cudaGetLastError() returns next, with its detailed message. */
void mct__emu_set_error(mct_emu_error_t code, const std::string& message);

#endif /* MCT_EMU_INTERNAL_H */
