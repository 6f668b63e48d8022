#!/usr/bin/env bash
# Session 18: (1) msmexp of main against the counting scatter (alternating, twice), (2) the
# queue on main + g2-lockstep + NTT launch bounds, polled; exp2 when the queue is done.
set -u
nvidia-smi --query-gpu=name --format=csv,noheader
if [ ! -f /tmp/sc.done ]; then
  chmod +x devrun/sc/msmexp_*
  for r in 1 2; do for v in base scatter; do echo "== $v run $r"; timeout 120 devrun/sc/msmexp_$v 22 24 26 24/s 24/e 22:16:1/e; done; done 2>&1 | tee $OUT/scatter.txt
  touch /tmp/sc.done
fi
bash devrun/run1.sh
