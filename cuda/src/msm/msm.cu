// Pippenger multi-scalar multiplication over G1 on the GPU, and its C entry points.
//
// With windows of c bits, scalar s_i = sum_w d_{i,w} 2^(cw) and
//     sum_i s_i P_i = sum_w 2^(cw) sum_{d=1}^{2^c-1} d * B_{w,d},   B_{w,d} = sum_{i: d_{i,w}=d} P_i.
// Steps, all on `stream`:
//   1. scalars from Montgomery form to canonical integers (one kernel);
//   2. per window: the digit of every scalar as a sort key, point indices as values, sorted by
//      CUB's radix sort on the c key bits only; the start and end of every bucket's run in the
//      sorted order are recorded;
//   3. bucket sums (all windows at once): each bucket's run is cut into pieces of at most PIECE
//      points, one thread per piece sums it with mixed additions into an XYZZ accumulator
//      (reading the points through the sorted indices), then one thread per bucket adds its
//      pieces;
//   4. bucket reduction: each window's buckets are split into segments of SEG buckets; one
//      thread per segment forms sum (d - a) B_d by running sums (a = the segment's first
//      digit) and adds a * sum B_d by double-and-add; the segment results are summed per window;
//   5. one thread combines the windows by Horner's rule (c doublings, one addition per window)
//      and writes blst's Jacobian form.
// Digits are unsigned (2^c - 1 buckets per window, bucket 0 skipped). Sorting makes every
// bucket's points contiguous; the pieces keep a bucket holding a large share of the points
// (many equal scalars) from serializing on one thread, though its pieces are still added up
// by one thread (size / PIECE additions).
#include <cub/cub.cuh>

#include <algorithm>
#include <cstdint>

#include "cuzk/msm.h"
#include "msm/msm.cuh"

