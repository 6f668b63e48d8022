// Where the NTT's elements go: the pass plan, a pass's block of elements, the register rounds
// inside a pass and the shared-memory layout. Index arithmetic only, no field and no CUDA
// intrinsic, so the same code runs in the kernels and in the host emulator
// (cuda/tests/ntt_emulator), which checks it without a GPU.
//
// A transform of n = 2^L elements is split into passes; a pass owns k consecutive index bits
// and does k radix-2 stages for all 2^(L-k) groups of 2^k elements that differ only in those
// bits. Writing an index as (a, q, c), q the pass's k bits and c the m bits below them, a block
// holds E = 2^(k + log_g) elements: 2^log_g groups, of which 2^log_r (log_r = min(m, log_g))
// are adjacent in memory. Element e of a block is ordered with the adjacent groups fastest,
// then q, then the remaining groups: e = cc_lo + (q << log_r) + (cc_hi << (log_r + k)).
//
// Inside a pass the k stages run in rounds of at most ROUND_LOG stages: a thread takes the
// 2^r elements that differ only in the round's r bits of q from shared memory into registers,
// does the r stages there and writes them back. A stage h (butterflies of span 2^(h+1)) pairs q
// with q + 2^h and its twiddle is w_(2^(h+1))^(q mod 2^h), so a round of stages [b, b + r)
// needs q's bits below b, which are fixed for the thread, and the register index.
#pragma once

#include <cstdint>
#include <vector>

#if defined(__CUDACC__)
#define CUZK_NTT_HD __host__ __device__ __forceinline__
#else
#define CUZK_NTT_HD inline
#endif

