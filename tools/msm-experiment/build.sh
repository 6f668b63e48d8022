#!/usr/bin/env bash
# Builds `msmexp` (main.cu) against the G1 MSM of a source tree (and the G2 MSM with MSMEXP_G2=1:
# msm_g2.cu alone takes about 12 minutes here), for sm_90, with relocatable
# device code and a device link as the library is built (ff/mont.cu defines Fr's m0 word once).
#   tools/msm-experiment/build.sh SRC_ROOT OUT [NVCC FLAGS...]
# SRC_ROOT holds cuda/src and cuda/include (this checkout, or an older commit's, from
# `git archive`). nvcc: tools/common/nvcc.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
[ $# -ge 2 ] || { echo "usage: build.sh SRC_ROOT OUT [NVCC FLAGS...]" >&2; exit 2; }
src=$1 out=$2
shift 2
. "$root/tools/common/nvcc.sh"
g2=()
[ "${MSMEXP_G2:-0}" = 1 ] && g2=(-DMSMEXP_G2 "$src/cuda/src/msm/msm_g2.cu")
"$nvcc" -std=c++17 -O3 --expt-relaxed-constexpr -arch=sm_90 -rdc=true -I"$src/cuda/src" -I"$src/cuda/include" \
  -I"$root/tools/common" "$@" "$here/main.cu" "$src/cuda/src/msm/msm_g1.cu" "${g2[@]}" "$src/cuda/src/msm/common.cu" \
  "$src/cuda/src/ff/mont.cu" "$src/cuda/src/util/error.cu" "${nvcc_libs[@]}" -o "$out"
echo "built $out"
