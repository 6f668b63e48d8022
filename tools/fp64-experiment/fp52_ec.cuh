// G1 mixed additions in XYZZ coordinates (madd-2008-s, mdbl-2008-s-1, as the library's
// ec/xyzz.cuh) over fp52's Fp: the experiment's question at the size of a bucket-sum step,
// with the additions and subtractions a product does not do, and the registers an
// accumulator of 52-bit limbs takes.
//
// Elements between operations are in integer form (fi_t: uint64 limbs below 2^52, the top one
// keeping what is left); a product turns its operands into doubles (one bit-pattern trick and
// one subtraction a limb) and returns integer form. Values are not kept below p: a sum or a
// difference grows by a few p, a product brings its result below 2p whatever its operands
// (up to about 2^35 p^2, see fp52.cuh), and reduce() brings the coordinates an addition keeps
// back below 2p so that nothing grows from one addition to the next. The bounds are in the
// comments beside each step; a subtraction needs its subtrahend below SUB_K p.
#pragma once

#include "fp52.cuh"

namespace fp52 {

template <class P>
struct fi_t {
    static constexpr int N = P::N;
    uint64_t l[N];
};

// Limb i of k p (k p below 2^416 and k below 2^11, so that each k * limb fits 64 bits).
template <class P>
FP52_HD constexpr uint64_t kp_limb(uint64_t k, int i) {
    uint64_t carry = 0, limb = 0;
    for (int j = 0; j <= i; j++) {
        const uint64_t t = k * P::p_limb(j) + carry;
        limb = j == P::N - 1 ? t : t & MASK;
        carry = t >> 52;
    }
    return limb;
}

// Signed limbs whose value is not negative, to integer form.
template <class P>
FP52_HD fi_t<P> carry_out(const int64_t (&t)[P::N]) {
    fi_t<P> r;
    int64_t c = 0;
    FP52_UNROLL
    for (int k = 0; k < P::N; k++) {
        const int64_t v = t[k] + c;
        r.l[k] = k == P::N - 1 ? uint64_t(v) : uint64_t(v) & MASK;
        c = v >> 52;
    }
    return r;
}

template <class P>
FP52_HD fi_t<P> add(const fi_t<P>& a, const fi_t<P>& b) {
    int64_t t[P::N];
    FP52_UNROLL
    for (int k = 0; k < P::N; k++) t[k] = int64_t(a.l[k] + b.l[k]);
    return carry_out<P>(t);
}

// a - b + SUB_K p, for b below SUB_K p.
constexpr uint64_t SUB_K = 4;
template <class P>
FP52_HD fi_t<P> sub(const fi_t<P>& a, const fi_t<P>& b) {
    int64_t t[P::N];
    FP52_UNROLL
    for (int k = 0; k < P::N; k++) t[k] = int64_t(a.l[k]) - int64_t(b.l[k]) + int64_t(kp_limb<P>(SUB_K, k));
    return carry_out<P>(t);
}

// The same value mod p, below 2p, for a below 2^10 p: a - q p with q = a's top limb over
// p's top limb plus one. q p <= a, and a - q p < (p_top + 1 + q) 2^(52 (N-1)) < 2p.
template <class P>
FP52_HD fi_t<P> reduce(const fi_t<P>& a) {
    constexpr uint64_t top = P::p_limb(P::N - 1) + 1;
    const uint64_t q = a.l[P::N - 1] / top;
    int64_t t[P::N];
    FP52_UNROLL
    for (int k = 0; k < P::N; k++) t[k] = int64_t(a.l[k]) - int64_t(q * P::p_limb(k));
    return carry_out<P>(t);
}

// a = 0 mod p, for a below 2^10 p.
template <class P>
FP52_HD bool is_zero(const fi_t<P>& a) {
    const fi_t<P> r = reduce(a);
    bool zero = true, is_p = true;
    FP52_UNROLL
    for (int k = 0; k < P::N; k++) {
        zero &= r.l[k] == 0;
        is_p &= r.l[k] == P::p_limb(k);
    }
    return zero | is_p;
}

template <class P>
FP52_HD fi_t<P> mul(const fi_t<P>& a, const fi_t<P>& b) {
    double x[P::N], y[P::N];
    FP52_UNROLL
    for (int k = 0; k < P::N; k++) {
        x[k] = limb_to_double(a.l[k]);
        y[k] = limb_to_double(b.l[k]);
    }
    fi_t<P> r;
    mul_limbs<P>(x, y, r.l);
    return r;
}
template <class P>
FP52_HD fi_t<P> sqr(const fi_t<P>& a) {
    return mul(a, a);
}

using g1_fi_t = fi_t<fp_params_t>;

// An affine G1 point (x, y) in Montgomery form below p; (0, 0) is infinity, as in blst.
struct affine52_t {
    g1_fi_t x, y;
    FP52_HD bool is_inf() const {
        bool z = true;
        FP52_UNROLL
        for (int k = 0; k < fp_params_t::N; k++) z &= (x.l[k] | y.l[k]) == 0;
        return z;
    }
};

// x = X/ZZ, y = Y/ZZZ; infinity iff ZZ = 0 (mod p). Coordinates below 2p.
struct xyzz52_t {
    g1_fi_t x, y, zz, zzz;

