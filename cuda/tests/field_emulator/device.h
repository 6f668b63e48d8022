// The CUDA keywords and intrinsics the device headers use, for a host C++ compiler, and those
// headers: the field emulator compiles the device code itself (ff/ptx.cuh supplies its
// carry-chain instructions in C++ when no CUDA compiler is present).
#pragma once

#include <cstdint>

#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__
#define __constant__
inline uint32_t __funnelshift_l(uint32_t lo, uint32_t hi, uint32_t shift) {
    return uint32_t(((uint64_t(hi) << 32 | lo) << (shift & 31)) >> 32);
}

#include "ec/g1.cuh"
#include "ff/bls12_381.cuh"
#include "ff/fp2.cuh"
