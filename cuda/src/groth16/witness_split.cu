// The witness split on the GPU (witness_split.cuh).
#include <cub/cub.cuh>

#include "groth16/matrices.cuh"
#include "groth16/plan.cuh"
#include "groth16/witness_split.cuh"
#include "msm/msm.cuh"
#include "util/bitmap.cuh"
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

void check_witness(const cuzk_groth16_circuit_t& c, const params_t& p, const std::string& which) {
    const cuzk_witness_t& w = *c.witness;
    const auto empty = [](const cuzk_msm_split_t& s) {
        return !s.ones && !s.ones_words && !s.other_index && !s.other_scalars && !s.other_count;
    };
    CUZK_REQUIRE(empty(c.l) && empty(c.a_query) && empty(c.b_g1),
                 which + "splits given beside a witness for the GPU to split");
    CUZK_REQUIRE((w.num_inputs == 0 || w.inputs) && (w.num_aux == 0 || w.aux), which + "null witness values");
    CUZK_REQUIRE(w.num_inputs + w.num_aux <= UINT32_MAX, which + "more than 2^32 - 1 witness values");
    CUZK_REQUIRE((w.num_aux == 0 || (w.a_aux_density && w.b_aux_density)) &&
                     (w.num_inputs == 0 || w.b_input_density),
                 which + "null density bitmap");
    CUZK_REQUIRE(p.l.len == w.num_aux, which + std::to_string(w.num_aux) + " aux values, the parameters' l vector " +
                                           std::to_string(p.l.len) + " points");
    const size_t a_len = w.num_inputs + (w.num_aux ? count_bits(w.a_aux_density, w.num_aux) : 0);
    CUZK_REQUIRE(a_len == p.a.len, which + "A's density selects " + std::to_string(a_len) +
                                       " values, the parameters' a vector has " + std::to_string(p.a.len) + " points");
    const size_t b_len = (w.num_inputs ? count_bits(w.b_input_density, w.num_inputs) : 0) +
                         (w.num_aux ? count_bits(w.b_aux_density, w.num_aux) : 0);
    CUZK_REQUIRE(b_len == p.b_g1.len, which + "B's densities select " + std::to_string(b_len) +
                                          " values, the parameters' b_g1 vector has " + std::to_string(p.b_g1.len) +
                                          " points");
    if (c.matrices)
        CUZK_REQUIRE(c.matrices->num_inputs == w.num_inputs && c.matrices->num_aux == w.num_aux,
                     which + "the witness's shape is not the matrices'");
}

device_witness_t::device_witness_t(const cuzk_witness_t& w, fr_t* d_values, upload_staging_t& staging,
                                   cudaStream_t stream)
    : densities(witness_density_words(w), stream),
      aux_words((w.num_aux + 63) / 64),
      input_words((w.num_inputs + 63) / 64) {
    staging.upload(d_values, w.inputs, w.num_inputs * sizeof(fr_t), stream);
    staging.upload(d_values + w.num_inputs, w.aux, w.num_aux * sizeof(fr_t), stream);
    staging.upload(densities.get(), w.a_aux_density, aux_words * sizeof(uint64_t), stream);
    staging.upload(densities.get() + aux_words, w.b_input_density, input_words * sizeof(uint64_t), stream);
    staging.upload(densities.get() + aux_words + input_words, w.b_aux_density, aux_words * sizeof(uint64_t), stream);
}

void split_on_device(const cuzk_witness_t& w, const fr_t* d_w, const device_witness_t& dw, const params_t& p,
                     const split_target_t (&out)[3], uint64_t (&totals)[3], cudaStream_t s) {
    using inputs_t = selection_t::inputs_t;
    const selection_t selections[3] = {{inputs_t::none, nullptr, nullptr},         // l: the aux values
                                       {inputs_t::all, nullptr, dw.a_aux()},      // a: inputs, A's aux
                                       {inputs_t::density, dw.b_inputs(), dw.b_aux()}};  // b: B's
    const size_t points[3] = {p.l.len, p.a.len, p.b_g1.len};
    dev_ptr_t<split_totals_t> d_totals(3, s);
    for (int i = 0; i < 3; i++)
        split_witness(d_w, w.num_inputs, w.num_aux, selections[i], points[i], out[i].ones, out[i].index,
                      out[i].scalars, d_totals.get() + i, s);
    CUZK_CUDA_CHECK(cudaMemcpyAsync(totals, d_totals.get(), sizeof(totals), cudaMemcpyDeviceToHost, s));
}

}  // namespace cuzk::groth16
