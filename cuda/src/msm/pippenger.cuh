// Pippenger multi-scalar multiplication on the GPU, as templates over the group (g1_t, g2_t):
// instantiated for G1 in msm_g1.cu and for G2 in msm_g2.cu, which hold the C entry points (two
// files, so that the compiler builds the two groups' kernels in parallel).
//
// Signed digits: with windows of c bits and H = 2^(c-1), every scalar is rewritten as
//     s = sum_w d_w 2^(cw),   d_w in [-(H - 1), H],
// by taking each window's c bits plus the carry from below and, when that exceeds H,
// subtracting 2^c and carrying one into the next window. Then
//     sum_i s_i P_i = sum_w 2^(cw) sum_{d=1}^{H} d * B_{w,d},   B_{w,d} = sum_{i: |d_{i,w}|=d} sign * P_i,
// so each window has H buckets instead of 2^c - 1 (the bucket reduction halves) and a
// negative digit costs only the negation of the point's y. Scalars are below r < 2^255, so
// ceil(256 / c) windows always absorb the last carry.
//
// Steps, all on `stream`:
//   1. per window: each scalar's digit (from its Montgomery form, made canonical in registers,
//      with the carry chain recomputed up to the window) as a sort key |d|, and the point
//      index with the sign in bit 31 as the value; CUB's radix sort on the c key bits groups
//      every bucket's points; the start and end of every bucket's run are recorded;
//   2. bucket sums (all windows at once): each bucket's run is cut into pieces of at most
//      PIECE points, one thread per piece sums it with mixed additions into an XYZZ
//      accumulator; while a bucket may still have more than PIECE pieces, its pieces are
//      summed in groups of PIECE, one thread per group (a tree of fan-in PIECE); then one
//      thread per bucket adds its at most PIECE pieces;
//   3. bucket reduction: each window's buckets are split into segments of SEG buckets; one
//      thread per segment forms sum d B_d over its segment by running sums and one small
//      multiple; the segment results are summed per window;
//   4. one thread combines the windows by Horner's rule (c doublings, one addition per window)
//      and writes blst's Jacobian form.
// The pieces and their groups keep a bucket holding a large share of the points (many equal
// scalars) from serializing on one thread: no thread adds more than PIECE terms, whatever the
// distribution of the scalars.
//
// Window size: the plan (plan_windows) weighs the n additions per window against the
// reduction's 2^(c-1) buckets per window, up to 16 bits; windows up to 22 bits (three 8-bit
// radix passes) can be forced, for tests and for the comparisons that keep the plan honest.
// Each stage's buffers are freed, stream-ordered, as soon as the next stage no longer needs
// them, so the scratch peak is the largest stage, not their sum.
#pragma once

#include <cub/cub.cuh>

#include <algorithm>
#include <cstdint>

#include "cuzk/msm.h"
#include "msm/msm.cuh"