    FP52_HD static xyzz52_t inf() { return {}; }
    FP52_HD bool is_inf() const { return is_zero(zz); }
    FP52_HD static xyzz52_t from_affine(const affine52_t& p) {
        if (p.is_inf()) return inf();
        g1_fi_t one;
        FP52_UNROLL
        for (int k = 0; k < fp_params_t::N; k++) one.l[k] = fp_params_t::one_limb(k);
        return {p.x, p.y, one, one};
    }

    // 2p for an affine p (mdbl-2008-s-1).
    FP52_HD static xyzz52_t dbl_affine(const affine52_t& p) {
        if (p.is_inf()) return inf();
        const g1_fi_t u = add(p.y, p.y);            // < 2p
        const g1_fi_t v = sqr(u);                   // < 2p
        const g1_fi_t w = mul(u, v);                // < 2p
        const g1_fi_t s = mul(p.x, v);              // < 2p
        const g1_fi_t m2 = sqr(p.x);                // < 2p
        const g1_fi_t m = add(add(m2, m2), m2);     // < 6p
        const g1_fi_t x3 = reduce(sub(sqr(m), add(s, s)));             // < 6p, then < 2p
        const g1_fi_t y3 = reduce(sub(mul(m, sub(s, x3)), mul(w, p.y)));  // < 6p, then < 2p
        return {x3, y3, v, w};
    }

    // this + p for an affine p (madd-2008-s), every case handled.
    FP52_HD xyzz52_t add_affine(const affine52_t& p) const {
        if (p.is_inf()) return *this;
        if (is_inf()) return from_affine(p);
        const g1_fi_t u2 = mul(p.x, zz);   // < 2p
        const g1_fi_t s2 = mul(p.y, zzz);  // < 2p
        const g1_fi_t h = sub(u2, x);      // < 6p
        const g1_fi_t r = sub(s2, y);      // < 6p
        if (is_zero(h)) {
            if (is_zero(r)) return dbl_affine(p);
            return inf();
        }
        const g1_fi_t hh = sqr(h);          // < 2p
        const g1_fi_t hhh = mul(h, hh);     // < 2p
        const g1_fi_t q = mul(x, hh);       // < 2p
        const g1_fi_t x3 = reduce(sub(sub(sqr(r), hhh), add(q, q)));      // < 10p, then < 2p
        const g1_fi_t y3 = reduce(sub(mul(r, sub(q, x3)), mul(y, hhh)));  // < 6p, then < 2p
        return {x3, y3, mul(zz, hh), mul(zzz, hhh)};
    }
};

}  // namespace fp52
