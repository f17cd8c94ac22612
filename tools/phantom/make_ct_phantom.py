#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Writes a CT-like phantom of Hounsfield units as a MetaImage (PREFIX.mhd +
PREFIX.raw, MET_SHORT, little-endian), for the phantom's `geometry = image`.

The grid's axes: x left to right, y head to foot, z front to back (the beam
enters at the centre of the z = 0 face and runs along +z, anterior to
posterior). The default grid is 256 x 256 x 128 voxels of 1.5 x 1.5 x 2.5 mm
(38.4 x 38.4 x 32 cm). In it, a trunk: an elliptical body of soft tissue
(40 HU) along y in air (-1000 HU, a border all round), two lungs (-800 HU),
a spine of vertebrae (700 HU) with discs between them (80 HU), ribs
(1000 HU) along the chest wall and a sternum (600 HU). The shapes are
fractions of the grid's extent, so a smaller or coarser grid holds the same
trunk. `--noise SD` adds a scanner's noise of SD HU to every voxel (near
Gaussian, from a hash of the voxel's index, clamped to the default
calibration's -1024 .. 1976): the densities then change at most voxel faces,
as in a real image. Plain Python, no random state: the same arguments give
the same bytes.

    python3 tools/phantom/make_ct_phantom.py out/ct_phantom
    python3 tools/phantom/make_ct_phantom.py small --voxels 64 64 32 --spacing 6 6 10
    python3 tools/phantom/make_ct_phantom.py out/ct_noisy --noise 20
