// The witness split on the GPU (witness_split.cuh).
#include <cub/cub.cuh>

#include "groth16/witness_split.cuh"
#include "msm/msm.cuh"
#include "util/error.cuh"
#include "util/resources.cuh"

namespace cuzk::groth16 {
namespace {

constexpr unsigned THREADS = 256;
constexpr unsigned PER_THREAD = 8;
// Values per tile. A thread's values are THREADS apart, so that a warp reads consecutive ones.
constexpr size_t TILE = size_t(THREADS) * PER_THREAD;
// Per value and per block, the counts travel packed in 32 bits: selected << 16 | others (a
// block counts at most TILE < 2^16 of each, so the halves never carry into each other).
constexpr uint32_t SELECTED = 1u << 16;
static_assert(TILE < SELECTED, "a tile's counts must fit 16 bits");

__device__ __forceinline__ bool bit(const uint64_t* words, size_t k) { return (words[k >> 6] >> (k & 63)) & 1; }

// Value v's contribution to the packed counts: SELECTED when `sel` takes it, plus 1 when its
// scalar is also neither zero nor one; `one` says whether it is one.
__device__ __forceinline__ uint32_t classify(const fr_t* w, size_t num_inputs, size_t total, const selection_t& sel,
                                             size_t v, bool& one) {
    one = false;
    if (v >= total) return 0;
    bool selected;
    if (v < num_inputs)
        selected = sel.inputs == selection_t::inputs_t::all ||
                   (sel.inputs == selection_t::inputs_t::density && bit(sel.input_density, v));
    else
        selected = sel.aux_density == nullptr || bit(sel.aux_density, v - num_inputs);
    if (!selected) return 0;
    const fr_t x = w[v];
    if (x.is_zero()) return SELECTED;
    one = x.is_one();
    return one ? SELECTED : SELECTED | 1u;
}

// counts[tile] = the tile's selected values << 32 | its others.
__global__ void tile_counts_kernel(const fr_t* w, size_t num_inputs, size_t total, selection_t sel,
                                   uint64_t* counts) {
    using reduce_t = cub::BlockReduce<uint32_t, THREADS>;
    __shared__ typename reduce_t::TempStorage temp;
    const size_t base = blockIdx.x * TILE + threadIdx.x;
    uint32_t packed = 0;
    bool one;
#pragma unroll
    for (unsigned i = 0; i < PER_THREAD; i++) packed += classify(w, num_inputs, total, sel, base + i * THREADS, one);
    const uint32_t sum = reduce_t(temp).Sum(packed);
    if (threadIdx.x == 0) counts[blockIdx.x] = (uint64_t(sum >> 16) << 32) | (sum & 0xffffu);
}

// Writes a tile's ones and others, from its first point and slot (the inclusive scan `ends`
// of the counts, at the tile before). Points from `points` on are not written (a selection
// longer than the query, reported by the totals).
__global__ void tile_write_kernel(const fr_t* w, size_t num_inputs, size_t total, selection_t sel,
                                  const uint64_t* ends, size_t points, uint64_t* ones, uint32_t* index,
                                  fr_t* scalars) {
    using scan_t = cub::BlockScan<uint32_t, THREADS>;
    __shared__ typename scan_t::TempStorage temp;
    const size_t tile = blockIdx.x;
    const uint64_t start = tile ? ends[tile - 1] : 0;
    uint64_t point = start >> 32, slot = start & 0xffffffffu;
    for (unsigned i = 0; i < PER_THREAD; i++) {
        const size_t v = tile * TILE + i * THREADS + threadIdx.x;
        bool one;
        const uint32_t mine = classify(w, num_inputs, total, sel, v, one);
        uint32_t before, round;
        scan_t(temp).ExclusiveSum(mine, before, round);
        __syncthreads();  // the next round reuses `temp`
        const uint64_t p = point + (before >> 16);
        if (mine && p < points) {
            if (one) {
                atomicOr(reinterpret_cast<unsigned long long*>(ones + (p >> 6)), 1ull << (p & 63));
            } else if (mine & 1u) {
                // slot + (before & 0xffff) <= p: others are a subset of the selected values.
                const uint64_t k = slot + (before & 0xffffu);
                index[k] = uint32_t(p);
                scalars[k] = w[v];
            }
        }
        point += round >> 16;
        slot += round & 0xffffu;
    }
}

}  // namespace

void split_witness(const fr_t* d_w, size_t num_inputs, size_t num_aux, const selection_t& sel, size_t points,
                   uint64_t* d_ones, uint32_t* d_index, fr_t* d_scalars, split_totals_t* d_totals,
                   cudaStream_t stream) {
    const size_t total = num_inputs + num_aux;
    // The packed totals hold each count in 32 bits (the indices are 32-bit anyway).
    CUZK_REQUIRE(total <= UINT32_MAX, "witness split: more than 2^32 - 1 values");
    if (points) CUZK_CUDA_CHECK(cudaMemsetAsync(d_ones, 0, (points + 63) / 64 * sizeof(uint64_t), stream));
    if (total == 0) {
        CUZK_CUDA_CHECK(cudaMemsetAsync(d_totals, 0, sizeof(split_totals_t), stream));
        return;
    }
    const size_t tiles = (total + TILE - 1) / TILE;
    dev_ptr_t<uint64_t> counts(tiles, stream), ends(tiles, stream);
    tile_counts_kernel<<<unsigned(tiles), THREADS, 0, stream>>>(d_w, num_inputs, total, sel, counts);
    CUZK_LAUNCH_CHECK();
    size_t temp_bytes = 0;
    CUZK_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, temp_bytes, counts.get(), ends.get(), tiles, stream));
    dev_ptr_t<uint8_t> temp(temp_bytes, stream);
    CUZK_CUDA_CHECK(cub::DeviceScan::InclusiveSum(temp.get(), temp_bytes, counts.get(), ends.get(), tiles, stream));
    tile_write_kernel<<<unsigned(tiles), THREADS, 0, stream>>>(d_w, num_inputs, total, sel, ends, points, d_ones,
                                                               d_index, d_scalars);
    CUZK_LAUNCH_CHECK();
    static_assert(sizeof(split_totals_t) == sizeof(uint64_t), "the packed totals are one scan value");
    CUZK_CUDA_CHECK(cudaMemcpyAsync(d_totals, ends.get() + tiles - 1, sizeof(uint64_t), cudaMemcpyDeviceToDevice,
                                    stream));
}

}  // namespace cuzk::groth16
