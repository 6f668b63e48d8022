#!/usr/bin/env bash
# Session 18, call 1: the GPU tests and before/after of main + g2-lockstep + NTT launch bounds,
# then (if the queue finished) nttexp F5 variants and the G1 window sweep.
set -u
AB_RUNS=1 tools/h200/go.sh start "field-tests msm-tests groth16-tests memcheck ntt-ab msm-g2-ab"
tools/h200/go.sh poll ${POLL:-300}
if [ ! -f /tmp/q/running ] && [ ! -f /tmp/e2/done ]; then
  rm -rf /tmp/e2 && mkdir -p /tmp/e2 && tar -C /tmp/e2 -xJf devrun/c2/exp2.tar.xz
  timeout 160 bash /tmp/e2/exp2.sh > $OUT/exp2.txt 2>&1; echo "exp2 rc=$?"; touch /tmp/e2/done
  tail -40 $OUT/exp2.txt
fi
