// Batch addition over G1: for several bitmaps over the same points, the sum of the points whose
// bit is set (the MSM of scalars in {0, 1}), and its C entry points.
//
// The operation is memory-bound, so the points are streamed once for up to GROUP bitmaps:
// each thread walks the points with a grid stride (adjacent threads read adjacent points),
// tests the bit of every bitmap of the group, loads the point only when some bit is set and
// adds it into one XYZZ accumulator per bitmap. The per-thread partial sums are then summed
// per bitmap by reduce_rows. More than GROUP bitmaps take several passes.
#include <algorithm>
#include <cstdint>

#include "cuzk/msm.h"
#include "msm/msm.cuh"

namespace cuzk::msm {
namespace {

constexpr size_t GROUP = 4;
constexpr unsigned THREADS = 256;

template <int B>
__global__ void __launch_bounds__(THREADS) batch_add_kernel(const affine_t* points, size_t n, const uint64_t* words,
                                                            size_t wpb, xyzz_t* partial) {
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
        const affine_t p = points[i];
#pragma unroll
        for (int b = 0; b < B; b++)
            if ((bits >> b) & 1) acc[b] = acc[b].add_affine(p);
    }
#pragma unroll
    for (int b = 0; b < B; b++) partial[b * threads + t] = acc[b];
}

template <int B>
void launch_group(const affine_t* d_points, size_t n, const uint64_t* d_words, size_t wpb, unsigned blocks,
                  xyzz_t* partial, cudaStream_t stream) {
    batch_add_kernel<B><<<blocks, THREADS, 0, stream>>>(d_points, n, d_words, wpb, partial);
    CUZK_LAUNCH_CHECK();
}

}  // namespace

namespace {

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

size_t batch_add_scratch_bytes(size_t count) {
    const size_t threads = launch_threads(SIZE_MAX / 2, nullptr);
    // Partial sums, two levels of row sums (fan-in 32), the per-bitmap sums.
    return (std::min(count, GROUP) * threads * 2 + count) * sizeof(xyzz_t) + (size_t(8) << 20);
}

void batch_add_g1_device(const affine_t* d_points, size_t n, const uint64_t* d_words, size_t wpb, size_t count,
                         jacobian_t* d_out, cudaStream_t stream) {
    if (count == 0) return;
    CUZK_REQUIRE(d_out != nullptr, "batch add: null output");
    if (n == 0) {
        CUZK_CUDA_CHECK(cudaMemsetAsync(d_out, 0, count * sizeof(jacobian_t), stream));
        return;
    }
    CUZK_REQUIRE(d_points != nullptr && d_words != nullptr, "batch add: null input");
    CUZK_REQUIRE(wpb >= (n + 63) / 64, "batch add: bitmaps shorter than the points");

    unsigned blocks = 0;
    const size_t threads = launch_threads(n, &blocks);

    dev_ptr_t<xyzz_t> partial(std::min(count, GROUP) * threads, stream);
    dev_ptr_t<xyzz_t> scratch_a, scratch_b;
    dev_ptr_t<xyzz_t> sums(count, stream);
    for (size_t first = 0; first < count; first += GROUP) {
        const size_t g = std::min(GROUP, count - first);
        const uint64_t* w = d_words + first * wpb;
        switch (g) {
            case 1: launch_group<1>(d_points, n, w, wpb, blocks, partial, stream); break;
            case 2: launch_group<2>(d_points, n, w, wpb, blocks, partial, stream); break;
            case 3: launch_group<3>(d_points, n, w, wpb, blocks, partial, stream); break;
            default: launch_group<4>(d_points, n, w, wpb, blocks, partial, stream); break;
        }
        const xyzz_t* r = reduce_rows(partial, g, threads, scratch_a, scratch_b, stream);
        CUZK_CUDA_CHECK(
            cudaMemcpyAsync(sums.get() + first, r, g * sizeof(xyzz_t), cudaMemcpyDeviceToDevice, stream));
    }
    to_jacobian_kernel<<<blocks_for(count, 128), 128, 0, stream>>>(sums, d_out, count);
    CUZK_LAUNCH_CHECK();
}

}  // namespace cuzk::msm

using namespace cuzk;

extern "C" cuzk_error_t cuzk_batch_add_g1(const cuzk_g1_affine_t* points, size_t n, const uint64_t* words,
                                          size_t words_per_bitmap, size_t count, cuzk_g1_projective_t* out) {
    return guard([&] {
        if (count == 0) return;
        CUZK_REQUIRE(out != nullptr, "batch add: null output");
        CUZK_REQUIRE(n == 0 || (points != nullptr && words != nullptr), "batch add: null input");
        CUZK_REQUIRE(n == 0 || words_per_bitmap >= (n + 63) / 64, "batch add: bitmaps shorter than the points");
        stream_t s;
        dev_ptr_t<affine_t> d_points(n, s);
        dev_ptr_t<uint64_t> d_words(n ? words_per_bitmap * count : 0, s);
        dev_ptr_t<jacobian_t> d_out(count, s);
        if (n) {
            CUZK_CUDA_CHECK(cudaMemcpyAsync(d_points, points, n * sizeof(affine_t), cudaMemcpyHostToDevice, s));
            CUZK_CUDA_CHECK(
                cudaMemcpyAsync(d_words, words, d_words.bytes(), cudaMemcpyHostToDevice, s));
        }
        msm::batch_add_g1_device(d_points, n, d_words, words_per_bitmap, count, d_out, s);
        CUZK_CUDA_CHECK(cudaMemcpyAsync(out, d_out, count * sizeof(jacobian_t), cudaMemcpyDeviceToHost, s));
        s.sync();
    });
}

extern "C" cuzk_error_t cuzk_batch_add_g1_device(const cuzk_g1_affine_t* d_points, size_t n, const uint64_t* d_words,
                                                 size_t words_per_bitmap, size_t count, cuzk_g1_projective_t* d_out,
                                                 cuzk_stream_t stream) {
    return guard([&] {
        msm::batch_add_g1_device(reinterpret_cast<const affine_t*>(d_points), n, d_words, words_per_bitmap, count,
                                 reinterpret_cast<jacobian_t*>(d_out), stream);
    });
}
