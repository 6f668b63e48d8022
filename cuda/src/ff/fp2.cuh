// Fp2 = Fp[u] / (u^2 + 1), the field G2's coordinates live in.
//
// An element c0 + c1*u is two fp_t in Montgomery form, c0 first: byte for byte blst_fp2
// (`blst_fp fp[2]`), so arrays of blst_p2_affine / blstrs::G2Affine cross from Rust unchanged.
// The operations are those the curve formulas use (add, sub, dbl, neg, mul, sqr, equality,
// and the inversion of a conversion to affine):
// multiplication as two sums of Fp products sharing one reduction each, squaring by
// (c0 + c1)(c0 - c1) and 2 c0 c1 (2 multiplications), both using u^2 = -1.
#pragma once

#include "ff/bls12_381.cuh"

namespace cuzk {

struct alignas(16) fp2_t {
    fp_t c0, c1;

    __device__ __forceinline__ static fp2_t zero() { return {fp_t::zero(), fp_t::zero()}; }
    __device__ __forceinline__ static fp2_t one() { return {fp_t::one(), fp_t::zero()}; }

    __device__ __forceinline__ bool is_zero() const { return c0.is_zero() & c1.is_zero(); }
    friend __device__ __forceinline__ bool operator==(const fp2_t& a, const fp2_t& b) {
        return (a.c0 == b.c0) & (a.c1 == b.c1);
    }
    friend __device__ __forceinline__ bool operator!=(const fp2_t& a, const fp2_t& b) { return !(a == b); }

    friend __device__ __forceinline__ fp2_t operator+(const fp2_t& a, const fp2_t& b) {
        return {a.c0 + b.c0, a.c1 + b.c1};
    }
    friend __device__ __forceinline__ fp2_t operator-(const fp2_t& a, const fp2_t& b) {
        return {a.c0 - b.c0, a.c1 - b.c1};
    }
    __device__ __forceinline__ fp2_t dbl() const { return {c0.dbl(), c1.dbl()}; }
    __device__ __forceinline__ fp2_t neg() const { return {c0.neg(), c1.neg()}; }
    friend __device__ __forceinline__ fp2_t operator-(const fp2_t& a) { return a.neg(); }
    __device__ __forceinline__ fp2_t& operator+=(const fp2_t& b) { return *this = *this + b; }
    __device__ __forceinline__ fp2_t& operator-=(const fp2_t& b) { return *this = *this - b; }

    // (a0 + a1 u)(b0 + b1 u) = (a0 b0 - a1 b1) + (a0 b1 + a1 b0) u, each half one sum of two
    // Fp products with one reduction (fp_t::sum_of_products): 2 x 3 N^2 wide multiply-adds,
    // as many as Karatsuba's three products, without its five additions and third reduction.
    friend __device__ __forceinline__ fp2_t operator*(const fp2_t& a, const fp2_t& b) {
        const fp_t re_a[2] = {a.c0, a.c1.neg()}, re_b[2] = {b.c0, b.c1};
        const fp_t im_a[2] = {a.c0, a.c1}, im_b[2] = {b.c1, b.c0};
        return {fp_t::sum_of_products<2>(re_a, re_b), fp_t::sum_of_products<2>(im_a, im_b)};
    }
    // a * b - c * d with one reduction per half (four products each): 2 x 5 N^2 wide
    // multiply-adds against 2 x 6 N^2 for two products and a subtraction.
    __device__ __forceinline__ static fp2_t mul_sub(const fp2_t& a, const fp2_t& b, const fp2_t& c, const fp2_t& d) {
        const fp_t nc0 = c.c0.neg();
        const fp_t re_a[4] = {a.c0, a.c1.neg(), nc0, c.c1}, re_b[4] = {b.c0, b.c1, d.c0, d.c1};
        const fp_t im_a[4] = {a.c0, a.c1, nc0, c.c1.neg()}, im_b[4] = {b.c1, b.c0, d.c1, d.c0};
        return {fp_t::sum_of_products<4>(re_a, re_b), fp_t::sum_of_products<4>(im_a, im_b)};
    }
    __device__ __forceinline__ fp2_t& operator*=(const fp2_t& b) { return *this = *this * b; }

    // 1 / (c0 + c1 u) = (c0 - c1 u) / (c0^2 + c1^2); zero maps to zero. One Fp inversion.
    __device__ __forceinline__ fp2_t inverse() const {
        const fp_t t = (c0.sqr() + c1.sqr()).inverse();
        return {c0 * t, (c1 * t).neg()};
    }

    // (c0 + c1 u)^2 = (c0 + c1)(c0 - c1) + 2 c0 c1 u.
    __device__ __forceinline__ fp2_t sqr() const {
        const fp_t t = c0 * c1;
        return {(c0 + c1) * (c0 - c1), t.dbl()};
    }
};

static_assert(sizeof(fp2_t) == 96, "fp2_t must match blst_fp2");

}  // namespace cuzk
