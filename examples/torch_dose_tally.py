#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""A dose tally from PyTorch: deposits made by torch code go into an mctally
Tally in place (no copies, on torch's current stream), batch by batch; the
result is the mean dose per history and its relative error per voxel. Then the
one-call form, scatter_add, bitwise reproducible with deterministic=True.

Runs on the GPU when torch sees one (and mctally was built with CUDA), else on
the CPU. usage: python3 examples/torch_dose_tally.py"""
import torch

import mctally

device = "cuda" if torch.cuda.is_available() else "cpu"
n_vox = 32                     # a 32^3 grid
histories_per_batch = 20000
deposits_per_history = 50

with mctally.Tally(n_vox**3, dtype="f64", method="auto", backend="cuda" if device == "cuda" else "cpu") as tally:
    print(f"method {tally.method} on {tally.device_name}: {tally.plan['reason']}")
    for batch in range(10):
        # Stand-in for a transport step: deposits along +z around the beam axis.
        n = histories_per_batch * deposits_per_history
        z = torch.rand(n, device=device).pow(0.7).mul(n_vox).long().clamp_max(n_vox - 1)
        xy = torch.randn(n, 2, device=device).mul(2.0).add(n_vox / 2).long().clamp(0, n_vox - 1)
        voxel = (z * n_vox + xy[:, 1]) * n_vox + xy[:, 0]       # int64: read in place
        energy = torch.empty(n, device=device, dtype=torch.float64).exponential_(10.0)  # MeV
        tally.add(voxel, energy)
        tally.end_batch(histories_per_batch)
    mean, rel_err = tally.results()    # NumPy arrays: MeV per history, relative standard error

dose = torch.from_numpy(mean).view(n_vox, n_vox, n_vox)   # [z, y, x]
depth = dose.sum(dim=(1, 2))
print("depth dose (MeV/history) at z = 0, 8, 16, 24:", [f"{depth[i]:.4f}" for i in (0, 8, 16, 24)])
print(f"relative error of the hottest voxel: {rel_err[mean.argmax()]:.3%}")

# One call, result in the input's library; deterministic=True gives the same
# bits on every run, GPU and the CPU.
keys = torch.randint(0, 1000, (10**6,), device=device)
vals = torch.rand(10**6, device=device, dtype=torch.float64)
a = mctally.scatter_add(keys, vals, 1000, deterministic=True)
b = mctally.scatter_add(keys.cpu().numpy(), vals.cpu().numpy(), 1000, deterministic=True)
print("deterministic scatter_add equal on", device, "and the CPU:", bool((a.cpu().numpy() == b).all()))
