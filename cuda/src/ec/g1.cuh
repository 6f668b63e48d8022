// G1 of BLS12-381 (y^2 = x^3 + 4 over Fp): point types and group law on the GPU.
//
// Three representations:
//   affine_t    (x, y)            blst_p1_affine's layout; infinity is (0, 0), which is not
//                                 on the curve (note (0, +-2) are real points), as in blst.
//   jacobian_t  (X, Y, Z)         blst_p1's layout: x = X/Z^2, y = Y/Z^3, infinity iff Z = 0.
//                                 Results leave the GPU in this form, so Rust reads them as
//                                 blstrs::G1Projective with no conversion.
//   xyzz_t      (X, Y, ZZ, ZZZ)   the accumulator: x = X/ZZ, y = Y/ZZZ, ZZ^3 = ZZZ^2,
//                                 infinity iff ZZ = 0. Mixed addition costs 8M+2S and handles
//                                 doubling, inverses and the identity by branching.
// The formulas are the "xyzz" ones of the Explicit-Formulas Database (add-2008-s,
// madd-2008-s, dbl-2008-s-1, mdbl-2008-s-1) for a = 0; their P, PP, PPP are h, hh, hhh
// here. All coordinates are Fp elements in Montgomery form.
#pragma once

#include "ff/bls12_381.cuh"

namespace cuzk {

struct affine_t {
    fp_t x, y;

    __device__ __forceinline__ bool is_inf() const { return x.is_zero() & y.is_zero(); }
    __device__ __forceinline__ static affine_t inf() { return {fp_t::zero(), fp_t::zero()}; }
};

struct jacobian_t {
    fp_t x, y, z;

    __device__ __forceinline__ bool is_inf() const { return z.is_zero(); }
};

static_assert(sizeof(affine_t) == 96, "affine_t must match blst_p1_affine");
static_assert(sizeof(jacobian_t) == 144, "jacobian_t must match blst_p1");

struct xyzz_t {
    fp_t x, y, zz, zzz;

    __device__ __forceinline__ bool is_inf() const { return zz.is_zero(); }
    __device__ __forceinline__ static xyzz_t inf() {
        return {fp_t::zero(), fp_t::zero(), fp_t::zero(), fp_t::zero()};
    }

    // An affine point as an accumulator (ZZ = ZZZ = 1); infinity maps to infinity.
    __device__ __forceinline__ static xyzz_t from_affine(const affine_t& p) {
        if (p.is_inf()) return inf();
        return {p.x, p.y, fp_t::one(), fp_t::one()};
    }
    // Jacobian (X, Y, Z) is the same point as (X, Y, Z^2, Z^3); Z = 0 stays infinity.
    __device__ __forceinline__ static xyzz_t from_jacobian(const jacobian_t& p) {
        fp_t zz = p.z.sqr();
        return {p.x, p.y, zz, zz * p.z};
    }

    // To blst's Jacobian form without an inversion: with Z = ZZ * ZZZ,
    // X/Z^2 = X*ZZ*ZZZ^2 / (ZZ^2 ZZZ^2) and, as ZZ^3 = ZZZ^2, Y/Z^3 = Y*ZZZ^4 / (ZZ^3 ZZZ^3).
    // Infinity (ZZ = 0) gives all zeros, blst's identity.
    __device__ __forceinline__ jacobian_t to_jacobian() const {
        if (is_inf()) return {fp_t::zero(), fp_t::zero(), fp_t::zero()};
        fp_t zzz2 = zzz.sqr();
        return {x * zz * zzz2, y * zzz2.sqr(), zz * zzz};
    }

    // 2 * this (dbl-2008-s-1). Doubling infinity, or a point with y = 0 (none exists on G1,
    // but the formula covers it), gives ZZ = 0, i.e. infinity.
    __device__ __forceinline__ xyzz_t dbl() const {
        fp_t u = y.dbl();        // U = 2Y
        fp_t v = u.sqr();        // V = U^2
        fp_t w = u * v;          // W = U*V
        fp_t s = x * v;          // S = X*V
        fp_t m = x.sqr();
        m = m.dbl() + m;         // M = 3X^2
        fp_t x3 = m.sqr() - s.dbl();
        fp_t y3 = m * (s - x3) - w * y;
        return {x3, y3, v * zz, w * zzz};
    }

    // 2 * p for an affine p (mdbl-2008-s-1).
    __device__ __forceinline__ static xyzz_t dbl_affine(const affine_t& p) {
        if (p.is_inf()) return inf();
        fp_t u = p.y.dbl();
        fp_t v = u.sqr();
        fp_t w = u * v;
        fp_t s = p.x * v;
        fp_t m = p.x.sqr();
        m = m.dbl() + m;
        fp_t x3 = m.sqr() - s.dbl();
        fp_t y3 = m * (s - x3) - w * p.y;
        return {x3, y3, v, w};
    }

    // this + p for an affine p (madd-2008-s), every case handled.
    __device__ __forceinline__ xyzz_t add_affine(const affine_t& p) const {
        if (p.is_inf()) return *this;
        if (is_inf()) return from_affine(p);
        fp_t u2 = p.x * zz;      // U2 = X2*ZZ1
        fp_t s2 = p.y * zzz;     // S2 = Y2*ZZZ1
        fp_t h = u2 - x;         // P = U2 - X1
        fp_t r = s2 - y;         // R = S2 - Y1
        if (h.is_zero()) {
            if (r.is_zero()) return dbl_affine(p);  // same point
            return inf();                           // p = -this
        }
        fp_t hh = h.sqr();       // PP
        fp_t hhh = h * hh;       // PPP
        fp_t q = x * hh;         // Q = X1*PP
        fp_t x3 = r.sqr() - hhh - q.dbl();
        fp_t y3 = r * (q - x3) - y * hhh;
        return {x3, y3, zz * hh, zzz * hhh};
    }

    // this + o (add-2008-s), every case handled.
    __device__ __forceinline__ xyzz_t add(const xyzz_t& o) const {
        if (o.is_inf()) return *this;
        if (is_inf()) return o;
        fp_t u1 = x * o.zz;      // U1 = X1*ZZ2
        fp_t u2 = o.x * zz;      // U2 = X2*ZZ1
        fp_t s1 = y * o.zzz;     // S1 = Y1*ZZZ2
        fp_t s2 = o.y * zzz;     // S2 = Y2*ZZZ1
        fp_t h = u2 - u1;        // P
        fp_t r = s2 - s1;        // R
        if (h.is_zero()) {
            if (r.is_zero()) return dbl();
            return inf();
        }
        fp_t hh = h.sqr();       // PP
        fp_t hhh = h * hh;       // PPP
        fp_t q = u1 * hh;        // Q = U1*PP
        fp_t x3 = r.sqr() - hhh - q.dbl();
        fp_t y3 = r * (q - x3) - s1 * hhh;
        return {x3, y3, zz * o.zz * hh, zzz * o.zzz * hhh};
    }

    __device__ __forceinline__ xyzz_t neg() const { return {x, y.neg(), zz, zzz}; }
};

}  // namespace cuzk
