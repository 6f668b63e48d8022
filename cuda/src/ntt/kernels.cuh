// NTT kernels over Fr: the radix-2^k passes, the bit-reversal permutation and table builders.
//
// A pass (layout.cuh) does k radix-2 stages on blocks of 2^10 elements (2^L for smaller
// transforms): the forward ("DIF") family, for the pass's k bits q above m bits c,
//
//     Y[k1] = sum_q x[a, q, c] w_(2^k)^(q k1)           (k stages, in register rounds)
//     x[a, bitrev_k(k1), c] = Y[k1] * w_(2^(k+m))^(c k1)  (twiddle on the way out; 1 if m = 0)
//
// Run from the top bits down (m = L - k first, m = 0 last), the passes compute the DFT with
// root w, natural order in, bit-reversed order out. The "DIT" family is the exact reverse:
// passes from the low bits up, each loading bit-reversed data, applying the twiddle on the
// way in and producing natural order; it maps bit-reversed input to natural output. Both take
// their root from the tables, so the same code runs with w or w^-1. The kernel is the three
// phases of rounds.cuh with barriers between them.
//
// Twiddles: every power of w_max (a primitive 2^28-th root) is hi[e >> 14] * lo[e & 0x3fff];
// the roots of the in-block stages, w_(2^(h+1)), are all entries of hi, and the pass twiddles
// of passes spanning at most 2^ROOTS_LOG are entries of one table of roots. Each pass can also
// multiply elements by a scale factor (a constant, or s * g^i from split power tables) on
// load or store, and the first pass of the H pipeline's last transform forms a*b as it loads.
#pragma once

#include <cstdint>

#include "ff/bls12_381.cuh"
#include "ntt/layout.cuh"
#include "ntt/rounds.cuh"

