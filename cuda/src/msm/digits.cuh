// The MSM's signed digits (see pippenger.cuh): a canonical 256-bit scalar, eight 32-bit limbs
// least significant first, rewritten with windows of c_w bits at offsets o_w as
//     s = sum_w d_w 2^(o_w),   d_w in [-(H_w - 1), H_w],   H_w = 2^(c_w - 1),
// each window's c_w bits plus the carry from below, less 2^(c_w) (and a carry into the next
// window) when that exceeds H_w. Plain functions over limbs, so that the kernels and a CPU test
// (tests/digits_emulated.rs) run the same code.
#pragma once

#include <cstdint>

namespace cuzk::msm::digits {

constexpr uint32_t LIMBS = 8;

// Where the windows lie: the first `narrow` windows have c - 1 bits, the others c. Scalars
// are below r < 2^255, so windows that cover 256 bits absorb the last carry (the top window's
// bits are below 2^(c_top - 1), so its digit is at most H_top). ceil(256 / c) windows of c
// bits cover up to c - 1 bits more than that; narrowing some of them by a bit halves those
// windows' buckets, and so their share of the reduction, for the same additions (balanced()).
struct layout_t {
    uint32_t c;
    uint32_t windows;
    uint32_t narrow;

    // ceil(256 / c) windows, as narrow as still covers 256 bits (at most windows - 1 narrow,
    // so that the top window keeps c bits and the buckets' count 2^(c-1)).
    __host__ __device__ static constexpr layout_t balanced(uint32_t c) {
        const uint32_t windows = (256 + c - 1) / c, spare = windows * c - 256;
        return {c, windows, spare < windows ? spare : windows - 1};
    }
    // ceil(256 / c) windows of c bits: shifted copies of the bases need one width.
    __host__ __device__ static constexpr layout_t uniform(uint32_t c) { return {c, (256 + c - 1) / c, 0}; }

    __host__ __device__ constexpr uint32_t width(uint32_t w) const { return w < narrow ? c - 1 : c; }
    __host__ __device__ constexpr uint32_t offset(uint32_t w) const { return w * c - (w < narrow ? w : narrow); }
};

// Bits [bit, bit + c) of the scalar whose limb k is limb(k), for c <= 32: at most two limbs
// are read (bit % 32 + c < 64), the second only when the window reaches into it; limbs at or
// above LIMBS read as zeros.
template <class Limb>
__device__ __forceinline__ uint32_t window_bits(const Limb& limb, uint32_t bit, uint32_t c) {
    const uint32_t k = bit / 32, sh = bit % 32;
    if (k >= LIMBS) return 0;
    uint64_t pair = limb(k);
    if (sh + c > 32 && k + 1 < LIMBS) pair |= uint64_t(limb(k + 1)) << 32;
    return uint32_t(pair >> sh) & ((1u << c) - 1);
}

// The carries between the windows: bit w set when window w receives one from window w - 1
// (bit 0 is never set; at most 64 windows).
template <class Limb>
__device__ __forceinline__ uint64_t carries(const Limb& limb, const layout_t& layout) {
    uint32_t carry = 0;
    uint64_t mask = 0;
    for (uint32_t w = 0; w + 1 < layout.windows; w++) {
        const uint32_t c = layout.width(w);
        carry = window_bits(limb, layout.offset(w), c) + carry > (1u << (c - 1));
        mask |= uint64_t(carry) << (w + 1);
    }
    return mask;
}

// Window w's digit from its c bits and its carry in: |d_w| (the sort key, at most H) and
// whether d_w is negative.
struct digit_t {
    uint32_t magnitude;
    bool negative;
};

__device__ __forceinline__ digit_t signed_digit(uint32_t bits, uint32_t carry_in, uint32_t c) {
    const uint32_t v = bits + carry_in, half = 1u << (c - 1);
    if (v > half) return {(1u << c) - v, true};
    return {v, false};
}

}  // namespace cuzk::msm::digits
