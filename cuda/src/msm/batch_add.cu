// Batch addition over G1 and G2: for several bitmaps over the same points, the sum of the points
// whose bit is set (the MSM of scalars in {0, 1}), and its C entry points.
//
// The work is the additions (one per set bit), not the reads: a G1 XYZZ mixed addition costs
// far more than reading its 96-byte point. So every lane must add in every step: a warp takes
// 32 bitmap words (2,048 points) at a time, grid-strided, counts their set bits, and shares
// those bits out among its lanes (lane k takes the k-th, the 32+k-th, ... set bit), instead of
// one lane per point, which idles the lanes whose bit is clear (half of them for half the bits
// set). Each lane keeps one XYZZ accumulator; the per-lane partial sums are then summed per
// bitmap by reduce_rows. The grid is several waves of resident blocks (see WAVES), so that
// its blocks retire all through the kernel and an urgent stream's kernels can start. A launch covers up to G::batch_group bitmaps (gridDim.y), which bounds
// the partial sums held at once; more bitmaps take several passes.
#include <algorithm>
#include <cstdint>

#include "cuzk/msm.h"
#include "msm/msm.cuh"

namespace cuzk::msm {
namespace {

// As the MSM's bucket kernels: at about 150 registers (G1), three such blocks fit an SM.
constexpr unsigned THREADS = 128;
constexpr unsigned FULL_WARP = 0xffffffffu;

// The position of the r-th (from 0) set bit of x, which has more than r set bits: a binary
// search on the population counts of the low halves.
__device__ __forceinline__ unsigned nth_set_bit(uint64_t x, unsigned r) {
    unsigned pos = 0;
#pragma unroll
    for (unsigned half = 32; half; half >>= 1) {
        const uint64_t low = x & ((uint64_t(1) << half) - 1);
        const unsigned c = __popcll(low);
        if (r >= c) {
            r -= c;
            x >>= half;
            pos += half;
        } else {
            x = low;
        }
    }
    return pos;
}

template <class G>
__global__ void __launch_bounds__(THREADS) batch_add_kernel(const typename G::affine* points, size_t n,
                                                            const uint64_t* all_words, size_t wpb,
                                                            typename G::xyzz* partial) {
    using xyzz_t = typename G::xyzz;
    const uint64_t* words = all_words + blockIdx.y * wpb;
    const size_t threads = size_t(gridDim.x) * blockDim.x;
    const size_t t = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    const unsigned lane = threadIdx.x & 31;
    const size_t warp = t / 32, warps = threads / 32;
    const size_t nwords = (n + 63) / 64;
    xyzz_t acc = xyzz_t::inf();
    // The loop bounds are the same for the whole warp, so every shuffle has all 32 lanes.
    for (size_t base = warp * 32; base < nwords; base += warps * 32) {
        const size_t w = base + lane;
        uint64_t word = w < nwords ? words[w] : 0;
        if (w == nwords - 1 && (n & 63)) word &= (uint64_t(1) << (n & 63)) - 1;  // bits past n
        const unsigned count = __popcll(word);
        unsigned inclusive = count;
#pragma unroll
        for (unsigned d = 1; d < 32; d <<= 1) {
            const unsigned v = __shfl_up_sync(FULL_WARP, inclusive, d);
            if (lane >= d) inclusive += v;
        }
        const unsigned total = __shfl_sync(FULL_WARP, inclusive, 31);
        const unsigned exclusive = inclusive - count;
        for (unsigned first = 0; first < total; first += 32) {
            const unsigned j = first + lane;
            // The word holding set bit j: the last lane whose exclusive count is at most j
            // (the counts grow with the lane, so a binary search over the lanes).
            unsigned owner = 0;
#pragma unroll
            for (unsigned step = 16; step; step >>= 1)
                if (__shfl_sync(FULL_WARP, exclusive, owner + step) <= j) owner += step;
            const uint64_t owned = __shfl_sync(FULL_WARP, word, owner);
            const unsigned rank = j - __shfl_sync(FULL_WARP, exclusive, owner);
            if (j < total) acc = acc.add_affine(points[(base + owner) * 64 + nth_set_bit(owned, rank)]);
        }
    }
    partial[blockIdx.y * threads + t] = acc;
}

// Waves of resident blocks per launch. A grid of exactly the resident blocks, each striding
// over the whole bitmap, keeps every block alive until the kernel ends; the block scheduler
// never preempts a running block, so no other stream's kernel, however high its priority (an
// urgent proof's), gets an SM before then. With several waves each block has a bounded share
// of the work and blocks retire all through the kernel, each retirement a slot that the
// urgent stream's blocks take first. More waves mean more partial sums (WAVES x resident
// accumulators per bitmap: 8 x 264 x 128 G1 points, 52 MiB, on an H200).
constexpr size_t WAVES = 8;

// Threads of one batch-addition launch: up to WAVES waves of resident blocks, and no more
// blocks than give each warp one group of 32 bitmap words (2,048 points).
template <class G>
size_t launch_threads(size_t n, unsigned* blocks_out) {
    int dev = 0, sms = 0, per_sm = 0;
    CUZK_CUDA_CHECK(cudaGetDevice(&dev));
    CUZK_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CUZK_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, batch_add_kernel<G>, THREADS, 0));
    const size_t resident = size_t(sms) * size_t(std::max(per_sm, 1));
    const size_t words = (n + 63) / 64, groups = (words + 31) / 32;  // groups of 32 bitmap words
    const size_t by_work = (groups + THREADS / 32 - 1) / (THREADS / 32);
    const unsigned blocks = unsigned(std::max<size_t>(1, std::min(resident * WAVES, by_work)));
    if (blocks_out) *blocks_out = blocks;
    return size_t(blocks) * THREADS;
}

}  // namespace

