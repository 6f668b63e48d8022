// Index arithmetic of the NTT passes: which elements a block holds, which a thread holds in
// registers during each round, and where each element sits in shared memory. Plain integer
// code, compiled for the device (the kernels) and for the host (the pass plan in ntt.cu, and
// the emulator test in cuda/tests/, which runs the same rounds over a small prime field).
//
// A pass owns k consecutive index bits of a transform of 2^L elements and does its k radix-2
// stages for all groups of 2^k elements that differ only in those bits; a block holds
// E = 2^(k + log_g) elements (2^log_g groups). Inside a block an element's index e is
//
//     e = cc_lo | q << log_r | cc_hi << (log_r + k)
//
// with q the position in its group and cc_lo, cc_hi the group (the 2^log_r groups adjacent in
// global memory are fastest, so that a warp's loads are runs of whole 32-byte sectors).
//
// The k stages run in rounds of at most reg_log (3, or 2): in a round each of the block's
// E / 2^reg_log threads holds 2^reg_log elements in registers, the 2^r elements of the round's
// r stages (q bits [s, s+r)) times 2^(reg_log-r) independent copies, does the round's stages
// there, and writes them back; shared memory is read and written once per round instead of
// once per stage. The
// round that covers q's lowest bits knows at compile time which of its butterflies have the
// twiddle 1 (see rounds.cuh).
//
// Shared memory is limb-major (limb j of the element at address a is word j*E + a), so a
// warp's 32 lanes hit 32 banks when their addresses differ in bits 0..4. In a round the lanes
// take the lowest five bits of e that are not register bits; when register bits lie below
// bit 5, some lanes' bits lie above it, and the address folds them into the bank bits the
// registers left free: a = e ^ swizzle(e >> 5), a bijection (it changes bits 0..4 only, as a
// function of the bits above). `make_pass` builds the swizzle; the emulator test checks that
// every round of every pass from 2^1 to 2^28, in every shape ntt.cu uses, is free of bank
// conflicts.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#if defined(__CUDACC__)
#define CUZK_NTT_HD __host__ __device__ __forceinline__
#else
#define CUZK_NTT_HD inline
#endif
// Loop unrolling in code that is also compiled for the host (where the pragma means nothing).
#if defined(__CUDA_ARCH__)
#define CUZK_NTT_UNROLL _Pragma("unroll")
#else
#define CUZK_NTT_UNROLL
#endif

