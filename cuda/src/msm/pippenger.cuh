// Pippenger multi-scalar multiplication on the GPU, as templates over the group (g1_t, g2_t):
// instantiated for G1 in msm_g1.cu and for G2 in msm_g2.cu, which hold the C entry points (two
// files, so that the compiler builds the two groups' kernels in parallel).
//
// Signed digits (msm/digits.cuh): with windows of c bits and H = 2^(c-1), every scalar is
// rewritten as
//     s = sum_w d_w 2^(cw),   d_w in [-(H - 1), H],
// by taking each window's c bits plus the carry from below and, when that exceeds H,
// subtracting 2^c and carrying one into the next window. Then
//     sum_i s_i P_i = sum_w 2^(cw) sum_{d=1}^{H} d * B_{w,d},   B_{w,d} = sum_{i: |d_{i,w}|=d} sign * P_i,
// so each window has H buckets instead of 2^c - 1 (the bucket reduction halves) and a
// negative digit costs only the negation of the point's y. Scalars are below r < 2^255, so
// ceil(256 / c) windows always absorb the last carry. Those windows cover up to c - 1 bits
// more than the 256 needed, so without shifted copies the first few are one bit narrower
// (digits::layout_t::balanced; 22 bits: 8 of 21 and 4 of 22), with half the buckets in use:
// the same additions, a smaller reduction.
//
// Steps, all on `stream` (step 1's kernels are here, steps 2 and 3's in msm/bucket_sums.cuh,
// step 4's in msm/reduction.cuh, step 5's in msm/host_combine.cuh; msm_device below runs them
// in turn):
//   1. once, every scalar made canonical and its carries between windows (canonical_kernel);
//      then per window: each scalar's digit as a sort key |d|, and the point index with the
//      sign in bit 31 as the value; CUB's radix sort on the c key bits groups
//      every bucket's points; a binary search per digit records where each digit's run ends
//      (run_end, nondecreasing, so a run's start is its predecessor's end);
//   2. bucket sums (all windows at once): each window's sorted points are cut into chunks of
//      CHUNK consecutive entries, whatever the buckets; a light kernel finds the digit at
//      each chunk's start, and one thread per chunk adds its
//      points with mixed additions into an XYZZ accumulator, closing the accumulator at every
//      bucket boundary. A bucket whose run lies inside one chunk is complete there and written
//      straight to its slot; a run that crosses a chunk boundary leaves one partial sum in
//      each chunk it touches (the chunk's "head" when the run began before the chunk, its
//      "tail" when the run continues after it). Every thread does CHUNK additions, so a warp
//      never waits for its longest bucket, however the scalars fall into buckets;
//   3. the partial sums: a crossing bucket's partials are one contiguous range (heads and
//      tails are interleaved, and a chunk inside the run has an empty tail); the crossing
//      buckets are listed (one at most begins in each chunk), one thread per listed bucket sums
//      its partials when there are at most PIECE, and the others are summed in groups of
//      PIECE, one thread per group, round after round, each bucket completed as soon as it has
//      at most PIECE left (a tree of fan-in PIECE: many equal scalars make one bucket span
//      every chunk);
//   4. bucket reduction: sum_d d B_d per window by levels of running sums (msm/reduction.cuh):
//      the buckets are cut into segments of 8 to 64 (as many threads as keep the SMs busy),
//      one thread per segment sums its running sums, the segments' sums are the next level's
//      elements (segments of UPPER_SEG), and so on up to one element a window; each level's
//      row sum, weighted by Horner's rule over the levels (doublings), gives the window's sum
//      (on the host, with step 5);
//   5. a CPU core forms the window sums from the levels' row sums and combines the windows by
//      Horner's rule (c doublings, one addition per window) in a host function on the stream,
//      and the result, in blst's Jacobian form, is copied to the caller's device pointer
//      (msm/host_combine.cuh).
// No thread adds more than CHUNK points or PIECE partials, whatever the distribution of the
// scalars.
//
// Shifted copies of the bases (msm_device's `copies` = k > 1, made by shift_bases): with
// P_{j,i} = 2^(c j) P_i for j < k, windows s k + j (j < k) share set s of buckets, since
//     sum_j 2^(c (s k + j)) d_{i,sk+j} P_i = 2^(c k s) sum_j d_{i,sk+j} P_{j,i}.
// Each set is sorted, summed and reduced as one window of k n entries, and the sets are
// combined with shifts of c k bits: the same additions, but the bucket reduction once a set
// instead of once a window, which lets wider windows (fewer additions) pay at sizes where
// the plan keeps them narrow (msmexp on the H100, 2026-12-06: 2^22 33.9 ms at the planned 16
// bits, 29.3 over 13 copies at 20 bits; 2^24 108.9 and 98.2 over 12 copies at 22 bits).
//
// Window size: the plan (plan_windows) weighs the n additions per window against the
// reduction's 2^(c-1) buckets per window, up to 22 bits (three 8-bit radix passes); any window
// from 4 to 22 bits can be forced, for tests and for the comparisons that keep the plan honest.
// Each stage's buffers are freed, stream-ordered, as soon as the next stage no longer needs
// them, so the scratch peak is the largest stage, not their sum.
#pragma once