namespace cuzk::msm {

constexpr uint32_t SCALAR_BITS = 256;  // r < 2^255, plus one bit for the last signed carry
constexpr uint32_t MIN_WINDOW = 4;
constexpr uint32_t MAX_WINDOW = 22;    // sort keys of at most 22 bits (three radix-sort passes)
// The widest window the plan takes. Wider ones (up to MAX_WINDOW, forced by tests and
// benchmarks) do fewer additions but were slower at every size measured on the H200
// (2026-12-04, bench_msm --windows: 2^24 143.8 ms at 16 bits, 172.4 at 20; 2^26 530.7 at 16,
// 526.3 at 18, 628.6 at 22): with millions of buckets the pieces are short, the rounds of
// groups copy every bucket and the reduction grows, so each addition costs more.
constexpr uint32_t PLAN_MAX_WINDOW = 16;
constexpr uint32_t SIGN_BIT = 0x80000000u;

namespace {

constexpr uint32_t SEG = 64;    // buckets per reduction segment
constexpr uint32_t PIECE = 64;  // most points one thread sums into a bucket

// Bits [bit, bit + c) of a canonical scalar (bit % 32 + c <= 31 + MAX_WINDOW < 64, so at most
// two 32-bit limbs; bits at or above 256 read as zeros).
__device__ __forceinline__ uint32_t window_of(const fr_t& canon, uint32_t bit, uint32_t c) {
    const uint32_t limb = bit / 32, sh = bit % 32;
    if (limb >= uint32_t(fr_t::N)) return 0;
    uint64_t v = canon.l[limb];
    if (limb + 1 < uint32_t(fr_t::N)) v |= uint64_t(canon.l[limb + 1]) << 32;
    return uint32_t(v >> sh) & ((1u << c) - 1);
}

// For window w: keys[i] = |d_{i,w}|, vals[i] = i | (sign bit if d_{i,w} < 0). The carry into
// window w is recomputed from window 0 (a few integer operations per window), so no
// per-scalar state is kept between the windows' sorts.
__global__ void digit_kernel(const fr_t* scalars, size_t n, uint32_t w, uint32_t c, uint32_t* keys, uint32_t* vals) {
    const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (i >= n) return;
    const fr_t canon = scalars[i].to_canonical();
    const uint32_t half = 1u << (c - 1);
    uint32_t carry = 0;
    for (uint32_t k = 0; k < w; k++) carry = window_of(canon, k * c, c) + carry > half;
    const uint32_t v = window_of(canon, w * c, c) + carry;
    const bool neg = v > half;
    keys[i] = neg ? (1u << c) - v : v;
    vals[i] = uint32_t(i) | (neg ? SIGN_BIT : 0);
}

// Records where each key's run starts and ends in the sorted keys (keys with no run keep the
// zeros they were cleared to, i.e. empty).
__global__ void bounds_kernel(const uint32_t* keys, size_t n, uint32_t* start, uint32_t* end) {
    const size_t j = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (j >= n) return;
    const uint32_t k = keys[j];
    if (j == 0 || keys[j - 1] != k) start[k] = uint32_t(j);
    if (j + 1 == n || keys[j + 1] != k) end[k] = uint32_t(j + 1);
}

// Bucket t (0 <= t < windows * half) is digit t % half + 1 of window t / half; its run is key
// slot window * (half + 1) + digit of start/end (slot 0 of every window holds the zero digits,
// which contribute nothing and get no bucket).
__device__ __forceinline__ size_t slot_of(size_t t, uint32_t half) {
    return (t / half) * (half + 1) + t % half + 1;
}

// The bucket whose first piece (or group) is the last one at or below p, among buckets
// 0..total (buckets with none share their successor's offset and are skipped).
__device__ __forceinline__ size_t owner_of(const uint32_t* offset, size_t total, size_t p) {
    size_t lo = 0, hi = total;  // first index with offset > p lies in (lo, hi]
    while (hi - lo > 1) {
        const size_t mid = (lo + hi) / 2;
        if (offset[mid] <= p) lo = mid; else hi = mid;
    }
    return lo;
}

// Bucket sums are split into pieces of at most PIECE points, so that a bucket holding many
// points (equal scalars) is spread over many threads instead of one: count_kernel gives each
// bucket's piece count, an exclusive scan gives each bucket's first piece, piece_kernel sums
// one piece per thread by mixed additions, and bucket_kernel adds up each bucket's pieces.
__global__ void count_kernel(const uint32_t* start, const uint32_t* end, uint32_t half, size_t total,
                             uint32_t* count) {
    const size_t t = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (t >= total) return;
    const size_t slot = slot_of(t, half);
    count[t] = (end[slot] - start[slot] + PIECE - 1) / PIECE;
}

// Thread p handles piece p; its bucket is the last one whose first piece is <= p (buckets
// with no pieces share their successor's offset and are skipped by this search). Threads
// past the total (launched for the upper bound, so that no count returns to the host) exit.
template <class G>
__global__ void __launch_bounds__(128) piece_kernel(const typename G::affine* __restrict__ points,
                                                    const uint32_t* __restrict__ sorted_vals, size_t n,
                                                    const uint32_t* start, const uint32_t* end, const uint32_t* count,
                                                    const uint32_t* offset, uint32_t half, size_t total_buckets,
                                                    typename G::xyzz* pieces) {
    using xyzz_t = typename G::xyzz;
    using affine_t = typename G::affine;
    const size_t p = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    const size_t total_pieces = size_t(offset[total_buckets - 1]) + count[total_buckets - 1];
    if (p >= total_pieces) return;
    const size_t t = owner_of(offset, total_buckets, p), slot = slot_of(t, half);
    const uint32_t* vals = sorted_vals + (t / half) * n;
    const uint32_t first = start[slot] + uint32_t(p - offset[t]) * PIECE;
    const uint32_t last = min(end[slot], first + PIECE);
    // The points are scattered over the whole vector (an HBM read each): the next one is
    // loaded before the current addition, so that its latency hides behind the arithmetic.
    xyzz_t acc = xyzz_t::inf();
    uint32_t v = first < last ? vals[first] : 0;
    affine_t next = first < last ? points[v & ~SIGN_BIT] : affine_t::inf();
    for (uint32_t j = first; j < last; j++) {
        const uint32_t cur_v = v;
        affine_t q = next;
        if (j + 1 < last) {
            v = vals[j + 1];
            next = points[v & ~SIGN_BIT];
        }
        if (cur_v & SIGN_BIT) q.y = q.y.neg();  // -(x, y) = (x, -y); infinity (0, 0) stays put
        acc = acc.add_affine(q);
    }
    pieces[p] = acc;
}

// Groups of at most PIECE pieces per bucket: count[t] pieces make ceil(count[t] / PIECE).
__global__ void group_count_kernel(const uint32_t* count, size_t total, uint32_t* groups) {
    const size_t t = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (t >= total) return;
    groups[t] = (count[t] + PIECE - 1) / PIECE;
}

// Thread g sums group g: pieces offset[t] + k*PIECE ... of its bucket t, at most PIECE of
// them. Threads past the total number of groups (the launch is an upper bound) exit.
template <class X>
__global__ void __launch_bounds__(128) regroup_kernel(const X* pieces, const uint32_t* count, const uint32_t* offset,
                                                      const uint32_t* group_count, const uint32_t* group_offset,
                                                      size_t total_buckets, X* groups) {
    const size_t g = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    const size_t total_groups = size_t(group_offset[total_buckets - 1]) + group_count[total_buckets - 1];
    if (g >= total_groups) return;
    const size_t t = owner_of(group_offset, total_buckets, g);
    const uint32_t first = uint32_t(g - group_offset[t]) * PIECE;
    const uint32_t last = min(count[t], first + PIECE);
    X acc = X::inf();
    for (uint32_t k = first; k < last; k++) acc = acc.add(pieces[offset[t] + k]);
    groups[g] = acc;
}

template <class X>
__global__ void __launch_bounds__(128) bucket_kernel(const X* pieces, const uint32_t* count,
                                                     const uint32_t* offset, size_t total, X* buckets) {
    const size_t t = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (t >= total) return;
    X acc = X::inf();
    for (uint32_t k = 0; k < count[t]; k++) acc = acc.add(pieces[offset[t] + k]);
    buckets[t] = acc;
}

// k * p for 0 < k < 2^32, by double-and-add from the top set bit.
template <class X>
__device__ X mul_small(const X& p, uint32_t k) {
    X r = X::inf();
    for (int b = 31 - __clz(k); b >= 0; b--) {
        r = r.dbl();
        if ((k >> b) & 1) r = r.add(p);
    }
    return r;
}

// One thread per segment of `len` buckets; bucket j of a window holds digit j + 1, so the
// segment starting at j = a contributes sum_j (j + 1) B_j = sum_j (j - a) B_j + (a + 1) sum_j B_j:
// running sums from the top give the first term, one small multiple the second.
template <class X>
__global__ void __launch_bounds__(128) segment_kernel(const X* buckets, uint32_t half, uint32_t len,
                                                      size_t total_segments, X* out) {
    const size_t t = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (t >= total_segments) return;
    const size_t per_window = half / len;
    const size_t w = t / per_window, s = t % per_window;
    const uint32_t a = uint32_t(s * len);
    const X* b = buckets + w * half + a;
    X running = X::inf(), acc = X::inf();
    for (uint32_t d = len - 1; d > 0; d--) {
        running = running.add(b[d]);
        acc = acc.add(running);
    }
    running = running.add(b[0]);
    acc = acc.add(a == 0 ? running : mul_small(running, a + 1));
    out[t] = acc;
}

// Horner over the window sums, top window first; writes the Jacobian result.
template <class X>
__global__ void combine_kernel(const X* windows, uint32_t num_windows, uint32_t c, typename X::jacobian_t* out) {
    if (blockIdx.x != 0 || threadIdx.x != 0) return;
    X acc = X::inf();
    for (int w = int(num_windows) - 1; w >= 0; w--) {
        for (uint32_t i = 0; i < c; i++) acc = acc.dbl();
        acc = acc.add(windows[w]);
    }
    *out = acc.to_jacobian();
}

}  // namespace

// The most scratch memory msm_device holds at once. It frees each stage's buffers once the
// next stage no longer needs them, so the peak is the largest stage, not the sum: with wide
// windows (millions of buckets) the piece sums and the rounds of groups dominate.
template <class G>
size_t msm_scratch_bytes(size_t n, uint32_t window_bits) {
    using xyzz_t = typename G::xyzz;
    if (n == 0) return 0;
    const window_plan_t plan = window_bits ? plan_of_bits(window_bits) : plan_windows(n);
    const size_t c = plan.bits, w = plan.windows, half = size_t(1) << (c - 1);
    const size_t buckets = w * half, x = sizeof(xyzz_t);
    size_t sort_bytes = 0, scan_bytes = 0;
    CUZK_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, static_cast<uint32_t*>(nullptr),
                                                    static_cast<uint32_t*>(nullptr), static_cast<uint32_t*>(nullptr),
                                                    static_cast<uint32_t*>(nullptr), int(n), 0, int(c)));
    CUZK_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, static_cast<uint32_t*>(nullptr),
                                                  static_cast<uint32_t*>(nullptr), int(buckets)));
    const size_t runs = 2 * w * (half + 1) * 4;        // run starts and ends
    const size_t sorted_vals = n * w * 4;              // every window's sorted values
    const size_t counts = 2 * buckets * 4 + scan_bytes;  // piece counts, offsets, scan temp
    size_t level = n * w / PIECE + buckets;            // pieces (an upper bound)
    // 1. digits and sorts: keys, values, sorted keys, the sort's temp, the sorted values, runs.
    size_t peak = 3 * n * 4 + sort_bytes + sorted_vals + runs;
    // 2. piece sums: the sorted values and runs, the counts, the pieces.
    peak = std::max(peak, sorted_vals + runs + counts + level * x);
    // 3. rounds of groups (see msm_device): each level beside the one it is made from, and a
    //    second pair of count and offset arrays.
    size_t group_counts = 0;
    for (size_t most = (n + PIECE - 1) / PIECE; most > PIECE; most = (most + PIECE - 1) / PIECE) {
        group_counts = 2 * buckets * 4;
        const size_t next = level / PIECE + buckets;
        peak = std::max(peak, counts + group_counts + (level + next) * x);
        level = next;
    }
    // 4. bucket sums: the last level and the buckets.
    peak = std::max(peak, counts + group_counts + (level + buckets) * x);
    // 5. reduction: the buckets, the segments and their row sums.
    const size_t segments = w * (half / std::min<size_t>(SEG, half));
    peak = std::max(peak, (buckets + 2 * segments) * x);
    return peak + (size_t(32) << 20);  // pool rounding of about 16 allocations
}

