// Batch addition over G1 and G2: for several bitmaps over the same points, the sum of the points
// whose bit is set (the MSM of scalars in {0, 1}), and its C entry points.
//
// The operation is memory-bound, so the points are streamed once for up to G::batch_group
// bitmaps: each thread walks the points with a grid stride (adjacent threads read adjacent
// points), tests the bit of every bitmap of the group, loads the point only when some bit is
// set and adds it into one XYZZ accumulator per bitmap. The per-thread partial sums are then summed
// per bitmap by reduce_rows. More bitmaps take several passes.
#include <algorithm>
#include <cstdint>

#include "cuzk/msm.h"
#include "msm/msm.cuh"

namespace cuzk::msm {
namespace {

constexpr unsigned THREADS = 256;

template <class G, int B>
__global__ void __launch_bounds__(THREADS) batch_add_kernel(const typename G::affine* points, size_t n,
                                                            const uint64_t* words, size_t wpb,
                                                            typename G::xyzz* partial) {
    using xyzz_t = typename G::xyzz;
    const size_t threads = size_t(gridDim.x) * blockDim.x;
    const size_t t = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    xyzz_t acc[B];
#pragma unroll
    for (int b = 0; b < B; b++) acc[b] = xyzz_t::inf();
    for (size_t i = t; i < n; i += threads) {
        uint32_t bits = 0;
#pragma unroll
        for (int b = 0; b < B; b++) bits |= uint32_t((words[b * wpb + i / 64] >> (i % 64)) & 1) << b;
        if (bits == 0) continue;
        const typename G::affine p = points[i];
#pragma unroll
        for (int b = 0; b < B; b++)
            if ((bits >> b) & 1) acc[b] = acc[b].add_affine(p);
    }
#pragma unroll
    for (int b = 0; b < B; b++) partial[b * threads + t] = acc[b];
}

// Launches the kernel for g bitmaps (1 <= g <= G::batch_group); the switch instantiates the
// kernel for every group size the group allows.
template <class G>
void launch_group(size_t g, const typename G::affine* d_points, size_t n, const uint64_t* d_words, size_t wpb,
                  unsigned blocks, typename G::xyzz* partial, cudaStream_t stream) {
    static_assert(G::batch_group >= 1 && G::batch_group <= 4, "1 to 4 bitmaps per pass");
    switch (g) {
        case 1: batch_add_kernel<G, 1><<<blocks, THREADS, 0, stream>>>(d_points, n, d_words, wpb, partial); break;
        case 2:
            if constexpr (G::batch_group >= 2)
                batch_add_kernel<G, 2><<<blocks, THREADS, 0, stream>>>(d_points, n, d_words, wpb, partial);
            break;
        case 3:
            if constexpr (G::batch_group >= 3)
                batch_add_kernel<G, 3><<<blocks, THREADS, 0, stream>>>(d_points, n, d_words, wpb, partial);
            break;
        default:
            if constexpr (G::batch_group >= 4)
                batch_add_kernel<G, 4><<<blocks, THREADS, 0, stream>>>(d_points, n, d_words, wpb, partial);
            break;
    }
    CUZK_LAUNCH_CHECK();
}

// Threads of one batch-addition launch: enough to fill the device a few times over, no more
// than one per point.
size_t launch_threads(size_t n, unsigned* blocks_out) {
    int dev = 0, sms = 0;
    CUZK_CUDA_CHECK(cudaGetDevice(&dev));
    CUZK_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    const unsigned blocks = unsigned(std::min<size_t>(size_t(sms) * 4, blocks_for(n, THREADS)));
    if (blocks_out) *blocks_out = blocks;
    return size_t(blocks) * THREADS;
}

}  // namespace

template <class G>
size_t batch_add_scratch_bytes(size_t count) {
    const size_t threads = launch_threads(SIZE_MAX / 2, nullptr);
    const size_t group = size_t(G::batch_group);
    // Partial sums, two levels of row sums (fan-in 32), the per-bitmap sums.
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
    const size_t threads = launch_threads(n, &blocks);
    const size_t group = size_t(G::batch_group);

    dev_ptr_t<xyzz_t> partial(std::min(count, group) * threads, stream);
    dev_ptr_t<xyzz_t> scratch_a, scratch_b;
    dev_ptr_t<xyzz_t> sums(count, stream);
    for (size_t first = 0; first < count; first += group) {
        const size_t g = std::min(group, count - first);
        launch_group<G>(g, d_points, n, d_words + first * wpb, wpb, blocks, partial, stream);
        const xyzz_t* r = reduce_rows<xyzz_t>(partial, g, threads, scratch_a, scratch_b, stream);
        CUZK_CUDA_CHECK(
            cudaMemcpyAsync(sums.get() + first, r, g * sizeof(xyzz_t), cudaMemcpyDeviceToDevice, stream));
    }
    to_jacobian<xyzz_t>(sums, d_out, count, stream);
}

template size_t batch_add_scratch_bytes<g1_t>(size_t);
template size_t batch_add_scratch_bytes<g2_t>(size_t);
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