#include <cub/cub.cuh>

#include <algorithm>
#include <cstdint>

#include "cuzk/msm.h"
#include "msm/bucket_sums.cuh"
#include "msm/digits.cuh"
#include "msm/host_combine.cuh"
#include "msm/msm.cuh"
#include "msm/reduction.cuh"
#include "msm/shift_bases.cuh"

namespace cuzk::msm {

// The widest window the plan takes. While each bucket was summed by its own threads, windows
// wider than 16 bits were slower at every size (bench_msm --windows on the H200, 2026-12-04:
// 2^26 530.7 ms at 16 bits, 628.6 at 22): with millions of buckets the runs were short and
// uneven, and warps waited for their longest one. With chunks of equal length (step 2) the
// bucket sums of 2^26 points took 469 ms at 16 bits, 413 at 20 and 395 at 22 (the same day,
// later), so the plan weighs the whole range; at 22 bits the reduction of 25 M buckets
// (51 ms then, 34 ms since) took most of the gain at 2^26; the plan takes 20 bits for 2^24
// and 2^25 points and 22 from 2^26 (msmexp on an H100, 2026-12-07: 2^26 394.0 ms at 22 bits
// against 404.0 at 20; 2^25 206.3 at 20 against 217.2 at 22) and so for the H MSM of a
// 32 GiB PoRep or WindowPoSt partition (2^27).
constexpr uint32_t PLAN_MAX_WINDOW = MAX_WINDOW;
static_assert(fr_t::N == digits::LIMBS, "digits.cuh reads eight 32-bit limbs");

namespace {

// Once per MSM: every scalar in canonical form, limb-major (limb k of scalar i at
// limbs[k * n + i], so that each window's digit_kernel reads its one or two limbs coalesced),
// and its carries between windows (digits::carries: bit w set when window w receives one).
// Converting and carrying once, instead of in every window's pass, took the digits of 2^24
// scalars in 13 windows from 5.5 ms to about 2.2 (ncu, H100, 2026-12-05).
__global__ void canonical_kernel(const fr_t* scalars, size_t n, digits::layout_t layout, uint32_t* limbs,
                                 uint64_t* carries) {
    const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (i >= n) return;
    const fr_t canon = scalars[i].to_canonical();
#pragma unroll
    for (int k = 0; k < fr_t::N; k++) limbs[k * n + i] = canon.l[k];
    carries[i] = digits::carries([&](uint32_t k) { return canon.l[k]; }, layout);
}

// For window w: keys[i] = |d_{i,w}|, vals[i] = (base + i) | (sign bit if d_{i,w} < 0), from
// canonical_kernel's limbs and carries; base is where the window's copy of the bases begins
// (j n for copy j, see msm_device). A window at or past `windows` (a last set with fewer
// windows than copies) gives digit 0 everywhere, which no bucket takes.
__global__ void digit_kernel(const uint32_t* limbs, const uint64_t* carries, size_t n, uint32_t w,
                             digits::layout_t layout, uint32_t base, uint32_t* keys, uint32_t* vals) {
    const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (i >= n) return;
    if (w >= layout.windows) {
        keys[i] = 0;
        vals[i] = base + uint32_t(i);
        return;
    }
    const uint32_t c = layout.width(w);
    const uint32_t bits = digits::window_bits([&](uint32_t k) { return limbs[k * n + i]; }, layout.offset(w), c);
    const digits::digit_t d = digits::signed_digit(bits, uint32_t(carries[i] >> w) & 1, c);
    keys[i] = d.magnitude;
    vals[i] = (base + uint32_t(i)) | (d.negative ? SIGN_BIT : 0);
}

// run_end[d] = the number of sorted keys <= d, for every digit d <= half: where digit d's run
// ends (and digit d + 1's begins). One thread per digit, a binary search each, so empty runs
// need no special case and run_end is nondecreasing with run_end[half] = n.
__global__ void run_end_kernel(const uint32_t* sorted_keys, size_t n, uint32_t half, uint32_t* run_end) {
    const size_t d = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (d > half) return;
    size_t lo = 0, hi = n;  // the first index whose key exceeds d lies in [lo, hi]
    while (lo < hi) {
        const size_t mid = (lo + hi) / 2;
        if (sorted_keys[mid] <= d) lo = mid + 1; else hi = mid;
    }
    run_end[d] = uint32_t(lo);
}

}  // namespace

// Chunks of CHUNK sorted entries per window, and the partial sums they leave (a head and a
// tail each).
inline size_t chunks_per_window(size_t n) { return (n + CHUNK - 1) / CHUNK; }

// An upper bound of the groups the next round of step 3 makes from `level` partials: only
// buckets with more than PIECE partials get groups, ceil(count / PIECE) <= count / PIECE + 1
// each, and there are fewer than level / (PIECE + 1) + 1 of them.
inline size_t next_level(size_t level) { return level / PIECE + level / (PIECE + 1) + 1; }

// The most scratch memory msm_device holds at once. It frees each stage's buffers once the
// next stage no longer needs them, so the peak is the largest stage, not the sum: with wide
// windows (millions of buckets) the buckets themselves dominate, which chunk_kernel writes
// and the later stages keep.
template <class G>
size_t msm_scratch_bytes(size_t points, uint32_t window_bits, uint32_t copies) {
    using xyzz_t = typename G::xyzz;
    if (points == 0) return 0;
    const window_plan_t plan = window_bits ? plan_of_bits(window_bits) : plan_windows(points);
    // As msm_device counts: sets of `copies` windows over n = copies * points entries each.
    copies = std::max(copies, 1u);
    const size_t n = points * copies;
    const size_t c = plan.bits, w = (plan.windows + copies - 1) / copies, half = size_t(1) << (c - 1);
    const size_t buckets = w * half, x = sizeof(xyzz_t);
    size_t sort_bytes = 0, scan_bytes = 0;
    CUZK_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, static_cast<uint32_t*>(nullptr),
                                                    static_cast<uint32_t*>(nullptr), static_cast<uint32_t*>(nullptr),
                                                    static_cast<uint32_t*>(nullptr), int(n), 0, int(c)));
    CUZK_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, static_cast<uint32_t*>(nullptr),
                                                  static_cast<uint32_t*>(nullptr), int(buckets)));
    const size_t runs = w * (half + 1) * 4;           // run ends
    const size_t sorted_vals = n * w * 4;             // every window's sorted values
    const size_t counts = 2 * buckets * 4 + scan_bytes;  // partial counts, offsets, scan temp
    const size_t chunks = w * chunks_per_window(n);   // every window's chunks
    size_t level = 2 * chunks;                         // heads and tails
    size_t select_bytes = 0;
    CUZK_CUDA_CHECK(cub::DeviceSelect::If(nullptr, select_bytes, static_cast<uint32_t*>(nullptr),
                                          static_cast<uint32_t*>(nullptr), static_cast<uint32_t*>(nullptr),
                                          int(chunks), names_bucket_t{}));
    // The crossing bucket each chunk begins, the list of them, and the selection's temp.
    const size_t firsts = 2 * chunks * 4 + select_bytes + 4;
    // 1. digits and sorts: canonical limbs and carries, keys, values, sorted keys, the sort's
    //    temp, the sorted values, runs.
    size_t peak = points * (sizeof(fr_t) + 8) + 3 * n * 4 + sort_bytes + sorted_vals + runs;
    // 2. chunk sums: the sorted values, runs, each chunk's first digit, buckets and partials;
    //    then the counts and the crossing buckets' first chunks.
    peak = std::max(peak, sorted_vals + runs + chunks * 4 + (buckets + level) * x);
    peak = std::max(peak, runs + counts + firsts + (buckets + level) * x);
    // 3. rounds of groups (see msm_device): each level beside the one it is made from, and a
    //    second pair of count and offset arrays.
    size_t group_counts = 0;
    for (size_t most = 2 * chunks_per_window(n); most > PIECE; most = (most + PIECE - 1) / PIECE) {
        group_counts = 2 * buckets * 4;
        const size_t next = next_level(level);
        peak = std::max(peak, runs + counts + group_counts + (buckets + level + next) * x);
        level = next;
    }
    // 4. reduction, its first level (the largest): the buckets, the segments' sums S and Q,
    //    the row sums' two scratch buffers (fan-in 4 or more: fewer elements together than
    //    there are segments; four segments' worth counted in all, one as margin), and each
    //    level's row sums and the window sums (one a window each).
    const level_shifts_t levels = reduction_levels(uint32_t(half), uint32_t(w));
    const size_t segments = buckets >> levels.log2_len[0];
    peak = std::max(peak, (buckets + 4 * segments + (levels.count + 1) * w) * x);
    return peak + (size_t(32) << 20);  // pool rounding of about 16 allocations
}

