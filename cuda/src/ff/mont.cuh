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
// fields satisfy p < 2^(32N-1), which bounds the accumulators and leaves the result before
// the final conditional subtraction below 2p.
#pragma once

#include <cstdint>

#include "ff/ptx.cuh"

namespace cuzk {

// Fr's m0 = -r^-1 mod 2^32 is 0xffffffff (r = 1 mod 2^32). As an immediate, ptxas rewrites
// m = t * m0 as m = -t and then builds most m * p[j] from a low and a high multiply-add
// instead of one wide one (an Fr product: 308 instructions, 65 IMAD.WIDE); read from constant
// memory, which ptxas cannot see into, it keeps them wide (about 256, 112). Under relocatable device
// code (the library: cc's --device-c and a device link) the word is defined once, in
// ff/mont.cu: nvlink 13.0 folds the identical words of per-file static copies into one but
// keeps each copy's offset, so every file but one would read past the section
// (docs/architecture.md, "Device variables"). Whole-program builds (the tools) keep a copy.
#if defined(__CUDACC_RDC__)
extern __constant__ uint32_t m0_all_ones;
#else
static __constant__ uint32_t m0_all_ones = 0xffffffffu;
#endif

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

    // m0 = -p^-1 mod 2^32 for the reduction rounds; all ones is read from constant memory
    // (see m0_all_ones above), any other value is an immediate.
    __device__ __forceinline__ static uint32_t m0() {
        if constexpr (P::m0 == 0xffffffffu) {
            return m0_all_ones;
        } else {
            return P::m0;
        }
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

    // Limb i of M p, M = 1 or 2 (2p: the bound of the redundant form below; p < 2^(32N-2), so
    // 2p fits N limbs).
    template <int M>
    __host__ __device__ static constexpr uint32_t p_times(int i) {
        static_assert(M == 1 || M == 2, "p or 2p");
        return M == 1 ? P::p(i) : (P::p(i) << 1) | (i > 0 ? P::p(i - 1) >> 31 : 0u);
    }

    // Reduces t < 2 M p to [0, M p): subtracts M p unless that borrows.
    template <int M = 1>
    __device__ __forceinline__ static mont_t reduce_once(const uint32_t (&t)[N]) {
        uint32_t s[N];
        s[0] = ptx::sub_cc(t[0], p_times<M>(0));
#pragma unroll
        for (int i = 1; i < N; i++) s[i] = ptx::subc_cc(t[i], p_times<M>(i));
        uint32_t borrow = ptx::subc(0, 0);  // all ones when t < M p
        mont_t r;
#pragma unroll
        for (int i = 0; i < N; i++) r.l[i] = borrow ? t[i] : s[i];
        return r;
    }

    // a + b in [0, M p) for a, b below M p: a + b < 2 M p < 2^(32N) (no carry out of the top
    // limb), then one subtraction.
    template <int M>
    __device__ __forceinline__ static mont_t add_below(const mont_t& a, const mont_t& b) {
        uint32_t t[N];
        t[0] = ptx::add_cc(a.l[0], b.l[0]);
#pragma unroll
        for (int i = 1; i < N - 1; i++) t[i] = ptx::addc_cc(a.l[i], b.l[i]);
        t[N - 1] = ptx::addc(a.l[N - 1], b.l[N - 1]);
        return reduce_once<M>(t);
    }

    // a - b in [0, M p) for a, b below M p: M p goes back on where the difference borrows (the
    // final carry out cancels the borrow).
    template <int M>
    __device__ __forceinline__ static mont_t sub_below(const mont_t& a, const mont_t& b) {
        uint32_t t[N];
        t[0] = ptx::sub_cc(a.l[0], b.l[0]);
#pragma unroll
        for (int i = 1; i < N; i++) t[i] = ptx::subc_cc(a.l[i], b.l[i]);
        uint32_t borrow = ptx::subc(0, 0);
        mont_t r;
        r.l[0] = ptx::add_cc(t[0], p_times<M>(0) & borrow);
#pragma unroll
        for (int i = 1; i < N - 1; i++) r.l[i] = ptx::addc_cc(t[i], p_times<M>(i) & borrow);
        r.l[N - 1] = ptx::addc(t[N - 1], p_times<M>(N - 1) & borrow);
        return r;
    }

    friend __device__ __forceinline__ mont_t operator+(const mont_t& a, const mont_t& b) { return add_below<1>(a, b); }
    friend __device__ __forceinline__ mont_t operator-(const mont_t& a, const mont_t& b) { return sub_below<1>(a, b); }

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

    // acc += x[j] * y at limb pairs (j, j+1) for j = FIRST, FIRST + 2, ... below N and not below
    // `start`, as one carry chain from the first such limb whose carry goes into acc[N + FIRST]:
    // FIRST 0 adds the even-indexed limbs' products (reduce_sum's E, N+1 limbs), FIRST 1 the
    // odd-indexed ones' (its O, N+2 limbs). `start` (the square's rows skip the limbs below
    // theirs) is a constant once the callers' loops are unrolled, so skipped limbs cost nothing.
    template <int FIRST>
    __device__ __forceinline__ static void mac_pairs(uint32_t (&acc)[N + 2], const uint32_t (&x)[N], uint32_t y,
                                                     int start = 0) {
        static_assert(FIRST == 0 || FIRST == 1, "even or odd limbs");
        bool open = false;
#pragma unroll
        for (int j = FIRST; j < N; j += 2) {
            if (j < start) continue;
            acc[j] = open ? ptx::madc_lo_cc(x[j], y, acc[j]) : ptx::mad_lo_cc(x[j], y, acc[j]);
            acc[j + 1] = ptx::madc_hi_cc(x[j], y, acc[j + 1]);
            open = true;
        }
        if (open) acc[N + FIRST] = ptx::addc(acc[N + FIRST], 0);
    }

    // One Montgomery reduction step: t += m * p with m chosen so that t[0] becomes 0,
    // then t >>= 32.
    __device__ __forceinline__ static void reduce_step(uint32_t (&t)[N + 1]) {
        uint32_t m = t[0] * m0();
        uint32_t pl[N];
#pragma unroll
        for (int j = 0; j < N; j++) pl[j] = P::p(j);
        mac_row(t, pl, m);
#pragma unroll
        for (int j = 0; j < N; j++) t[j] = t[j + 1];
        t[N] = 0;
    }

    // The Montgomery reduction of a sum S of products, interleaved with it (CIOS): N rounds of
    // "T += row i of S; T += m * p; T >>= 32", where `add_row(i, e, o)` adds the terms of S
    // with limb weight 2^(32 i) (x * b[i] for a product x * b, whose limb j lands at T's limb
    // j) to the accumulators e and o with mac_pairs. Returns S * R^-1 mod p for S < p R
    // (then (S + M p) / R, the value before the last subtraction, is below 2p).
    //
    // The running sum T = E + O + cin is kept in two accumulators that are never folded into
    // each other between rounds: products of even-indexed limbs (x[j] b[i] and p[j] m for even
    // j) are added to E at limb pairs (j, j+1), those of odd-indexed limbs to O at (j, j+1), so
    // that every carry chain is a run of adjacent (lo, hi) halves, which ptxas issues as one
    // wide multiply-add with carry (IMAD.WIDE.U32.X) per product. The shift by one limb swaps
    // the roles (O >> 32 is the next round's E), which keeps every pair in its register pair.
    // The only cross term is limb 0: m is chosen so that E[0] + O[0] + cin = 0 mod 2^32 after
    // the round, and that sum's carry (0 or 1) is the next round's cin. On the H200's sm_90
    // this is about 470 instructions per Fp product (288 of them IMAD.WIDE: the product is
    // bound by the wide multiply-adds, so fewer of those is what makes an operation cheaper),
    // against about 670 when O was folded into E every round.
    // Bounds: a round that adds k N-limb-by-one-limb products (those of S's row, and m * p)
    // leaves E below (k + 1) 2^(32N) (N+1 limbs) and O below (k + 1) 2^(32(N+1)) (N+2 limbs,
    // the top one only taking the chains' carries): far from overflowing for the few terms
    // used here. At the end E + O + cin = (S + M p) / R < 2p < 2^(32N), so N limbs hold it.
    // reduce_sum_below_2p leaves that value in t without the last subtraction (the redundant
    // form, below).
    template <class AddRow>
    __device__ __forceinline__ static void reduce_sum_below_2p(AddRow add_row, uint32_t (&t)[N]) {
        static_assert(N % 2 == 0 && N >= 4, "even limb count");
        uint32_t e[N + 2], o[N + 2];
#pragma unroll
        for (int j = 0; j < N + 2; j++) e[j] = o[j] = 0;
        uint32_t cin = 0;
#pragma unroll
        for (int i = 0; i < N; i++) {
            add_row(i, e, o);
            const uint32_t m = (e[0] + o[0] + cin) * m0();
            uint32_t pl[N];
#pragma unroll
            for (int j = 0; j < N; j++) pl[j] = P::p(j);
            mac_pairs<0>(e, pl, m);
            mac_pairs<1>(o, pl, m);
            // Limb 0 now sums to 0 or 2^32: the carry is 1 unless all three are zero.
            cin = (e[0] | o[0] | cin) != 0;
            uint32_t shifted_e[N + 2], shifted_o[N + 2];
#pragma unroll
            for (int j = 0; j < N + 1; j++) {
                shifted_e[j] = o[j + 1];
                shifted_o[j] = e[j + 1];
            }
            shifted_e[N + 1] = shifted_o[N + 1] = 0;
#pragma unroll
            for (int j = 0; j < N + 2; j++) {
                e[j] = shifted_e[j];
                o[j] = shifted_o[j];
            }
        }
        t[0] = ptx::add_cc(e[0], o[0]);
#pragma unroll
        for (int j = 1; j < N; j++) t[j] = ptx::addc_cc(e[j], o[j]);
        t[0] = ptx::add_cc(t[0], cin);
#pragma unroll
        for (int j = 1; j < N; j++) t[j] = ptx::addc_cc(t[j], 0);
    }
    template <class AddRow>
    __device__ __forceinline__ static mont_t reduce_sum(AddRow add_row) {
        uint32_t t[N];
        reduce_sum_below_2p(add_row, t);
        return reduce_once(t);
    }

    // sum_k a[k] * b[k] * R^-1 mod p, one reduction for all K products: (K + 1) N^2 wide
    // multiply-adds where K separate products and their sum take 2 K N^2. Needs K p < R,
    // which bounds the sum by K p^2 < (R / p) p^2 (K <= 9 for Fp, K <= 2 for Fr).
    template <int K>
    __device__ __forceinline__ static mont_t sum_of_products(const mont_t (&a)[K], const mont_t (&b)[K]) {
        static_assert(K >= 1, "at least one product");
        static_assert(uint64_t(K) * (uint64_t(P::p(N - 1)) + 1) <= (uint64_t(1) << 32), "K p must stay below R");
        uint32_t t[N];
        products_below_2p(a, b, t);
        return reduce_once(t);
    }

    // sum_of_products' value before its last subtraction, below 2p for a sum below p R.
    template <int K>
    __device__ __forceinline__ static void products_below_2p(const mont_t (&a)[K], const mont_t (&b)[K],
                                                             uint32_t (&t)[N]) {
        reduce_sum_below_2p(
            [&](int i, uint32_t (&e)[N + 2], uint32_t (&o)[N + 2]) {
#pragma unroll
                for (int k = 0; k < K; k++) {
                    mac_pairs<0>(e, a[k].l, b[k].l[i]);
                    mac_pairs<1>(o, a[k].l, b[k].l[i]);
                }
            },
            t);
    }

    // a * b * R^-1 mod p.
    friend __device__ __forceinline__ mont_t operator*(const mont_t& a, const mont_t& b) {
        const mont_t as[1] = {a}, bs[1] = {b};
        return sum_of_products<1>(as, bs);
    }
    __device__ __forceinline__ mont_t& operator*=(const mont_t& b) { return *this = *this * b; }

    // a * b - c * d, as one sum of two products (c * d negated as (p - c) * d): 3 N^2 wide
    // multiply-adds instead of 4 N^2 and a subtraction. For the y coordinates of the curve
    // formulas.
    __device__ __forceinline__ static mont_t mul_sub(const mont_t& a, const mont_t& b, const mont_t& c,
                                                     const mont_t& d) {
        const mont_t as[2] = {a, c.neg()}, bs[2] = {b, d};
        return sum_of_products<2>(as, bs);
    }

    // this^2 * R^-1 mod p with each cross product once: in round i, a[i] times a[i] at limb i
    // and times the limbs j > i of 2a (2a < 2p < R fits N limbs), so (N^2 + N) / 2 wide
    // multiply-adds for the square instead of N^2 (222 instead of 288 with the reduction,
    // for Fp). Every term of a^2 still enters in the round of its lower limb index, before
    // that limb is reduced, and the sum is the same a^2 < p^2, so the bounds above hold.
    __device__ __forceinline__ mont_t sqr() const { return square<false>(); }

    // sqr(), or with BELOW_2P its value below 2p without the last subtraction (lazy_sqr).
    template <bool BELOW_2P>
    __device__ __forceinline__ mont_t square() const {
        uint32_t twice[N];
        twice[0] = l[0] << 1;
#pragma unroll
        for (int j = 1; j < N; j++) twice[j] = __funnelshift_l(l[j - 1], l[j], 1);
        const auto rows = [&](int i, uint32_t (&e)[N + 2], uint32_t (&o)[N + 2]) {
            // Limb i + 1 of 2a carries a[i]'s top bit, which belongs to a[i]^2's row, not to
            // the cross products: this row takes that limb without it.
            uint32_t row[N];
#pragma unroll
            for (int j = 0; j < N; j++) row[j] = j == i ? l[i] : j == i + 1 ? l[j] << 1 : twice[j];
            mac_pairs<0>(e, row, l[i], i);
            mac_pairs<1>(o, row, l[i], i);
        };
        if constexpr (BELOW_2P) {
            mont_t r;
            reduce_sum_below_2p(rows, r.l);
            return r;
        } else {
            return reduce_sum(rows);
        }
    }

    // ---- the redundant form ----------------------------------------------------------
    //
    // A loop whose values only feed further products may keep them in [0, 2p) instead of
    // [0, p): a product's value before its last conditional subtraction (reduce_sum's bound).
    // That drops the subtraction, a chain of N dependent borrows and N selects, from the path
    // between one product and the next, where a latency-bound loop waits (the MSM's bucket
    // sums: most of their stall samples wait on fixed-latency dependencies, ncu 2026-12-05).
    // Products of redundant operands stay below 2p while 4 K p < R for a sum of K products
    // (S < K (2p)^2 <= p R; lazy_mul_sub negates with 2p - c): Fp qualifies (p < 2^381,
    // R = 2^384) for K <= 2, Fr (4r > 2^256) does not. The additions keep [0, 2p) by
    // subtracting or adding 2p where plain ones use p. A value leaves the form through
    // lazy_canonical(), and a zero test must accept p as well as 0 (lazy_is_zero).

    // Whether sums of K products of redundant operands stay below 2p: 4 K p < R, checked on
    // the top limb (P::p(N - 1) + 1 bounds p / 2^(32(N-1))).
    static constexpr bool redundant_fits(int K) {
        return 4 * uint64_t(K) * (uint64_t(P::p(N - 1)) + 1) <= (uint64_t(1) << 32);
    }

    template <int K>
    __device__ __forceinline__ static mont_t lazy_sum_of_products(const mont_t (&a)[K], const mont_t (&b)[K]) {
        static_assert(K >= 1, "at least one product");
        static_assert(redundant_fits(K), "redundant operands need 4 K p < R");
        mont_t r;
        products_below_2p(a, b, r.l);
        return r;
    }

    // a * b * R^-1 mod p in [0, 2p), for a, b < 2p.
    __device__ __forceinline__ static mont_t lazy_mul(const mont_t& a, const mont_t& b) {
        const mont_t as[1] = {a}, bs[1] = {b};
        return lazy_sum_of_products<1>(as, bs);
    }
    // this^2 * R^-1 mod p in [0, 2p), for this < 2p (2 this < 4p < R still fits N limbs).
    __device__ __forceinline__ mont_t lazy_sqr() const {
        static_assert(redundant_fits(1), "redundant operands need 4p < R");
        return square<true>();
    }
    // a * b - c * d in [0, 2p), for operands below 2p: c * d negated as (2p - c) * d.
    __device__ __forceinline__ static mont_t lazy_mul_sub(const mont_t& a, const mont_t& b, const mont_t& c,
                                                          const mont_t& d) {
        mont_t nc;  // 2p - c, in (0, 2p]: no borrow for c < 2p
        nc.l[0] = ptx::sub_cc(p_times<2>(0), c.l[0]);
#pragma unroll
        for (int i = 1; i < N - 1; i++) nc.l[i] = ptx::subc_cc(p_times<2>(i), c.l[i]);
        nc.l[N - 1] = ptx::subc(p_times<2>(N - 1), c.l[N - 1]);
        const mont_t as[2] = {a, nc}, bs[2] = {b, d};
        return lazy_sum_of_products<2>(as, bs);
    }
    // a + b and a - b in [0, 2p), for a, b < 2p.
    __device__ __forceinline__ static mont_t lazy_add(const mont_t& a, const mont_t& b) {
        static_assert(redundant_fits(1), "redundant operands need 4p < R");
        return add_below<2>(a, b);
    }
    __device__ __forceinline__ static mont_t lazy_sub(const mont_t& a, const mont_t& b) {
        static_assert(redundant_fits(1), "redundant operands need 4p < R");
        return sub_below<2>(a, b);
    }
    __device__ __forceinline__ mont_t lazy_dbl() const { return lazy_add(*this, *this); }
    // Whether a value below 2p is 0 mod p (0 or p).
    __device__ __forceinline__ bool lazy_is_zero() const {
        uint32_t zero = 0, p = 0;
#pragma unroll
        for (int i = 0; i < N; i++) {
            zero |= l[i];
            p |= l[i] ^ P::p(i);
        }
        return (zero == 0) | (p == 0);
    }
    // A value below 2p in the canonical form, [0, p).
    __device__ __forceinline__ mont_t lazy_canonical() const { return reduce_once(l); }

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
