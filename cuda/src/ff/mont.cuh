// Montgomery arithmetic modulo a prime p on N little-endian 32-bit limbs, R = 2^(32N).
//
// One implementation serves both BLS12-381 fields: `mont_t<P>` is instantiated with a
// parameter class P (see bls12_381.cuh) that provides the limb count N, the modulus p,
// R mod p (the Montgomery one), R^2 mod p and m0 = -p^-1 mod 2^32. The parameters are
// constexpr functions so that every limb becomes an immediate operand after unrolling.
//
// Representation: an element x is stored as x*R mod p, fully reduced to [0, p), in
// little-endian 32-bit limbs. That is byte for byte blst's layout (blst_fp: 6 LE u64 limbs,
// blst_fr: 4 LE u64 limbs, both in Montgomery form), so arrays cross from Rust unchanged.
//
// Multiplication is CIOS (coarsely integrated operand scanning): N rounds of
// "t += a * b[i]; t += m * p; t >>= 32", with the products of even and odd limbs kept in two
// accumulators so that each 32x32 product is one wide multiply-add (see operator*). Both
// fields satisfy p < 2^(32N-1), which keeps t below 2^(32(N+1)) throughout, so N+1 words
// suffice and the result before the final conditional subtraction is below 2p.
#pragma once

#include <cstdint>

#include "ff/ptx.cuh"

namespace cuzk {

template <class P>
struct alignas(16) mont_t {
    static constexpr int N = P::N;
    static_assert((N * 4) % 16 == 0, "limb count must give a 16-byte multiple");

    uint32_t l[N];

    // ---- constants -------------------------------------------------------------------

    __device__ __forceinline__ static mont_t zero() {
        mont_t r;
#pragma unroll
        for (int i = 0; i < N; i++) r.l[i] = 0;
        return r;
    }
    // The Montgomery form of 1, R mod p.
    __device__ __forceinline__ static mont_t one() {
        mont_t r;
#pragma unroll
        for (int i = 0; i < N; i++) r.l[i] = P::one(i);
        return r;
    }
    // R^2 mod p: multiplying a canonical value by it gives its Montgomery form.
    __device__ __forceinline__ static mont_t r2() {
        mont_t r;
#pragma unroll
        for (int i = 0; i < N; i++) r.l[i] = P::r2(i);
        return r;
    }
    // The modulus itself (not a field element; for tests and comparisons).
    __device__ __forceinline__ static mont_t modulus() {
        mont_t r;
#pragma unroll
        for (int i = 0; i < N; i++) r.l[i] = P::p(i);
        return r;
    }

    // ---- predicates ------------------------------------------------------------------

    __device__ __forceinline__ bool is_zero() const {
        uint32_t acc = 0;
#pragma unroll
        for (int i = 0; i < N; i++) acc |= l[i];
        return acc == 0;
    }
    __device__ __forceinline__ bool is_one() const {
        uint32_t acc = 0;
#pragma unroll
        for (int i = 0; i < N; i++) acc |= l[i] ^ P::one(i);
        return acc == 0;
    }
    friend __device__ __forceinline__ bool operator==(const mont_t& a, const mont_t& b) {
        uint32_t acc = 0;
#pragma unroll
        for (int i = 0; i < N; i++) acc |= a.l[i] ^ b.l[i];
        return acc == 0;
    }
    friend __device__ __forceinline__ bool operator!=(const mont_t& a, const mont_t& b) { return !(a == b); }

    // ---- addition ----------------------------------------------------------------------

    // Reduces t < 2p to [0, p): subtracts p unless that borrows.
    __device__ __forceinline__ static mont_t reduce_once(const uint32_t (&t)[N]) {
        uint32_t s[N];
        s[0] = ptx::sub_cc(t[0], P::p(0));
#pragma unroll
        for (int i = 1; i < N; i++) s[i] = ptx::subc_cc(t[i], P::p(i));
        uint32_t borrow = ptx::subc(0, 0);  // all ones when t < p
        mont_t r;
#pragma unroll
        for (int i = 0; i < N; i++) r.l[i] = borrow ? t[i] : s[i];
        return r;
    }

    friend __device__ __forceinline__ mont_t operator+(const mont_t& a, const mont_t& b) {
        // a + b < 2p < 2^(32N): no carry out of the top limb.
        uint32_t t[N];
        t[0] = ptx::add_cc(a.l[0], b.l[0]);
#pragma unroll
        for (int i = 1; i < N - 1; i++) t[i] = ptx::addc_cc(a.l[i], b.l[i]);
        t[N - 1] = ptx::addc(a.l[N - 1], b.l[N - 1]);
        return reduce_once(t);
    }