namespace cuzk::ntt {

// The largest supported transform: 2^MAX_LOG elements.
constexpr uint32_t MAX_LOG = 28;
// Power tables split exponents into 14 high and 14 low bits.
constexpr uint32_t TABLE_BITS = 14;
constexpr uint32_t TABLE_LEN = 1u << TABLE_BITS;
constexpr uint32_t TABLE_MASK = TABLE_LEN - 1;
// Elements a block transforms in shared memory: 2^10 Fr elements are 32 KiB.
constexpr uint32_t BLOCK_LOG = 10;
// Stages a register round does at most (radix 8), and so elements a thread holds.
constexpr uint32_t ROUND_LOG = 3;
// Threads of a full block: each holds 2^ROUND_LOG of its elements.
constexpr uint32_t PASS_THREADS = 1u << (BLOCK_LOG - ROUND_LOG);
// Bits of a non-final pass at most, so that a block holds at least two adjacent groups
// (64-byte runs of Fr elements in global memory).
constexpr uint32_t INNER_PASS_MAX = BLOCK_LOG - 1;
// Passes whose pass twiddle is a power of a root of order 2^ROOTS_LOG or less read it from one
// table of the 2^ROOTS_LOG-th roots (8 MiB per direction) instead of forming it as a product
// of two split-table entries: one Fr product an element fewer (the middle pass of 2^27, and
// every twiddled pass up to 2^18).
constexpr uint32_t ROOTS_LOG = 18;
static_assert(MAX_LOG == 2 * TABLE_BITS, "two table lookups cover every exponent");
static_assert(ROOTS_LOG <= MAX_LOG, "the roots table's root is a power of w_max");
static_assert(BLOCK_LOG < TABLE_BITS, "in-block roots must be entries of the high table");

// 2^L-bit reversal of i (1 <= L <= 32).
CUZK_NTT_HD uint32_t bitrev(uint32_t i, uint32_t L) {
#if defined(__CUDA_ARCH__)
    return __brev(i) >> (32 - L);
#else
    uint32_t r = 0;
    for (uint32_t b = 0; b < L; b++) r |= ((i >> b) & 1u) << (L - 1 - b);
    return r;
#endif
}

// The parameters of one pass.
struct pass_t {
    uint32_t L;       // log2 of the transform size
    uint32_t k;       // bits (stages) of this pass
    uint32_t m;       // bits below them
    uint32_t log_g;   // log2 of the groups per block: a block holds E = 2^(k + log_g) elements
    uint32_t log_r;   // log2 of the groups that are adjacent in memory: min(m, log_g)
};

// Pass sizes, top bits first: at most BLOCK_LOG bits for the last pass, at most
// INNER_PASS_MAX for the others, as even as that allows.
inline std::vector<uint32_t> split(uint32_t L) {
    if (L <= BLOCK_LOG) return {L};
    uint32_t passes = 1 + (L - BLOCK_LOG + INNER_PASS_MAX - 1) / INNER_PASS_MAX;
    uint32_t kn = L / passes < INNER_PASS_MAX ? L / passes : INNER_PASS_MAX;
    std::vector<uint32_t> ks(passes - 1, kn);
    ks.push_back(L - (passes - 1) * kn);
    return ks;
}

inline pass_t make_pass(uint32_t L, uint32_t k, uint32_t m) {
    pass_t p;
    p.L = L;
    p.k = k;
    p.m = m;
    p.log_g = L <= BLOCK_LOG ? 0 : BLOCK_LOG - k;
    p.log_r = m < p.log_g ? m : p.log_g;
    return p;
}

CUZK_NTT_HD uint32_t block_elems(const pass_t& p) { return 1u << (p.k + p.log_g); }
// Threads of a pass's block: one per 2^ROUND_LOG elements (at least one).
CUZK_NTT_HD uint32_t block_threads(const pass_t& p) {
    uint32_t t = block_elems(p) >> ROUND_LOG;
    return t == 0 ? 1 : t;
}
CUZK_NTT_HD uint32_t block_count(const pass_t& p) { return 1u << (p.L - p.k - p.log_g); }

// Element e of block `block` to its global index; also returns q and c.
CUZK_NTT_HD uint32_t global_index(const pass_t& p, uint32_t block, uint32_t e, uint32_t& q, uint32_t& c) {
    uint32_t cc_lo = e & ((1u << p.log_r) - 1);
    q = (e >> p.log_r) & ((1u << p.k) - 1);
    uint32_t cc_hi = e >> (p.log_r + p.k);
    uint32_t g = (block << p.log_g) + (cc_hi << p.log_r) + cc_lo;
    uint32_t a = g >> p.m;
    c = g & ((1u << p.m) - 1);
    return (a << (p.k + p.m)) | (q << p.m) | c;
}

// The pass twiddle of element (q, c) is w_(2^(k+m))^(c bitrev_k(q)) (1 when m = 0). Whether
// a pass takes it from the roots table, and its index there (roots[j] = w_(2^ROOTS_LOG)^j).
CUZK_NTT_HD bool pass_uses_roots(const pass_t& p) { return p.m > 0 && p.k + p.m <= ROOTS_LOG; }
CUZK_NTT_HD uint32_t roots_index(const pass_t& p, uint32_t q, uint32_t c) {
    return (c * bitrev(q, p.k)) << (ROOTS_LOG - p.k - p.m);
}

// ---- register rounds ------------------------------------------------------------------------

// A round: the stages of q's bits [b, b + r).
struct round_t {
    uint32_t b;
    uint32_t r;
};

CUZK_NTT_HD uint32_t round_count(uint32_t k) { return (k + ROUND_LOG - 1) / ROUND_LOG; }

// Round i of a pass of k stages in the order the pass runs them. The reverse (DIT) family
// runs its stages from the low bits up: full rounds from b = 0, the short one last. The
// forward (DIF) family runs them from the top down, its rounds the same ones in the opposite
// order. Either way the round with b = 0, whose twiddles are known per register (see
// twiddle_is_one), is a full one when k >= ROUND_LOG.
CUZK_NTT_HD round_t pass_round(uint32_t k, uint32_t i, bool dit) {
    uint32_t j = dit ? i : round_count(k) - 1 - i;
    round_t rd;
    rd.b = j * ROUND_LOG;
    rd.r = k - rd.b < ROUND_LOG ? k - rd.b : ROUND_LOG;
    return rd;
}

// Element bit of a round's register index bit 0: q starts at element bit log_r.
CUZK_NTT_HD uint32_t round_shift(const pass_t& p, const round_t& rd) { return p.log_r + rd.b; }

// The element of a block that register 0 of round slot `slot` holds (slot < E / 2^r): the
// slot's bits fill the element bits outside the round's r bits, lowest first, so that
// consecutive slots (the lanes of a warp) take consecutive elements where they can.
// Register j holds element base | (j << round_shift).
CUZK_NTT_HD uint32_t round_base(const pass_t& p, const round_t& rd, uint32_t slot) {
    const uint32_t f = round_shift(p, rd);
    const uint32_t low = slot & ((1u << f) - 1);
    return low | ((slot >> f) << (f + rd.r));
}

// q's bits below the round's (the fixed part of every twiddle exponent of the round).
CUZK_NTT_HD uint32_t round_q_low(const pass_t& p, const round_t& rd, uint32_t base) {
    return (base >> p.log_r) & ((1u << rd.b) - 1);
}

// The butterfly of stage b + s of a round that pairs registers j0 and j0 + 2^s (bit s of j0
// clear): its twiddle is w_(2^(b+s+1))^off, off = q_low | ((j0 mod 2^s) << b). Returns
// off's index in the high power table, whose entry i is w_max^(i 2^TABLE_BITS):
// w_(2^(h+1)) = w_max^(2^(MAX_LOG-1-h)).
CUZK_NTT_HD uint32_t twiddle_index(const round_t& rd, uint32_t s, uint32_t q_low, uint32_t j0) {
    const uint32_t h = rd.b + s;
    const uint32_t off = q_low | ((j0 & ((1u << s) - 1)) << rd.b);
    return off << (MAX_LOG - 1 - h - TABLE_BITS);
}

// Whether that twiddle is 1 in every thread: off = 0 whatever q_low is, which needs b = 0.
// The check is uniform over a block, so skipping the product does not diverge.
CUZK_NTT_HD bool twiddle_is_one(const round_t& rd, uint32_t s, uint32_t j0) {
    return rd.b == 0 && (j0 & ((1u << s) - 1)) == 0;
}

// ---- shared memory --------------------------------------------------------------------------

// Elements are stored limb-major (limb j of the element at position x is word j E + x), and
// element e sits at position smem_pos(e): e with its low five bits (its bank, when E >= 32)
// XORed with a linear function of bits 5-7. A warp's 32 lanes read 32 elements that differ in
// the five lowest element bits outside the round's r bits; the masks 31, 21 and 25 are chosen
// so that for every round shift 0-4 and r = 1-3 those lanes fall on 32 different banks (for
// shifts of 5 and up the lanes differ in bits 0-4 alone). The emulator checks every pass.
CUZK_NTT_HD uint32_t smem_pos(uint32_t e) {
    const uint32_t h = e >> 5;
    const uint32_t x = ((0u - (h & 1)) & 31u) ^ ((0u - ((h >> 1) & 1)) & 21u) ^ ((0u - ((h >> 2) & 1)) & 25u);
    return e ^ x;
}

}  // namespace cuzk::ntt
