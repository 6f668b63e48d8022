"""Sums an Nsight Compute CSV (--metrics gpu__time_duration.sum --csv): total kernel time,
and per kernel name the count and milliseconds, largest first.

With two more arguments, PARTS and PROOFS, also a per-proof figure: `bench_groth16 --params`
runs PARTS GPU parts (8 "GPU part alone" runs without B_G2, and the 4 full proofs: 12) of
which PROOFS are full proofs (4), and only the full proofs have B_G2's kernels. So the G2
kernels are summed per full proof, the rest per GPU part, one-time parameter work
(shift_bases_kernel) left out. For supraseal's runs (a warm-up and one proof, each with its
G2 batch addition) give 2 2.

`ncusum.py FILE --launches REGEX [JSON]` lists instead every launch whose full kernel name
matches REGEX, in order: name, grid, block and microseconds (and writes them to JSON)."""
import csv
import gzip
import json
import re
import sys
from collections import defaultdict

USAGE = "usage: ncusum.py FILE [PARTS PROOFS] | ncusum.py FILE --launches REGEX [JSON]"
launches_mode = len(sys.argv) in (4, 5) and sys.argv[2] == "--launches"
if not (launches_mode or len(sys.argv) == 2 or (len(sys.argv) == 4 and all(a.isdigit() for a in sys.argv[2:]))):
    sys.exit(USAGE)

path = sys.argv[1]
opener = gzip.open if path.endswith(".gz") else open
with opener(path, "rt") as f:
    rows = [r for r in csv.reader(l for l in f if not l.startswith("=="))]
head = rows[0]
name_at, unit_at, value_at = head.index("Kernel Name"), head.index("Metric Unit"), head.index("Metric Value")
scale = {"nsecond": 1e-6, "ns": 1e-6, "usecond": 1e-3, "us": 1e-3, "msecond": 1.0, "ms": 1.0, "second": 1e3, "s": 1e3}
# One row a launch (rows too short for a value are not launches).
launch_rows = [r for r in rows[1:] if len(r) > value_at]


def ms_of(r):
    return float(r[value_at].replace(",", "")) * scale[r[unit_at]]


# Kernels are told apart by their full names (G1 and G2 instances of one template share the
# first 60 characters) and shown by those characters, "[G2]" marking the G2 ones.
def is_g2(name):
    return "g2_t" in name or "fp2" in name


if launches_mode:
    grid_at, block_at = head.index("Grid Size"), head.index("Block Size")
    pattern = re.compile(sys.argv[3])
    launches = [
        {"kernel": r[name_at], "g2": is_g2(r[name_at]), "grid": r[grid_at], "block": r[block_at],
         "us": ms_of(r) * 1e3}
        for r in launch_rows if pattern.search(r[name_at])
    ]
    if len(sys.argv) == 5:
        with open(sys.argv[4], "w") as f:
            json.dump({"source": path, "kernels": sys.argv[3], "launches": launches}, f, indent=1)
    for l in launches:
        print(f"  {l['us']:9.1f} us  grid {l['grid']:>14}  {l['kernel'][:60]}{' [G2]' if l['g2'] else ''}")
    sys.exit(0)

per = defaultdict(lambda: [0, 0.0])
for r in launch_rows:
    per[r[name_at]][0] += 1
    per[r[name_at]][1] += ms_of(r)
total = sum(v[1] for v in per.values())
print(f"{path}: {total:.1f} ms of kernels, {sum(v[0] for v in per.values())} launches")
for name, (n, ms) in sorted(per.items(), key=lambda kv: -kv[1][1])[:12]:
    print(f"  {ms:9.1f} ms  {n:6d}x  {name[:60]}{' [G2]' if is_g2(name) else ''}")
if len(sys.argv) == 4:
    parts, proofs = int(sys.argv[2]), int(sys.argv[3])
    one_time = sum(ms for name, (n, ms) in per.items() if "shift_bases" in name)
    g2 = sum(ms for name, (n, ms) in per.items() if is_g2(name))
    rest = total - one_time - g2
    print(f"per proof: {rest / parts:.2f} ms without B_G2 (over {parts} GPU parts), "
          f"B_G2 {g2 / proofs:.2f} ms (over {proofs} full proofs), {rest / parts + g2 / proofs:.2f} ms in all; "
          f"{one_time:.1f} ms of one-time parameter work left out")
