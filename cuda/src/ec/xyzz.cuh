// Points of an elliptic curve y^2 = x^3 + b with a = 0 (G1 over Fp, G2 over Fp2 for
// BLS12-381), generic over the coordinate field F, and the group law. The formulas never use
// b, so one template serves both groups (see g1.cuh and g2.cuh for the instances). The methods
// are __host__ __device__ because the MSM's last step runs them on a CPU core over the host
// field (ff/host_mont.cuh); everything else runs them on the GPU over mont_t.
//
// Three representations:
//   ec_affine_t    (x, y)            blst's affine layout; infinity is (0, 0), which is not
//                                    on either curve, as in blst.
//   ec_jacobian_t  (X, Y, Z)         blst's projective layout: x = X/Z^2, y = Y/Z^3, infinity
//                                    iff Z = 0. Results leave the GPU in this form, so Rust
//                                    reads them as blstrs' projective points with no conversion.
//   ec_xyzz_t      (X, Y, ZZ, ZZZ)   the accumulator: x = X/ZZ, y = Y/ZZZ, ZZ^3 = ZZZ^2,
//                                    infinity iff ZZ = 0. Mixed addition costs 8M+2S and
//                                    handles doubling, inverses and the identity by branching.
// The formulas are the "xyzz" ones of the Explicit-Formulas Database (add-2008-s,
// madd-2008-s, dbl-2008-s-1, mdbl-2008-s-1) for a = 0; their P, PP, PPP are h, hh, hhh
// here. F provides zero(), one(), is_zero(), +, -, *, sqr(), dbl(), neg(), inverse() and
// mul_sub(a, b, c, d) = a*b - c*d (one reduction for both products: the y coordinates).
#pragma once

namespace cuzk {

template <class F>
struct ec_affine_t {
    F x, y;

    // The same point over another representation of the field (T constructible from F).
    template <class T>
    __device__ __forceinline__ ec_affine_t<T> as() const {
        return {T(x), T(y)};
    }

    __host__ __device__ __forceinline__ bool is_inf() const { return x.is_zero() & y.is_zero(); }
    __host__ __device__ __forceinline__ static ec_affine_t inf() { return {F::zero(), F::zero()}; }
};

template <class F>
struct ec_jacobian_t {
    F x, y, z;

    __host__ __device__ __forceinline__ bool is_inf() const { return z.is_zero(); }
};

template <class F>
struct ec_xyzz_t {
    using affine_t = ec_affine_t<F>;
    using jacobian_t = ec_jacobian_t<F>;

    F x, y, zz, zzz;

    // The same point over another representation of the field (T constructible from F): the
    // bucket sums' way into Fp's redundant form and back (ff/redundant.cuh).
    template <class T>
    __device__ __forceinline__ ec_xyzz_t<T> as() const {
        return {T(x), T(y), T(zz), T(zzz)};
    }

    __host__ __device__ __forceinline__ bool is_inf() const { return zz.is_zero(); }
    __host__ __device__ __forceinline__ static ec_xyzz_t inf() {
        return {F::zero(), F::zero(), F::zero(), F::zero()};
    }

    // An affine point as an accumulator (ZZ = ZZZ = 1); infinity maps to infinity.
    __host__ __device__ __forceinline__ static ec_xyzz_t from_affine(const affine_t& p) {
        if (p.is_inf()) return inf();
        return {p.x, p.y, F::one(), F::one()};
    }
    // Jacobian (X, Y, Z) is the same point as (X, Y, Z^2, Z^3); Z = 0 stays infinity.
    __host__ __device__ __forceinline__ static ec_xyzz_t from_jacobian(const jacobian_t& p) {
        F zz = p.z.sqr();
        return {p.x, p.y, zz, zz * p.z};
    }

    // To blst's Jacobian form without an inversion: with Z = ZZ * ZZZ,
    // X/Z^2 = X*ZZ*ZZZ^2 / (ZZ^2 ZZZ^2) and, as ZZ^3 = ZZZ^2, Y/Z^3 = Y*ZZZ^4 / (ZZ^3 ZZZ^3).
    // Infinity (ZZ = 0) gives all zeros, blst's identity.
    __host__ __device__ __forceinline__ jacobian_t to_jacobian() const {
        if (is_inf()) return {F::zero(), F::zero(), F::zero()};
        F zzz2 = zzz.sqr();
        return {x * zz * zzz2, y * zzz2.sqr(), zz * zzz};
    }

