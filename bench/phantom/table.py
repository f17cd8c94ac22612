#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Turns `mctally bench phantom --out FILE.json` into Markdown: Liu 2018's
Tables II, III and IV on this GPU, with the paper's V100 (Tables II and III)
and K40 (Table IV) figures beside them. usage: table.py FILE.json > FILE.md"""
import json
import sys

# Liu et al. 2018, Table II (4e6 histories) and III (4e7), V100 rows, seconds.
PAPER_T2 = {"atomic": {2: 1.9, 3: 1.3}}  # item 7: HB, double, V100 (test 4 not in Table II)
PAPER_T3 = {"atomic": {2: 19, 3: 13, 4: 10}, "wib": {2: 20, 3: 14, 4: 11}}
# Table IV (K40, test 3): histories -> (FP32 discrepancy %, time s, KAS discrepancy %, time s).
PAPER_T4 = {4e6: (-0.19, 6, -3.58e-5, 8), 8e6: (-0.88, 11, 1.67e-5, 16), 1.6e7: (-3.86, 22, -1.98e-5, 31),
            3.2e7: (-11.17, 44, -1.40e-5, 63), 6.4e7: (-25.47, 88, -9.73e-6, 121)}


def fmt(x, f="%.3g"):
    return "—" if x is None else f % x


def main():
    d = json.load(open(sys.argv[1]))
    cases = d["cases"]
    print("# Liu 2018 tests 2-4 on %s\n" % d["device"])
    delta = (", Moller threshold %g MeV" % d["delta_threshold_MeV"]) if "delta_threshold_MeV" in d else ""
    print("Date %s, commit %s, scale %s, median of %s runs. %s%s. Times are the transport "
          "kernel's (synchronized), without set-up.\n" % (d["date"], d["commit"], d["scale"], d["reps"], d["beam"], delta))
    for table, paper, title in (("table2", PAPER_T2, "Table II layout"), ("table3", PAPER_T3, "Table III layout")):
        rows = [c for c in cases if c["table"] == table]
        if not rows:
            continue
        n = rows[0]["histories"]
        print("## %s: %.3g histories, FP64 transport\n" % (title, n))
        print("Overhead = time with the tally ÷ time of the same launch (same kernel instance, method and tally "
              "type) with a tally that discards its input; the discarding launch's times are in brackets.\n")
        print("| method | tally | T2 (100³) s | T3 (10³) s | T4 (2³) s | overhead T2 / T3 / T4 | V100 (paper) T2 / T3 / T4 s |")
        print("|---|---|---|---|---|---|---|")
        methods = []
        for c in rows:
            key = (c["engine"], c["method"], c["dtype"])
            if key not in methods and c["engine"] != "discard":  # a file may list discarding runs as rows
                methods.append(key)
        for engine, method, dtype in methods:
            by = {c["test"]: c for c in rows if (c["engine"], c["method"], c["dtype"]) == (engine, method, dtype)}
            cells = []
            for k in (2, 3, 4):
                c = by.get(k, {})
                if c.get("error"):
                    cells.append("n/a (%s)" % c["error"])
                else:
                    ds = c.get("discard_seconds")
                    cells.append(fmt(c.get("seconds")) + (" (%s)" % fmt(ds) if ds is not None else ""))
            ov = " / ".join(fmt(by.get(k, {}).get("tally_overhead"), "%.3f") for k in (2, 3, 4))
            p = paper.get(method, {})
            pv = " / ".join(fmt(p.get(k), "%g") for k in (2, 3, 4)) if p else ""
            print("| %s | %s | %s | %s | %s | %s | %s |" % (method, dtype, cells[0], cells[1], cells[2], ov, pv))
        print()
    rows = [c for c in cases if c["table"] == "table4"]
    if rows:
        print("## Table IV layout: test 3 (10³ voxels), FP32 transport for FP32 and KAS, one batch\n")
        print("Discrepancy = (method − FP64 engine) / FP64 engine on the total dose, as in the paper (it includes the "
              "statistical difference of runs whose float transport follows different paths). Against the FP64 tally = "
              "(method − FP64 tally) / FP64 tally, where the FP64 tally runs behind the same f32 transport (same random "
              "walks): the tally's own error. Tally rounding = (tally total − exact double sum of the values the tally "
              "was given) / exact sum.\n")
        print("| histories | FP32 atomic: vs FP64 engine / vs FP64 tally / rounding | FP32 s | KAS: vs FP64 engine / "
              "vs FP64 tally / rounding | KAS s | FP64 s | K40 (paper): FP32 % / s, KAS % / s |")
        print("|---|---|---|---|---|---|---|")
        for h in sorted({c["histories"] for c in rows}):
            by = {c["engine"]: c for c in rows if c["histories"] == h}
            f32, kas, f64 = by.get("FP32 atomic", {}), by.get("KAS", {}), by.get("FP64", {})
            p = PAPER_T4.get(h / d["scale"]) if d["scale"] else None
            ps = "%g %% / %g, %g %% / %g" % p if p else ""

            def errs(c):
                return " / ".join(fmt(c.get(k), "%+.2e") for k in
                                  ("discrepancy_vs_fp64", "discrepancy_vs_fp64_tally", "tally_rounding_rel"))
            print("| %.3g | %s | %s | %s | %s | %s | %s |" % (
                h, errs(f32), fmt(f32.get("seconds")), errs(kas), fmt(kas.get("seconds")), fmt(f64.get("seconds")), ps))
        print()


if __name__ == "__main__":
    main()
