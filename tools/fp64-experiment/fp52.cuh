// Montgomery products over the BLS12-381 fields on the FP64 pipe: limbs of 52 bits held as
// doubles (eight for Fp, five for Fr), each 52x52-bit limb product split exactly into a high and a low part by two
// fused multiply-adds, the parts summed as integers. An experiment (issue 23: does splitting
// the field products between the integer and the FP64 pipes pay on Hopper?), not library
// code: the library's fp_t and fr_t use 32-bit limbs and R = 2^384 and 2^256; here R = 2^(52 N):
// 2^416 for Fp, 2^260 for Fr.
//
// The split. For integers 0 <= a, b < 2^52 (exact in a double):
//     hi = fma_rd(a, b, 2^104)           = 2^104 + H 2^52,  H = floor(ab / 2^52) < 2^52
//     lo = fma(a, b, (2^104 + 2^52) - hi) = ab - H 2^52 + 2^52 = 2^52 + L,  L = ab mod 2^52
// (fma_rd rounds toward minus infinity; 2^104 + 2^52 - hi = (1 - H) 2^52 is exact, since hi
// and 2^104 + 2^52 are within a factor of two, and so is lo, an integer below 2^53). hi lies in
// [2^104, 2^105) and lo in [2^52, 2^53), where a double's bit pattern read as an integer is the
// bottom's pattern plus (value - bottom) / ulp: bits(hi) = bits(2^104) + H and bits(lo) =
// bits(2^52) + L. The parts become integers with no conversion instruction, and the constant
// offsets are taken off once per column (sums wrap modulo 2^64; the true column sums are far
// below 2^63). Three FP64 operations a limb product: two fma and one subtraction.
//
// The product (separated operand scanning): the N^2 limb products of a*b into 2N integer
// columns, then N reduction rounds, each m = col_i * p' mod 2^52 (one more split) and the N
// limb products of m*p, then col_i's carry into col_(i+1). R is above 4p for both fields
// (2^416 against 2^383, 2^260 against 2^257), so inputs below 2p give an output below 2p with
// no final subtraction; only the carries of the top N columns are propagated, so that each
// output limb is below 2^52 again.
#pragma once

#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define FP52_HD __host__ __device__ __forceinline__
#else
#include <cmath>
#define FP52_HD inline
#endif
// Full unrolling in device code (the host build, the check, has no use for it).
#if defined(__CUDA_ARCH__)
#define FP52_UNROLL _Pragma("unroll")
#else
#define FP52_UNROLL
#endif

