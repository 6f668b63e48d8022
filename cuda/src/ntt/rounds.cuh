// One pass of the NTT as three phases, each what one thread does between two barriers: load
// its elements of the block from global into shared memory, run one register round, store
// them back. Generic in the field F and an environment Env, so that the kernels (kernels.cuh,
// F = fr_t) and the host emulator (cuda/tests/ntt_emulator, a small prime field) run the same
// code. See layout.cuh for the indices.
//
// F: `static constexpr int N` 32-bit limbs in `uint32_t l[N]`, operators + and -.
// Env:
//   F mul(F a, F b) const;                      a * b
//   F mul_table(F a, const F* p) const;         a * the entry at p of a read-only table or input
//   F mul_root(F a, const F* hi, uint32_t i) const;
//                                               a * hi[i], hi the pass's high power table (the
//                                               round twiddles: most of a pass's products)
//   F table(const F* p) const;                  that entry
// mul_table and mul_root take a pointer so that an environment may make them calls (one element
// and a pointer fit the registers the calling convention passes arguments in; two elements do
// not); the library's inlines them (kernels.cuh). mul_root is separate so that an environment
// can compute the round twiddles' products another way (tools/fp64-experiment's nttmix).
#pragma once

#include <cstdint>

#include "ntt/layout.cuh"

#if defined(__CUDA_ARCH__)
#define CUZK_NTT_ROLLED _Pragma("unroll 1")
#define CUZK_NTT_UNROLL _Pragma("unroll")
#else
#define CUZK_NTT_ROLLED
#define CUZK_NTT_UNROLL
#endif

