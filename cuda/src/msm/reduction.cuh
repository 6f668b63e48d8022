// Steps 4 and 5 of the Pippenger MSM (pippenger.cuh): each window's buckets reduced to
// sum_d d B_d by levels of running sums in segments, and the windows combined by Horner's rule.
// Templates over the group's XYZZ type, included by pippenger.cuh only.
#pragma once

#include <cstdint>

namespace cuzk::msm {
namespace {

constexpr uint32_t SEG = 64;          // elements per segment at the first level (the buckets)
constexpr uint32_t UPPER_SEG = 8;     // elements per segment at the levels above it
constexpr uint32_t MAX_LEVELS = 10;   // any count of buckets below 2^32: 64, then at most nine of 8

// Step 4 computes each window's sum_{j < half} (j + 1) B_j (bucket j holds digit j + 1) with
// running sums in levels, and no multiplication by a scalar. For elements E_0..E_{m-1} of a
// window (m a power of two), cut into segments u of L elements, j = u L + v:
//     F(E) = sum_j j E_j = sum_u Q_u + L F(S),   Q_u = sum_{v >= 1} R_{u,v},   S_u = R_{u,0},
// where R_{u,v} = sum_{v' >= v} E_{uL+v'} are the running sums from the segment's top. So a
// level computes each segment's S_u and Q_u (running_sums_kernel), their row sum over the
// window is Q = sum_u Q_u (reduce_rows), and the segment sums S are the next level's elements,
// until one is left per window: sum_j B_j. The window's sum is then
//     sum_j B_j + Q_0 + L_0 (Q_1 + L_1 (Q_2 + ...)),
// which window_sums_kernel evaluates by Horner's rule (L_k a power of two: doublings). Every
// element costs two additions at each level (its running sum, and that added to Q_u), and the
// levels above the first are 1/64 of it.

// One thread per segment of `len` >= 2 elements: sums[t] = S_u, the segment's sum, and
// rows[t] = Q_u, the sum of its running sums R_1 .. R_(len-1), both kept in registers, so that
// every element is read once and the row sum of a level runs over segments, not elements.
// Its cost: a chain of 2 len additions a thread, and for G2 more registers than there are
// (ptxas spills). The form that writes the running sums back in place and sums the whole
// row was faster at 2^22 and for G2's first level (docs/benchmarks.md, 2026-12-06);
// tools/msm-experiment/variants/reduction-in-place.patch keeps it.
template <class X>
__global__ void __launch_bounds__(128) running_sums_kernel(const X* elems, uint32_t len, size_t total_segments, X* sums,
                                                           X* rows) {
    const size_t t = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (t >= total_segments) return;
    const X* e = elems + t * len;
    X running = e[len - 1];  // R_(len-1)
    X q = running;
    for (uint32_t d = len - 2; d > 0; d--) {
        running = running.add(e[d]);
        q = q.add(running);
    }
    sums[t] = running.add(e[0]);
    rows[t] = q;
}

// The segment lengths of step 4's levels, as powers of two, first level first.
struct level_shifts_t {
    uint32_t count;
    uint32_t log2_len[MAX_LEVELS];
};

// The levels for `half` buckets a window (a power of two): segments of SEG at the first level
// and of UPPER_SEG above it, shorter where fewer elements are left, until one is.
inline level_shifts_t reduction_levels(uint32_t half) {
    level_shifts_t levels{};
    for (uint32_t per = half; per > 1;) {
        const uint32_t seg = levels.count == 0 ? SEG : UPPER_SEG;
        const uint32_t len = seg < per ? seg : per;
        levels.log2_len[levels.count++] = uint32_t(__builtin_ctz(len));
        per /= len;
    }
    return levels;
}

// Thread w: window w's sum from the levels' row sums q[k * windows + w] (Q_k) and the last
// level's single element top[w] (the sum of all its buckets), by Horner's rule over the
// levels (see above).
template <class X>
__global__ void window_sums_kernel(const X* q, const X* top, level_shifts_t levels, uint32_t windows, X* out) {
    const uint32_t w = blockIdx.x * blockDim.x + threadIdx.x;
    if (w >= windows) return;
    X acc = q[(levels.count - 1) * size_t(windows) + w];
    for (int k = int(levels.count) - 2; k >= 0; k--) {
        for (uint32_t i = 0; i < levels.log2_len[k]; i++) acc = acc.dbl();
        acc = acc.add(q[k * size_t(windows) + w]);
    }
    out[w] = acc.add(top[w]);
}

// Horner over the window sums, top window first; writes the Jacobian result. One thread:
// the c (W - 1) doublings are one dependent chain, so this kernel's time is their latency
// (for G2 at 2^24, 20-bit windows, 8.4 ms). The chain starts at the top window's sum, not at
// infinity, which would take c more doublings of nothing. num_windows >= 1.
template <class X>
__global__ void combine_kernel(const X* windows, uint32_t num_windows, uint32_t c, typename X::jacobian_t* out) {
    if (blockIdx.x != 0 || threadIdx.x != 0) return;
    X acc = windows[num_windows - 1];
    for (int w = int(num_windows) - 2; w >= 0; w--) {
        for (uint32_t i = 0; i < c; i++) acc = acc.dbl();
        acc = acc.add(windows[w]);
    }
    *out = acc.to_jacobian();
}

}  // namespace
}  // namespace cuzk::msm
