#!/usr/bin/env python3
# Summarises an ncu --csv metrics log (stalls.sh's): per kernel, its time, registers,
# instructions, the busiest pipes and the largest stall reasons (warp cycles per issued
# instruction).
import csv
import sys
from collections import OrderedDict

rows = [r for r in csv.reader(l for l in open(sys.argv[1]) if l.startswith('"'))]
hdr = rows[0]
ix = {h: i for i, h in enumerate(hdr)}
kern = OrderedDict()
for r in rows[1:]:
    key = (r[ix["ID"]], r[ix["Kernel Name"]].split("(")[0])
    kern.setdefault(key, {})[r[ix["Metric Name"]]] = r[ix["Metric Value"]].replace(",", "")
for (i, name), m in kern.items():
    f = lambda k: float(m.get(k, "nan"))
    stalls = {k.split("stalled_")[1].split("_per")[0]: f(k) for k in m if "issue_stalled" in k}
    pipes = {k.split("pipe_")[1].split("_cycles")[0]: f(k) for k in m if k.startswith("sm__pipe_")}
    top = sorted(stalls.items(), key=lambda kv: -kv[1])[:6]
    tp = sorted(pipes.items(), key=lambda kv: -kv[1])[:4]
    print(f"{i:>3} {name[:34]:34} {f('gpu__time_duration.sum')/1e6:8.3f} ms regs {m.get('launch__registers_per_thread','?')}"
          f" inst {f('smsp__inst_executed.sum')/1e6:8.1f} M warps {f('sm__warps_active.avg.pct_of_peak_sustained_active'):5.1f}%")
    print("      stalls " + " ".join(f"{k}={v:.2f}" for k, v in top))
    print("      pipes  " + " ".join(f"{k}={v:.1f}%" for k, v in tp))
