#!/usr/bin/env bash
# Builds `fp64exp` (main.cu: Fp product chains on the integer pipe, on the FP64 pipe, and both
# at once) and, beside it, `nttmix` (ntt_mixed.cu: the library's NTT passes with some warps'
# products on the FP64 pipe) against this checkout's code, for sm_90, and checks fp52.cuh and
# ntt52.cuh on the host first (check.cpp; a failure stops the build).
#   tools/fp64-experiment/build.sh [OUT] [NVCC FLAGS...]      nvcc: tools/common/nvcc.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:-fp64exp}
shift || true
. "$root/tools/common/nvcc.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"${CXX:-c++}" -std=c++17 -O2 -Wall -Wextra -I"$here" "$here/check.cpp" -o "$tmp/fp52check"
"$tmp/fp52check" 100000
"$nvcc" -std=c++17 -O3 --expt-relaxed-constexpr -arch=sm_90 -I"$here" -I"$root/tools/common" -I"$root/cuda/src" \
  -I"$root/cuda/include" "$@" "$here/main.cu" "$root/cuda/src/util/error.cu" "${nvcc_libs[@]}" -o "$out"
echo "built $out"
mix=$(dirname "$out")/nttmix
"$nvcc" -std=c++17 -O3 --expt-relaxed-constexpr -arch=sm_90 -I"$here" -I"$root/tools/common" -I"$root/cuda/src" \
  -I"$root/cuda/include" "$@" "$here/ntt_mixed.cu" "$root/cuda/src/util/error.cu" "${nvcc_libs[@]}" -o "$mix"
echo "built $mix"
