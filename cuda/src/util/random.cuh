// splitmix64 (Steele, Lea and Flood's SplittableRandom finaliser): a stateless mix of a 64-bit
// counter into a well-spread 64-bit word, for pseudo-random benchmark inputs made on the GPU
// (testing/bench_ntt.cu, tools/msm-experiment). Not for anything secret.
#pragma once

#include <cstdint>

namespace cuzk {

__host__ __device__ __forceinline__ uint64_t splitmix64(uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

}  // namespace cuzk
