#!/usr/bin/env bash
# Builds `accexp`: the same G1 and G2 mixed-addition, Fp-product and Fp-square kernels compiled twice, once
# against the Montgomery arithmetic of OLD (a cuzk checkout) and once against NEW, in one
# binary, so that one run on a GPU compares them (and checks that both give the same bytes).
#   tools/mont-experiment/build.sh OLD_CHECKOUT NEW_CHECKOUT [OUT]
# nvcc: tools/common/nvcc.sh.
set -euo pipefail
old=$(cd "$1" && pwd) new=$(cd "$2" && pwd) out=${3:-accexp}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../common/nvcc.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
flags=(-std=c++17 -O3 --expt-relaxed-constexpr -arch=sm_90 -I"$here" -I"$here/../common")
printf '#define ACC_FN acc_old\n#define ACC2_FN acc2_old\n#define SQR_FN sqr_old\n#define MUL_FN mul_old\n#include "acc_impl.cuh"\n' > "$tmp/old.cu"
printf '#define ACC_FN acc_new\n#define ACC2_FN acc2_new\n#define SQR_FN sqr_new\n#define MUL_FN mul_new\n#include "acc_impl.cuh"\n' > "$tmp/new.cu"
"$nvcc" "${flags[@]}" -I"$old/cuda/src" -I"$old/cuda/include" -c "$tmp/old.cu" -o "$tmp/old.o"
"$nvcc" "${flags[@]}" -I"$new/cuda/src" -I"$new/cuda/include" -c "$tmp/new.cu" -o "$tmp/new.o"
"$nvcc" "${flags[@]}" -c "$here/acc_main.cu" -o "$tmp/main.o"
"$nvcc" -arch=sm_90 "${nvcc_libs[@]}" "$tmp/old.o" "$tmp/new.o" "$tmp/main.o" -o "$out" -cudart static
echo "built $out"
