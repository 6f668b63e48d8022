// Step 4 of the Pippenger MSM (pippenger.cuh): each window's buckets reduced to sum_d d B_d by
// levels of running sums in segments.
// Templates over the group's XYZZ type, included by pippenger.cuh, and by host_combine.cuh
// for window_sum and rows_from_partials, which run on the host.
#pragma once

#include <cstddef>
#include <cstdint>

namespace cuzk::msm {

constexpr uint32_t SEG = 64;          // most elements per segment at the first level (the buckets)
constexpr uint32_t UPPER_SEG = 8;     // elements per segment at the levels above it, and fewest at the first
constexpr uint32_t MAX_LEVELS = 11;   // any count of buckets below 2^32: 8 or more, then at most ten of 8
// Threads the first level wants. Its chains are latency-bound: one dependent XYZZ addition
// takes about 13 us in a warp alone on its SM (Nsight Compute, H100, 2026-12-06), so 8192
// threads of 64 additions (2^19 buckets in segments of SEG, 2 warps an SM) took 0.96 ms. With
// 2^15 threads or more the SMs hold enough warps to overlap the chains.
constexpr uint32_t FIRST_LEVEL_THREADS = 1u << 15;

// Step 4 computes each window's sum_{j < half} (j + 1) B_j (bucket j holds digit j + 1) with
// running sums in levels, and no multiplication by a scalar. For elements E_0..E_{m-1} of a
// window (m a power of two), cut into segments u of L elements, j = u L + v:
//     F(E) = sum_j j E_j = sum_u Q_u + L F(S),   Q_u = sum_{v >= 1} R_{u,v},   S_u = R_{u,0},
// where R_{u,v} = sum_{v' >= v} E_{uL+v'} are the running sums from the segment's top. So a
// level writes each segment's running sums R_{u,v>=1} in place and S_u aside
// (running_sums_kernel), the row sum of the level over the window is Q = sum_u Q_u
// (reduce_rows_to), and the segment sums S are the next level's elements,
// until one is left per window: sum_j B_j. The window's sum is then
//     sum_j B_j + Q_0 + L_0 (Q_1 + L_1 (Q_2 + ...)),
// which window_sum evaluates by Horner's rule (L_k a power of two: doublings), on the host
// (msm/host_combine.cuh: a chain of about 25 operations a window, 0.37 ms of a sha 2^22
// proof's kernel time as a one-warp kernel). Every element costs two additions at each level
// (its running sum, and that added to Q_u), and the levels above the first are 1/64 of it.

// The most row sums the host's end of step 4 takes, (levels + 1) x windows (host_combine.cuh):
// at most 156 for windows of 4 bits or more (5 bits: 52 windows of 2 levels), which
// tests/reduction_emulator checks for every width.
constexpr uint32_t MAX_ROW_SUMS = 256;

// The segment lengths of step 4's levels, as powers of two, first level first.
struct level_shifts_t {
    uint32_t count;
    uint32_t log2_len[MAX_LEVELS];
};

// The first level's segment: the longest of UPPER_SEG to SEG elements (powers of two) that
// leaves FIRST_LEVEL_THREADS segments over `sets` windows of `half` buckets; longer segments
// mean fewer elements above, shorter ones more threads.
inline uint32_t first_segment(uint32_t half, uint32_t sets) {
    const uint64_t total = uint64_t(half) * (sets ? sets : 1);
    uint32_t seg = UPPER_SEG;
    while (seg < SEG && total / (2 * seg) >= FIRST_LEVEL_THREADS) seg *= 2;
    return seg;
}

// The levels for `sets` windows of `half` buckets (a power of two): segments of
// first_segment at the first level and of UPPER_SEG above it, shorter where fewer elements
// are left, until one is.
inline level_shifts_t reduction_levels(uint32_t half, uint32_t sets) {
    level_shifts_t levels{};
    const uint32_t first = first_segment(half, sets);
    for (uint32_t per = half; per > 1;) {
        const uint32_t seg = levels.count == 0 ? first : UPPER_SEG;
        const uint32_t len = seg < per ? seg : per;
        levels.log2_len[levels.count++] = uint32_t(__builtin_ctz(len));
        per /= len;
    }
    return levels;
}

// Window w's sum from the levels' row sums q[k * windows + w] (Q_k) and the last level's
// single element top[w] (the sum of all its buckets), by Horner's rule over the levels (see
// above); levels.count >= 1.
template <class X>
__host__ __device__ X window_sum(const X* q, const X* top, const level_shifts_t& levels, uint32_t windows, uint32_t w) {
    X acc = q[(levels.count - 1) * size_t(windows) + w];
    for (int k = int(levels.count) - 2; k >= 0; k--) {
        for (uint32_t i = 0; i < levels.log2_len[k]; i++) acc = acc.dbl();
        acc = acc.add(q[k * size_t(windows) + w]);
    }
    return acc.add(top[w]);
}

// The host's end of step 4 where the GPU leaves each level's row as a few partial sums a
// window (msm_device's q, host_combine.cuh's slot): q holds the last level's sums, one a window,
// then for each level k, level_sums[k] partial sums of its row a window, window by window.
// Sums those up into rows[k * windows + w] = Q_k of window w and copies the last level's sums
// after them, as window_sum takes them; returns where they start. `load(i)` gives q's i-th
// element (the host function copies it out of pinned memory, the emulator reads a vector);
// `rows` has room for (levels.count + 1) * windows elements.
template <class X, class Load>
X* rows_from_partials(Load load, const level_shifts_t& levels, const uint32_t* level_sums, uint32_t windows,
                      X* rows) {
    size_t at = 0;
    X* const top = rows + size_t(levels.count) * windows;
    for (uint32_t w = 0; w < windows; w++) top[w] = load(at++);
    for (uint32_t k = 0; k < levels.count; k++) {
        for (uint32_t w = 0; w < windows; w++) {
            X q = X::inf();
            for (uint32_t i = 0; i < level_sums[k]; i++) q = q.add(load(at++));
            rows[size_t(k) * windows + w] = q;
        }
    }
    return top;
}

// How many partial sums a window of each level's row msm_device leaves to the host
// (reduce_rows_to's keep) for `sets` windows of `level_count` levels, when the host's slot
// holds `capacity` elements: as many as fit, at most 64; 1 (the GPU sums the rows whole)
// where that is fewer than 16, as for the many windows of an MSM without shifted copies,
// whose rows would leave the host much work (windows x levels x keep additions) to spare few
// launches. The last launches of a row's tree are chains of dependent additions in a block or
// a few (50 to 180 us each for G1, Nsight Compute, H100, 2026-12-06); a CPU core adds up 64 G1
// accumulators in about 0.15 ms, off the GPU.
inline size_t level_row_keep(uint32_t level_count, uint32_t sets, size_t capacity) {
    const size_t rows = size_t(level_count) * sets;
    if (rows == 0 || capacity <= sets) return 1;
    const size_t keep = (capacity - sets) / rows < 64 ? (capacity - sets) / rows : 64;
    return keep >= 16 ? keep : 1;
}

// The most accumulators a row that a batch addition leaves to the host (its keep for
// reduce_rows_to; host_combine.cuh's sum_rows_on_host adds them up): 128 G1 additions take
// about 0.3 ms on a CPU core, 128 G2 ones about 1 ms, where the GPU launch they replace is a
// chain of 8 to 11 dependent additions in a few blocks (0.1 to 0.35 ms, the GPU idle meanwhile
// but for other streams).
constexpr size_t HOST_SUM_ROW = 128;

// Threads of a block of the row sums' tree (common.cu's block_sums_kernel).
constexpr uint32_t TREE_THREADS = 128;

// The elements each block of reduce_rows_to's next launch sums (a multiple of TREE_THREADS),
// for `groups` rows of `len` elements, len > keep >= 1. Below 2^20 elements in all the chains
// are latency-bound (one dependent XYZZ addition takes about 13 us for G1 and 50 us for G2 in
// a warp alone, Nsight Compute, H100, 2026-12-06), so a span is four elements a thread: each
// factor of two costs about 1.2 dependent additions (four strided, then the tree), where
// fan-in-4 chains of one thread an output cost two (and 65,536 batch-addition partials took
// four such launches and a row tail, 27 dependent additions, against 19 now). From 2^20 the
// launch is throughput-bound, and 32 elements a thread keep the tree's idle lanes rare.
// When a launch of such spans would already leave `keep` or fewer (keep > 1: the caller sums
// the rest on the host), the spans are the shortest that do, for the shortest chains.
inline size_t row_span(size_t groups, size_t len, size_t keep) {
    constexpr size_t NARROW = 4 * size_t(TREE_THREADS), WIDE = 32 * size_t(TREE_THREADS);
    constexpr size_t WIDE_FROM = size_t(1) << 20;
    if (keep > 1 && (len + NARROW - 1) / NARROW <= keep) {
        const size_t least = (len + keep - 1) / keep;
        return (least + TREE_THREADS - 1) / TREE_THREADS * TREE_THREADS;
    }
    return groups * len >= WIDE_FROM ? WIDE : NARROW;
}

namespace {

// One thread per segment of `len` elements, in place: element d >= 1 of the segment becomes
// R_d, element 0 becomes infinity, and R_0 (the segment's sum) goes to sums[t]; the level's
// row sum (reduce_rows_to over every element) is then Q. One accumulator a thread: half the
// registers of the form that also sums the running sums, and one chain of `len` additions,
// at the price of a write-back and a second pass over the level.
template <class X>
__global__ void __launch_bounds__(128) running_sums_kernel(X* elems, uint32_t len, size_t total_segments, X* sums) {
    const size_t t = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (t >= total_segments) return;
    X* b = elems + t * len;
    X running = X::inf();
    for (uint32_t d = len - 1; d > 0; d--) {
        running = running.add(b[d]);
        b[d] = running;
    }
    sums[t] = running.add(b[0]);
    b[0] = X::inf();
}

}  // namespace
}  // namespace cuzk::msm