namespace fp52 {

constexpr uint64_t MASK = (uint64_t(1) << 52) - 1;

// The moduli in radix 2^52, little-endian, with p' = -p^-1 mod 2^52. The limbs come from a
// switch, not an array: device code cannot read a namespace-scope constexpr array, and a
// local one indexed in a loop that is not unrolled (kp_limb's) is written to the stack on
// every call (180 local stores in the G1 addition), where a switch folds to immediates.
struct fp_params_t {
    static constexpr int N = 8;
    static constexpr uint64_t P_INV = 0x3fffcfffcfffdull;
    FP52_HD static constexpr uint64_t p_limb(int j) {
        switch (j) {
            case 0: return 0xeffffffffaaabull;
            case 1: return 0xfeb153ffffb9full;
            case 2: return 0x6b0f6241eabffull;
            case 3: return 0x12bf6730d2a0full;
            case 4: return 0x764774b84f385ull;
            case 5: return 0x1ba7b6434bacdull;
            case 6: return 0x1ea397fe69a4bull;
            default: return 0x1a011ull;
        }
    }
    // R mod p (R = 2^416): one, in Montgomery form.
    FP52_HD static constexpr uint64_t one_limb(int j) {
        switch (j) {
            case 0: return 0x6480ea8e9b9afull;
            case 1: return 0x65766c8fe444full;
            case 2: return 0x8b540fea96f7dull;
            case 3: return 0x3b2ee82efd422ull;
            case 4: return 0xa6723e5f0ade5ull;
            case 5: return 0xff6eb6fdd4230ull;
            case 6: return 0xe06ef23c24a25ull;
            default: return 0x14c8eull;
        }
    }
};
struct fr_params_t {
    static constexpr int N = 5;
    static constexpr uint64_t P_INV = 0xffffeffffffffull;
    FP52_HD static constexpr uint64_t p_limb(int j) {
        switch (j) {
            case 0: return 0xfffff00000001ull;
            case 1: return 0x2fffe5bfefffull;
            case 2: return 0x9a1d80553bda4ull;
            case 3: return 0x7d483339d8080ull;
            default: return 0x73eda753299dull;
        }
    }
};

constexpr double TWO104 = 0x1p104;
constexpr double TWO104_PLUS_TWO52 = 0x1.0000000000001p104;  // 2^104 + 2^52, exact (ulp 2^52)
constexpr double TWO52 = 0x1p52;
constexpr uint64_t TWO104_BITS = 0x4670000000000000ull;
constexpr uint64_t TWO52_BITS = 0x4330000000000000ull;

// An element: limbs below 2^52 (exact doubles), value below 2p, times R (Montgomery).
template <class P>
struct fe_t {
    static constexpr int N = P::N;
    double l[N];
};

FP52_HD double fma_rn(double a, double b, double c) {
#if defined(__CUDA_ARCH__)
    return __fma_rn(a, b, c);
#else
    return std::fma(a, b, c);
#endif
}
FP52_HD double add_rn(double a, double b) {
#if defined(__CUDA_ARCH__)
    return __dadd_rn(a, b);
#else
    return a + b;
#endif
}
FP52_HD uint64_t bits_of(double x) {
#if defined(__CUDA_ARCH__)
    return uint64_t(__double_as_longlong(x));
#else
    uint64_t u;
    std::memcpy(&u, &x, sizeof u);
    return u;
#endif
}
FP52_HD double double_of(uint64_t u) {
#if defined(__CUDA_ARCH__)
    return __longlong_as_double((long long)u);
#else
    double x;
    std::memcpy(&x, &u, sizeof x);
    return x;
#endif
}
// An integer below 2^52 as a double, without a conversion instruction.
FP52_HD double limb_to_double(uint64_t v) { return add_rn(double_of(v | TWO52_BITS), -TWO52); }

// 2^104 + floor(ab / 2^52) 2^52 for a, b below 2^52: fma rounded down on the GPU; on the host,
// where changing the rounding mode is not reliable under optimisation, the same value from
// the integer product (the GPU's results are compared with the host's bit for bit).
FP52_HD double high_part(double a, double b) {
#if defined(__CUDA_ARCH__)
    return __fma_rd(a, b, TWO104);
#else
    const unsigned __int128 ab = (unsigned __int128)uint64_t(a) * uint64_t(b);
    return double_of(TWO104_BITS + uint64_t(ab >> 52));
#endif
}

// a*b for limbs a, b below 2^52: adds H + bits(2^104) to *hi_col and L + bits(2^52) to
// *lo_col (see the file comment), and counts the offsets in *hi_off and *lo_off.
FP52_HD void mac(double a, double b, uint64_t& lo_col, uint64_t& hi_col, uint64_t& lo_off, uint64_t& hi_off) {
    const double hi = high_part(a, b);
    const double lo = fma_rn(a, b, add_rn(TWO104_PLUS_TWO52, -hi));
    hi_col += bits_of(hi);
    lo_col += bits_of(lo);
    hi_off += TWO104_BITS;
    lo_off += TWO52_BITS;
}

// a * b / R mod p into `out` (limbs below 2^52, the top one keeping what is left), for a, b
// of limbs below 2^52 and values below 2p; the result below 2p. (Any inputs whose product is
// below (R / p) p^2 give a result below 2p: about 2^35 p^2 for Fp, 2^5 r^2 for Fr.) The
// offsets are counted in arrays that the compiler folds to constants once the loops are
// unrolled.
template <class P>
FP52_HD void mul_limbs(const double (&a)[P::N], const double (&b)[P::N], uint64_t (&out)[P::N]) {
    constexpr int N = P::N;
    uint64_t col[2 * N] = {};
    uint64_t off[2 * N] = {};
    FP52_UNROLL
    for (int i = 0; i < N; i++) {
        FP52_UNROLL
        for (int j = 0; j < N; j++) mac(a[i], b[j], col[i + j], col[i + j + 1], off[i + j], off[i + j + 1]);
    }
    FP52_UNROLL
    for (int i = 0; i < N; i++) {
        // m = col_i p' mod 2^52: the low part of one more split.
        uint64_t m_lo = 0, m_hi = 0, m_lo_off = 0, m_hi_off = 0;
        mac(limb_to_double((col[i] - off[i]) & MASK), double(P::P_INV), m_lo, m_hi, m_lo_off, m_hi_off);
        const double md = limb_to_double(m_lo - m_lo_off);
        FP52_UNROLL
        for (int j = 0; j < N; j++) mac(md, double(P::p_limb(j)), col[i + j], col[i + j + 1], off[i + j], off[i + j + 1]);
        col[i + 1] += (col[i] - off[i]) >> 52;  // col_i is now a multiple of 2^52
    }
    int64_t carry = 0;
    FP52_UNROLL
    for (int k = 0; k < N; k++) {
        const int64_t t = int64_t(col[N + k] - off[N + k]) + carry;
        // The top limb keeps what is left: the value is below 2p, so below 2^18 for Fp (2p <
        // 2^382) and 2^48 for Fr (2r < 2^256).
        out[k] = k == N - 1 ? uint64_t(t) : uint64_t(t) & MASK;
        carry = t >> 52;
    }
}

// mul_limbs on elements held as doubles.
template <class P>
FP52_HD fe_t<P> mul(const fe_t<P>& a, const fe_t<P>& b) {
    uint64_t out[P::N];
    mul_limbs<P>(a.l, b.l, out);
    fe_t<P> r;
    FP52_UNROLL
    for (int k = 0; k < P::N; k++) r.l[k] = limb_to_double(out[k]);
    return r;
}

}  // namespace fp52