namespace cuzk::msm {
namespace {

constexpr uint32_t SCALAR_BITS = 255;
constexpr uint32_t MAX_WINDOW = 16;
constexpr uint32_t SEG = 64;    // buckets per reduction segment
constexpr uint32_t PIECE = 64;  // most points one thread sums into a bucket

// Window size by input size: about log2(n) - 5, so that the 2^c-bucket reduction costs little
// next to the n additions per window, kept within [4, 16] (16-bit sort keys at most).
uint32_t window_bits(size_t n) {
    uint32_t lg = 0;
    while (lg < 63 && (size_t(1) << lg) < n) lg++;
    int c = int(lg) - 5;
    return uint32_t(std::clamp(c, 4, int(MAX_WINDOW)));
}

__global__ void canonical_kernel(const fr_t* in, fr_t* out, size_t n) {
    const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (i < n) out[i] = in[i].to_canonical();
}

__global__ void iota_kernel(uint32_t* out, size_t n) {
    const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (i < n) out[i] = uint32_t(i);
}

// keys[i] = bits [bit, bit + c) of the canonical scalar i (c <= 16, so they span at most two
// 32-bit limbs; canonical values are below 2^255, so reading past the top gives zeros).
__global__ void digit_kernel(const fr_t* canon, size_t n, uint32_t bit, uint32_t c, uint32_t* keys) {
    const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (i >= n) return;
    const uint32_t* l = canon[i].l;
    const uint32_t limb = bit / 32, sh = bit % 32;
    uint64_t v = l[limb];
    if (limb + 1 < uint32_t(fr_t::N)) v |= uint64_t(l[limb + 1]) << 32;
    keys[i] = uint32_t(v >> sh) & ((1u << c) - 1);
}

// Records where each digit's run starts and ends in the sorted keys (runs of absent digits
// keep the zeros they were cleared to, i.e. empty).
__global__ void bounds_kernel(const uint32_t* keys, size_t n, uint32_t* start, uint32_t* end) {
    const size_t j = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (j >= n) return;
    const uint32_t k = keys[j];
    if (j == 0 || keys[j - 1] != k) start[k] = uint32_t(j);
    if (j + 1 == n || keys[j + 1] != k) end[k] = uint32_t(j + 1);
}

// Bucket sums are split into pieces of at most PIECE points, so that a bucket holding many
// points (equal scalars) is spread over many threads instead of one: count_kernel gives each
// bucket's piece count, an exclusive scan gives each bucket's first piece, piece_kernel sums
// one piece per thread by mixed additions, and bucket_kernel adds up each bucket's pieces.
// Bucket 0 (digit 0 contributes nothing) gets no pieces.
__global__ void count_kernel(const uint32_t* start, const uint32_t* end, uint32_t c, size_t total, uint32_t* count) {
    const size_t t = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (t >= total) return;
    const bool zero_digit = (t & ((size_t(1) << c) - 1)) == 0;
    count[t] = zero_digit ? 0 : (end[t] - start[t] + PIECE - 1) / PIECE;
}

// Thread p handles piece p; its bucket is the last one whose first piece is <= p (buckets
// with no pieces share their successor's offset and are skipped by this search). Threads
// past the total (launched for the upper bound, so that no count returns to the host) exit.
__global__ void __launch_bounds__(128) piece_kernel(const affine_t* points, const uint32_t* sorted_idx, size_t n,
                                                    const uint32_t* start, const uint32_t* end, const uint32_t* count,
                                                    const uint32_t* offset, uint32_t c, size_t total_buckets,
                                                    xyzz_t* pieces) {
    const size_t p = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    const size_t total_pieces = size_t(offset[total_buckets - 1]) + count[total_buckets - 1];
    if (p >= total_pieces) return;
    size_t lo = 0, hi = total_buckets;  // first index with offset > p lies in (lo, hi]
    while (hi - lo > 1) {
        const size_t mid = (lo + hi) / 2;
        if (offset[mid] <= p) lo = mid; else hi = mid;
    }
    const size_t t = lo;
    const uint32_t* idx = sorted_idx + (t >> c) * n;
    const uint32_t first = start[t] + uint32_t(p - offset[t]) * PIECE;
    const uint32_t last = min(end[t], first + PIECE);
    xyzz_t acc = xyzz_t::inf();
    for (uint32_t j = first; j < last; j++) acc = acc.add_affine(points[idx[j]]);
    pieces[p] = acc;
}

__global__ void __launch_bounds__(128) bucket_kernel(const xyzz_t* pieces, const uint32_t* count,
                                                     const uint32_t* offset, size_t total, xyzz_t* buckets) {
    const size_t t = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (t >= total) return;
    xyzz_t acc = xyzz_t::inf();
    for (uint32_t k = 0; k < count[t]; k++) acc = acc.add(pieces[offset[t] + k]);
    buckets[t] = acc;
}

// k * p for k < 2^32, by double-and-add from the top bit.
__device__ xyzz_t mul_small(const xyzz_t& p, uint32_t k) {
    xyzz_t r = xyzz_t::inf();
    for (int b = 31; b >= 0; b--) {
        r = r.dbl();
        if ((k >> b) & 1) r = r.add(p);
    }
    return r;
}

// One thread per segment of `len` buckets starting at digit a: sum_{d} d * B_d over the segment,
// as sum (d - a) B_d (running sums from the top) plus a * sum B_d.
__global__ void __launch_bounds__(128) segment_kernel(const xyzz_t* buckets, uint32_t c, uint32_t len,
                                                      size_t total_segments, xyzz_t* out) {
    const size_t t = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (t >= total_segments) return;
    const size_t per_window = (size_t(1) << c) / len;
    const size_t w = t / per_window, s = t % per_window;
    const uint32_t a = uint32_t(s * len);
    const xyzz_t* b = buckets + (w << c) + a;
    xyzz_t running = xyzz_t::inf(), acc = xyzz_t::inf();
    for (uint32_t d = len - 1; d > 0; d--) {
        running = running.add(b[d]);
        acc = acc.add(running);
    }
    running = running.add(b[0]);
    if (a != 0) acc = acc.add(mul_small(running, a));
    out[t] = acc;
}

// Horner over the window sums, top window first; writes the Jacobian result.
__global__ void combine_kernel(const xyzz_t* windows, uint32_t num_windows, uint32_t c, jacobian_t* out) {
    if (blockIdx.x != 0 || threadIdx.x != 0) return;
    xyzz_t acc = xyzz_t::inf();
    for (int w = int(num_windows) - 1; w >= 0; w--) {
        for (uint32_t i = 0; i < c; i++) acc = acc.dbl();
        acc = acc.add(windows[w]);
    }
    *out = acc.to_jacobian();
}

}  // namespace

void msm_g1_device(const affine_t* d_points, const fr_t* d_scalars, size_t n, jacobian_t* d_out,
                   cudaStream_t stream) {
    CUZK_REQUIRE(d_out != nullptr, "msm: null output");
    if (n == 0) {
        // The empty sum: blst's identity is all zeros.
        CUZK_CUDA_CHECK(cudaMemsetAsync(d_out, 0, sizeof(jacobian_t), stream));
        return;
    }
    CUZK_REQUIRE(d_points != nullptr && d_scalars != nullptr, "msm: null input");
    CUZK_REQUIRE(n <= size_t(INT32_MAX), "msm: more than 2^31 - 1 points");

    const uint32_t c = window_bits(n);
    const uint32_t num_windows = (SCALAR_BITS + c - 1) / c;
    const size_t nb = size_t(1) << c;
    const size_t total_buckets = num_windows * nb;
    constexpr unsigned T = 256;

    dev_ptr_t<fr_t> canon(n, stream);
    canonical_kernel<<<blocks_for(n, T), T, 0, stream>>>(d_scalars, canon, n);
    CUZK_LAUNCH_CHECK();

    dev_ptr_t<uint32_t> iota(n, stream), keys(n, stream), sorted_keys(n, stream);
    dev_ptr_t<uint32_t> sorted_idx(n * num_windows, stream);
    dev_ptr_t<uint32_t> start(total_buckets, stream), end(total_buckets, stream);
    CUZK_CUDA_CHECK(cudaMemsetAsync(start, 0, start.bytes(), stream));
    CUZK_CUDA_CHECK(cudaMemsetAsync(end, 0, end.bytes(), stream));
    iota_kernel<<<blocks_for(n, T), T, 0, stream>>>(iota, n);
    CUZK_LAUNCH_CHECK();

    size_t temp_bytes = 0;
    CUZK_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, keys.get(), sorted_keys.get(), iota.get(),
                                                    sorted_idx.get(), int(n), 0, int(c), stream));
    dev_ptr_t<uint8_t> temp(std::max<size_t>(temp_bytes, 1), stream);

    for (uint32_t w = 0; w < num_windows; w++) {
        digit_kernel<<<blocks_for(n, T), T, 0, stream>>>(canon, n, w * c, c, keys);
        CUZK_LAUNCH_CHECK();
        size_t bytes = temp_bytes;
        CUZK_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp.get(), bytes, keys.get(), sorted_keys.get(),
                                                        iota.get(), sorted_idx.get() + w * n, int(n), 0, int(c),
                                                        stream));
        bounds_kernel<<<blocks_for(n, T), T, 0, stream>>>(sorted_keys, n, start.get() + w * nb, end.get() + w * nb);
        CUZK_LAUNCH_CHECK();
    }

    dev_ptr_t<uint32_t> count(total_buckets, stream), offset(total_buckets, stream);
    count_kernel<<<blocks_for(total_buckets, T), T, 0, stream>>>(start, end, c, total_buckets, count);
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
    piece_kernel<<<blocks_for(max_pieces, 128), 128, 0, stream>>>(d_points, sorted_idx, n, start, end, count, offset,
                                                                  c, total_buckets, pieces);
    CUZK_LAUNCH_CHECK();
    dev_ptr_t<xyzz_t> buckets(total_buckets, stream);
    bucket_kernel<<<blocks_for(total_buckets, 128), 128, 0, stream>>>(pieces, count, offset, total_buckets, buckets);
    CUZK_LAUNCH_CHECK();

    const uint32_t seg_len = uint32_t(std::min<size_t>(SEG, nb));
    const size_t per_window = nb / seg_len;
    const size_t total_segments = num_windows * per_window;
    dev_ptr_t<xyzz_t> segments(total_segments, stream);
    segment_kernel<<<blocks_for(total_segments, 128), 128, 0, stream>>>(buckets, c, seg_len, total_segments,
                                                                        segments);
    CUZK_LAUNCH_CHECK();

    dev_ptr_t<xyzz_t> scratch_a, scratch_b;
    const xyzz_t* windows = reduce_rows(segments, num_windows, per_window, scratch_a, scratch_b, stream);
    combine_kernel<<<1, 32, 0, stream>>>(windows, num_windows, c, d_out);
    CUZK_LAUNCH_CHECK();
}

}  // namespace cuzk::msm

