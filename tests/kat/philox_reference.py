#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""@file philox_reference.py  Independent reference model of Philox4x32-10 and of
cuRAND's Philox4_32_10 stream, used to produce and check rng_kat_vectors.txt.

Standard library only. It shares no code with include/mctally/mct_rng.h: the
bijection follows the published description (Salmon et al., SC'11), the
stream is modelled as a position p in one long sequence, as cuRAND documents
it (curand_init skips 2^66 * subsequence + offset elements; element p is word
p mod 4 of Philox applied to the 128-bit counter floor(p / 4) under the key
(seed low, seed high), where the upper 64 counter bits hold the subsequence),
and every floating-point result is rounded from exact rationals.

Usage:
    philox_reference.py --write FILE   write the vectors file
    philox_reference.py --check FILE   recompute every line of FILE, exit 1 on
                                       any difference
"""
import argparse
import sys
from fractions import Fraction

M32 = 0xFFFFFFFF
MULT = (0xD2511F53, 0xCD9E8D57)
WEYL = (0x9E3779B9, 0xBB67AE85)


def philox4x32(ctr, key, rounds=10):
    """Philox4x32-R: S-box 'multiply, take hi and lo', then permute and xor key."""
    x0, x1, x2, x3 = ctr
    k0, k1 = key
    for r in range(rounds):
        if r > 0:
            k0 = (k0 + WEYL[0]) & M32
            k1 = (k1 + WEYL[1]) & M32
        p0 = MULT[0] * x0
        p1 = MULT[1] * x2
        x0, x1, x2, x3 = ((p1 >> 32) ^ x1 ^ k0, p1 & M32, (p0 >> 32) ^ x3 ^ k1, p0 & M32)
    return (x0, x1, x2, x3)


# The published Random123 known answers for philox4x32 with 10 rounds
# (counter, key, expected output), as printed in its kat_vectors file.
PUBLISHED = [
    ((0, 0, 0, 0), (0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
    ((M32, M32, M32, M32), (M32, M32), (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
    ((0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344), (0xA4093822, 0x299F31D0),
     (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1)),
]


def round_binary(v, mant_bits):
    """Rounds the positive rational v to mant_bits significant bits, ties to even."""
    assert v > 0
    e = v.numerator.bit_length() - v.denominator.bit_length()
    if Fraction(2) ** e > v:
        e -= 1
    scale = Fraction(2) ** (mant_bits - 1 - e)
    m = v * scale
    q, rem = divmod(m.numerator, m.denominator)
    twice = 2 * rem
    if twice > m.denominator or (twice == m.denominator and q & 1):
        q += 1
    return Fraction(q) / scale


def f32_bits(v):
    """IEEE binary32 bits of a value already rounded to 24 bits (normal, positive)."""
    e = v.numerator.bit_length() - v.denominator.bit_length()
    if Fraction(2) ** e > v:
        e -= 1
    m = v / Fraction(2) ** e * (1 << 23)
    assert m.denominator == 1 and (1 << 23) <= m.numerator < (1 << 24)
    return ((e + 127) << 23) | (m.numerator - (1 << 23))


def f64_bits(v):
    """IEEE binary64 bits of a value already rounded to 53 bits (normal, positive)."""
    e = v.numerator.bit_length() - v.denominator.bit_length()
    if Fraction(2) ** e > v:
        e -= 1
    m = v / Fraction(2) ** e * (1 << 52)
    assert m.denominator == 1 and (1 << 52) <= m.numerator < (1 << 53)
    return ((e + 1023) << 52) | (m.numerator - (1 << 52))


def uniform_f32(x):
    """curand_uniform: float(x) * 2^-32 + 2^-33, each step rounded to float."""
    fx = round_binary(Fraction(x), 24) if x else Fraction(0)
    return round_binary(fx / 2**32 + Fraction(1, 2**33), 24)


def uniform_f64_32(x):
    """curand_uniform_double for Philox: x * 2^-32 + 2^-32 (exact)."""
    return Fraction(x + 1, 2**32)


def uniform_f64_53(x, y):
    """curand_uniform2_double's per-value formula: z = x ^ (y << 21), z*2^-53 + 2^-54."""
    z = x ^ (y << 21)
    return round_binary(Fraction(z, 2**53) + Fraction(1, 2**54), 53)


class Stream:
    """cuRAND's Philox4_32_10 stream as a position in the sequence."""

    def __init__(self, seed, subsequence, offset):
        self.key = (seed & M32, seed >> 32)
        self.p = ((subsequence << 66) + offset) % (1 << 130)

    def skipahead(self, n):
        self.p = (self.p + n) % (1 << 130)

    def word(self, p):
        c = (p >> 2) % (1 << 128)
        ctr = tuple((c >> (32 * i)) & M32 for i in range(4))
        return philox4x32(ctr, self.key)[p & 3]

    def u32(self):
        w = self.word(self.p)
        self.skipahead(1)
        return w

    def u32x4(self):
        return [self.u32() for _ in range(4)]


def gen_line(kind, seed, sub, off, skips=()):
    s = Stream(seed, sub, off)
    for n in skips:
        s.skipahead(n)
    if kind in ("stream_u32", "stream_skip"):
        vals = ["%08x" % s.u32() for _ in range(8)]
    elif kind == "stream_u32x4":
        vals = ["%08x" % w for _ in range(2) for w in s.u32x4()]
    elif kind == "stream_f32":
        vals = ["%08x" % f32_bits(uniform_f32(s.u32())) for _ in range(4)]
    elif kind == "stream_f64":
        vals = ["%016x" % f64_bits(uniform_f64_32(s.u32())) for _ in range(4)]
    elif kind == "stream_f64x2":
        vals = []
        for _ in range(2):
            a, b, c, d = s.u32x4()
            vals += ["%016x" % f64_bits(uniform_f64_53(a, b)),
                     "%016x" % f64_bits(uniform_f64_53(c, d))]
    else:
        raise ValueError(kind)
    head = [kind, "%016x" % seed, "%016x" % sub, "%016x" % off]
    head += ["%016x" % n for n in skips]
    return " ".join(head + vals)


M64 = (1 << 64) - 1
TRIPLES = [
    (0, 0, 0),
    (1, 0, 0),
    (0x0123456789ABCDEF, 0, 1),
    (42, 1, 2),
    (0xDEADBEEFCAFEBABE, M64, 3),
    (M64, 1 << 32, M64),
    (12345, 7, 0x100000003),
    (1 << 63, (1 << 63) + 5, M64 - 1),
]
SKIPS = [
    # Offsets and skips that drive the 64-bit block index past 2^64 - 1, so
    # the carry into (and the wrap of) the subsequence words is exercised.
    (7, M64, M64, (M64, M64, M64)),
    (7, M64, M64 - 1, (M64, M64, M64)),
    (0x9E3779B97F4A7C15, 3, 5, (6, 1 << 40, 0x123456789)),
]


HEADER = """\
# SPDX-License-Identifier: BSD-3-Clause
# Known-answer vectors for include/mctally/mct_rng.h, read by tests/kat/kat_body.h.
# All numbers are hexadecimal. Lines:
#   philox4x32_10 C0 C1 C2 C3 K0 K1 O0 O1 O2 O3
#       mct_philox4x32_10(ctr = C, key = K) == O.
#   stream_u32   SEED SUB OFF  8 words: the first 8 curand() after curand_init(SEED, SUB, OFF)
#   stream_u32x4 SEED SUB OFF  8 words: the first 2 curand4() (x, y, z, w each)
#   stream_f32   SEED SUB OFF  4 float bit patterns: the first 4 curand_uniform()
#   stream_f64   SEED SUB OFF  4 double bit patterns: the first 4 curand_uniform_double()
#                (cuRAND's Philox version uses ONE 32-bit output per double)
#   stream_f64x2 SEED SUB OFF  4 double bit patterns: the first 2 curand_uniform2_double() (x, y each)
#   stream_skip  SEED SUB OFF N1 N2 N3  8 words: curand_init, skipahead(N1), (N2), (N3), 8 curand()
#
# How they were obtained:
# - The three philox4x32_10 lines are Random123's published known answers
#   (kat_vectors, "philox4x32 10" lines). They were recomputed, and matched, by
#   tests/kat/philox_reference.py (an independent stdlib-only Python model) and
#   by mct_philox4x32_10 (tests/kat/test_rng_kat_host.c).
# - The stream lines were generated by tests/kat/philox_reference.py --write,
#   a model of cuRAND's documented Philox4_32_10 sequence (position p =
#   2^66*SUB + OFF; element p is word p%4 of Philox(counter = p/4, key = SEED))
#   with exact-rational rounding of the uniform conversions. They are checked
#   against mct_rng.h on the host (test_rng_kat_host) and on the GPU
#   (test_rng_kat_cuda), which also compares with real cuRAND outputs.
"""


def generate():
    lines = [HEADER.rstrip("\n")]
    for ctr, key, out in PUBLISHED:
        got = philox4x32(ctr, key)
        assert got == out, (ctr, key, got, out)
        lines.append("philox4x32_10 " + " ".join("%08x" % w for w in ctr + key + out))
    for kind in ("stream_u32", "stream_u32x4", "stream_f32", "stream_f64", "stream_f64x2"):
        for seed, sub, off in TRIPLES:
            lines.append(gen_line(kind, seed, sub, off))
    for seed, sub, off, skips in SKIPS:
        lines.append(gen_line("stream_skip", seed, sub, off, skips))
    return "\n".join(lines) + "\n"


def check(path):
    bad = 0
    n = 0
    with open(path) as f:
        for line in f:
            t = line.split()
            if not t or t[0].startswith("#"):
                continue
            n += 1
            if t[0] == "philox4x32_10":
                w = [int(x, 16) for x in t[1:]]
                got = philox4x32(tuple(w[0:4]), tuple(w[4:6]))
                ok = got == tuple(w[6:10])
                exp = line.strip()
                got_line = "philox4x32_10 " + " ".join("%08x" % x for x in w[0:6] + list(got))
            else:
                nums = [int(x, 16) for x in t[1:]]
                skips = tuple(nums[3:6]) if t[0] == "stream_skip" else ()
                got_line = gen_line(t[0], nums[0], nums[1], nums[2], skips)
                exp = " ".join(t)
                ok = got_line == exp
            if not ok:
                bad += 1
                print("MISMATCH\n  file: %s\n  calc: %s" % (exp, got_line))
    print("%d lines checked, %d mismatches" % (n, bad))
    return bad == 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--write", metavar="FILE")
    g.add_argument("--check", metavar="FILE")
    a = ap.parse_args()
    if a.write:
        with open(a.write, "w") as f:
            f.write(generate())
        return 0
    return 0 if check(a.check) else 1


if __name__ == "__main__":
    sys.exit(main())
