// Montgomery arithmetic for the CPU, on 64-bit limbs with 128-bit products, over the same
// parameter classes as mont_t (ff/bls12_381.cuh), and Fp2 over it: the field of the MSM's last
// step, which runs on the host (msm/host_combine.cuh).
//
// Why a second field type: mont_t's products are PTX carry chains on 32-bit limbs, device
// code only. The last step is a chain of a few hundred dependent doublings; on one GPU thread
// each product is hundreds of dependent instructions (milliseconds a chain), on a CPU core
// with 64-bit multiplies it is tens of nanoseconds.
//
// The layout is mont_t's byte for byte (the same little-endian bytes in half as many limbs,
// the same 16-byte alignment), so device arrays of mont_t copy into arrays of host_mont_t
// unchanged. Every operation returns the fully reduced value in [0, p), as mont_t's do, so
// the two types compute bit-identical results from the same inputs (the host field emulator
// test, tests/host_field_emulator, checks that operation by operation).
//
// The methods are __host__ __device__ only so that the curve formulas (ec/xyzz.cuh), which
// are __host__ __device__ for both field types, may call them without nvcc's diagnostics;
// nothing instantiates them in device code.
#pragma once

#include <cstdint>

#include "ff/bls12_381.cuh"

namespace cuzk {

template <class P>
struct alignas(16) host_mont_t {
    static_assert(P::N % 2 == 0, "pairs of 32-bit limbs");
    static constexpr int N = P::N / 2;
    using u128 = unsigned __int128;

    uint64_t l[N];

    __host__ __device__ static constexpr uint64_t p(int i) {
        return uint64_t(P::p(2 * i)) | uint64_t(P::p(2 * i + 1)) << 32;
    }
    // -p^-1 mod 2^64, by Newton's iteration x <- x (2 - p x), which doubles the correct low
    // bits each step (p is odd, so x = 1 is right mod 2).
    __host__ __device__ static constexpr uint64_t m0() {
        uint64_t x = 1;
        for (int i = 0; i < 6; i++) x *= 2 - p(0) * x;
        return 0 - x;
    }
    static_assert(uint32_t(m0()) == P::m0, "the 64-bit m0 must agree with the 32-bit one");

    __host__ __device__ static host_mont_t zero() {
        host_mont_t r{};
        return r;
    }
    // R mod p, the Montgomery form of 1.
    __host__ __device__ static host_mont_t one() {
        host_mont_t r;
        for (int i = 0; i < N; i++) r.l[i] = uint64_t(P::one(2 * i)) | uint64_t(P::one(2 * i + 1)) << 32;
        return r;
    }
    __host__ __device__ bool is_zero() const {
        uint64_t any = 0;
        for (int i = 0; i < N; i++) any |= l[i];
        return any == 0;
    }

    // r = a - p when that does not borrow, else a (a < 2p).
    __host__ __device__ static host_mont_t reduce_once(const host_mont_t& a, uint64_t carry) {
        host_mont_t r;
        uint64_t borrow = 0;
        for (int i = 0; i < N; i++) {
            const u128 d = u128(a.l[i]) - p(i) - borrow;
            r.l[i] = uint64_t(d);
            borrow = uint64_t(d >> 64) & 1;
        }
        return (carry || !borrow) ? r : a;
    }

    friend __host__ __device__ host_mont_t operator+(const host_mont_t& a, const host_mont_t& b) {
        host_mont_t r;
        uint64_t carry = 0;
        for (int i = 0; i < N; i++) {
            const u128 s = u128(a.l[i]) + b.l[i] + carry;
            r.l[i] = uint64_t(s);
            carry = uint64_t(s >> 64);
        }
        return reduce_once(r, carry);
    }
    friend __host__ __device__ host_mont_t operator-(const host_mont_t& a, const host_mont_t& b) {
        host_mont_t r;
        uint64_t borrow = 0;
        for (int i = 0; i < N; i++) {
            const u128 d = u128(a.l[i]) - b.l[i] - borrow;
            r.l[i] = uint64_t(d);
            borrow = uint64_t(d >> 64) & 1;
        }
        if (borrow) {  // a < b: add p back
            uint64_t carry = 0;
            for (int i = 0; i < N; i++) {
                const u128 s = u128(r.l[i]) + p(i) + carry;
                r.l[i] = uint64_t(s);
                carry = uint64_t(s >> 64);
            }
        }
        return r;
    }
    __host__ __device__ host_mont_t dbl() const { return *this + *this; }
    __host__ __device__ host_mont_t neg() const { return zero() - *this; }