    // To blst's affine form, x = X/ZZ and y = Y/ZZZ with one inversion of ZZ*ZZZ (1/ZZ is
    // ZZZ/(ZZ*ZZZ), 1/ZZZ is ZZ/(ZZ*ZZZ)); infinity gives (0, 0). The inversion is an
    // exponentiation (hundreds of multiplications): for results, not for inner loops.
    __host__ __device__ __forceinline__ affine_t to_affine() const {
        if (is_inf()) return affine_t::inf();
        const F inv = (zz * zzz).inverse();
        return {x * (inv * zzz), y * (inv * zz)};
    }

    // 2 * this (dbl-2008-s-1). Doubling infinity, or a point with y = 0 (none exists in
    // G1 or G2, but the formula covers it), gives ZZ = 0, i.e. infinity.
    __host__ __device__ __forceinline__ ec_xyzz_t dbl() const {
        F u = y.dbl();  // U = 2Y
        F v = u.sqr();  // V = U^2
        F w = u * v;  // W = U*V
        F s = x * v;  // S = X*V
        F m = x.sqr();
        m = m.dbl() + m;  // M = 3X^2
        F x3 = m.sqr() - s.dbl();
        F y3 = F::mul_sub(m, s - x3, w, y);
        return {x3, y3, v * zz, w * zzz};
    }

    // 2 * p for an affine p (mdbl-2008-s-1).
    __host__ __device__ __noinline__ static ec_xyzz_t dbl_affine(const affine_t& p) {
        if (p.is_inf()) return inf();
        F u = p.y.dbl();
        F v = u.sqr();
        F w = u * v;
        F s = p.x * v;
        F m = p.x.sqr();
        m = m.dbl() + m;
        F x3 = m.sqr() - s.dbl();
        F y3 = F::mul_sub(m, s - x3, w, p.y);
        return {x3, y3, v, w};
    }

    // this + p for an affine p (madd-2008-s), every case handled.
    __host__ __device__ __forceinline__ ec_xyzz_t add_affine(const affine_t& p) const {
        if (p.is_inf()) return *this;
        if (is_inf()) return from_affine(p);
        F u2 = p.x * zz;  // U2 = X2*ZZ1
        F s2 = p.y * zzz;  // S2 = Y2*ZZZ1
        F h = u2 - x;  // P = U2 - X1
        F r = s2 - y;  // R = S2 - Y1
        if (h.is_zero()) {
            if (r.is_zero()) return dbl_affine(p);  // same point
            return inf();  // p = -this
        }
        F hh = h.sqr();  // PP
        F hhh = h * hh;  // PPP
        F q = x * hh;  // Q = X1*PP
        F x3 = r.sqr() - hhh - q.dbl();
        F y3 = F::mul_sub(r, q - x3, y, hhh);
        return {x3, y3, zz * hh, zzz * hhh};
    }

    // this + o (add-2008-s), every case handled.
    // ZZ1*ZZ2 and ZZZ1*ZZZ2 are formed before the branch, so that no coordinate of either
    // operand is needed after it: the operands' registers free up early, which is what keeps
    // the G2 reduction kernels (Fp2: 8 x 12 words an operand) from spilling. The same-point
    // branch then doubles (U1, S1, ZZ1*ZZ2, ZZZ1*ZZZ2): this point, its coordinates scaled by
    // ZZ2 and ZZZ2 (x = U1/(ZZ1 ZZ2) = X1/ZZ1, y = S1/(ZZZ1 ZZZ2) = Y1/ZZZ1), so the result is
    // 2 * this as before, in other coordinates. The products and their association are those
    // of add-2008-s.
    __host__ __device__ __forceinline__ ec_xyzz_t add(const ec_xyzz_t& o) const {
        if (o.is_inf()) return *this;
        if (is_inf()) return o;
        F u1 = x * o.zz;  // U1 = X1*ZZ2
        F u2 = o.x * zz;  // U2 = X2*ZZ1
        F s1 = y * o.zzz;  // S1 = Y1*ZZZ2
        F s2 = o.y * zzz;  // S2 = Y2*ZZZ1
        F zz12 = zz * o.zz;
        F zzz12 = zzz * o.zzz;
        F h = u2 - u1;  // P
        F r = s2 - s1;  // R
        if (h.is_zero()) {
            if (r.is_zero()) return ec_xyzz_t{u1, s1, zz12, zzz12}.dbl();
            return inf();
        }
        F hh = h.sqr();  // PP
        F hhh = h * hh;  // PPP
        F q = u1 * hh;  // Q = U1*PP
        F x3 = r.sqr() - hhh - q.dbl();
        F y3 = F::mul_sub(r, q - x3, s1, hhh);
        return {x3, y3, zz12 * hh, zzz12 * hhh};
    }

    __host__ __device__ __forceinline__ ec_xyzz_t neg() const { return {x, y.neg(), zz, zzz}; }
};

}  // namespace cuzk
