#!/usr/bin/env bash
# Builds the GPU tests and benchmarks (cargo xtask gpu-bundle) and cuzk with cuda, for sm_90,
# and packs the binaries the queue runs (with tools/affine-experiment's affexp,
# tools/fp64-experiment's fp64exp and nttmix, tools/msm-experiment's msmexp of this tree (and,
# with MSM_VARIANT=PATCH, of this tree with that patch), and the supraseal peer when built)
# into devrun/b.tar.xz, under the device tool's 64 MiB.
# BEFORE=ARCHIVE adds that earlier archive's bench_ntt, bench_msm and bench_groth16 as
# bench/bench_ntt_before, bench/bench_msm_before and bench/bench_groth16_before, for the
# queue's before-and-after steps (ntt-ab, msm-ab, groth16-ab); the archive grows by about
# 17 MiB (xz's window does not reach back to the same bytes of this build's binaries).
set -euo pipefail
cd "$(dirname "$0")/../.."
# supraseal-c2's bindgen needs libclang, which a fresh VM lacks (.ci/run installs it): without
# it the build stops 25 minutes in, after the CUDA code, so it is checked first.
if ! compgen -G '/usr/lib/llvm-*/lib/libclang.so' >/dev/null && [ -z "${LIBCLANG_PATH:-}" ]; then
  echo "pack.sh: no libclang for supraseal-c2's bindgen: apt-get install -y libclang-dev (or set LIBCLANG_PATH)" >&2
  exit 1
fi
eval "$(cargo run --quiet -p xtask -- cuda-toolchain)"
export CUZK_CUDA_ARCHS=${CUZK_CUDA_ARCHS:-90}
cargo xtask gpu-bundle
cargo build --release -p cuzk-daemon --features cuda
stage=$(mktemp -d)
mkdir -p "$stage/b2/tests" "$stage/b2/bench"
for t in groth16 device_matrices engine msm msm_g2 field g1 ntt fixed_base; do cp gpu-bundle/tests/$t "$stage/b2/tests/"; done
for b in bench_msm bench_ntt bench_groth16 make_params; do cp gpu-bundle/bench/$b "$stage/b2/bench/"; done
cp target/release/cuzk "$stage/b2/"
tools/affine-experiment/build.sh "$stage/b2/affexp"
tools/fp64-experiment/build.sh "$stage/b2/fp64exp"
# msmexp of this tree, and of HEAD with the patch MSM_VARIANT names, for the queue's msm-variant
# step; a patch that does not apply stops the packing.
tools/msm-experiment/build.sh . "$stage/b2/msmexp_main"
if [ -n "${MSM_VARIANT:-}" ]; then
  patch=$(realpath "$MSM_VARIANT") variant=$(mktemp -d)
  git archive HEAD cuda/src cuda/include | tar -x -C "$variant"
  (cd "$variant" && git apply "$patch")
  tools/msm-experiment/build.sh "$variant" "$stage/b2/msmexp_variant"
  rm -rf "$variant"
fi
# As gpu-bundle does for its binaries: no debug information, no relocatable device code.
strip --strip-debug -R __nv_relfatbin "$stage/b2/cuzk"
if [ -f target/peer/supraseal-peer.xz ]; then xz -dc target/peer/supraseal-peer.xz >"$stage/b2/supraseal-peer"; chmod +x "$stage/b2/supraseal-peer"; fi
if [ -n "${BEFORE:-}" ]; then
  xz -dc "$BEFORE" | tar -C "$stage" -xf - --transform 's,\(bench_[a-z0-9]*\)$,\1_before,' \
    b2/bench/bench_ntt b2/bench/bench_msm b2/bench/bench_groth16
fi
mkdir -p devrun
# Written aside and renamed, so that a device call made meanwhile carries the last whole bundle.
tar -C "$stage" -cf - b2 | xz --lzma2=preset=6,dict=256MiB -T2 >devrun/.b.tar.xz.part
mv devrun/.b.tar.xz.part devrun/b.tar.xz
rm -rf "$stage"
size=$(stat -c %s devrun/b.tar.xz)
echo "devrun/b.tar.xz: $((size >> 20)) MiB"
[ "$size" -lt $((60 << 20)) ] || { echo "too large for the device tool (64 MiB with the tree)" >&2; exit 1; }
