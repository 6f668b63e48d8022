# Sourced by the build scripts under tools/: sets `nvcc` ($NVCC, else the pinned toolchain of
# `cargo xtask cuda-toolchain` in this checkout, else the one on PATH, as on the GPU machine)
# and `nvcc_libs` (-L for that toolchain's libraries, where it has its own, for -cudart static).
tools_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
nvcc=${NVCC:-$(ls "$tools_root"/.cache/cuda-toolchain/venv/lib/python3*/site-packages/nvidia/cu13/bin/nvcc 2>/dev/null ||
  command -v nvcc || true)}
[ -n "$nvcc" ] || { echo "no nvcc: set NVCC or run cargo xtask cuda-toolchain" >&2; exit 1; }
nvcc_libs=()
# An if, not `[ ] && ...`: sourced by scripts under `set -e`, a false test as this file's last
# command would end them silently (the GPU machine's nvcc has lib64, not lib).
if [ -d "$(dirname "$(dirname "$nvcc")")/lib" ]; then nvcc_libs=(-L"$(dirname "$(dirname "$nvcc")")/lib"); fi