template <class G>
void msm_device(const typename G::affine* d_points, const fr_t* d_scalars, size_t n, typename G::jacobian* d_out,
                cudaStream_t stream, msm_profile_t* profile, uint32_t window_bits, cudaStream_t tail,
                uint32_t copies) {
    using xyzz_t = typename G::xyzz;
    using jacobian_t = typename G::jacobian;
    CUZK_REQUIRE(d_out != nullptr, "msm: null output");
    CUZK_REQUIRE(window_bits == 0 || (window_bits >= MIN_WINDOW && window_bits <= MAX_WINDOW),
                 "msm: window bits must be 0 (planned) or in [4, 22]");
    if (profile) profile->begin.record(stream);
    if (n == 0) {
        // The empty sum: blst's identity is all zeros.
        CUZK_CUDA_CHECK(cudaMemsetAsync(d_out, 0, sizeof(jacobian_t), stream));
        if (profile) {
            profile->sorted.record(stream);
            profile->summed.record(stream);
            profile->done.record(stream);
        }
        return;
    }
    CUZK_REQUIRE(d_points != nullptr && d_scalars != nullptr, "msm: null input");
    require_copies(window_bits, copies);

    const window_plan_t plan = window_bits ? plan_of_bits(window_bits) : plan_windows(n);
    const uint32_t c = plan.bits, num_windows = plan.windows, half = 1u << (c - 1);
    // With `copies` shifted copies of the bases, windows j of each run of `copies` share one
    // set of buckets: digit d of window s copies + j for point i adds 2^(c j) P_i, entry
    // j n + i of the bases, into bucket d of set s. From here on a "window" is a set, with
    // m = copies n entries, whose sums are combined with shifts of c copies bits. Without
    // copies the windows are balanced (msm/digits.cuh): some a bit narrower, their buckets'
    // upper half empty, which the reduction passes over without additions.
    const digits::layout_t layout = copies > 1 ? digits::layout_t::uniform(c) : digits::layout_t::balanced(c);
    const uint32_t sets = (num_windows + copies - 1) / copies;
    const size_t m = size_t(copies) * n;
    CUZK_REQUIRE(m <= size_t(INT32_MAX), "msm: more than 2^31 - 1 points with their copies");
    const size_t slots = size_t(sets) * (half + 1);       // keys 0..half per set
    const size_t total_buckets = size_t(sets) * half;     // digits 1..half per set
    constexpr unsigned T = 256;

    dev_ptr_t<uint32_t> keys(m, stream), vals(m, stream), sorted_keys(m, stream);
    dev_ptr_t<uint32_t> sorted_vals(m * sets, stream);
    dev_ptr_t<uint32_t> run_end(slots, stream);

    size_t temp_bytes = 0;
    CUZK_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, keys.get(), sorted_keys.get(), vals.get(),
                                                    sorted_vals.get(), int(m), 0, int(c), stream));
    dev_ptr_t<uint8_t> temp(std::max<size_t>(temp_bytes, 1), stream);

    dev_ptr_t<uint32_t> limbs(size_t(fr_t::N) * n, stream);
    dev_ptr_t<uint64_t> carries(n, stream);
    canonical_kernel<<<blocks_for(n, T), T, 0, stream>>>(d_scalars, n, layout, limbs, carries);
    CUZK_LAUNCH_CHECK();
    for (uint32_t set = 0; set < sets; set++) {
        for (uint32_t j = 0; j < copies; j++) {
            digit_kernel<<<blocks_for(n, T), T, 0, stream>>>(limbs, carries, n, set * copies + j, layout,
                                                             uint32_t(j * n), keys.get() + j * n, vals.get() + j * n);
            CUZK_LAUNCH_CHECK();
        }
        size_t bytes = temp_bytes;
        CUZK_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp.get(), bytes, keys.get(), sorted_keys.get(), vals.get(),
                                                        sorted_vals.get() + set * m, int(m), 0, int(c), stream));
        run_end_kernel<<<blocks_for(half + 1, T), T, 0, stream>>>(sorted_keys, m, half,
                                                                   run_end.get() + set * (half + 1));
        CUZK_LAUNCH_CHECK();
    }
    if (profile) profile->sorted.record(stream);
    limbs.release();
    carries.release();
    keys.release();
    vals.release();
    sorted_keys.release();
    temp.release();

    // Step 2: every chunk's points, into the buckets they complete and the partials of the
    // buckets that cross chunk boundaries.
    const size_t per_window = chunks_per_window(m), total_chunks = sets * per_window;
    dev_ptr_t<xyzz_t> buckets(total_buckets, stream);
    dev_ptr_t<xyzz_t> pieces(2 * total_chunks, stream);
    {
        dev_ptr_t<uint32_t> first_digit(total_chunks, stream);
        first_digit_kernel<<<blocks_for(total_chunks, T), T, 0, stream>>>(run_end, half, per_window, total_chunks,
                                                                          first_digit);
        CUZK_LAUNCH_CHECK();
        chunk_kernel<G><<<blocks_for(total_chunks, CHUNK_THREADS), CHUNK_THREADS, 0, stream>>>(
            d_points, sorted_vals, m, run_end, first_digit, half, per_window, total_chunks, buckets, pieces);
        CUZK_LAUNCH_CHECK();
    }
    sorted_vals.release();

    // Step 3: the crossing buckets' partials. Buckets with at most PIECE are summed at once;
    // a bucket may span every chunk of its window (2 * per_window partials, when all n digits
    // are equal), so the others are grouped by PIECE, round after round, each round's groups
    // again summed at once where at most PIECE are left. The bound on the rounds is known
    // here, the real counts only on the device: with random scalars every crossing bucket is
    // done before the first round, whose kernels then find nothing to do.
    dev_ptr_t<uint32_t> count(total_buckets, stream), offset(total_buckets, stream);
    dev_ptr_t<uint32_t> first_crossing(total_chunks, stream);
    CUZK_CUDA_CHECK(cudaMemsetAsync(first_crossing.get(), 0xff, total_chunks * sizeof(uint32_t), stream));  // NO_BUCKET
    crossing_kernel<xyzz_t><<<blocks_for(total_buckets, T), T, 0, stream>>>(run_end, half, per_window, total_buckets,
                                                                            count, offset, buckets, first_crossing);
    CUZK_LAUNCH_CHECK();
    dev_ptr_t<uint32_t> group_count, group_offset;
    dev_ptr_t<uint8_t> scan_temp;
    size_t most = 2 * per_window, level_size = 2 * total_chunks, scan_bytes = 0;
    {
        dev_ptr_t<uint32_t> crossing(total_chunks, stream), listed(1, stream);
        size_t select_bytes = 0;
        CUZK_CUDA_CHECK(cub::DeviceSelect::If(nullptr, select_bytes, first_crossing.get(), crossing.get(), listed.get(),
                                              int(total_chunks), names_bucket_t{}, stream));
        dev_ptr_t<uint8_t> select_temp(std::max<size_t>(select_bytes, 1), stream);
        CUZK_CUDA_CHECK(cub::DeviceSelect::If(select_temp.get(), select_bytes, first_crossing.get(), crossing.get(),
                                              listed.get(), int(total_chunks), names_bucket_t{}, stream));
        first_crossing.release();
        finish_crossing_kernel<xyzz_t><<<blocks_for(total_chunks, 128), 128, 0, stream>>>(pieces, count, offset,
                                                                                          crossing, listed, buckets);
        CUZK_LAUNCH_CHECK();
    }
    if (most > PIECE) {
        group_count = dev_ptr_t<uint32_t>(total_buckets, stream);
        group_offset = dev_ptr_t<uint32_t>(total_buckets, stream);
        CUZK_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, group_count.get(), group_offset.get(),
                                                      int(total_buckets), stream));
        scan_temp = dev_ptr_t<uint8_t>(std::max<size_t>(scan_bytes, 1), stream);
    }
    for (; most > PIECE; most = (most + PIECE - 1) / PIECE) {
        group_count_kernel<<<blocks_for(total_buckets, T), T, 0, stream>>>(count, total_buckets, group_count);
        CUZK_LAUNCH_CHECK();
        CUZK_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(scan_temp.get(), scan_bytes, group_count.get(),
                                                      group_offset.get(), int(total_buckets), stream));
        level_size = next_level(level_size);
        dev_ptr_t<xyzz_t> next(level_size, stream);
        regroup_kernel<xyzz_t><<<blocks_for(level_size, 128), 128, 0, stream>>>(
            pieces, count, offset, group_count, group_offset, total_buckets, next);
        CUZK_LAUNCH_CHECK();
        pieces = std::move(next);
        std::swap(count, group_count);
        std::swap(offset, group_offset);
        finish_kernel<xyzz_t><<<blocks_for(total_buckets, 128), 128, 0, stream>>>(pieces, count, offset,
                                                                                  total_buckets, buckets);
        CUZK_LAUNCH_CHECK();
    }
    pieces.release();
    count.release();
    offset.release();
    group_count.release();
    group_offset.release();
    scan_temp.release();
    run_end.release();
    if (profile) profile->summed.record(stream);

    // Step 4: levels of running sums (msm/reduction.cuh), from the buckets up to one element
    // a window. q holds, for the host, the last level's segment sums (one a window: its
    // buckets' sum) and then each level's row, summed down to at most `keep` partial sums a
    // window (level_row_keep), which the host adds up to Q_k.
    const level_shifts_t levels = reduction_levels(half, sets);
    const size_t keep = level_row_keep<typename G::host_xyzz>(levels.count, sets);
    dev_ptr_t<xyzz_t> q(size_t(sets) * (1 + levels.count * keep), stream);
    uint32_t level_sums[MAX_LEVELS] = {};
    size_t q_at = sets;  // after the last level's sums
    dev_ptr_t<xyzz_t> scratch_a, scratch_b;
    dev_ptr_t<xyzz_t> level = std::move(buckets);
    size_t per = half;  // elements a window at this level
    for (uint32_t k = 0; k < levels.count; k++) {
        const uint32_t len = 1u << levels.log2_len[k];
        const size_t segments = sets * (per / len);
        const bool top = k + 1 == levels.count;  // its sums (one a window) go to q's first row
        dev_ptr_t<xyzz_t> sums(top ? 0 : segments, stream);
        xyzz_t* const sums_at = top ? q.get() : sums.get();
        running_sums_kernel<xyzz_t><<<blocks_for(segments, 128), 128, 0, stream>>>(level, len, segments, sums_at);
        CUZK_LAUNCH_CHECK();
        size_t kept = 0;
        const xyzz_t* row = reduce_rows_to<xyzz_t>(level, sets, per, keep, scratch_a, scratch_b, stream, &kept);
        CUZK_CUDA_CHECK(cudaMemcpyAsync(q.get() + q_at, row, sets * kept * sizeof(xyzz_t), cudaMemcpyDeviceToDevice,
                                        stream));
        level_sums[k] = uint32_t(kept);
        q_at += sets * kept;
        level = std::move(sums);
        per /= len;
    }
    scratch_a.release();
    scratch_b.release();
    level.release();

    // The window sums and step 5, on a CPU core (msm/host_combine.cuh), go on the tail stream
    // when there is one (see last_step_stream), which frees q there.
    const cudaStream_t last = last_step_stream(stream, tail);
    q.free_on(last);
    // The sets as windows: shifts of c copies bits over copies (whose layout has no narrow
    // windows), the layout itself without.
    const digits::layout_t sets_layout{c * copies, sets, layout.narrow};
    combine_on_host<G>(q, levels, level_sums, sets_layout, d_out, last);
    if (profile) profile->done.record(last);
}

