/* SPDX-License-Identifier: BSD-3-Clause */
/** @file emu_fiber.cpp  Fiber context switching for the emulated lanes. */
#include <stdint.h>
#include <string.h>

#include "emu_internal.h"

#if MCT__EMU_ASM_FIBERS

/* The switch saves only what the System V ABI makes callee-saved (rbx, rbp, r12-r15,
 * the MXCSR control bits and the x87 control word): the caller of a function already
 * assumes everything else is clobbered. A new fiber starts in mct__emu_fiber_start,
 * which finds the entry function in r12 and its argument in r13. */
extern "C" void mct__emu_fiber_swap(void** save_sp, void* next_sp);
extern "C" void mct__emu_fiber_start(void);
__asm__(
    ".text\n"
    ".p2align 4\n"
    ".globl mct__emu_fiber_swap\n"
    ".hidden mct__emu_fiber_swap\n"
    ".type mct__emu_fiber_swap,@function\n"
    "mct__emu_fiber_swap:\n"
    "  pushq %rbp\n"
    "  pushq %rbx\n"
    "  pushq %r12\n"
    "  pushq %r13\n"
    "  pushq %r14\n"
    "  pushq %r15\n"
    "  subq $8, %rsp\n"
    "  stmxcsr (%rsp)\n"
    "  fnstcw 4(%rsp)\n"
    "  movq %rsp, (%rdi)\n"
    "  movq %rsi, %rsp\n"
    "  ldmxcsr (%rsp)\n"
    "  fldcw 4(%rsp)\n"
    "  addq $8, %rsp\n"
    "  popq %r15\n"
    "  popq %r14\n"
    "  popq %r13\n"
    "  popq %r12\n"
    "  popq %rbx\n"
    "  popq %rbp\n"
    "  ret\n"
    ".size mct__emu_fiber_swap, .-mct__emu_fiber_swap\n"
    ".p2align 4\n"
    ".globl mct__emu_fiber_start\n"
    ".hidden mct__emu_fiber_start\n"
    ".type mct__emu_fiber_start,@function\n"
    "mct__emu_fiber_start:\n"
    "  movq %r13, %rdi\n"
    "  callq *%r12\n"
    "  ud2\n"
    ".size mct__emu_fiber_start, .-mct__emu_fiber_start\n");

void mct__emu_fiber_init(mct__emu_fiber* f, void* lo, size_t size, void (*fn)(void*),
                         void* arg) {
    uintptr_t top = ((uintptr_t)lo + size) & ~(uintptr_t)15;
    uint64_t* sp = (uint64_t*)(top - 64 - 16); /* 16-byte aligned, as the start needs */
    uint32_t mxcsr;
    uint16_t fpucw;
    __asm__ volatile("stmxcsr %0" : "=m"(mxcsr));
    __asm__ volatile("fnstcw %0" : "=m"(fpucw));
    sp[0] = (uint64_t)mxcsr | ((uint64_t)fpucw << 32);
    sp[1] = 0;                                 /* r15 */
    sp[2] = 0;                                 /* r14 */
    sp[3] = (uint64_t)(uintptr_t)arg;          /* r13 */
    sp[4] = (uint64_t)(uintptr_t)fn;           /* r12 */
    sp[5] = 0;                                 /* rbx */
    sp[6] = 0;                                 /* rbp */
    sp[7] = (uint64_t)(uintptr_t)&mct__emu_fiber_start; /* return address */
    f->sp = sp;
}

void mct__emu_fiber_switch(mct__emu_fiber* from, mct__emu_fiber* to) {
    mct__emu_fiber_swap(&from->sp, to->sp);
}

#else /* ucontext fallback */

/* makecontext passes int arguments only, so the pointers travel in 32-bit halves. */
static void mct__emu_fiber_trampoline(unsigned fn_lo, unsigned fn_hi, unsigned a_lo,
                                      unsigned a_hi) {
    void (*fn)(void*) = (void (*)(void*))(((uintptr_t)fn_hi << 32) | fn_lo);
    void* arg = (void*)(((uintptr_t)a_hi << 32) | a_lo);
    fn(arg);
}

void mct__emu_fiber_init(mct__emu_fiber* f, void* lo, size_t size, void (*fn)(void*),
                         void* arg) {
    getcontext(&f->uc);
    f->uc.uc_stack.ss_sp = lo;
    f->uc.uc_stack.ss_size = size;
    f->uc.uc_link = nullptr;
    uint64_t fv = (uint64_t)(uintptr_t)fn, av = (uint64_t)(uintptr_t)arg;
    makecontext(&f->uc, (void (*)(void))mct__emu_fiber_trampoline, 4, (unsigned)fv,
                (unsigned)(fv >> 32), (unsigned)av, (unsigned)(av >> 32));
}

void mct__emu_fiber_switch(mct__emu_fiber* from, mct__emu_fiber* to) {
    swapcontext(&from->uc, &to->uc);
}

#endif