    // a b R^-1 mod p by CIOS: N rounds of t += a b_i, then t += m p with m = t_0 m0 mod 2^64,
    // which clears t_0, and a shift by one limb. p < 2^(64N - 2), so t stays below 2p and
    // fits N limbs plus a carry word.
    friend __host__ __device__ host_mont_t operator*(const host_mont_t& a, const host_mont_t& b) {
        uint64_t t[N + 1] = {};
        for (int i = 0; i < N; i++) {
            u128 acc = 0;
            for (int j = 0; j < N; j++) {
                acc = u128(a.l[j]) * b.l[i] + t[j] + uint64_t(acc >> 64);
                t[j] = uint64_t(acc);
            }
            const u128 top = u128(t[N]) + uint64_t(acc >> 64);
            const uint64_t m = t[0] * m0();
            acc = u128(m) * p(0) + t[0];
            for (int j = 1; j < N; j++) {
                acc = u128(m) * p(j) + t[j] + uint64_t(acc >> 64);
                t[j - 1] = uint64_t(acc);
            }
            const u128 last = top + uint64_t(acc >> 64);
            t[N - 1] = uint64_t(last);
            t[N] = uint64_t(last >> 64);
        }
        host_mont_t r;
        for (int i = 0; i < N; i++) r.l[i] = t[i];
        return reduce_once(r, t[N]);
    }
    __host__ __device__ host_mont_t sqr() const { return *this * *this; }
    // a b - c d, as the curve formulas ask of a field (mont_t fuses the two reductions; the
    // value is the same).
    __host__ __device__ static host_mont_t mul_sub(const host_mont_t& a, const host_mont_t& b, const host_mont_t& c,
                                                   const host_mont_t& d) {
        return a * b - c * d;
    }
};

using host_fp_t = host_mont_t<fp_params_t>;
static_assert(sizeof(host_fp_t) == 48 && alignof(host_fp_t) == 16, "host_fp_t must match fp_t");

// Fp2 = Fp[u] / (u^2 + 1) on host_fp_t, with fp2_t's layout (c0 first).
struct alignas(16) host_fp2_t {
    host_fp_t c0, c1;

    __host__ __device__ static host_fp2_t zero() { return {host_fp_t::zero(), host_fp_t::zero()}; }
    __host__ __device__ static host_fp2_t one() { return {host_fp_t::one(), host_fp_t::zero()}; }
    __host__ __device__ bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
    friend __host__ __device__ host_fp2_t operator+(const host_fp2_t& a, const host_fp2_t& b) {
        return {a.c0 + b.c0, a.c1 + b.c1};
    }
    friend __host__ __device__ host_fp2_t operator-(const host_fp2_t& a, const host_fp2_t& b) {
        return {a.c0 - b.c0, a.c1 - b.c1};
    }
    __host__ __device__ host_fp2_t dbl() const { return {c0.dbl(), c1.dbl()}; }
    __host__ __device__ host_fp2_t neg() const { return {c0.neg(), c1.neg()}; }
    // (a0 + a1 u)(b0 + b1 u) = (a0 b0 - a1 b1) + ((a0 + a1)(b0 + b1) - a0 b0 - a1 b1) u.
    friend __host__ __device__ host_fp2_t operator*(const host_fp2_t& a, const host_fp2_t& b) {
        const host_fp_t t0 = a.c0 * b.c0, t1 = a.c1 * b.c1;
        return {t0 - t1, (a.c0 + a.c1) * (b.c0 + b.c1) - t0 - t1};
    }
    // (c0 + c1 u)^2 = (c0 + c1)(c0 - c1) + 2 c0 c1 u.
    __host__ __device__ host_fp2_t sqr() const { return {(c0 + c1) * (c0 - c1), (c0 * c1).dbl()}; }
    __host__ __device__ static host_fp2_t mul_sub(const host_fp2_t& a, const host_fp2_t& b, const host_fp2_t& c,
                                                  const host_fp2_t& d) {
        return a * b - c * d;
    }
};

static_assert(sizeof(host_fp2_t) == 96 && alignof(host_fp2_t) == 16, "host_fp2_t must match fp2_t");

}  // namespace cuzk
