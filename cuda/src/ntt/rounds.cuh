// The three phases of an NTT pass, as one thread runs them: load (global memory to shared,
// with the scale factors, a*b - c and, in the reverse family, the pass twiddle), the rounds
// (registers), store (shared to global, with the forward family's pass twiddle and the
// scale factors). Templates over the field F, so that the emulator test in cuda/tests/ runs
// them on the host over a small prime field; the kernels in kernels.cuh instantiate them
// with fr_t and separate the phases with __syncthreads.
//
// F needs +, -, *, a default constructor, a static N (32-bit limbs) and limbs l[N].
// const_load<F>::get reads tables and constants (the kernels read them through the
// non-coherent cache).
//
// One pass of the forward ("DIF") family, writing an index as (a, q, c), with q the pass's k
// bits and c the m bits below them, is
//
//     Y[k1] = sum_q x[a, q, c] w_(2^k)^(q k1)            (k stages, in rounds)
//     x[a, bitrev_k(k1), c] = Y[k1] * w_(2^(k+m))^(c k1)   (twiddle on the way out; 1 if m = 0)
//
// Run from the top bits down (m = L - k first, m = 0 last), the passes compute the DFT with
// root w, natural order in, bit-reversed order out. The "DIT" family is the exact reverse:
// passes from the low bits up, each loading bit-reversed data, applying the twiddle on the
// way in and producing natural order. Both take their root from the tables, so the same code
// runs with w or w^-1.
//
// Twiddles: every power of w_max (a primitive 2^28-th root) is hi[e >> 14] * lo[e & 0x3fff],
// and every power of w_(2^18) is an entry of mid; the roots of the in-block stages,
// w_(2^(h+1)), are all entries of hi.
#pragma once

#include <cstdint>

#include "ntt/layout.cuh"

// The phases run on the device only (the field arithmetic is device code), or on the host
// when this header is compiled without nvcc, as the emulator test does.
#if defined(__CUDACC__)
#define CUZK_NTT_DEV __device__ __forceinline__
#else
#define CUZK_NTT_DEV inline
#endif

