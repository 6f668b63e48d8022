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
//
// Also the host side of a proof given its witness: the checks of what the caller passed
// (check_witness), the densities on the device (device_witness_t), and the three splits of
// a proof enqueued at once (split_on_device).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include <cuda_runtime.h>

#include "cuzk/groth16.h"
#include "ff/bls12_381.cuh"
#include "groth16/params.cuh"
#include "groth16/staging.cuh"
#include "util/resources.cuh"

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

// Checks a witness the GPU is to split against the parameters' vectors (and the matrices'):
// no host splits beside it, values and bitmaps present, and densities that select as many
// values as each vector has points. `which` starts the messages.
void check_witness(const cuzk_groth16_circuit_t& c, const params_t& p, const std::string& which);

// A witness given whole on the device: its three density bitmaps, uploaded under the memory
// lock together with its values (into the caller's witness buffer).
struct device_witness_t {
    dev_ptr_t<uint64_t> densities;  // a's aux, b's inputs, b's aux, one after another
    size_t aux_words = 0, input_words = 0;

    device_witness_t() = default;
    device_witness_t(const cuzk_witness_t& w, fr_t* d_values, upload_staging_t& staging, cudaStream_t stream);
    const uint64_t* a_aux() const { return densities.get(); }
    const uint64_t* b_inputs() const { return densities.get() + aux_words; }
    const uint64_t* b_aux() const { return densities.get() + aux_words + input_words; }
};

// Where one split goes on the device: room for every point's scalar (see split_witness).
struct split_target_t {
    uint64_t* ones;
    uint32_t* index;
    fr_t* scalars;
};

// Enqueues the l, a and b_g1 splits of the witness in `d_w` into `out` (in that order), and
// the copy of their packed totals (split_totals_t) into `totals`, pinned host memory.
void split_on_device(const cuzk_witness_t& w, const fr_t* d_w, const device_witness_t& dw, const params_t& p,
                     const split_target_t (&out)[3], uint64_t (&totals)[3], cudaStream_t s);

}  // namespace cuzk::groth16