namespace cuzk::ntt {

// How a pass scales elements on load or store.
enum scale_mode_t : int {
    SCALE_NONE = 0,
    SCALE_CONST = 1,   // v *= *c
    SCALE_POWERS = 2,  // v *= hi[i >> 14] * lo[i & 0x3fff], i the global index or its bit reversal
};

template <class F>
struct scale_of {
    int mode = SCALE_NONE;
    bool bitrev = false;
    const F* c = nullptr;
    const F* hi = nullptr;
    const F* lo = nullptr;
};

// Everything a pass reads and writes. `b` makes the first pass's load form x * b (the H
// pipeline's last transform, a * b on the coset). The pass twiddles and
// the in-block roots come from the power tables of the transform's root (tw_hi, tw_lo) and its
// table of 2^ROOTS_LOG-th roots (roots, for the passes layout.cuh's pass_uses_roots picks).
template <class F>
struct pass_args_of {
    F* x;
    const F* b;
    pass_t p;
    const F* tw_hi;
    const F* tw_lo;
    const F* roots;
    scale_of<F> pre;
    scale_of<F> post;
};

// w_max^e for e < 2^28.
template <class F, class Env>
CUZK_NTT_HD F table_power(const Env& env, const F* hi, const F* lo, uint32_t e) {
    return env.mul_table(env.table(hi + (e >> TABLE_BITS)), lo + (e & TABLE_MASK));
}

template <class F, class Env>
CUZK_NTT_HD F apply_scale(const Env& env, const scale_of<F>& s, F v, uint32_t gi, uint32_t L) {
    if (s.mode == SCALE_CONST) {
        v = env.mul_table(v, s.c);
    } else if (s.mode == SCALE_POWERS) {
        const uint32_t i = s.bitrev ? bitrev(gi, L) : gi;
        v = env.mul(v, table_power<F>(env, s.hi, s.lo, i));
    }
    return v;
}

// An element of the bit-reversal pass, loaded from index j: it lands at bitrev(j), where it
// is scaled by `post` (whose index is the destination's), and sub[j] is taken from it when
// `sub` is set (the H pipeline's c, kept in the bit-reversed order its transform left it in).
template <class F, class Env>
CUZK_NTT_HD F bitrev_source(const Env& env, scale_of<F> post, const F* sub, F v, uint32_t j, uint32_t L) {
    post.bitrev = !post.bitrev;  // the destination's index is bitrev(j): index by j itself
    v = apply_scale<F>(env, post, v, j, L);
    return sub != nullptr ? v - sub[j] : v;
}

template <class F>
CUZK_NTT_HD F smem_load(const uint32_t* sm, uint32_t E, uint32_t e) {
    const uint32_t x = smem_pos(e);
    F r;
    CUZK_NTT_UNROLL
    for (int j = 0; j < F::N; j++) r.l[j] = sm[j * E + x];
    return r;
}

template <class F>
CUZK_NTT_HD void smem_store(uint32_t* sm, uint32_t E, uint32_t e, const F& v) {
    const uint32_t x = smem_pos(e);
    CUZK_NTT_UNROLL
    for (int j = 0; j < F::N; j++) sm[j * E + x] = v.l[j];
}

// v times the pass twiddle w_(2^(k+m))^(c bitrev_k(q)), for m > 0: applied on the way out by
// the forward family and on the way in by the reverse one. One product with an entry of the
// roots table where the pass's roots are in it, else two (the twiddle from the split tables).
template <class F, class Env>
CUZK_NTT_HD F apply_pass_twiddle(const Env& env, const pass_args_of<F>& a, F v, uint32_t q, uint32_t c) {
    if (pass_uses_roots(a.p)) return env.mul_table(v, a.roots + roots_index(a.p, q, c));
    const uint32_t shift = MAX_LOG - a.p.k - a.p.m;
    return env.mul(v, table_power<F>(env, a.tw_hi, a.tw_lo, (c * bitrev(q, a.p.k)) << shift));
}

// Thread `tid` of `threads` loads its elements of block `block` into shared memory `sm`.
template <class F, bool DIT, class Env>
CUZK_NTT_HD void load_phase(const Env& env, const pass_args_of<F>& a, uint32_t* sm, uint32_t block, uint32_t tid,
                            uint32_t threads) {
    const pass_t& p = a.p;
    const uint32_t E = block_elems(p);
    CUZK_NTT_ROLLED
    for (uint32_t e = tid; e < E; e += threads) {
        uint32_t q, c;
        const uint32_t gi = global_index(p, block, e, q, c);
        F v = a.x[gi];
        if (a.b != nullptr) v = env.mul_table(v, a.b + gi);
        v = apply_scale<F>(env, a.pre, v, gi, p.L);
        if (DIT && p.m > 0) v = apply_pass_twiddle<F>(env, a, v, q, c);
        smem_store<F>(sm, E, e, v);
    }
}

// The r stages of round `rd` on the 2^R registers of one slot. R is the round's r as a
// constant, so that the registers stay registers.
template <class F, bool DIT, int R, class Env>
CUZK_NTT_HD void round_slot(const Env& env, const pass_args_of<F>& a, uint32_t* sm, const round_t& rd, uint32_t slot) {
    constexpr uint32_t COUNT = 1u << R;
    const pass_t& p = a.p;
    const uint32_t E = block_elems(p);
    const uint32_t f = round_shift(p, rd);
    const uint32_t base = round_base(p, rd, slot);
    const uint32_t q_low = round_q_low(p, rd, base);
    F v[COUNT];
    CUZK_NTT_UNROLL
    for (uint32_t j = 0; j < COUNT; j++) v[j] = smem_load<F>(sm, E, base | (j << f));
    CUZK_NTT_UNROLL
    for (int step = 0; step < R; step++) {
        // The forward network starts with the widest butterflies, the reverse one narrowest.
        const uint32_t s = DIT ? step : R - 1 - step;
        const uint32_t half = 1u << s;
        CUZK_NTT_UNROLL
        for (uint32_t t = 0; t < COUNT / 2; t++) {
            const uint32_t j0 = ((t >> s) << (s + 1)) | (t & (half - 1));
            const uint32_t j1 = j0 + half;
            const bool one = twiddle_is_one(rd, s, j0);
            if (DIT) {
                F w = v[j1];
                if (!one) w = env.mul_root(w, a.tw_hi, twiddle_index(rd, s, q_low, j0));
                v[j1] = v[j0] - w;
                v[j0] = v[j0] + w;
            } else {
                F d = v[j0] - v[j1];
                v[j0] = v[j0] + v[j1];
                v[j1] = one ? d : env.mul_root(d, a.tw_hi, twiddle_index(rd, s, q_low, j0));
            }
        }
    }
    CUZK_NTT_UNROLL
    for (uint32_t j = 0; j < COUNT; j++) smem_store<F>(sm, E, base | (j << f), v[j]);
}

// Thread `tid` of `threads` runs round i of the pass on its slots (one, when the round is a
// full radix-2^ROUND_LOG one in a full block; 2^(ROUND_LOG - r) of them for a short round).
template <class F, bool DIT, class Env>
CUZK_NTT_HD void round_phase(const Env& env, const pass_args_of<F>& a, uint32_t* sm, uint32_t i, uint32_t tid,
                             uint32_t threads) {
    const round_t rd = pass_round(a.p.k, i, DIT);
    const uint32_t slots = block_elems(a.p) >> rd.r;
    CUZK_NTT_ROLLED
    for (uint32_t slot = tid; slot < slots; slot += threads) {
        if (rd.r == 3) {
            round_slot<F, DIT, 3>(env, a, sm, rd, slot);
        } else if (rd.r == 2) {
            round_slot<F, DIT, 2>(env, a, sm, rd, slot);
        } else {
            round_slot<F, DIT, 1>(env, a, sm, rd, slot);
        }
    }
}
static_assert(ROUND_LOG == 3, "round_phase dispatches rounds of 1 to 3 stages");

// Thread `tid` of `threads` stores its elements of the block from shared memory.
template <class F, bool DIT, class Env>
CUZK_NTT_HD void store_phase(const Env& env, const pass_args_of<F>& a, const uint32_t* sm, uint32_t block,
                             uint32_t tid, uint32_t threads) {
    const pass_t& p = a.p;
    const uint32_t E = block_elems(p);
    CUZK_NTT_ROLLED
    for (uint32_t e = tid; e < E; e += threads) {
        uint32_t q, c;
        const uint32_t gi = global_index(p, block, e, q, c);
        F v = smem_load<F>(sm, E, e);
        if (!DIT && p.m > 0) v = apply_pass_twiddle<F>(env, a, v, q, c);
        v = apply_scale<F>(env, a.post, v, gi, p.L);
        a.x[gi] = v;
    }
}

}  // namespace cuzk::ntt