namespace cuzk::ntt {

template <class F>
struct const_load {
    CUZK_NTT_DEV static F get(const F* p) { return *p; }
};

// The power tables of one root (w_max or its inverse).
template <class F>
struct twiddles_t {
    const F* hi;
    const F* lo;
    const F* mid;
};

// How a pass scales elements on load or store.
enum scale_mode_t : int {
    SCALE_NONE = 0,
    SCALE_CONST = 1,   // v *= *c
    SCALE_POWERS = 2,  // v *= hi[i >> 14] * lo[i & 0x3fff], i the global index or its bit reversal
};

template <class F>
struct scale_t {
    int mode = SCALE_NONE;
    bool bitrev = false;
    const F* c = nullptr;
    const F* hi = nullptr;
    const F* lo = nullptr;
};

// w_max^e for e < 2^28.
template <class F>
CUZK_NTT_DEV F table_power(const F* hi, const F* lo, uint32_t e) {
    return const_load<F>::get(hi + (e >> TABLE_BITS)) * const_load<F>::get(lo + (e & TABLE_MASK));
}

template <class F>
CUZK_NTT_DEV F apply_scale(const scale_t<F>& s, F v, uint32_t gi, uint32_t L) {
    if (s.mode == SCALE_CONST) {
        v = v * const_load<F>::get(s.c);
    } else if (s.mode == SCALE_POWERS) {
        uint32_t i = s.bitrev ? bitrev(gi, L) : gi;
        v = v * table_power(s.hi, s.lo, i);
    }
    return v;
}

// The pass twiddle of the element at (q, c): w_(2^(k+m))^(c * bitrev_k(q)). One lookup when
// k + m fits the middle table, else two and a product.
template <class F>
CUZK_NTT_DEV F pass_twiddle(const pass_t& p, const twiddles_t<F>& tw, uint32_t q, uint32_t c) {
    const uint32_t e = c * bitrev(q, p.k);
    if (p.k + p.m <= MID_BITS) return const_load<F>::get(tw.mid + (e << (MID_BITS - p.k - p.m)));
    return table_power(tw.hi, tw.lo, e << (MAX_LOG - p.k - p.m));
}

template <class F>
CUZK_NTT_DEV F smem_load(const uint32_t* sm, uint32_t E, uint32_t a) {
    F r;
    CUZK_NTT_UNROLL
    for (int j = 0; j < F::N; j++) r.l[j] = sm[j * E + a];
    return r;
}
template <class F>
CUZK_NTT_DEV void smem_store(uint32_t* sm, uint32_t E, uint32_t a, const F& v) {
    CUZK_NTT_UNROLL
    for (int j = 0; j < F::N; j++) sm[j * E + a] = v.l[j];
}

// Load: thread t of block `block` (T threads) brings elements t, t + T, ... into shared
// memory, 2^RL of them (RL = p.reg_log; the loop is unrolled, so that all its loads are in
// flight at once). `c_in`, when set, makes the load compute x*b - c_in, or x - c_in without
// `b` (first pass of the H pipeline's last transform).
template <bool DIT, uint32_t RL, class F>
CUZK_NTT_DEV void load_phase(const pass_t& p, uint32_t block, uint32_t t, const F* x, const F* b, const F* c_in,
                            const twiddles_t<F>& tw, const scale_t<F>& pre, uint32_t* sm) {
    const uint32_t E = 1u << block_log(p);
    const uint32_t T = block_threads(p);
    CUZK_NTT_UNROLL
    for (uint32_t i = 0; i < (1u << RL); i++) {
        const uint32_t e = t + T * i;
        if (e >= E) break;  // a block smaller than one thread's registers
        uint32_t q, c;
        uint32_t gi = global_index(p, block, e, q, c);
        F v = x[gi];
        if (c_in != nullptr) v = (b != nullptr ? v * b[gi] : v) - c_in[gi];
        v = apply_scale(pre, v, gi, p.L);
        if (DIT && p.m > 0) v = v * pass_twiddle(p, tw, q, c);
        smem_store(sm, E, smem_address(p, e), v);
    }
}

// Store: the reverse of load, with the forward family's pass twiddle.
template <bool DIT, uint32_t RL, class F>
CUZK_NTT_DEV void store_phase(const pass_t& p, uint32_t block, uint32_t t, F* x, const twiddles_t<F>& tw,
                             const scale_t<F>& post, const uint32_t* sm) {
    const uint32_t E = 1u << block_log(p);
    const uint32_t T = block_threads(p);
    CUZK_NTT_UNROLL
    for (uint32_t i = 0; i < (1u << RL); i++) {
        const uint32_t e = t + T * i;
        if (e >= E) break;
        uint32_t q, c;
        uint32_t gi = global_index(p, block, e, q, c);
        F v = smem_load<F>(sm, E, smem_address(p, e));
        if (!DIT && p.m > 0) v = v * pass_twiddle(p, tw, q, c);
        x[gi] = apply_scale(post, v, gi, p.L);
    }
}

// One round of R stages on thread t's 2^RL elements (R <= RL; with R < RL the thread holds
// 2^(RL-R) independent sets of the round's 2^R elements). Stage h (span 2^(h+1)) pairs the
// elements whose q differ in bit h, with the twiddle w_(2^(h+1))^off, off = q mod 2^h:
//   DIF: (u, v) -> (u + v, (u - v) w),  stages from the round's top down;
//   DIT: (u, v) -> (u + v w, u - v w),  stages from the round's bottom up.
// In the bottom round (BOTTOM, s = 0) off is made of register index bits only, so the
// butterflies whose twiddle is 1 are known at compile time and skip their product: seven of a
// three-stage round's twelve (stage by stage the old kernel skipped only the last stage's four).
template <bool DIT, bool BOTTOM, uint32_t R, uint32_t RL, class F>
CUZK_NTT_DEV void round_stages(const pass_t& p, const round_t& rd, uint32_t t, uint32_t* sm, const F* tw_hi) {
    const uint32_t E = 1u << block_log(p);
    constexpr uint32_t REGS = 1u << RL;
    const uint32_t base = round_base<RL>(rd, t);
    const uint32_t s = BOTTOM ? 0 : rd.s;
    const uint32_t q_mask = (1u << p.k) - 1;
    F v[REGS];
    CUZK_NTT_UNROLL
    for (uint32_t i = 0; i < REGS; i++) {
        const uint32_t e = base | round_offset<RL>(rd, i);
        if (e < E) v[i] = smem_load<F>(sm, E, smem_address(p, e));
    }
    CUZK_NTT_UNROLL
    for (uint32_t n = 0; n < R; n++) {
        const uint32_t hb = DIT ? n : R - 1 - n;  // the stage's register bit
        const uint32_t h = s + hb;
        const uint32_t below = (1u << hb) - 1;
        CUZK_NTT_UNROLL
        for (uint32_t i = 0; i < REGS; i++) {
            if (i & (1u << hb)) continue;
            const uint32_t j = i | (1u << hb);
            // In the bottom round q's bits below h are the register index's; elsewhere they
            // are the thread's and, in a round of fewer than three stages, extra register bits.
            const bool trivial = BOTTOM && (i & below) == 0;
            F w;
            if (!trivial) {
                const uint32_t q = ((base | round_offset<RL>(rd, i)) >> p.log_r) & q_mask;
                const uint32_t off = BOTTOM ? (i & below) : q & ((1u << h) - 1);
                w = const_load<F>::get(tw_hi + (off << (MAX_LOG - 1 - h - TABLE_BITS)));
            }
            if (DIT) {
                F y = trivial ? v[j] : v[j] * w;
                v[j] = v[i] - y;
                v[i] = v[i] + y;
            } else {
                F d = v[i] - v[j];
                v[i] = v[i] + v[j];
                v[j] = trivial ? d : d * w;
            }
        }
    }
    CUZK_NTT_UNROLL
    for (uint32_t i = 0; i < REGS; i++) {
        const uint32_t e = base | round_offset<RL>(rd, i);
        if (e < E) smem_store(sm, E, smem_address(p, e), v[i]);
    }
}

// Round `i` of pass p, dispatched to its instantiation (R from RL down to 1).
template <bool DIT, bool BOTTOM, uint32_t R, uint32_t RL, class F>
CUZK_NTT_DEV void round_dispatch(const pass_t& p, const round_t& rd, uint32_t t, uint32_t* sm, const F* tw_hi) {
    if constexpr (R > 1) {
        if (rd.r < R) return round_dispatch<DIT, BOTTOM, R - 1, RL>(p, rd, t, sm, tw_hi);
    }
    round_stages<DIT, BOTTOM, R, RL>(p, rd, t, sm, tw_hi);
}
// RL must be p.reg_log.
template <bool DIT, uint32_t RL, class F>
CUZK_NTT_DEV void round_phase(const pass_t& p, uint32_t i, uint32_t t, uint32_t* sm, const F* tw_hi) {
    const round_t& rd = p.round[i];
    if (rd.s == 0)
        round_dispatch<DIT, true, RL, RL>(p, rd, t, sm, tw_hi);
    else
        round_dispatch<DIT, false, RL, RL>(p, rd, t, sm, tw_hi);
}

}  // namespace cuzk::ntt
