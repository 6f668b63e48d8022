#!/usr/bin/env bash
# Builds `affexp` (README.md) against this checkout's field and curve code, for sm_90.
#   tools/affine-experiment/build.sh [OUT]
# nvcc: tools/common/nvcc.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:-affexp}
. "$root/tools/common/nvcc.sh"
"$nvcc" -std=c++17 -O3 --expt-relaxed-constexpr -arch=sm_90 -I"$root/cuda/src" -I"$root/cuda/include" -I"$root/tools/common" \
  "$here/main.cu" -o "$out" "${nvcc_libs[@]}" -cudart static
echo "built $out"
