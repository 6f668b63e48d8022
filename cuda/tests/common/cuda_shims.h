// The CUDA keywords and intrinsics the device headers use, for a host C++ compiler: the
// emulator tests (field_emulator, digits_emulator) compile the device code itself.
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
