#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Checks a pet run's directory: result.json, and lors.bin read as a reader
of the documented format would (README "PET files": "MCTPETv1", the header
length, the JSON header, 16-byte aligned little-endian records).
usage: check_pet_result.py DIR [--expect-efficiency E --tolerance-sigmas K]
- lors.bin: the magic, a JSON header whose bins, entries, decays, good and
  stored agree with result.json; the records as the header's "record" field
  says, keys ascending and below bins, counts > 0 summing to the stored
  events (the tally's total);
- with --expect-efficiency: result.json's efficiency within K binomial
  standard errors of E, or of its analytic_efficiency when E is "analytic"
  (the GPU suite's large-count checks)."""
import json
import math
import struct
import sys

d = sys.argv[1]
r = json.load(open(d + "/result.json"))
p = r["pet"]
raw = open(d + "/lors.bin", "rb").read()
fail = []
if raw[:8] != b"MCTPETv1":
    sys.exit("lors.bin: bad magic %r" % raw[:8])
(hlen,) = struct.unpack("<Q", raw[8:16])
start = 16 + hlen
if start % 16:
    fail.append("records start at %d, not a multiple of 16" % start)
h = json.loads(raw[16:start].decode("utf-8"))
for key, want in (("bins", r["tallies"][0]["bins"]), ("decays", p["decays"]), ("good", p["good_events"]),
                  ("stored", p["stored_events"]), ("entries", p["lor_entries"]), ("index", p["index"])):
    if h[key] != want:
        fail.append("header %s = %r, result.json %r" % (key, h[key], want))
rec = h["record"]
if rec[0] != "key" or rec[1] != "uint32" or rec[2] != "count" or rec[3] not in ("uint32", "uint64"):
    sys.exit("lors.bin: unexpected record layout %r" % rec)
fmt = "<I" + ("I" if rec[3] == "uint32" else "Q")
size = struct.calcsize(fmt)
body = raw[start:]
if len(body) != size * h["entries"]:
    sys.exit("lors.bin: %d bytes of records, expected %d x %d" % (len(body), h["entries"], size))
total, last = 0, -1
for key, count in struct.iter_unpack(fmt, body):
    if key <= last or key >= h["bins"] or count <= 0:
        fail.append("record (%d, %d) after key %d" % (key, count, last))
        break
    total += count
    last = key
if total != p["stored_events"]:
    fail.append("counts sum to %d, stored events %d" % (total, p["stored_events"]))
print("lors.bin: %d LORs, %d events, header %d bytes; efficiency %.5f +- %.2g"
      % (h["entries"], total, start, p["efficiency"], p["efficiency_binomial_error"]))
if "--expect-efficiency" in sys.argv:
    arg = sys.argv[sys.argv.index("--expect-efficiency") + 1]
    e = p["analytic_efficiency"] if arg == "analytic" else float(arg)
    k = float(sys.argv[sys.argv.index("--tolerance-sigmas") + 1]) if "--tolerance-sigmas" in sys.argv else 4.0
    se = math.sqrt(e * (1 - e) / p["decays"])
    print("efficiency vs %.5f: z = %.2f" % (e, (p["efficiency"] - e) / se))
    if abs(p["efficiency"] - e) > k * se:
        fail.append("efficiency %.6f, expected %.6f within %g x %.2g" % (p["efficiency"], e, k, se))
for f in fail:
    print("FAIL:", f)
sys.exit(1 if fail else 0)
