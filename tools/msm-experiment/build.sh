#!/usr/bin/env bash
# Builds `msmexp` (main.cu) against the G1 MSM of a source tree (and the G2 MSM with MSMEXP_G2=1:
# msm_g2.cu alone takes about 12 minutes here), for sm_90, with relocatable
# device code and a device link as the library is built (ff/mont.cu defines Fr's m0 word once).
#   tools/msm-experiment/build.sh SRC_ROOT OUT [NVCC FLAGS...]
# SRC_ROOT holds cuda/src and cuda/include (this checkout, or an older commit's, from
# `git archive`). nvcc: tools/common/nvcc.sh.
# SHARED_OBJ=DIR: for variants that differ only in the MSM's kernels (msm_g1.cu, msm_g2.cu and
# the headers only they include, such as msm/bucket_sums.cuh): main.cu, common.cu, mont.cu and
# error.cu are compiled into DIR by the first build that finds them missing or older than the
# file it compiles, and linked into every later build (use one DIR per MSMEXP_G2 setting and
# set of flags); each build then compiles its MSM files alone
# (about a minute for G1 here, against about five for the whole).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
[ $# -ge 2 ] || { echo "usage: build.sh SRC_ROOT OUT [NVCC FLAGS...]" >&2; exit 2; }
src=$1 out=$2
shift 2
. "$root/tools/common/nvcc.sh"
flags=(-std=c++17 -O3 --expt-relaxed-constexpr -arch=sm_90 -rdc=true -I"$src/cuda/src" -I"$src/cuda/include"
  -I"$root/tools/common" "$@")
msm=("$src/cuda/src/msm/msm_g1.cu")
g2=()
if [ "${MSMEXP_G2:-0}" = 1 ]; then g2=(-DMSMEXP_G2); msm+=("$src/cuda/src/msm/msm_g2.cu"); fi
rest=("$here/main.cu" "$src/cuda/src/msm/common.cu" "$src/cuda/src/ff/mont.cu" "$src/cuda/src/util/error.cu")
if [ -z "${SHARED_OBJ:-}" ]; then
  "$nvcc" "${flags[@]}" "${g2[@]}" "${rest[0]}" "${msm[@]}" "${rest[@]:1}" "${nvcc_libs[@]}" -o "$out"
else
  mkdir -p "$SHARED_OBJ"
  objs=()
  for f in "${rest[@]}"; do
    o="$SHARED_OBJ/$(basename "$f" .cu).o"
    [ "$o" -nt "$f" ] || "$nvcc" "${flags[@]}" "${g2[@]}" -dc "$f" -o "$o"
    objs+=("$o")
  done
  own=$(mktemp -d)
  for f in "${msm[@]}"; do "$nvcc" "${flags[@]}" -dc "$f" -o "$own/$(basename "$f" .cu).o"; done
  "$nvcc" -arch=sm_90 -rdc=true "${objs[@]}" "$own"/*.o "${nvcc_libs[@]}" -o "$out"
  rm -rf "$own"
fi
echo "built $out"