using namespace cuzk;

extern "C" cuzk_error_t cuzk_msm_g1(const cuzk_g1_affine_t* points, const cuzk_fr_t* scalars, size_t n,
                                    cuzk_g1_projective_t* out) {
    return guard([&] {
        CUZK_REQUIRE(out != nullptr, "msm: null output");
        CUZK_REQUIRE(n == 0 || (points != nullptr && scalars != nullptr), "msm: null input");
        stream_t s;
        dev_ptr_t<affine_t> d_points(n, s);
        dev_ptr_t<fr_t> d_scalars(n, s);
        dev_ptr_t<jacobian_t> d_out(1, s);
        if (n) {
            CUZK_CUDA_CHECK(cudaMemcpyAsync(d_points, points, n * sizeof(affine_t), cudaMemcpyHostToDevice, s));
            CUZK_CUDA_CHECK(cudaMemcpyAsync(d_scalars, scalars, n * sizeof(fr_t), cudaMemcpyHostToDevice, s));
        }
        msm::msm_g1_device(d_points, d_scalars, n, d_out, s);
        CUZK_CUDA_CHECK(cudaMemcpyAsync(out, d_out, sizeof(jacobian_t), cudaMemcpyDeviceToHost, s));
        s.sync();
    });
}

extern "C" cuzk_error_t cuzk_msm_g1_device(const cuzk_g1_affine_t* d_points, const cuzk_fr_t* d_scalars, size_t n,
                                           cuzk_g1_projective_t* d_out, cuzk_stream_t stream) {
    return guard([&] {
        msm::msm_g1_device(reinterpret_cast<const affine_t*>(d_points), reinterpret_cast<const fr_t*>(d_scalars), n,
                           reinterpret_cast<jacobian_t*>(d_out), stream);
    });
}
