# SPDX-License-Identifier: BSD-3-Clause
"""mctally.run: problem files through the CLI the package ships (or $MCTALLY_CLI)."""
import json
import os

import numpy as np
import pytest

import mctally

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "examples")


def test_run_escape_matches_result_json(tmp_path):
    r = mctally.run(os.path.join(EXAMPLES, "escape.ini"), out=str(tmp_path), histories=20000, backend="cpu",
                    seed=7, batches=4)
    with open(tmp_path / "result.json") as f:
        on_disk = json.load(f)
    assert r == on_disk
    assert r["problem"] == "escape" and r["histories"] == 20000 and r["backend"] == "cpu"
    assert abs(r["escape"]["z_score"]) < 5  # the escape fraction against exp(-sigma x), in standard errors


def test_run_phantom_dose_array(tmp_path):
    r = mctally.run(os.path.join(EXAMPLES, "phantom_test3.ini"), out=str(tmp_path), histories=300, batches=2,
                    backend="cpu", phantom={"voxels": 6})
    dose, rel = r["dose"], r["dose_rel_err"]
    assert dose.shape == (6, 6, 6) and rel.shape == (6, 6, 6) and dose.dtype == np.float64
    assert np.all(dose >= 0) and dose.sum() > 0
    raw = np.fromfile(tmp_path / "dose.raw", dtype="<f8")
    assert np.array_equal(dose.ravel(), raw)
    # The beam enters at the centre of the front face and runs along +z (axis 0).
    depth = dose.sum(axis=(1, 2))
    assert depth[0] > 0


def test_run_errors(tmp_path):
    with pytest.raises(mctally.MctallyError) as e:
        mctally.run(os.path.join(EXAMPLES, "escape.ini"), histories=100, method="fastest")
    assert e.value.name == "RUN_FAILED" and "fastest" in str(e.value)
    with pytest.raises(mctally.MctallyError) as e:
        mctally.run(os.path.join(EXAMPLES, "escape.ini"), colour="red")
    assert e.value.name == "INVALID_VALUE"
    with pytest.raises(mctally.MctallyError) as e:
        mctally.run(str(tmp_path / "missing.ini"))
    assert e.value.name == "IO_ERROR"