    friend __device__ __forceinline__ mont_t operator-(const mont_t& a, const mont_t& b) {
        uint32_t t[N];
        t[0] = ptx::sub_cc(a.l[0], b.l[0]);
#pragma unroll
        for (int i = 1; i < N; i++) t[i] = ptx::subc_cc(a.l[i], b.l[i]);
        uint32_t borrow = ptx::subc(0, 0);
        // On borrow, add p back (the final carry out cancels the borrow).
        mont_t r;
        r.l[0] = ptx::add_cc(t[0], P::p(0) & borrow);
#pragma unroll
        for (int i = 1; i < N - 1; i++) r.l[i] = ptx::addc_cc(t[i], P::p(i) & borrow);
        r.l[N - 1] = ptx::addc(t[N - 1], P::p(N - 1) & borrow);
        return r;
    }

    __device__ __forceinline__ mont_t dbl() const { return *this + *this; }
    __device__ __forceinline__ mont_t neg() const { return zero() - *this; }
    friend __device__ __forceinline__ mont_t operator-(const mont_t& a) { return a.neg(); }

    __device__ __forceinline__ mont_t& operator+=(const mont_t& b) { return *this = *this + b; }
    __device__ __forceinline__ mont_t& operator-=(const mont_t& b) { return *this = *this - b; }

    // ---- multiplication ----------------------------------------------------------------

    // t[0..N] += a * b (N-limb by one limb), as a low-half chain then a high-half chain.
    // The caller guarantees the sum fits in N+1 limbs.
    __device__ __forceinline__ static void mac_row(uint32_t (&t)[N + 1], const uint32_t (&a)[N], uint32_t b) {
        t[0] = ptx::mad_lo_cc(a[0], b, t[0]);
#pragma unroll
        for (int j = 1; j < N; j++) t[j] = ptx::madc_lo_cc(a[j], b, t[j]);
        t[N] = ptx::addc(t[N], 0);
        t[1] = ptx::mad_hi_cc(a[0], b, t[1]);
#pragma unroll
        for (int j = 1; j < N - 1; j++) t[j + 1] = ptx::madc_hi_cc(a[j], b, t[j + 1]);
        t[N] = ptx::madc_hi(a[N - 1], b, t[N]);  // no carry out, by the caller's bound
    }

    // One Montgomery reduction step: t += m * p with m chosen so that t[0] becomes 0,
    // then t >>= 32.
    __device__ __forceinline__ static void reduce_step(uint32_t (&t)[N + 1]) {
        uint32_t m = t[0] * P::m0;
        uint32_t pl[N];
#pragma unroll
        for (int j = 0; j < N; j++) pl[j] = P::p(j);
        mac_row(t, pl, m);
#pragma unroll
        for (int j = 0; j < N; j++) t[j] = t[j + 1];
        t[N] = 0;
    }

