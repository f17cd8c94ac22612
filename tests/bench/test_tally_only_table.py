#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""bench/tally_only/table.py on a small hand-made result: the Markdown has our
times and rates where the JSON has them, the skipped and failed cases say so,
Liu 2018's published T1 sits beside the matching methods, and the chart is a
PNG when matplotlib is installed; without matplotlib (forced by a stub that
fails to import) the Markdown is still written and the chart is skipped.
Usage: test_tally_only_table.py TABLE_PY"""
import json
import os
import subprocess
import sys
import tempfile

HEADER = {
    "suite": "tally_only",
    "device": {"name": "Test GPU", "sms": 4, "cc": 90, "cuda_driver": 13000, "cuda_runtime": 13000},
    "date": "2026-01-01T00:00:00Z", "commit": "abc1234", "collisions": 10, "bins": 8, "mean_energy_MeV": 0.1,
    "reps": 5, "paper_blocks": 1024, "paper_threads": 64, "full_blocks": 32, "full_threads": 256,
    "failures": 1, "suite_seconds": 12.5,
}


def case(table, launch, method, dtype, ms, **extra):
    particles = 1e7 if table == 2 else 3e9
    c = {"table": table, "particles": particles, "launch": launch, "method": method, "dtype": dtype}
    if ms is not None:
        c.update({"median_ms": ms, "min_ms": ms, "max_ms": ms, "reps_done": 5,
                  "updates_per_second": particles * 10 / (ms * 1e-3), "total": 1e7, "relative_error": 1e-15,
                  "bound_rel": 1e-9, "ok": True})
    c.update(extra)
    return c


def result():
    cases = [
        case(2, "paper", "fixed", "f64", 2.0, z_score=0.5),
        case(2, "paper", "atomic", "f64", 4.0),
        case(2, "full", "atomic", "f64", 3.0),
        case(2, "paper", "cas", "f64", 250.0, ok=False),
        case(2, "paper", "kahan", "f32", 8.0),
        case(3, "paper", "fixed", "f64", 600.0, z_score=-1.2),
        case(3, "paper", "atomic", "f64", 1200.0, reps_done=1),
        case(3, "paper", "wib", "f64", None, skipped="projected above --max-case-s", projected_s=75.0),
        case(3, "paper", "sort_reduce", "f64", None, error="OUT_OF_MEMORY"),
    ]
    floors = [{"table": 2, "launch": "paper", "median_ms": 0.5, "updates_per_second": 2e11},
              {"table": 2, "launch": "full", "median_ms": 0.4, "updates_per_second": 2.5e11}]
    return dict(HEADER, cases=cases, floors=floors)


def run(table_py, path, png, env=None):
    out = subprocess.run([sys.executable, table_py, path, "--command", "mctally bench tally_only --scale 1",
                          "--png", png], capture_output=True, text=True, env=env)
    if out.returncode != 0:
        sys.exit(f"table.py failed ({out.returncode}): {out.stderr}")
    return out.stdout, out.stderr


def expect(text, needle, what):
    if needle not in text:
        sys.exit(f"missing {what}: {needle!r} not in\n{text}")


def check_markdown(md):
    expect(md, "# Tally-only test (Liu 2018, test 1) on Test GPU", "title")
    expect(md, "commit abc1234", "commit")
    expect(md, "## Table II: 1e7 particles", "Table II section")
    expect(md, "## Table III: 3e9 particles", "Table III section")
    # atomic f64, Table II: 4 ms paper (1e8 / 4e-3 s = 2.5e10 updates/s), 3 ms full, Liu's HB beside it.
    expect(md, "| atomic | f64 | 0.004 | 2.5e+10 | 0.003 | 3.33e+10 |", "atomic row")
    expect(md, "0.07 s HB Titan X; 0.035 s HB V100", "Liu's HB times")
    expect(md, "83 s CAS K40", "Liu's CAS time")
    expect(md, "0.25 ✗", "failed case marked")
    expect(md, "6.3 s KAS K40", "Liu's KAS time")
    expect(md, "reference (z = 0.50)", "the fixed reference")
    expect(md, "1.2 (1 run)", "single-run case")
    expect(md, "skipped (projected above --max-case-s, ~75 s)", "skipped case")
    expect(md, "2.7 s WIB V100", "Liu's WIB time")
    expect(md, "error: OUT_OF_MEMORY", "failed case")
    expect(md, "| *random numbers only (floor)* | f64 | 5.00e-04 | 2e+11 | 4.00e-04 | 2.5e+11 |", "floor row")
    expect(md, "| III | HB | double | V100 | 10 |", "published table")
    expect(md, "Failures: 1.", "failure count")


def main():
    table_py = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "result.json")
        with open(path, "w") as f:
            json.dump(result(), f)
        # Without matplotlib: a stub package that refuses to import.
        stub = os.path.join(tmp, "stub", "matplotlib")
        os.makedirs(stub)
        with open(os.path.join(stub, "__init__.py"), "w") as f:
            f.write("raise ImportError('matplotlib stubbed out by the test')\n")
        png = os.path.join(tmp, "chart_none.png")
        md, err = run(table_py, path, png, dict(os.environ, PYTHONPATH=os.path.dirname(stub)))
        check_markdown(md)
        expect(err, "matplotlib is not installed", "note on the missing chart")
        if os.path.exists(png) or "![T1 bar chart]" in md:
            sys.exit("a chart was claimed without matplotlib")
        # With matplotlib, where it is installed.
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            print("matplotlib not installed: chart path not exercised (Markdown checked)")
            print("1 passed, 0 failed")
            return
        png = os.path.join(tmp, "chart.png")
        md, _ = run(table_py, path, png)
        check_markdown(md)
        expect(md, "![T1 bar chart](chart.png)", "chart link")
        with open(png, "rb") as f:
            if f.read(8) != b"\x89PNG\r\n\x1a\n":
                sys.exit("chart is not a PNG")
        print("2 passed, 0 failed")


if __name__ == "__main__":
    main()
