// PTX carry-chain primitives for multi-precision arithmetic on 32-bit limbs.
//
// Each wrapper is one `asm volatile` PTX instruction. The carry flag (CC.CF) is PTX machine
// state: `volatile` keeps the statements in program order, the compiler itself never emits
// carry-using instructions between them, and ptxas schedules the resulting PTX honouring the
// flag. A chain therefore always starts with a `*_cc` instruction that ignores the incoming
// flag (add_cc, sub_cc, mad_lo_cc, mad_hi_cc) and continues with the `*c*` forms.
//
// A host compiler (no __CUDACC__) gets a model of the same instructions in C++, with the flag
// in a thread-local word, so that the field arithmetic built on them runs on the CPU: the
// field emulator test (cuda/tests/field_emulator) checks mont_t against big integers there.
#pragma once

#include <cstdint>

#if !defined(__CUDACC__)

namespace cuzk::ptx {

// The carry flag: 1 after a carry out (additions) or a borrow (subtractions), as PTX's CC.CF.
inline thread_local uint32_t host_cf = 0;

// r = a + b + cin over 33 bits: the low word, the flag set from bit 32 when `set`.
inline uint32_t host_add(uint64_t a, uint64_t b, uint32_t cin, bool set) {
    const uint64_t r = a + b + cin;
    if (set) host_cf = uint32_t(r >> 32);
    return uint32_t(r);
}
// r = a - b - bin, the flag set to the borrow when `set`.
inline uint32_t host_sub(uint32_t a, uint32_t b, uint32_t bin, bool set) {
    const uint64_t r = uint64_t(a) - b - bin;
    if (set) host_cf = uint32_t(r >> 63);
    return uint32_t(r);
}
inline uint32_t lo(uint32_t a, uint32_t b) { return uint32_t(uint64_t(a) * b); }
inline uint32_t hi(uint32_t a, uint32_t b) { return uint32_t((uint64_t(a) * b) >> 32); }

inline uint32_t add_cc(uint32_t a, uint32_t b) { return host_add(a, b, 0, true); }
inline uint32_t addc_cc(uint32_t a, uint32_t b) { return host_add(a, b, host_cf, true); }
inline uint32_t addc(uint32_t a, uint32_t b) { return host_add(a, b, host_cf, false); }
inline uint32_t sub_cc(uint32_t a, uint32_t b) { return host_sub(a, b, 0, true); }
inline uint32_t subc_cc(uint32_t a, uint32_t b) { return host_sub(a, b, host_cf, true); }
inline uint32_t subc(uint32_t a, uint32_t b) { return host_sub(a, b, host_cf, false); }
inline uint32_t mad_lo_cc(uint32_t a, uint32_t b, uint32_t c) { return host_add(lo(a, b), c, 0, true); }
inline uint32_t madc_lo_cc(uint32_t a, uint32_t b, uint32_t c) { return host_add(lo(a, b), c, host_cf, true); }
inline uint32_t mad_hi_cc(uint32_t a, uint32_t b, uint32_t c) { return host_add(hi(a, b), c, 0, true); }
inline uint32_t madc_hi_cc(uint32_t a, uint32_t b, uint32_t c) { return host_add(hi(a, b), c, host_cf, true); }
inline uint32_t madc_hi(uint32_t a, uint32_t b, uint32_t c) { return host_add(hi(a, b), c, host_cf, false); }

}  // namespace cuzk::ptx

#else

namespace cuzk::ptx {

// a + b, sets CF.
__device__ __forceinline__ uint32_t add_cc(uint32_t a, uint32_t b) {
    uint32_t r;
    asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    return r;
}
// a + b + CF, sets CF.
__device__ __forceinline__ uint32_t addc_cc(uint32_t a, uint32_t b) {
    uint32_t r;
    asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    return r;
}
// a + b + CF, ends the chain.
__device__ __forceinline__ uint32_t addc(uint32_t a, uint32_t b) {
    uint32_t r;
    asm volatile("addc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    return r;
}
// a - b, sets CF (borrow).
__device__ __forceinline__ uint32_t sub_cc(uint32_t a, uint32_t b) {
    uint32_t r;
    asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    return r;
}
// a - b - CF, sets CF.
__device__ __forceinline__ uint32_t subc_cc(uint32_t a, uint32_t b) {
    uint32_t r;
    asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    return r;
}
// a - b - CF, ends the chain.
__device__ __forceinline__ uint32_t subc(uint32_t a, uint32_t b) {
    uint32_t r;
    asm volatile("subc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    return r;
}
// lo(a * b) + c, sets CF.
__device__ __forceinline__ uint32_t mad_lo_cc(uint32_t a, uint32_t b, uint32_t c) {
    uint32_t r;
    asm volatile("mad.lo.cc.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
    return r;
}
// lo(a * b) + c + CF, sets CF.
__device__ __forceinline__ uint32_t madc_lo_cc(uint32_t a, uint32_t b, uint32_t c) {
    uint32_t r;
    asm volatile("madc.lo.cc.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
    return r;
}
// hi(a * b) + c, sets CF.
__device__ __forceinline__ uint32_t mad_hi_cc(uint32_t a, uint32_t b, uint32_t c) {
    uint32_t r;
    asm volatile("mad.hi.cc.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
    return r;
}
// hi(a * b) + c + CF, sets CF.
__device__ __forceinline__ uint32_t madc_hi_cc(uint32_t a, uint32_t b, uint32_t c) {
    uint32_t r;
    asm volatile("madc.hi.cc.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
    return r;
}

// hi(a * b) + c + CF, ends the chain.
__device__ __forceinline__ uint32_t madc_hi(uint32_t a, uint32_t b, uint32_t c) {
    uint32_t r;
    asm volatile("madc.hi.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
    return r;
}

}  // namespace cuzk::ptx

#endif
