#!/usr/bin/env bash
# Session 20 (carry: devrun/b.tar.xz devrun/x devrun/run7.sh). devrun/b.tar.xz = main f3e5b47 +
# lazy-sums.patch + balanced windows, BEFORE= the bundle of f3e5b47 + lazy-sums.patch.
# devrun/x: msmexp_base (main's kernels: 0976b00 + window-plan + zero-chunks), _lazy (+ lazy
# sums), _lazyred (+ lazy sums and lazy reduction), _bal (+ lazy sums and balanced windows).
# Call A: STEPS="field-tests msm-tests groth16-tests memcheck msm-ab" bash devrun/run7.sh
# Call B: MSMEXP=1 STEPS="ncu-sha26-b-g2-gpu ncu-peer-sha26" bash devrun/run7.sh
# A call while the queue runs polls it (and starts nothing).
set -u
nvidia-smi --query-gpu=name --format=csv,noheader
mkdir -p $OUT/m
[ -x /tmp/b2/cuzk ] || tar -C /tmp -xJf devrun/b.tar.xz || exit 1
for v in base lazy lazyred bal; do
  [ -x /tmp/b2/msmexp_$v ] || { xz -dc devrun/x/msmexp_$v.xz > /tmp/b2/msmexp_$v && chmod +x /tmp/b2/msmexp_$v; }
done
if [ -f /tmp/q/running ]; then tools/h200/go.sh poll ${POLL:-540}; exit; fi
if [ "${MSMEXP:-0}" = 1 ]; then
  for r in $(seq ${RUNS:-2}); do
    for v in ${VARIANTS:-base lazy lazyred bal}; do
      echo "== $v run $r"; /tmp/b2/msmexp_$v ${SIZES:-22 24 26} 2>&1 | tee -a $OUT/m/msmexp-$v.txt
    done
  done
fi
[ -n "${STEPS:-}" ] || exit 0
tools/h200/go.sh start "$STEPS"
tools/h200/go.sh poll ${POLL:-420}
