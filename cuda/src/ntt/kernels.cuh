// NTT kernels over Fr: the radix-2^k passes, the bit-reversal permutation and table builders.
//
// A transform of n = 2^L elements is split into passes; a pass owns k consecutive index bits
// and does k radix-2 stages for all 2^(L-k) groups of 2^k elements that differ only in those
// bits, each block holding a few groups in shared memory. Writing an index as (a, q, c), with
// q the pass's k bits and c the m bits below them, one pass of the forward ("DIF") family is
//
//     Y[k1] = sum_q x[a, q, c] w_(2^k)^(q k1)           (k stages in shared memory)
//     x[a, bitrev_k(k1), c] = Y[k1] * w_(2^(k+m))^(c k1)  (twiddle on the way out; 1 if m = 0)
//
// Run from the top bits down (m = L - k first, m = 0 last), the passes compute the DFT with
// root w, natural order in, bit-reversed order out. The "DIT" family is the exact reverse:
// passes from the low bits up, each loading bit-reversed data, applying the twiddle on the
// way in and producing natural order; it maps bit-reversed input to natural output. Both take
// their root from the tables, so the same code runs with w or w^-1.
//
// Twiddles: every power of w_max (a primitive 2^28-th root) is hi[e >> 14] * lo[e & 0x3fff];
// the roots of the in-block stages, w_(2^(h+1)), are all entries of hi. Each pass can also
// multiply elements by a scale factor (a constant, or s * g^i from split power tables) on
// load or store, and the first pass of the H pipeline can form a*b - c as it loads.
#pragma once

#include <cstdint>

#include "ff/bls12_381.cuh"

