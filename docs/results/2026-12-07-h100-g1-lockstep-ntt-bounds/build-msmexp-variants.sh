#!/usr/bin/env bash
set -euo pipefail
NVCC=/work/build/.cache/cuda-toolchain/venv/lib/python3.11/site-packages/nvidia/cu13/bin/nvcc
L=-L$(dirname $(dirname $NVCC))/lib
R=/work/main
F="-std=c++17 -O3 --expt-relaxed-constexpr -arch=sm_90 -rdc=true -I$R/tools/common"
cd /tmp/v/obj
for f in "$R/tools/msm-experiment/main.cu" /tmp/v/base/cuda/src/msm/common.cu /tmp/v/base/cuda/src/ff/mont.cu /tmp/v/base/cuda/src/util/error.cu; do
  o=$(basename $f .cu).o; [ -f $o ] || $NVCC $F -I/tmp/v/base/cuda/src -I/tmp/v/base/cuda/include -dc $f -o $o
done
for v in "$@"; do
  $NVCC $F -I/tmp/v/$v/cuda/src -I/tmp/v/$v/cuda/include -dc /tmp/v/$v/cuda/src/msm/msm_g1.cu -o g1_$v.o
  $NVCC -arch=sm_90 -rdc=true main.o common.o mont.o error.o g1_$v.o $L -o $R/devrun/msm/msmexp_$v
  echo built $v
done
