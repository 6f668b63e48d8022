"""Sums an Nsight Compute CSV (--metrics gpu__time_duration.sum --csv): total kernel time,
and per kernel name the count and milliseconds, largest first."""
import csv
import sys
from collections import defaultdict

rows = [r for r in csv.reader(l for l in open(sys.argv[1]) if not l.startswith("=="))]
head = rows[0]
name_at, unit_at, value_at = head.index("Kernel Name"), head.index("Metric Unit"), head.index("Metric Value")
scale = {"nsecond": 1e-6, "ns": 1e-6, "usecond": 1e-3, "us": 1e-3, "msecond": 1.0, "ms": 1.0, "second": 1e3, "s": 1e3}
per = defaultdict(lambda: [0, 0.0])
for r in rows[1:]:
    if len(r) <= value_at:
        continue
    ms = float(r[value_at].replace(",", "")) * scale[r[unit_at]]
    per[r[name_at][:60]][0] += 1
    per[r[name_at][:60]][1] += ms
total = sum(v[1] for v in per.values())
print(f"{sys.argv[1]}: {total:.1f} ms of kernels, {sum(v[0] for v in per.values())} launches")
for name, (n, ms) in sorted(per.items(), key=lambda kv: -kv[1][1])[:12]:
    print(f"  {ms:9.1f} ms  {n:6d}x  {name}")
