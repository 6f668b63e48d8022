// NTT kernels over Fr: the pass kernel (its phases are in rounds.cuh, its index arithmetic in
// layout.cuh), the bit-reversal permutation and the table builders.
#pragma once

#include <cstdint>

#include "ff/bls12_381.cuh"
#include "ntt/layout.cuh"
#include "ntt/rounds.cuh"

namespace cuzk::ntt {

// Side of the bit-reversal tiles (2^4 x 2^4 elements).
constexpr uint32_t BITREV_TILE_LOG = 4;

// Tables and constants are read through the non-coherent cache.
template <>
struct const_load<fr_t> {
    __device__ __forceinline__ static fr_t get(const fr_t* p) {
        const uint4* q = reinterpret_cast<const uint4*>(p);
        uint4 a = __ldg(q), b = __ldg(q + 1);
        fr_t r;
        r.l[0] = a.x; r.l[1] = a.y; r.l[2] = a.z; r.l[3] = a.w;
        r.l[4] = b.x; r.l[5] = b.y; r.l[6] = b.z; r.l[7] = b.w;
        return r;
    }
};
__device__ __forceinline__ fr_t ldg(const fr_t* p) { return const_load<fr_t>::get(p); }

// One pass: load, the rounds, store, with a barrier between phases (a round reads and writes
// only its thread's elements, so one barrier after each is enough). DIT = false: the forward
// family (natural in, twiddle out); DIT = true: the reverse family (twiddle in, natural out).
// `c_in`, when set, makes the load compute x*b - c_in, or x - c_in without `b`. Launched with
// block_threads(p) threads and 8 * E words of dynamic shared memory.
//
// RL and BL are the pass shape's (ntt.cu; p.reg_log and the block size make_pass was given):
// 2^RL elements a thread, blocks of 2^BL. Rounds of eight elements take about 160 registers
// (eight elements of eight limbs, and the products' accumulators): one block of 256 threads a
// SM in blocks of 2^11, three of 128 in blocks of 2^10. Rounds of four take about 90-120, in
// blocks of 512 threads. `p` is __grid_constant__: the rounds index it by reference, which
// otherwise makes a copy of it in local memory (an 88-byte stack frame, and more registers).
template <bool DIT, uint32_t RL, uint32_t BL>
__global__ void __launch_bounds__((1u << BL) >> RL, BL < BLOCK_LOG_MAX ? 3 : 1)
    pass_kernel(fr_t* __restrict__ x, const fr_t* __restrict__ b, const fr_t* __restrict__ c_in,
                const __grid_constant__ pass_t p, twiddles_t<fr_t> tw, scale_t<fr_t> pre, scale_t<fr_t> post) {
    extern __shared__ uint32_t sm[];
    load_phase<DIT, RL>(p, blockIdx.x, threadIdx.x, x, b, c_in, tw, pre, sm);
    __syncthreads();
#pragma unroll
    for (uint32_t i = 0; i < MAX_ROUNDS; i++) {
        if (i >= p.rounds) break;
        round_phase<DIT, RL>(p, i, threadIdx.x, sm, tw.hi);
        __syncthreads();
    }
    store_phase<DIT, RL>(p, blockIdx.x, threadIdx.x, x, tw, post, sm);
}

// In-place bit-reversal permutation of 2^L elements, scaling each element by `post` at its
// new (natural) index. Index bits are (hi: B, mid: L-2B, lo: B); a block swaps the two tiles
// mid and bitrev(mid) (or permutes one tile onto itself), 2^B x 2^B elements each, through
// shared memory, so global accesses are runs of 2^B elements. Blocks with mid > bitrev(mid)
// have nothing to do. Static shared memory: 2 tiles of 8 limbs x 2^B x (2^B + 1) words.
__global__ void __launch_bounds__(256) bitrev_kernel(fr_t* __restrict__ x, uint32_t L, uint32_t B, scale_t<fr_t> post) {
    constexpr uint32_t S_MAX = 1u << BITREV_TILE_LOG;
    constexpr uint32_t PITCH = S_MAX + 1;
    constexpr uint32_t TILE = S_MAX * PITCH;
    __shared__ uint32_t sm[2 * fr_t::N * TILE];

    const uint32_t M = L - 2 * B;
    const uint32_t mid = blockIdx.x;
    const uint32_t rmid = M ? bitrev(mid, M) : 0;
    if (mid > rmid) return;
    const uint32_t S = 1u << B;
    const uint32_t rev_shift = 32 - B;  // bitrev over B bits; B = 0 is handled below
    auto rev = [&](uint32_t v) { return B ? (__brev(v) >> rev_shift) : 0u; };
    auto index = [&](uint32_t hi, uint32_t md, uint32_t lo) { return (hi << (L - B)) | (md << B) | lo; };
    const bool pair = mid != rmid;

    for (uint32_t t = threadIdx.x; t < S * S; t += blockDim.x) {
        uint32_t h = t >> B, l = t & (S - 1);
        fr_t v = x[index(h, mid, l)];
#pragma unroll
        for (int j = 0; j < fr_t::N; j++) sm[j * TILE + h * PITCH + l] = v.l[j];
        if (pair) {
            fr_t w = x[index(h, rmid, l)];
#pragma unroll
            for (int j = 0; j < fr_t::N; j++) sm[(fr_t::N + j) * TILE + h * PITCH + l] = w.l[j];
        }
    }
    __syncthreads();
    for (uint32_t t = threadIdx.x; t < S * S; t += blockDim.x) {
        uint32_t h = t >> B, l = t & (S - 1);
        // The element landing at (h, rmid, l) came from (rev l, mid, rev h): tile 0, and
        // symmetrically tile 1 lands in the mid tile.
        uint32_t src = rev(l) * PITCH + rev(h);
        fr_t v;
#pragma unroll
        for (int j = 0; j < fr_t::N; j++) v.l[j] = sm[j * TILE + src];
        uint32_t i = index(h, rmid, l);
        x[i] = apply_scale(post, v, i, L);
        if (pair) {
#pragma unroll
            for (int j = 0; j < fr_t::N; j++) v.l[j] = sm[(fr_t::N + j) * TILE + src];
            uint32_t i2 = index(h, mid, l);
            x[i2] = apply_scale(post, v, i2, L);
        }
    }
}

// ---- table builders ------------------------------------------------------------------------

// Per-domain constants: the inverse of the generator and, for every L <= MAX_LOG, 1/2^L and
// 1/(g^(2^L) - 1). One thread per L; thread 0 also writes g^-1. Fermat inversions, run once.
__global__ void domain_consts_kernel(fr_t* n_inv, fr_t* z_inv, fr_t* g_inv) {
    uint32_t L = threadIdx.x;
    if (L > MAX_LOG) return;
    fr_t g = fr_generator();
    if (L == 0) *g_inv = g.inverse();
    fr_t half = fr_two_inv();
    fr_t ni = fr_t::one();
    fr_t gn = g;
    for (uint32_t i = 0; i < L; i++) {
        ni = ni * half;
        gn = gn.sqr();
    }
    n_inv[L] = ni;
    z_inv[L] = (gn - fr_t::one()).inverse();
}

// For each of the four bases (w_max, w_max^-1, g, g^-1): lo[j] = base^j and
// hi[j] = base^(j * 2^14), j < 2^14. `tables` holds 8 tables of TABLE_LEN in the order
// w_hi, w_lo, winv_hi, winv_lo, g_hi, g_lo, ginv_hi, ginv_lo.
__global__ void power_tables_kernel(fr_t* tables, const fr_t* g_inv) {
    uint32_t j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= TABLE_LEN) return;
    // w_max = ROOT_OF_UNITY^(2^(32 - MAX_LOG)): the 2^28-th root bellperson's domains descend from.
    fr_t w = fr_root_of_unity(), wi = fr_root_of_unity_inv();
    for (uint32_t i = MAX_LOG; i < fr_params_t::two_adicity; i++) {
        w = w.sqr();
        wi = wi.sqr();
    }
    const fr_t bases[4] = {w, wi, fr_generator(), ldg(g_inv)};
#pragma unroll
    for (int t = 0; t < 4; t++) {
        tables[(2 * t) * TABLE_LEN + j] = bases[t].pow(j << TABLE_BITS);
        tables[(2 * t + 1) * TABLE_LEN + j] = bases[t].pow(j);
    }
}

// mid[j] = w_max^(j * 2^(MAX_LOG - MID_BITS)), j < 2^MID_BITS: every power of w_(2^MID_BITS),
// from the root's hi and lo tables.
__global__ void mid_table_kernel(fr_t* mid, const fr_t* hi, const fr_t* lo) {
    uint32_t j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= (1u << MID_BITS)) return;
    mid[j] = table_power(hi, lo, j << (MAX_LOG - MID_BITS));
}

// out[j] = hi[j] * c1 (* c2 when set), j < count: a power table scaled by constants.
__global__ void scale_table_kernel(fr_t* out, const fr_t* hi, const fr_t* c1, const fr_t* c2, uint32_t count) {
    uint32_t j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= count) return;
    fr_t s = ldg(c1);
    if (c2 != nullptr) s = s * ldg(c2);
    out[j] = ldg(hi + j) * s;
}

}  // namespace cuzk::ntt
