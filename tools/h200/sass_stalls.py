#!/usr/bin/env python3
# Summarises Nsight Compute's SASS page (ncu --import REP --page source --csv --print-source
# sass): where a kernel's warps were sampled, by stall reason, by opcode, and the lines with
# the most samples.
#   sass_stalls.py FILE.csv [TOP]
import csv
import re
import sys
from collections import defaultdict


def main():
    path = sys.argv[1]
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 12
    rows = list(csv.reader(open(path, errors="replace")))
    head = next(i for i, r in enumerate(rows) if "Source" in (c.strip() for c in r))
    names = [c.strip() for c in rows[head]]
    ix = {h: i for i, h in enumerate(names)}
    reasons = [h for h in names if h.startswith("stall_") and "Not Issued" not in h]
    lines = [r for r in rows[head + 1:] if len(r) >= len(names)]

    def value(r, h):
        try:
            return float(r[ix[h]].replace(",", ""))
        except (KeyError, ValueError):
            return 0.0

    samples = "Warp Stall Sampling (All Samples)"
    executed = "Instructions Executed"
    by_reason = defaultdict(float)
    by_op = defaultdict(lambda: [0.0, 0.0, 0])
    for r in lines:
        for h in reasons:
            by_reason[h] += value(r, h)
        op = re.sub(r"^@!?U?P\w+\s+", "", r[ix["Source"]].strip()).split(" ")[0]
        entry = by_op[op]
        entry[0] += value(r, samples)
        entry[1] += value(r, executed)
        entry[2] += 1
    total = sum(by_reason.values()) or 1.0
    total_samples = sum(e[0] for e in by_op.values()) or 1.0
    total_executed = sum(e[1] for e in by_op.values()) or 1.0
    print(f"{path}: {len(lines)} SASS lines, {total_executed:.4g} warp instructions executed")
    print("stall reasons (share of samples):")
    for h, v in sorted(by_reason.items(), key=lambda kv: -kv[1]):
        if v / total >= 0.001:
            print(f"  {h[6:]:20} {100 * v / total:6.2f}%")
    print("opcodes (samples %, executed %, static count):")
    for op, (s, e, n) in sorted(by_op.items(), key=lambda kv: -kv[1][0])[:top]:
        print(f"  {op:20} {100 * s / total_samples:6.2f} {100 * e / total_executed:6.2f} {n:6d}")
    print("lines with the most samples (samples, executed, largest reason, SASS):")
    for r in sorted(lines, key=lambda r: -value(r, samples))[:top]:
        worst = max(reasons, key=lambda h: value(r, h))
        print(f"  {value(r, samples):8.0f} {value(r, executed):11.0f} {worst[6:]:14} {r[ix['Source']].strip()[:70]}")


if __name__ == "__main__":
    main()