template <class G>
void msm_device(const typename G::affine* d_points, const fr_t* d_scalars, size_t n, typename G::jacobian* d_out,
                cudaStream_t stream, msm_profile_t* profile, uint32_t window_bits) {
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
    CUZK_REQUIRE(n <= size_t(INT32_MAX), "msm: more than 2^31 - 1 points");

    const window_plan_t plan = window_bits ? plan_of_bits(window_bits) : plan_windows(n);
    const uint32_t c = plan.bits, num_windows = plan.windows, half = 1u << (c - 1);
    const size_t slots = size_t(num_windows) * (half + 1);       // keys 0..half per window
    const size_t total_buckets = size_t(num_windows) * half;     // digits 1..half per window
    constexpr unsigned T = 256;

    dev_ptr_t<uint32_t> keys(n, stream), vals(n, stream), sorted_keys(n, stream);
    dev_ptr_t<uint32_t> sorted_vals(n * num_windows, stream);
    dev_ptr_t<uint32_t> start(slots, stream), end(slots, stream);
    CUZK_CUDA_CHECK(cudaMemsetAsync(start, 0, start.bytes(), stream));
    CUZK_CUDA_CHECK(cudaMemsetAsync(end, 0, end.bytes(), stream));

    size_t temp_bytes = 0;
    CUZK_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, keys.get(), sorted_keys.get(), vals.get(),
                                                    sorted_vals.get(), int(n), 0, int(c), stream));
    dev_ptr_t<uint8_t> temp(std::max<size_t>(temp_bytes, 1), stream);

    for (uint32_t w = 0; w < num_windows; w++) {
        digit_kernel<<<blocks_for(n, T), T, 0, stream>>>(d_scalars, n, w, c, keys, vals);
        CUZK_LAUNCH_CHECK();
        size_t bytes = temp_bytes;
        CUZK_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp.get(), bytes, keys.get(), sorted_keys.get(), vals.get(),
                                                        sorted_vals.get() + w * n, int(n), 0, int(c), stream));
        bounds_kernel<<<blocks_for(n, T), T, 0, stream>>>(sorted_keys, n, start.get() + w * (half + 1),
                                                           end.get() + w * (half + 1));
        CUZK_LAUNCH_CHECK();
    }
    if (profile) profile->sorted.record(stream);
    keys.release();
    vals.release();
    sorted_keys.release();
    temp.release();

    dev_ptr_t<uint32_t> count(total_buckets, stream), offset(total_buckets, stream);
    count_kernel<<<blocks_for(total_buckets, T), T, 0, stream>>>(start, end, half, total_buckets, count);
    CUZK_LAUNCH_CHECK();
    size_t scan_bytes = 0;
    CUZK_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, count.get(), offset.get(), int(total_buckets),
                                                  stream));
    dev_ptr_t<uint8_t> scan_temp(std::max<size_t>(scan_bytes, 1), stream);
    CUZK_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(scan_temp.get(), scan_bytes, count.get(), offset.get(),
                                                  int(total_buckets), stream));
    // Each bucket has at most ceil(size / PIECE) <= size / PIECE + 1 pieces.
    const size_t max_pieces = n * num_windows / PIECE + total_buckets;
    dev_ptr_t<xyzz_t> pieces(max_pieces, stream);
    piece_kernel<G><<<blocks_for(max_pieces, 128), 128, 0, stream>>>(d_points, sorted_vals, n, start, end, count, offset,
                                                                  half, total_buckets, pieces);
    CUZK_LAUNCH_CHECK();
    sorted_vals.release();
    start.release();
    end.release();
    // A bucket may have up to ceil(n / PIECE) pieces (a window whose n digits are all equal):
    // group them by PIECE until at most PIECE are left per bucket. The bound is known here, the
    // real counts only on the device: with random scalars every bucket has a few pieces and
    // the rounds after the first only copy one accumulator per bucket.
    dev_ptr_t<uint32_t> group_count, group_offset;
    size_t most = (n + PIECE - 1) / PIECE, level_size = max_pieces;
    if (most > PIECE) {
        group_count = dev_ptr_t<uint32_t>(total_buckets, stream);
        group_offset = dev_ptr_t<uint32_t>(total_buckets, stream);
    }
    for (; most > PIECE; most = (most + PIECE - 1) / PIECE) {
        group_count_kernel<<<blocks_for(total_buckets, T), T, 0, stream>>>(count, total_buckets, group_count);
        CUZK_LAUNCH_CHECK();
        CUZK_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(scan_temp.get(), scan_bytes, group_count.get(),
                                                      group_offset.get(), int(total_buckets), stream));
        level_size = level_size / PIECE + total_buckets;  // each bucket's groups <= pieces / PIECE + 1
        dev_ptr_t<xyzz_t> next(level_size, stream);
        regroup_kernel<xyzz_t><<<blocks_for(level_size, 128), 128, 0, stream>>>(
            pieces, count, offset, group_count, group_offset, total_buckets, next);
        CUZK_LAUNCH_CHECK();
        pieces = std::move(next);
        std::swap(count, group_count);
        std::swap(offset, group_offset);
    }
    dev_ptr_t<xyzz_t> buckets(total_buckets, stream);
    bucket_kernel<xyzz_t><<<blocks_for(total_buckets, 128), 128, 0, stream>>>(pieces, count, offset, total_buckets, buckets);
    CUZK_LAUNCH_CHECK();
    pieces.release();
    count.release();
    offset.release();
    group_count.release();
    group_offset.release();
    scan_temp.release();
    if (profile) profile->summed.record(stream);

    const uint32_t seg_len = std::min<uint32_t>(SEG, half);
    const size_t per_window = half / seg_len;
    const size_t total_segments = num_windows * per_window;
    dev_ptr_t<xyzz_t> segments(total_segments, stream);
    segment_kernel<xyzz_t><<<blocks_for(total_segments, 128), 128, 0, stream>>>(buckets, half, seg_len, total_segments,
                                                                        segments);
    CUZK_LAUNCH_CHECK();

    dev_ptr_t<xyzz_t> scratch_a, scratch_b;
    const xyzz_t* windows = reduce_rows<xyzz_t>(segments, num_windows, per_window, scratch_a, scratch_b, stream);
    combine_kernel<xyzz_t><<<1, 32, 0, stream>>>(windows, num_windows, c, d_out);
    CUZK_LAUNCH_CHECK();
    if (profile) profile->done.record(stream);
}

