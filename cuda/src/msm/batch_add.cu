// Batch addition over G1 and G2: for several bitmaps over the same points, the sum of the points
// whose bit is set (the MSM of scalars in {0, 1}), and its C entry points.
//
// The work is the additions (one per set bit), not the reads: a G1 XYZZ mixed addition costs
// far more than reading its 96-byte point. So every lane must add in every step: a warp takes
// 32 bitmap words (2,048 points) at a time, grid-strided, counts their set bits, and shares
// those bits out among its lanes (lane k takes the k-th, the 32+k-th, ... set bit), instead of
// one lane per point, which idles the lanes whose bit is clear (half of them for half the bits
// set). Where the bitmaps are too short to give every resident warp several steps of 32 words,
// a warp takes 16, 8 or 4 at a time (lanes past them hold no word), so that the SMs stay full
// (a G2 addition is a chain of thousands of dependent instructions, which a warp or two an SM
// cannot hide), with about four steps a warp, so that there are few more partial sums than a
// wave of blocks has lanes (batch_launch).
// Each lane keeps one XYZZ accumulator; the per-lane partial sums are summed per bitmap by
// reduce_rows_to down to at most HOST_SUM_ROW, and those on a CPU core (sum_rows_on_host),
// since the last levels of a tree on the GPU are chains of dependent additions in a few
// blocks. Long bitmaps take several waves of resident blocks (see WAVES), so that blocks
// retire all through the kernel and an urgent stream's kernels can start. A launch covers up
// to G::batch_group bitmaps (gridDim.y), which bounds the partial sums held at once; more
// bitmaps take several passes.
#include <algorithm>
#include <cstdint>

#include "cuzk/msm.h"
#include "msm/host_combine.cuh"
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

// `step`: the bitmap words a warp takes at a time (32, 16, 8 or 4).
template <class G>
__global__ void __launch_bounds__(THREADS) batch_add_kernel(const typename G::affine* points, size_t n,
                                                            const uint64_t* all_words, size_t wpb, unsigned step,
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
    // Lanes from `step` on hold no word: their counts are zero, so no set bit is theirs.
    for (size_t base = warp * step; base < nwords; base += warps * step) {
        const size_t w = base + lane;
        uint64_t word = lane < step && w < nwords ? words[w] : 0;
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

// The most waves of resident blocks per launch. A grid of exactly the resident blocks, each
// striding over the whole bitmap, keeps every block alive until the kernel ends; the block
// scheduler never preempts a running block, so no other stream's kernel, however high its
// priority (an urgent proof's), gets an SM before then. With several waves each block has a
// bounded share of the work and blocks retire all through the kernel, each retirement a slot
// that the urgent stream's blocks take first. More waves mean more partial sums (WAVES x
// resident accumulators per bitmap: 8 x 264 x 128 G1 points, 52 MiB, on an H200).
constexpr size_t WAVES = 8;

// The shape of one batch-addition launch. Each lane's accumulator is a partial sum that a tree
// adds up afterwards, whose levels are chains of dependent additions: the fewer partials the
// better, as long as the SMs are full. So a warp takes the widest step (32, 16, 8 or 4 bitmap
// words) that still gives it about STEPS steps (fewer only at 4 words), which evens out the
// warps' shares, and the grid has as many blocks as give each warp about STEPS steps: at
// least one wave of resident blocks, and more for long bitmaps (up to WAVES), so that a
// block's life stays bounded (a few steps) where the kernel's is not.
struct batch_launch_t {
    unsigned blocks = 1, step = 32;
    size_t threads() const { return size_t(blocks) * THREADS; }
};

template <class G>
batch_launch_t batch_launch(size_t n) {
    int dev = 0, sms = 0, per_sm = 0;
    CUZK_CUDA_CHECK(cudaGetDevice(&dev));
    CUZK_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CUZK_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, batch_add_kernel<G>, THREADS, 0));
    const size_t resident = size_t(sms) * size_t(std::max(per_sm, 1));
    const size_t words = (n + 63) / 64;
    constexpr size_t WARPS = THREADS / 32, STEPS = 4;
    // Blocks that give each warp one step of `step` words.
    const auto blocks_at = [&](size_t step) { return ((words + step - 1) / step + WARPS - 1) / WARPS; };
    unsigned step = 32;
    while (step > 4 && blocks_at(step) < STEPS * resident) step /= 2;
    const size_t by_steps = (blocks_at(step) + STEPS - 1) / STEPS;
    batch_launch_t l;
    l.step = step;
    const size_t blocks = std::min({blocks_at(step), resident * WAVES, std::max(resident, by_steps)});
    l.blocks = unsigned(std::max<size_t>(1, blocks));
    return l;
}

}  // namespace