namespace cuzk::ntt {

using scale_t = scale_of<fr_t>;
using pass_args_t = pass_args_of<fr_t>;

// Side of the bit-reversal tiles (2^4 x 2^4 elements).
constexpr uint32_t BITREV_TILE_LOG = 4;

// Read-only load through the non-coherent cache (tables and constants).
__device__ __forceinline__ fr_t ldg(const fr_t* p) {
    const uint4* q = reinterpret_cast<const uint4*>(p);
    uint4 a = __ldg(q), b = __ldg(q + 1);
    fr_t r;
    r.l[0] = a.x; r.l[1] = a.y; r.l[2] = a.z; r.l[3] = a.w;
    r.l[4] = b.x; r.l[5] = b.y; r.l[6] = b.z; r.l[7] = b.w;
    return r;
}

// The device side of rounds.cuh's environment, every product inlined, so that ptxas can
// interleave a stage's independent products (as calls they could not overlap). The rounds'
// loop stays rolled (run_pass), which keeps each kernel near 130 KiB of code; unrolled as
// well, the code outgrew the instruction cache (docs/benchmarks.md, 2026-12-05 and 12-06).
struct device_env_t {
    __device__ __forceinline__ fr_t mul(fr_t a, fr_t b) const { return a * b; }
    __device__ __forceinline__ fr_t mul_table(fr_t a, const fr_t* p) const { return a * ldg(p); }
    __device__ __forceinline__ fr_t mul_root(fr_t a, const fr_t* hi, uint32_t i) const { return a * ldg(hi + i); }
    __device__ __forceinline__ fr_t table(const fr_t* p) const { return ldg(p); }
};

// A pass's block as the GPU runs it: rounds.cuh's phases with barriers between them, in the
// block's dynamic shared memory. The body of pass_kernel, and of tools/fp64-experiment's
// variant with another environment.
template <bool DIT, class Env>
__device__ __forceinline__ void run_pass(const Env& env, const pass_args_t& a) {
    extern __shared__ uint32_t sm[];
    load_phase<fr_t, DIT>(env, a, sm, blockIdx.x, threadIdx.x, blockDim.x);
    __syncthreads();
    const uint32_t rounds = round_count(a.p.k);
#pragma unroll 1
    for (uint32_t i = 0; i < rounds; i++) {
        round_phase<fr_t, DIT>(env, a, sm, i, threadIdx.x, blockDim.x);
        __syncthreads();
    }
    store_phase<fr_t, DIT>(env, a, sm, blockIdx.x, threadIdx.x, blockDim.x);
}

// One pass. DIT = false: the forward family (natural in, twiddle out); DIT = true: the
// reverse family (twiddle in, natural out). One thread per 2^ROUND_LOG elements of the block;
// dynamic shared memory: 8 words per element (32 KiB for a full block). A thread holds eight
// elements and a product's operands. The launch bounds ask for occupancy over registers: built
// for sm_90 the forward kernel fits four blocks a SM (128 registers, 180 bytes spilled; at
// three blocks it took 168 with 16 spilled) and the reverse one five (96 registers, 64 bytes
// spilled; 128 and none at four). Measured on an H100 (nttexp, 2026-12-07): the forward 2^27
// 47.5 to 46.4 ms, the H pipeline 2^27 285.6 to 278.7; fewer blocks were slower still (2^27
// forward at two blocks, 198 registers with no spills: 54.0 ms, 2026-12-06).
template <bool DIT>
__global__ void __launch_bounds__(PASS_THREADS, DIT ? 5 : 4) pass_kernel(const pass_args_t a) {
    run_pass<DIT>(device_env_t{}, a);
}

// In-place bit-reversal permutation of 2^L elements, scaling each element by `post` at its
// new (natural) index and, with `sub` set, taking sub[j] from the element loaded at j
// (rounds.cuh's bitrev_source, applied as the tiles are loaded). Index bits are (hi: B, mid:
// L-2B, lo: B); a block swaps the two tiles mid and bitrev(mid) (or permutes one tile onto
// itself), 2^B x 2^B elements each, through shared memory, so global accesses are runs of 2^B
// elements. Blocks with mid > bitrev(mid) have nothing to do. Static shared memory: 2 tiles of
// 8 limbs x 2^B x (2^B + 1) words.
__global__ void __launch_bounds__(256) bitrev_kernel(fr_t* __restrict__ x, const fr_t* __restrict__ sub, uint32_t L,
                                                     uint32_t B, scale_t post) {
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
        const uint32_t i = index(h, mid, l);
        fr_t v = bitrev_source<fr_t>(device_env_t{}, post, sub, x[i], i, L);
#pragma unroll
        for (int j = 0; j < fr_t::N; j++) sm[j * TILE + h * PITCH + l] = v.l[j];
        if (pair) {
            const uint32_t i2 = index(h, rmid, l);
            fr_t w = bitrev_source<fr_t>(device_env_t{}, post, sub, x[i2], i2, L);
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
        x[index(h, rmid, l)] = v;
        if (pair) {
#pragma unroll
            for (int j = 0; j < fr_t::N; j++) v.l[j] = sm[(fr_t::N + j) * TILE + src];
            x[index(h, mid, l)] = v;
        }
    }
}

// ---- table builders ------------------------------------------------------------------------

// Per-domain constants: the inverse of the generator and, for every L <= MAX_LOG, 1/2^L,
// 1/(g^(2^L) - 1) and their product. One thread per L; thread 0 also writes g^-1. Fermat
// inversions, run once.
__global__ void domain_consts_kernel(fr_t* n_inv, fr_t* z_inv, fr_t* nz_inv, fr_t* g_inv) {
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
    const fr_t zi = (gn - fr_t::one()).inverse();
    n_inv[L] = ni;
    z_inv[L] = zi;
    nz_inv[L] = ni * zi;
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

// out[j] = w_max^(j 2^(MAX_LOG - ROOTS_LOG)), j < 2^ROOTS_LOG, from w_max's split tables: the
// powers of the 2^ROOTS_LOG-th root (and the same with w_max^-1's tables).
__global__ void roots_table_kernel(fr_t* out, const fr_t* hi, const fr_t* lo) {
    const uint32_t j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= (1u << ROOTS_LOG)) return;
    out[j] = table_power<fr_t>(device_env_t{}, hi, lo, j << (MAX_LOG - ROOTS_LOG));
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
