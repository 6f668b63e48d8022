// The CUDA keywords and intrinsics the device headers use, for a host C++ compiler: the
// emulator tests (field_emulator, digits_emulator) compile the device code itself.
#pragma once

#include <cstddef>
#include <cstdint>

#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__
#define __constant__
inline uint32_t __funnelshift_l(uint32_t lo, uint32_t hi, uint32_t shift) {
    return uint32_t(((uint64_t(hi) << 32 | lo) << (shift & 31)) >> 32);
}

// Kernels as plain functions: __global__ and __launch_bounds__ vanish, and launch() runs the
// body once per thread of a one-dimensional grid, with the built-in indices set as it goes.
#define __global__
#define __launch_bounds__(...)
struct cuda_shims_dim3 {
    unsigned x = 0;
};
inline cuda_shims_dim3 threadIdx, blockIdx, blockDim;
namespace cuda_shims {
template <class Body>
void launch(size_t threads, unsigned block, Body body) {
    blockDim.x = block;
    for (size_t b = 0; b * block < threads || b == 0; b++)
        for (unsigned t = 0; t < block; t++) {
            blockIdx.x = unsigned(b);
            threadIdx.x = t;
            body();
        }
}
}  // namespace cuda_shims
