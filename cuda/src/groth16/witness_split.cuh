// The l, a and b_g1 scalars split on the GPU from a witness uploaded whole (cuzk_witness_t),
// into the form the host's splits take (cuzk_msm_split_t): a bitmap of the points whose
// scalar is one, and the points and values of the scalars that are neither zero nor one, in
// ascending order of point.
//
// A query's points take a selection of the witness values, in order: the inputs (all, none,
// or those a bitmap selects), then the aux values (all, or those a bitmap selects). The witness
// is cut into tiles of TILE values; a first kernel counts each tile's selected values and its
// "others", a scan turns the counts into each tile's first point and first slot, and a second
// kernel writes the tile's ones and others from there. Nothing comes back to the host but the
// two totals (split_totals_t), which the MSMs need for their launch sizes.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

#include "ff/bls12_381.cuh"

namespace cuzk::groth16 {

// Which witness values a query's points take (see above). Bitmaps are on the device, 64-bit
// words, bit k % 64 of word k / 64.
struct selection_t {
    enum class inputs_t { none, all, density };
    inputs_t inputs = inputs_t::none;
    const uint64_t* input_density = nullptr;  // with inputs_t::density
    const uint64_t* aux_density = nullptr;    // null: every aux value
};

// A split's totals, packed as the scan adds them: the selected values (its points) in the
// high 32 bits, the others in the low 32 bits.
struct split_totals_t {
    uint64_t packed = 0;
    uint64_t points() const { return packed >> 32; }
    uint64_t others() const { return packed & 0xffffffffu; }
};

// Splits the `points` values that `sel` takes of the witness `d_w` (`num_inputs` inputs, then
// `num_aux` aux values) into `d_ones` (ceil(points / 64) words, cleared here) and `d_index`,
// `d_scalars` (room for `points` each: the worst case, every scalar other than zero and one),
// and writes the totals to `*d_totals` (a device split_totals_t). A selection of more than
// `points` values writes nothing past those buffers; the caller compares the totals with
// `points` once they are on the host. Stream-ordered on `stream`.
void split_witness(const fr_t* d_w, size_t num_inputs, size_t num_aux, const selection_t& sel, size_t points,
                   uint64_t* d_ones, uint32_t* d_index, fr_t* d_scalars, split_totals_t* d_totals,
                   cudaStream_t stream);

}  // namespace cuzk::groth16
