#!/usr/bin/env bash
# Builds supraseal-peer with the pinned nvcc (cargo xtask cuda-toolchain) and packs it for the
# GPU machine: target/peer/supraseal-peer.xz (stripped, xz). supraseal's CUDA code is compiled
# by sppark for its own list of architectures; sm_90 (the H200) is added so that the peer runs
# its kernels as built for Hopper, not JIT-compiled from compute_80 PTX.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
exports=$(cd "$root" && cargo run --quiet -p xtask -- cuda-toolchain)
eval "$exports"
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$root/target/peer}
export NVCC_APPEND_FLAGS="${NVCC_APPEND_FLAGS:-} -gencode arch=compute_90,code=sm_90"
# The pinned toolchain's CUDA runtime (libcudart_static, libcudadevrt) is in the wheel's lib/,
# which neither nvcc's link nor the final one searches by default.
cuda_lib=$(cd "$(dirname "$NVCC")/../lib" && pwd)
export LIBRARY_PATH="$cuda_lib${LIBRARY_PATH:+:$LIBRARY_PATH}"
(cd "$here" && cargo build --release ${PEER_LOCKED:---locked})
bin=$CARGO_TARGET_DIR/release/supraseal-peer
strip -o "$CARGO_TARGET_DIR/supraseal-peer" "$bin"
xz -T2 --lzma2=preset=6,dict=256MiB -c "$CARGO_TARGET_DIR/supraseal-peer" >"$CARGO_TARGET_DIR/supraseal-peer.xz"
ls -la "$CARGO_TARGET_DIR/supraseal-peer.xz"