namespace cuzk::ntt {

// The largest supported transform: 2^MAX_LOG elements.
constexpr uint32_t MAX_LOG = 28;
// Power tables split exponents into 14 high and 14 low bits.
constexpr uint32_t TABLE_BITS = 14;
constexpr uint32_t TABLE_LEN = 1u << TABLE_BITS;
constexpr uint32_t TABLE_MASK = TABLE_LEN - 1;
// Elements a block transforms in shared memory (2^11 = 64 KiB), and its thread count.
constexpr uint32_t BLOCK_LOG = 11;
constexpr uint32_t PASS_THREADS = 256;
static_assert(MAX_LOG == 2 * TABLE_BITS, "two table lookups cover every exponent");
static_assert(BLOCK_LOG < TABLE_BITS, "in-block roots must be entries of the high table");
// Side of the bit-reversal tiles (2^4 x 2^4 elements).
constexpr uint32_t BITREV_TILE_LOG = 4;

// How a pass scales elements on load or store.
enum scale_mode_t : int {
    SCALE_NONE = 0,
    SCALE_CONST = 1,   // v *= *c
    SCALE_POWERS = 2,  // v *= hi[i >> 14] * lo[i & 0x3fff], i the global index or its bit reversal
};

struct scale_t {
    int mode = SCALE_NONE;
    bool bitrev = false;
    const fr_t* c = nullptr;
    const fr_t* hi = nullptr;
    const fr_t* lo = nullptr;
};

// 2^L-bit reversal of i (L >= 1).
__device__ __forceinline__ uint32_t bitrev(uint32_t i, uint32_t L) { return __brev(i) >> (32 - L); }

// Read-only load through the non-coherent cache (tables and constants).
__device__ __forceinline__ fr_t ldg(const fr_t* p) {
    const uint4* q = reinterpret_cast<const uint4*>(p);
    uint4 a = __ldg(q), b = __ldg(q + 1);
    fr_t r;
    r.l[0] = a.x; r.l[1] = a.y; r.l[2] = a.z; r.l[3] = a.w;
    r.l[4] = b.x; r.l[5] = b.y; r.l[6] = b.z; r.l[7] = b.w;
    return r;
}

// w_max^e for e < 2^28.
__device__ __forceinline__ fr_t table_power(const fr_t* hi, const fr_t* lo, uint32_t e) {
    return ldg(hi + (e >> TABLE_BITS)) * ldg(lo + (e & TABLE_MASK));
}

__device__ __forceinline__ fr_t apply_scale(const scale_t& s, fr_t v, uint32_t gi, uint32_t L) {
    if (s.mode == SCALE_CONST) {
        v = v * ldg(s.c);
    } else if (s.mode == SCALE_POWERS) {
        uint32_t i = s.bitrev ? bitrev(gi, L) : gi;
        v = v * table_power(s.hi, s.lo, i);
    }
    return v;
}

// Shared memory holds elements limb-major (limb j of element e at j * E + e), so that
// consecutive threads touching consecutive elements hit consecutive banks.
__device__ __forceinline__ fr_t smem_load(const uint32_t* sm, uint32_t E, uint32_t e) {
    fr_t r;
#pragma unroll
    for (int j = 0; j < fr_t::N; j++) r.l[j] = sm[j * E + e];
    return r;
}
__device__ __forceinline__ void smem_store(uint32_t* sm, uint32_t E, uint32_t e, const fr_t& v) {
#pragma unroll
    for (int j = 0; j < fr_t::N; j++) sm[j * E + e] = v.l[j];
}

// The parameters of one pass.
struct pass_t {
    uint32_t L;       // log2 of the transform size
    uint32_t k;       // bits (stages) of this pass
    uint32_t m;       // bits below them
    uint32_t log_g;   // log2 of the groups per block: a block holds E = 2^(k + log_g) elements
    uint32_t log_r;   // log2 of the groups that are adjacent in memory: min(m, log_g)
};

// Element e of a block (e < E, ordered with the adjacent groups fastest, then the position q
// inside a group, then the remaining groups) to its global index; also returns q and c.
__device__ __forceinline__ uint32_t global_index(const pass_t& p, uint32_t e, uint32_t& q, uint32_t& c) {
    uint32_t r_mask = (1u << p.log_r) - 1;
    uint32_t cc_lo = e & r_mask;
    q = (e >> p.log_r) & ((1u << p.k) - 1);
    uint32_t cc_hi = e >> (p.log_r + p.k);
    uint32_t g = (blockIdx.x << p.log_g) + (cc_hi << p.log_r) + cc_lo;
    uint32_t a = g >> p.m;
    c = g & ((1u << p.m) - 1);
    return (a << (p.k + p.m)) | (q << p.m) | c;
}

// One pass. DIT = false: the forward family (natural in, twiddle out); DIT = true: the
// reverse family (twiddle in, natural out). `c_in`, when set, makes the load compute
// x*b - c_in, or x - c_in without `b` (first pass of the H pipeline's last transform; the
// second form when x already holds a*b). Dynamic shared memory:
// 8 * E words.
template <bool DIT>
__global__ void __launch_bounds__(PASS_THREADS) pass_kernel(fr_t* __restrict__ x, const fr_t* __restrict__ b,
                                                            const fr_t* __restrict__ c_in, pass_t p,
                                                            const fr_t* __restrict__ tw_hi,
                                                            const fr_t* __restrict__ tw_lo, scale_t pre,
                                                            scale_t post) {
    extern __shared__ uint32_t sm[];
    const uint32_t E = 1u << (p.k + p.log_g);
    // Exponent shift of the pass twiddle: w_(2^(k+m)) = w_max^(2^(MAX_LOG-k-m)).
    const uint32_t tw_shift = MAX_LOG - p.k - p.m;

    for (uint32_t e = threadIdx.x; e < E; e += blockDim.x) {
        uint32_t q, c;
        uint32_t gi = global_index(p, e, q, c);
        fr_t v = x[gi];
        if (c_in != nullptr) v = (b != nullptr ? v * b[gi] : v) - c_in[gi];
        v = apply_scale(pre, v, gi, p.L);
        if (DIT && p.m > 0) v = v * table_power(tw_hi, tw_lo, (c * bitrev(q, p.k)) << tw_shift);
        smem_store(sm, E, e, v);
    }
    __syncthreads();

    const uint32_t half_k = p.k - 1;
    for (uint32_t s = 0; s < p.k; s++) {
        // log2 of the butterfly span's half: the DIF network starts wide, the DIT one narrow.
        const uint32_t h = DIT ? s : half_k - s;
        for (uint32_t bf = threadIdx.x; bf < E / 2; bf += blockDim.x) {
            uint32_t cc_lo = bf & ((1u << p.log_r) - 1);
            uint32_t jj = (bf >> p.log_r) & ((1u << half_k) - 1);
            uint32_t cc_hi = bf >> (p.log_r + half_k);
            uint32_t off = jj & ((1u << h) - 1);
            uint32_t q0 = ((jj >> h) << (h + 1)) | off;
            uint32_t e0 = cc_lo + (q0 << p.log_r) + (cc_hi << (p.log_r + p.k));
            uint32_t e1 = e0 + ((1u << h) << p.log_r);
            fr_t u = smem_load(sm, E, e0);
            fr_t v = smem_load(sm, E, e1);
            if (h == 0) {
                // Span 2: the twiddle is 1 for every butterfly (the whole stage, uniformly).
                smem_store(sm, E, e0, u + v);
                smem_store(sm, E, e1, u - v);
                continue;
            }
            // w_(2^(h+1))^off = w_max^(off * 2^(MAX_LOG-1-h)) = hi[off << (MAX_LOG-1-h-14)].
            fr_t w = ldg(tw_hi + (off << (MAX_LOG - 1 - h - TABLE_BITS)));
            if (DIT) {
                fr_t t = v * w;
                smem_store(sm, E, e0, u + t);
                smem_store(sm, E, e1, u - t);
            } else {
                smem_store(sm, E, e0, u + v);
                smem_store(sm, E, e1, (u - v) * w);
            }
        }
        __syncthreads();
    }

    for (uint32_t e = threadIdx.x; e < E; e += blockDim.x) {
        uint32_t q, c;
        uint32_t gi = global_index(p, e, q, c);
        fr_t v = smem_load(sm, E, e);
        if (!DIT && p.m > 0) v = v * table_power(tw_hi, tw_lo, (c * bitrev(q, p.k)) << tw_shift);
        v = apply_scale(post, v, gi, p.L);
        x[gi] = v;
    }
}

// In-place bit-reversal permutation of 2^L elements, scaling each element by `post` at its
// new (natural) index. Index bits are (hi: B, mid: L-2B, lo: B); a block swaps the two tiles
// mid and bitrev(mid) (or permutes one tile onto itself), 2^B x 2^B elements each, through
// shared memory, so global accesses are runs of 2^B elements. Blocks with mid > bitrev(mid)
// have nothing to do. Static shared memory: 2 tiles of 8 limbs x 2^B x (2^B + 1) words.
__global__ void __launch_bounds__(256) bitrev_kernel(fr_t* __restrict__ x, uint32_t L, uint32_t B, scale_t post) {
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

// out[j] = hi[j] * c1 (* c2 when set), j < count: a power table scaled by constants.
__global__ void scale_table_kernel(fr_t* out, const fr_t* hi, const fr_t* c1, const fr_t* c2, uint32_t count) {
    uint32_t j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= count) return;
    fr_t s = ldg(c1);
    if (c2 != nullptr) s = s * ldg(c2);
    out[j] = ldg(hi + j) * s;
}

}  // namespace cuzk::ntt
