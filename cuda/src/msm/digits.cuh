// The MSM's signed digits (see pippenger.cuh): a canonical 256-bit scalar, eight 32-bit limbs
// least significant first, rewritten with windows of c bits as
//     s = sum_w d_w 2^(cw),   d_w in [-(H - 1), H],   H = 2^(c-1),
// each window's c bits plus the carry from below, less 2^c (and a carry into the next window)
// when that exceeds H. Plain functions over limbs, so that the kernels and a CPU test
// (tests/digits_emulated.rs) run the same code.
#pragma once

#include <cstdint>

namespace cuzk::msm::digits {

constexpr uint32_t LIMBS = 8;

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
__device__ __forceinline__ uint64_t carries(const Limb& limb, uint32_t c, uint32_t windows) {
    const uint32_t half = 1u << (c - 1);
    uint32_t carry = 0;
    uint64_t mask = 0;
    for (uint32_t w = 0; w + 1 < windows; w++) {
        carry = window_bits(limb, w * c, c) + carry > half;
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
