#!/usr/bin/env bash
# Builds `affexp` (README.md) against this checkout's field and curve code, for sm_90.
#   tools/affine-experiment/build.sh [OUT]
# nvcc: $NVCC, or the pinned toolchain of `cargo xtask cuda-toolchain`.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:-affexp}
nvcc=${NVCC:-$(ls "$root"/.cache/cuda-toolchain/venv/lib/python3*/site-packages/nvidia/cu13/bin/nvcc)}
lib=$(dirname "$(dirname "$nvcc")")/lib
"$nvcc" -std=c++17 -O3 --expt-relaxed-constexpr -arch=sm_90 -I"$root/cuda/src" -I"$root/cuda/include" -I"$root/tools/common" \
  "$here/main.cu" -o "$out" -L"$lib" -cudart static
echo "built $out"