// The host-pointer MSM of group G: copy in, compute, copy the result out (`window_bits` and
// `copies` as msm_device's; the copies are made here from the n points given).
template <class G>
void msm_host(const void* points, const cuzk_fr_t* scalars, size_t n, void* out, uint32_t window_bits = 0,
              uint32_t copies = 1) {
    using affine = typename G::affine;
    using jacobian = typename G::jacobian;
    CUZK_REQUIRE(out != nullptr, "msm: null output");
    CUZK_REQUIRE(n == 0 || (points != nullptr && scalars != nullptr), "msm: null input");
    require_copies(window_bits, copies);
    stream_t s;
    dev_ptr_t<affine> d_points(copies * n, s);
    dev_ptr_t<fr_t> d_scalars(n, s);
    dev_ptr_t<jacobian> d_out(1, s);
    if (n) {
        CUZK_CUDA_CHECK(cudaMemcpyAsync(d_points, points, n * sizeof(affine), cudaMemcpyHostToDevice, s));
        CUZK_CUDA_CHECK(cudaMemcpyAsync(d_scalars, scalars, n * sizeof(fr_t), cudaMemcpyHostToDevice, s));
    }
    shift_bases<G>(d_points, n, window_bits, copies, s);
    msm_device<G>(d_points, d_scalars, n, d_out, s, nullptr, window_bits, nullptr, copies);
    CUZK_CUDA_CHECK(cudaMemcpyAsync(out, d_out, sizeof(jacobian), cudaMemcpyDeviceToHost, s));
    s.sync();
}

}  // namespace cuzk::msm