"""
import argparse
import math
import os
import sys
from array import array

AIR, TISSUE, LUNG, VERTEBRA, DISC, RIB, STERNUM = -1000, 40, -800, 700, 80, 1000, 600

# The trunk in millimetres on the default extents (384 x 384 x 320 mm),
# scaled to the grid's: (centre, semi-axes) and the like.
REF = (384.0, 384.0, 320.0)


def build(n, d):
    nx, ny, nz = n
    dx, dy, dz = d
    sx, sy, sz = nx * dx / REF[0], ny * dy / REF[1], nz * dz / REF[2]
    zc = 160.0 * sz                       # the body's centre in depth
    body_a, body_b = 170.0 * sx, 120.0 * sz
    rib_outer = (160.0 * sx, 110.0 * sz)  # the ribs' ring: between two ellipses
    rib_inner = (150.0 * sx, 100.0 * sz)
    lungs = [(-75.0 * sx, 40.0 * sy, zc - 10.0 * sz), (75.0 * sx, 40.0 * sy, zc - 10.0 * sz)]
    lung_axes = (55.0 * sx, 130.0 * sy, 80.0 * sz)
    chest = (40.0 * sy - 130.0 * sy, 40.0 * sy + 130.0 * sy)  # y span of the lungs, ribs and sternum
    spine_z, spine_r = zc + 90.0 * sz, 18.0 * min(sx, sz)
    vertebra, period = 24.0 * sy, 30.0 * sy
    rib_width, rib_period = 10.0 * sy, 25.0 * sy
    sternum_x, sternum_z = 15.0 * sx, (zc - body_b + 8.0 * sz, zc - body_b + 22.0 * sz)

    def cols(lo, hi):
        """The x indices whose voxel centres lie in [lo, hi] (mm from the axis)."""
        a = max(0, math.ceil(lo / dx + nx / 2.0 - 0.5))
        b = min(nx - 1, math.floor(hi / dx + nx / 2.0 - 0.5))
        return a, b + 1

    def half_width(a, b, t):
        """Half the chord of an ellipse of semi-axes a, b at offset t along b (None: outside)."""
        u = 1.0 - (t / b) ** 2
        return a * math.sqrt(u) if u >= 0.0 else None

    out = array('h')
    for iz in range(nz):
        z = (iz + 0.5) * dz
        w_body = half_width(body_a, body_b, z - zc)
        w_out = half_width(rib_outer[0], rib_outer[1], z - zc)
        w_in = half_width(rib_inner[0], rib_inner[1], z - zc)
        for iy in range(ny):
            y = (iy + 0.5) * dy - ny * dy / 2.0
            row = [AIR] * nx
            if w_body is not None:
                a, b = cols(-w_body, w_body)
                row[a:b] = [TISSUE] * (b - a)
                in_chest = chest[0] <= y <= chest[1]
                for (lx, ly, lz) in lungs:
                    u = 1.0 - ((y - ly) / lung_axes[1]) ** 2 - ((z - lz) / lung_axes[2]) ** 2
                    if u > 0.0:
                        w = lung_axes[0] * math.sqrt(u)
                        a, b = cols(lx - w, lx + w)
                        row[a:b] = [LUNG] * (b - a)
                if in_chest and w_out is not None and (y - chest[0]) % rib_period < rib_width:
                    spans = [(-w_out, -w_in), (w_in, w_out)] if w_in is not None else [(-w_out, w_out)]
                    for lo, hi in spans:
                        a, b = cols(lo, hi)
                        for i in range(a, b):
                            x = (i + 0.5) * dx - nx * dx / 2.0
                            if not (z < zc and abs(x) < 20.0 * sx):  # the ribs end before the sternum
                                row[i] = RIB
                if in_chest and sternum_z[0] <= z <= sternum_z[1]:
                    a, b = cols(-sternum_x, sternum_x)
                    row[a:b] = [STERNUM] * (b - a)
                w = half_width(spine_r, spine_r, z - spine_z)
                if w is not None:
                    a, b = cols(-w, w)
                    hu = VERTEBRA if (y + ny * dy / 2.0) % period < vertebra else DISC
                    row[a:b] = [hu] * (b - a)
            out.extend(row)
    return out


def add_noise(data, sd):
    """Adds noise of standard deviation sd HU: the sum of four uniforms on
    [-1, 1] from a 64-bit mix of the voxel's index (variance 4/3), scaled."""
    scale = sd / math.sqrt(4.0 / 3.0)
    mask = (1 << 64) - 1
    for k in range(len(data)):
        h = (k + 0x9E3779B97F4A7C15) & mask
        h = ((h ^ (h >> 30)) * 0xBF58476D1CE4E5B9) & mask
        h = ((h ^ (h >> 27)) * 0x94D049BB133111EB) & mask
        h ^= h >> 31
        u = sum(((h >> (16 * i)) & 0xFFFF) / 32767.5 - 1.0 for i in range(4))
        data[k] = max(-1024, min(1976, int(round(data[k] + scale * u))))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("prefix", help="writes PREFIX.mhd and PREFIX.raw")
    ap.add_argument("--voxels", type=int, nargs=3, default=[256, 256, 128], metavar=("NX", "NY", "NZ"))
    ap.add_argument("--spacing", type=float, nargs=3, default=[1.5, 1.5, 2.5], metavar=("DX", "DY", "DZ"),
                    help="voxel edges in mm")
    ap.add_argument("--noise", type=float, default=0.0, metavar="SD", help="noise in HU (default 0: none)")
    a = ap.parse_args(argv)
    if min(a.voxels) < 1 or not all(s > 0.0 and math.isfinite(s) for s in a.spacing):
        ap.error("voxels must be >= 1 and spacings > 0")
    if not (a.noise >= 0.0 and math.isfinite(a.noise)):
        ap.error("--noise must be a finite number >= 0")
    data = build(a.voxels, a.spacing)
    if a.noise > 0.0:
        add_noise(data, a.noise)
    if sys.byteorder == "big":
        data.byteswap()
    folder = os.path.dirname(a.prefix)
    if folder:
        os.makedirs(folder, exist_ok=True)
    name = os.path.basename(a.prefix)
    with open(a.prefix + ".raw", "wb") as f:
        data.tofile(f)
    with open(a.prefix + ".mhd", "w") as f:
        f.write("ObjectType = Image\nNDims = 3\nBinaryData = True\nBinaryDataByteOrderMSB = False\n"
                "CompressedData = False\nTransformMatrix = 1 0 0 0 1 0 0 0 1\nOffset = %r %r %r\n"
                "ElementSpacing = %r %r %r\nDimSize = %d %d %d\nElementType = MET_SHORT\n"
                "ElementDataFile = %s.raw\n"
                % (-(a.voxels[0] - 1) * a.spacing[0] / 2.0, -(a.voxels[1] - 1) * a.spacing[1] / 2.0,
                   a.spacing[2] / 2.0, a.spacing[0], a.spacing[1], a.spacing[2], a.voxels[0], a.voxels[1],
                   a.voxels[2], name))
    print("%s.mhd: %d x %d x %d voxels of %g x %g x %g mm, Hounsfield units (MET_SHORT)"
          % (a.prefix, a.voxels[0], a.voxels[1], a.voxels[2], a.spacing[0], a.spacing[1], a.spacing[2]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
