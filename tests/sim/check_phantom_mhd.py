#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Reads the phantom's MetaImage output back and checks it against result.json.

usage: check_phantom_mhd.py MCTALLY EXAMPLE.ini simpleitk|spec

simpleitk: reads dose.mhd and dose_rel_err.mhd with SimpleITK (ITK's reader,
           the one 3D Slicer uses); exits 77 (skipped) when SimpleITK is not
           installed (.ci/run installs it from PyPI).
spec:      reads them with a reader written here from the MetaImage format
           description (key = value header, ElementDataFile, MET_DOUBLE
           little-endian, x fastest), with no third-party package.
Both check: dimensions and spacing (mm), the origin (centre of the first
voxel, beam entering at x = y = 0 on the z = 0 face), the position and value
of the maximum-dose voxel of result.json, and that the dose grid integrates
to the deposited energy of result.json (Gy x kg -> MeV).
"""
import json
import math
import os
import struct
import subprocess
import sys
import tempfile

MEV_TO_J = 1.602176634e-13


def read_spec(path):
    header = {}
    with open(path) as f:
        for line in f:
            if "=" in line:
                k, v = line.split("=", 1)
                header[k.strip()] = v.strip()
    assert header["ObjectType"] == "Image" and header["NDims"] == "3", header
    assert header["ElementType"] == "MET_DOUBLE", header
    assert header.get("BinaryDataByteOrderMSB", "False") == "False"
    dims = [int(x) for x in header["DimSize"].split()]
    spacing = [float(x) for x in header["ElementSpacing"].split()]
    origin = [float(x) for x in header["Offset"].split()]
    raw = os.path.join(os.path.dirname(path), header["ElementDataFile"])
    count = dims[0] * dims[1] * dims[2]
    with open(raw, "rb") as f:
        data = f.read()
    assert len(data) == 8 * count, (len(data), count)
    values = struct.unpack("<%dd" % count, data)
    return dims, spacing, origin, lambda x, y, z: values[x + dims[0] * (y + dims[1] * z)], values


def read_simpleitk(path):
    import SimpleITK as sitk
    img = sitk.ReadImage(path)
    assert img.GetPixelID() == sitk.sitkFloat64, img.GetPixelIDTypeAsString()
    dims = list(img.GetSize())
    # Pixel by pixel, so the check needs no NumPy (the grids here are small).
    values = [img.GetPixel(x, y, z) for z in range(dims[2]) for y in range(dims[1]) for x in range(dims[0])]
    return dims, list(img.GetSpacing()), list(img.GetOrigin()), lambda x, y, z: img.GetPixel(x, y, z), values


def main():
    mct, example, mode = sys.argv[1:4]
    if mode == "simpleitk":
        try:
            import SimpleITK  # noqa: F401
        except ImportError:
            print("SimpleITK is not installed (python3 -m pip install SimpleITK); skipped")
            return 77
    reader = read_simpleitk if mode == "simpleitk" else read_spec
    with tempfile.TemporaryDirectory() as out:
        subprocess.run([mct, "run", example, "--backend", "cpu", "--histories", "400", "--batches", "4",
                        "--out", out], check=True, stdout=subprocess.DEVNULL)
        res = json.load(open(os.path.join(out, "result.json")))
        ph = res["phantom"]
        n, size = ph["voxels"], ph["size_cm"]
        dx_mm = 10.0 * size / n
        dims, spacing, origin, at, values = reader(os.path.join(out, "dose.mhd"))
        assert dims == [n, n, n], dims
        assert all(abs(s - dx_mm) < 1e-9 for s in spacing), spacing
        expect_origin = [-5.0 * size + dx_mm / 2, -5.0 * size + dx_mm / 2, dx_mm / 2]
        assert all(abs(a - b) < 1e-9 for a, b in zip(origin, expect_origin)), (origin, expect_origin)
        mx = ph["max_dose"]
        ix, iy, iz = mx["index_xyz"]
        # JSON carries 15-17 significant digits (cJSON), the grid all 17.
        assert math.isclose(at(ix, iy, iz), mx["dose_gy_per_history"], rel_tol=1e-14), (at(ix, iy, iz), mx)
        assert max(values) == at(ix, iy, iz)
        # Position of the maximum from the image geometry equals result.json's.
        pos = [origin[0] + ix * spacing[0], origin[1] + iy * spacing[1], origin[2] + iz * spacing[2]]
        assert all(abs(a - b) < 1e-9 for a, b in zip(pos, mx["center_mm"])), (pos, mx["center_mm"])
        # Dose x mass of every voxel, summed, is the deposited energy per history.
        mass_kg = (size / n) ** 3 * 1e-3
        total_mev = sum(values) * mass_kg / MEV_TO_J
        per_history = ph["deposited_MeV"] / res["histories"]
        assert math.isclose(total_mev, per_history, rel_tol=1e-9), (total_mev, per_history)
        rdims, _, _, rat, _ = reader(os.path.join(out, "dose_rel_err.mhd"))
        assert rdims == dims
        assert abs(rat(ix, iy, iz) - mx["rel_err"]) < 1e-12
        print("%s reader: %s, spacing %s mm, origin %s mm, max %.4g Gy/history at %s, total %.6g MeV/history: ok"
              % (mode, dims, spacing, origin, mx["dose_gy_per_history"], [ix, iy, iz], total_mev))
    return 0


if __name__ == "__main__":
    sys.exit(main())