    // a * b * R^-1 mod p. Each round adds a * b[i] and m * p (m making the low limb vanish)
    // and shifts by one limb. Products of even-indexed limbs are added to the running sum t
    // at limb pairs (0,1), (2,3), ...; those of odd-indexed limbs go to a second accumulator
    // u at pairs (1,2), (3,4), .... In every carry chain the low and high halves of one
    // product then sit side by side, which ptxas turns into one wide multiply-add per product
    // (about 1.5x fewer instructions than chaining all low halves, then all high halves).
    // u is folded into t as the round shifts. At the start of a round t < 2p in N limbs.
    friend __device__ __forceinline__ mont_t operator*(const mont_t& a, const mont_t& b) {
        static_assert(N % 2 == 0 && N >= 4, "even limb count");
        uint32_t t[N + 1], u[N + 1];
#pragma unroll
        for (int j = 0; j < N; j++) t[j] = 0;
#pragma unroll
        for (int i = 0; i < N; i++) {
            const uint32_t bi = b.l[i];
            t[0] = ptx::mad_lo_cc(a.l[0], bi, t[0]);
            t[1] = ptx::madc_hi_cc(a.l[0], bi, t[1]);
#pragma unroll
            for (int j = 2; j < N; j += 2) {
                t[j] = ptx::madc_lo_cc(a.l[j], bi, t[j]);
                t[j + 1] = ptx::madc_hi_cc(a.l[j], bi, t[j + 1]);
            }
            t[N] = ptx::addc(0, 0);
            // u = (odd limbs of a) * bi: the pairs do not overlap, so no carries; u[0] unused.
#pragma unroll
            for (int j = 1; j < N; j += 2) {
                u[j] = a.l[j] * bi;
                u[j + 1] = __umulhi(a.l[j], bi);
            }
            // m such that t + m * p = 0 mod 2^32 (u has nothing in limb 0).
            const uint32_t m = t[0] * P::m0;
            t[0] = ptx::mad_lo_cc(m, P::p(0), t[0]);
            t[1] = ptx::madc_hi_cc(m, P::p(0), t[1]);
#pragma unroll
            for (int j = 2; j < N; j += 2) {
                t[j] = ptx::madc_lo_cc(m, P::p(j), t[j]);
                t[j + 1] = ptx::madc_hi_cc(m, P::p(j), t[j + 1]);
            }
            t[N] = ptx::addc(t[N], 0);
            u[1] = ptx::mad_lo_cc(m, P::p(1), u[1]);
            u[2] = ptx::madc_hi_cc(m, P::p(1), u[2]);
#pragma unroll
            for (int j = 3; j < N - 1; j += 2) {
                u[j] = ptx::madc_lo_cc(m, P::p(j), u[j]);
                u[j + 1] = ptx::madc_hi_cc(m, P::p(j), u[j + 1]);
            }
            u[N - 1] = ptx::madc_lo_cc(m, P::p(N - 1), u[N - 1]);
            u[N] = ptx::madc_hi(m, P::p(N - 1), u[N]);  // u < 2^(32(N+1)): no carry out
            // (t + u) / 2^32: limb 0 of both is zero, and the sum is below 2p, so N limbs.
            t[0] = ptx::add_cc(t[1], u[1]);
#pragma unroll
            for (int j = 1; j < N - 1; j++) t[j] = ptx::addc_cc(t[j + 1], u[j + 1]);
            t[N - 1] = ptx::addc(t[N], u[N]);
        }
        uint32_t r[N];
#pragma unroll
        for (int j = 0; j < N; j++) r[j] = t[j];
        return reduce_once(r);
    }
    __device__ __forceinline__ mont_t& operator*=(const mont_t& b) { return *this = *this * b; }

    __device__ __forceinline__ mont_t sqr() const { return *this * *this; }

    // ---- conversions -------------------------------------------------------------------

    // Montgomery form x*R to the canonical integer x (as N limbs; no longer a field element
    // in this type's sense). Used for scalar digit extraction.
    __device__ __forceinline__ mont_t to_canonical() const {
        uint32_t t[N + 1];
#pragma unroll
        for (int j = 0; j < N; j++) t[j] = l[j];
        t[N] = 0;
#pragma unroll
        for (int i = 0; i < N; i++) reduce_step(t);
        uint32_t r[N];
#pragma unroll
        for (int j = 0; j < N; j++) r[j] = t[j];
        return reduce_once(r);
    }
    // A canonical integer x < p to its Montgomery form x*R.
    __device__ __forceinline__ mont_t from_canonical() const { return *this * r2(); }

    // ---- exponentiation ----------------------------------------------------------------

    // this^e for a 32-bit exponent (square-and-multiply, most significant bit first).
    __device__ __forceinline__ mont_t pow(uint32_t e) const {
        mont_t r = one();
        for (int i = 31; i >= 0; i--) {
            r = r.sqr();
            if ((e >> i) & 1) r = r * *this;
        }
        return r;
    }
    // this^(p-2) = this^-1 for non-zero this (Fermat); zero maps to zero. A full exponentiation:
    // for constants and one-off conversions (affine results), not for inner loops.
    __device__ __noinline__ mont_t inverse() const {
        // Exponent p - 2, with the borrow carried (Fr's low limb is 1).
        uint32_t e[N];
        e[0] = ptx::sub_cc(P::p(0), 2);
#pragma unroll
        for (int i = 1; i < N; i++) e[i] = ptx::subc_cc(P::p(i), 0);
        (void)ptx::subc(0, 0);
        mont_t r = one();
#pragma unroll
        for (int i = N - 1; i >= 0; i--) {
            for (int b = 31; b >= 0; b--) {
                r = r.sqr();
                if ((e[i] >> b) & 1) r = r * *this;
            }
        }
        return r;
    }
};

}  // namespace cuzk
