// Bitmaps of 64-bit words, bit k % 64 of word k / 64: the densities of a witness and the ones
// of a split.
#pragma once

#include <cstddef>
#include <cstdint>

namespace cuzk {

// Bit k of `words`.
__host__ __device__ __forceinline__ bool bit(const uint64_t* words, size_t k) {
    return (words[k >> 6] >> (k & 63)) & 1;
}

// The bits set among the first `len` of `words` (the bits past them are ignored); on the host.
inline size_t count_bits(const uint64_t* words, size_t len) {
    size_t n = 0;
    for (size_t k = 0; k < len / 64; k++) n += size_t(__builtin_popcountll(words[k]));
    if (len % 64) n += size_t(__builtin_popcountll(words[len / 64] & ((uint64_t(1) << (len % 64)) - 1)));
    return n;
}

}  // namespace cuzk