template <class G>
size_t batch_add_scratch_bytes(size_t n, size_t count) {
    const size_t threads = batch_launch<G>(n).threads();
    // Partial sums and the row sums' two scratch buffers (each launch sums 128 or more a block:
    // less than the partials together), for every bitmap: each group's buffers are freed where
    // the host's copy of its rows runs, so with a tail stream the groups' may all be held at once.
    return count * threads * 2 * sizeof(typename G::xyzz) + (size_t(8) << 20);
}

template <class G>
void batch_add_device(const typename G::affine* d_points, size_t n, const uint64_t* d_words, size_t wpb,
                      size_t count, typename G::jacobian* d_out, cudaStream_t stream, cudaStream_t tail) {
    using xyzz_t = typename G::xyzz;
    if (count == 0) return;
    CUZK_REQUIRE(d_out != nullptr, "batch add: null output");
    if (n == 0) {
        CUZK_CUDA_CHECK(cudaMemsetAsync(d_out, 0, count * sizeof(typename G::jacobian), stream));
        return;
    }
    CUZK_REQUIRE(d_points != nullptr && d_words != nullptr, "batch add: null input");
    CUZK_REQUIRE(wpb >= (n + 63) / 64, "batch add: bitmaps shorter than the points");

    const batch_launch_t shape = batch_launch<G>(n);
    const size_t threads = shape.threads();
    const size_t group = size_t(G::batch_group);
    for (size_t first = 0; first < count; first += group) {
        const size_t g = std::min(group, count - first);
        // A group's buffers are its own and freed where the host's copy of its rows ran, so
        // that the next group's kernels (on `stream`) cannot overwrite rows the tail has yet to
        // copy.
        dev_ptr_t<xyzz_t> partial(g * threads, stream), scratch_a, scratch_b;
        batch_add_kernel<G><<<dim3(shape.blocks, unsigned(g)), THREADS, 0, stream>>>(
            d_points, n, d_words + first * wpb, wpb, shape.step, partial);
        CUZK_LAUNCH_CHECK();
        size_t len = 0;
        const xyzz_t* rows = reduce_rows_to<xyzz_t>(partial, g, threads, HOST_SUM_ROW, scratch_a, scratch_b, stream,
                                                   &len);
        const cudaStream_t last = last_step_stream(stream, tail);
        partial.free_on(last);
        scratch_a.free_on(last);
        scratch_b.free_on(last);
        sum_rows_on_host<G>(rows, g, len, d_out + first, last);
    }
}

template size_t batch_add_scratch_bytes<g1_t>(size_t, size_t);
template size_t batch_add_scratch_bytes<g2_t>(size_t, size_t);
template void batch_add_device<g1_t>(const affine_t*, size_t, const uint64_t*, size_t, size_t, jacobian_t*,
                                     cudaStream_t, cudaStream_t);
template void batch_add_device<g2_t>(const g2_affine_t*, size_t, const uint64_t*, size_t, size_t, g2_jacobian_t*,
                                     cudaStream_t, cudaStream_t);

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