// The host-pointer MSM of group G: copy in, compute, copy the result out (`window_bits` as
// msm_device's).
template <class G>
void msm_host(const void* points, const cuzk_fr_t* scalars, size_t n, void* out, uint32_t window_bits = 0) {
    using affine = typename G::affine;
    using jacobian = typename G::jacobian;
    CUZK_REQUIRE(out != nullptr, "msm: null output");
    CUZK_REQUIRE(n == 0 || (points != nullptr && scalars != nullptr), "msm: null input");
    stream_t s;
    dev_ptr_t<affine> d_points(n, s);
    dev_ptr_t<fr_t> d_scalars(n, s);
    dev_ptr_t<jacobian> d_out(1, s);
    if (n) {
        CUZK_CUDA_CHECK(cudaMemcpyAsync(d_points, points, n * sizeof(affine), cudaMemcpyHostToDevice, s));
        CUZK_CUDA_CHECK(cudaMemcpyAsync(d_scalars, scalars, n * sizeof(fr_t), cudaMemcpyHostToDevice, s));
    }
    msm_device<G>(d_points, d_scalars, n, d_out, s, nullptr, window_bits);
    CUZK_CUDA_CHECK(cudaMemcpyAsync(out, d_out, sizeof(jacobian), cudaMemcpyDeviceToHost, s));
    s.sync();
}

}  // namespace cuzk::msm