template <class G>
size_t batch_add_scratch_bytes(size_t n, size_t count) {
    const size_t threads = launch_threads<G>(n, nullptr);
    const size_t group = size_t(G::batch_group);
    // Partial sums, the row sums' two scratch buffers (fan-in 4 or more: less than the partials
    // together), the per-bitmap sums.
    return (std::min(count, group) * threads * 2 + count) * sizeof(typename G::xyzz) + (size_t(8) << 20);
}

template <class G>
void batch_add_device(const typename G::affine* d_points, size_t n, const uint64_t* d_words, size_t wpb,
                      size_t count, typename G::jacobian* d_out, cudaStream_t stream) {
    using xyzz_t = typename G::xyzz;
    if (count == 0) return;
    CUZK_REQUIRE(d_out != nullptr, "batch add: null output");
    if (n == 0) {
        CUZK_CUDA_CHECK(cudaMemsetAsync(d_out, 0, count * sizeof(typename G::jacobian), stream));
        return;
    }
    CUZK_REQUIRE(d_points != nullptr && d_words != nullptr, "batch add: null input");
    CUZK_REQUIRE(wpb >= (n + 63) / 64, "batch add: bitmaps shorter than the points");

    unsigned blocks = 0;
    const size_t threads = launch_threads<G>(n, &blocks);
    const size_t group = size_t(G::batch_group);

    dev_ptr_t<xyzz_t> partial(std::min(count, group) * threads, stream);
    dev_ptr_t<xyzz_t> scratch_a, scratch_b;
    dev_ptr_t<xyzz_t> sums(count, stream);
    for (size_t first = 0; first < count; first += group) {
        const size_t g = std::min(group, count - first);
        batch_add_kernel<G><<<dim3(blocks, unsigned(g)), THREADS, 0, stream>>>(d_points, n, d_words + first * wpb,
                                                                               wpb, partial);
        CUZK_LAUNCH_CHECK();
        const xyzz_t* r = reduce_rows<xyzz_t>(partial, g, threads, scratch_a, scratch_b, stream);
        CUZK_CUDA_CHECK(
            cudaMemcpyAsync(sums.get() + first, r, g * sizeof(xyzz_t), cudaMemcpyDeviceToDevice, stream));
    }
    to_jacobian<xyzz_t>(sums, d_out, count, stream);
}

template size_t batch_add_scratch_bytes<g1_t>(size_t, size_t);
template size_t batch_add_scratch_bytes<g2_t>(size_t, size_t);
template void batch_add_device<g1_t>(const affine_t*, size_t, const uint64_t*, size_t, size_t, jacobian_t*,
                                     cudaStream_t);
template void batch_add_device<g2_t>(const g2_affine_t*, size_t, const uint64_t*, size_t, size_t, g2_jacobian_t*,
                                     cudaStream_t);

}  // namespace cuzk::msm

using namespace cuzk;

namespace {

// The host-pointer batch addition of group G: copy in, compute, copy the sums out.
template <class G>
void batch_add_host(const void* points, size_t n, const uint64_t* words, size_t words_per_bitmap, size_t count,
                    void* out) {
    using affine = typename G::affine;
    using jacobian = typename G::jacobian;
    if (count == 0) return;
    CUZK_REQUIRE(out != nullptr, "batch add: null output");
    CUZK_REQUIRE(n == 0 || (points != nullptr && words != nullptr), "batch add: null input");
    CUZK_REQUIRE(n == 0 || words_per_bitmap >= (n + 63) / 64, "batch add: bitmaps shorter than the points");
    stream_t s;
    dev_ptr_t<affine> d_points(n, s);
    dev_ptr_t<uint64_t> d_words(n ? words_per_bitmap * count : 0, s);
    dev_ptr_t<jacobian> d_out(count, s);
    if (n) {
        CUZK_CUDA_CHECK(cudaMemcpyAsync(d_points, points, n * sizeof(affine), cudaMemcpyHostToDevice, s));
        CUZK_CUDA_CHECK(cudaMemcpyAsync(d_words, words, d_words.bytes(), cudaMemcpyHostToDevice, s));
    }
    msm::batch_add_device<G>(d_points, n, d_words, words_per_bitmap, count, d_out, s);
    CUZK_CUDA_CHECK(cudaMemcpyAsync(out, d_out, count * sizeof(jacobian), cudaMemcpyDeviceToHost, s));
    s.sync();
}

}  // namespace

extern "C" cuzk_error_t cuzk_batch_add_g1(const cuzk_g1_affine_t* points, size_t n, const uint64_t* words,
                                          size_t words_per_bitmap, size_t count, cuzk_g1_projective_t* out) {
    return guard([&] { batch_add_host<g1_t>(points, n, words, words_per_bitmap, count, out); });
}

extern "C" cuzk_error_t cuzk_batch_add_g2(const cuzk_g2_affine_t* points, size_t n, const uint64_t* words,
                                          size_t words_per_bitmap, size_t count, cuzk_g2_projective_t* out) {
    return guard([&] { batch_add_host<g2_t>(points, n, words, words_per_bitmap, count, out); });
}

extern "C" cuzk_error_t cuzk_batch_add_g1_device(const cuzk_g1_affine_t* d_points, size_t n, const uint64_t* d_words,
                                                 size_t words_per_bitmap, size_t count, cuzk_g1_projective_t* d_out,
                                                 cuzk_stream_t stream) {
    return guard([&] {
        msm::batch_add_device<g1_t>(reinterpret_cast<const affine_t*>(d_points), n, d_words, words_per_bitmap, count,
                                 reinterpret_cast<jacobian_t*>(d_out), stream);
    });
}