namespace cuzk::ntt {

// The largest supported transform: 2^MAX_LOG elements.
constexpr uint32_t MAX_LOG = 28;
// Power tables split exponents into 14 high and 14 low bits.
constexpr uint32_t TABLE_BITS = 14;
constexpr uint32_t TABLE_LEN = 1u << TABLE_BITS;
constexpr uint32_t TABLE_MASK = TABLE_LEN - 1;
// A third table holds every power of w_(2^MID_BITS), so that the twiddles of a pass whose
// k + m bits fit in it take one lookup and no product (the middle pass of a 2^27 transform).
constexpr uint32_t MID_BITS = 18;
// The most elements a block transforms in shared memory (2^11 = 64 KiB); a transform's
// blocks hold 2^10 or 2^11 (its pass shape, ntt.cu).
constexpr uint32_t BLOCK_LOG_MAX = 11;
// log2 of the elements a thread holds in registers during a round, which is also the most
// stages of a round: 3 (eight elements, rounds of radix 8) or 2 (four, radix 4), chosen per
// transform (ntt.cu).
constexpr uint32_t REG_LOG_MAX = 3;
// Bits of a shared-memory bank index, and the e bits above them that the swizzle reads.
constexpr uint32_t BANK_LOG = 5;
constexpr uint32_t SWIZZLE_BITS = BLOCK_LOG_MAX - BANK_LOG;
// Rounds of a pass: k <= BLOCK_LOG_MAX stages, at least two a round.
constexpr uint32_t MAX_ROUNDS = (BLOCK_LOG_MAX + 1) / 2;
static_assert(MAX_LOG == 2 * TABLE_BITS, "two table lookups cover every exponent");
static_assert(BLOCK_LOG_MAX < TABLE_BITS, "in-block roots must be entries of the high table");
static_assert(MID_BITS <= MAX_LOG, "the middle table's root divides w_max's order");

// One round: the q bits [s, s + r) it transforms, and the e bit each register index bit
// stands for (pos[b] for bit b of the register index; bits 0..r-1 are the round's own).
// A position of E's size or more stands for nothing: only in blocks smaller than a thread's
// registers, whose one thread then holds fewer elements. `ascending` holds the same positions
// sorted, as round_base inserts them.
struct round_t {
    uint8_t s;
    uint8_t r;
    uint8_t pos[REG_LOG_MAX];
    uint8_t ascending[REG_LOG_MAX];
};

// The parameters of one pass.
struct pass_t {
    uint32_t L;       // log2 of the transform size
    uint32_t k;       // bits (stages) of this pass
    uint32_t m;       // bits below them
    uint32_t log_g;   // log2 of the groups per block: a block holds E = 2^(k + log_g) elements
    uint32_t log_r;   // log2 of the groups that are adjacent in memory: min(m, log_g)
    uint32_t reg_log; // log2 of the elements a thread holds: 2 or 3
    uint32_t rounds;  // rounds used in `round`, in the order they run
    round_t round[MAX_ROUNDS];
    // Bank bits XORed into an address for each of e's bits 5, 6, ... that is set.
    uint8_t swizzle[SWIZZLE_BITS];
};

CUZK_NTT_HD uint32_t block_log(const pass_t& p) { return p.k + p.log_g; }
CUZK_NTT_HD uint32_t block_threads(const pass_t& p) {
    uint32_t e_log = block_log(p);
    return e_log > p.reg_log ? 1u << (e_log - p.reg_log) : 1u;
}

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

// Element e of a block (e < E) to its global index; also returns its position q in its group
// and c, the index bits below the pass.
CUZK_NTT_HD uint32_t global_index(const pass_t& p, uint32_t block, uint32_t e, uint32_t& q, uint32_t& c) {
    uint32_t r_mask = (1u << p.log_r) - 1;
    uint32_t cc_lo = e & r_mask;
    q = (e >> p.log_r) & ((1u << p.k) - 1);
    uint32_t cc_hi = e >> (p.log_r + p.k);
    uint32_t g = (block << p.log_g) + (cc_hi << p.log_r) + cc_lo;
    uint32_t a = g >> p.m;
    c = g & ((1u << p.m) - 1);
    return (a << (p.k + p.m)) | (q << p.m) | c;
}

// The shared-memory address of element e.
CUZK_NTT_HD uint32_t smem_address(const pass_t& p, uint32_t e) {
    uint32_t x = 0;
    CUZK_NTT_UNROLL
    for (uint32_t b = 0; b < SWIZZLE_BITS; b++) x ^= ((e >> (BANK_LOG + b)) & 1u) ? p.swizzle[b] : 0u;
    return e ^ x;
}

// The element of register i of thread t in round `rd`: t's bits fill the e bits that are not
// register bits, lowest first.
CUZK_NTT_HD uint32_t insert_zero_bit(uint32_t t, uint32_t pos) {
    return ((t >> pos) << (pos + 1)) | (t & ((1u << pos) - 1));
}
template <uint32_t RL>
CUZK_NTT_HD uint32_t round_base(const round_t& rd, uint32_t t) {
    // A zero at each register position, lowest first: each insertion leaves the positions
    // below it in place.
    CUZK_NTT_UNROLL
    for (uint32_t b = 0; b < RL; b++) t = insert_zero_bit(t, rd.ascending[b]);
    return t;
}
template <uint32_t RL>
CUZK_NTT_HD uint32_t round_offset(const round_t& rd, uint32_t i) {
    uint32_t e = 0;
    CUZK_NTT_UNROLL
    for (uint32_t b = 0; b < RL; b++) e |= ((i >> b) & 1u) << rd.pos[b];
    return e;
}

// ---- the plan (host) ------------------------------------------------------------------------

// The shapes a transform's passes can take: 2^reg_log elements a thread, blocks of
// 2^block_log elements. ntt.cu picks one by name (CUZK_NTT_PASS) until the GPU has decided
// between them; the emulator test runs them all.
struct pass_shape_t {
    const char* name;
    uint32_t reg_log;
    uint32_t block_log;
};
constexpr pass_shape_t PASS_SHAPES[] = {
    {"8s", 3, 10},  // radix 8, 128 threads: two or three blocks a SM (the default)
    {"8", 3, 11},   // radix 8, 256 threads: one block a SM
    {"4", 2, 11},   // radix 4, 512 threads
};

// Pass sizes, top bits first, for blocks of 2^block_log elements: at most block_log bits for
// the last pass, at most 9 for the others so that a block holds at least 2^(block_log - 9)
// adjacent groups (runs of 128 bytes in blocks of 2^11, 64 in blocks of 2^10).
inline std::vector<uint32_t> split(uint32_t L, uint32_t block_log) {
    if (L <= block_log) return {L};
    uint32_t passes = 1 + (L - block_log + 8) / 9;
    uint32_t kn = L / passes < 9 ? L / passes : 9;
    std::vector<uint32_t> ks(passes - 1, kn);
    ks.push_back(L - (passes - 1) * kn);
    return ks;
}

// A pass (of split(L, block_log)) and its rounds, in the order the forward (DIF: top stage
// first) or reverse (DIT: bottom stage first) family runs them. Rounds are of reg_log stages
// (2 or 3), but for the topmost, which takes what is left, so that the bottom round (the one
// with the known twiddles) is a whole one.
inline pass_t make_pass(uint32_t L, uint32_t k, uint32_t m, bool dit, uint32_t reg_log, uint32_t block_log) {
    pass_t p{};
    p.L = L;
    p.k = k;
    p.m = m;
    p.log_g = L <= block_log ? 0 : block_log - k;
    p.log_r = m < p.log_g ? m : p.log_g;
    p.reg_log = reg_log;
    const uint32_t E_log = k + p.log_g;

    // Rounds bottom up.
    round_t bottom_up[MAX_ROUNDS];
    uint32_t n = 0;
    for (uint32_t s = 0; s < k; s += reg_log) {
        round_t rd{};
        rd.s = uint8_t(s);
        rd.r = uint8_t(k - s < reg_log ? k - s : reg_log);
        uint32_t b = 0;
        for (; b < rd.r; b++) rd.pos[b] = uint8_t(p.log_r + s + b);
        // Extra register bits: the highest e bits outside the round, then positions past E.
        uint32_t next = E_log;
        for (uint32_t cand = E_log; b < reg_log && cand-- > 0;) {
            if (cand >= p.log_r + s && cand < p.log_r + s + rd.r) continue;
            rd.pos[b++] = uint8_t(cand);
        }
        while (b < reg_log) rd.pos[b++] = uint8_t(next++);
        for (b = 0; b < reg_log; b++) rd.ascending[b] = rd.pos[b];
        std::sort(rd.ascending, rd.ascending + reg_log);
        bottom_up[n++] = rd;
    }
    p.rounds = n;
    for (uint32_t i = 0; i < n; i++) p.round[i] = dit ? bottom_up[i] : bottom_up[n - 1 - i];

    // Swizzle: in each round, the lanes above bit 4 stand in for the register bits below it,
    // one for one in order.
    for (uint32_t i = 0; i < n; i++) {
        const round_t& rd = p.round[i];
        auto is_reg = [&](uint32_t e_bit) {
            for (uint32_t b = 0; b < reg_log; b++)
                if (e_bit == rd.pos[b]) return true;
            return false;
        };
        uint32_t lane_bit = BANK_LOG;
        for (uint32_t d = 0; d < BANK_LOG; d++) {
            if (!is_reg(d) || d >= E_log) continue;
            while (lane_bit < E_log && is_reg(lane_bit)) lane_bit++;
            if (lane_bit >= E_log) break;
            p.swizzle[lane_bit - BANK_LOG] |= uint8_t(1u << d);
            lane_bit++;
        }
    }
    return p;
}

// The passes of a 2^L transform in the order they run: the forward family from the top bits
// down, the reverse family from the bottom bits up.
inline std::vector<pass_t> plan_passes(uint32_t L, bool dit, const pass_shape_t& shape) {
    const std::vector<uint32_t> ks = split(L, shape.block_log);
    std::vector<pass_t> passes;
    uint32_t m = L;
    for (uint32_t k : ks) {
        m -= k;
        passes.push_back(make_pass(L, k, m, dit, shape.reg_log, shape.block_log));
    }
    if (dit) std::reverse(passes.begin(), passes.end());
    return passes;
}

}  // namespace cuzk::ntt
