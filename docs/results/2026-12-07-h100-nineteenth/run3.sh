#!/usr/bin/env bash
# Session 19, call 1. devrun/b.tar.xz = main 0976b00 + window-plan.patch + zero-chunks.patch,
# BEFORE= main's kernels. carry: devrun/b.tar.xz devrun/sc devrun/run3.sh devrun/peer.xz
set -u
nvidia-smi --query-gpu=name --format=csv,noheader
if [ ! -f /tmp/zc.done ]; then
  chmod +x devrun/sc/msmexp_*
  for r in 1 2; do
    echo "== base run $r"; timeout 60 devrun/sc/msmexp_base 24 26 24/s 26/s
    echo "== lazy run $r"; timeout 60 devrun/sc/msmexp_lazy 24 26
    echo "== zero run $r"; timeout 60 devrun/sc/msmexp_zero 24/s 26/s
  done 2>&1 | tee $OUT/zero.txt
  touch /tmp/zc.done
fi
NEWBIN=1 AB_RUNS=1 tools/h200/go.sh start "msm-tests groth16-tests memcheck msm-ab msm-g2w"
xz -dc devrun/peer.xz > /tmp/b2/supraseal-peer && chmod +x /tmp/b2/supraseal-peer
tools/h200/go.sh poll ${POLL:-380}
