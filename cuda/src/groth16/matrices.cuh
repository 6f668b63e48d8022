// The object behind cuzk_groth16_matrices_t: a circuit shape's constraint matrices A, B and C
// for one device, so that a proof uploads only its witness (which the l and a splits already
// carry) and the GPU evaluates a = A w, b = B w, c = C w itself, instead of the host computing
// and uploading three domain-sized vectors.
//
// Resident matrices are copied to the device once. Streamed ones stay in the caller's host
// arrays (page-locked here where the system allows it) and each evaluation copies them a chunk
// of rows at a time through two buffers of its own: the form for a card whose budget cannot
// hold them beside a proof (a 32 GiB PoRep partition's matrices take 8.3 GiB), where the
// alternative is the host computing a, b and c, 12.5 GB a partition held in host memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "cuzk/groth16.h"
#include "ff/bls12_381.cuh"
#include "groth16/locks.cuh"

namespace cuzk::groth16 {

// One matrix on the device, in the host's CSR form: row r's terms are
// [row_ends[r - 1], row_ends[r]) (from 0 for row 0), each a column (inputs first, then aux
// variables) and an index into the coefficient table.
struct device_rows_t {
    const uint64_t* row_ends = nullptr;
    const uint32_t* cols = nullptr;
    const uint32_t* coeffs = nullptr;
    size_t terms = 0;
};

}  // namespace cuzk::groth16

struct cuzk_groth16_matrices {
    int device = 0;
    size_t num_inputs = 0, num_aux = 0, num_constraints = 0;
    cuzk::groth16::device_rows_t a, b, c;
    const cuzk::fr_t* coeff_table = nullptr;
    size_t coeff_len = 0;
    // One allocation holding everything above (streamed: the coefficient table only), held
    // from the device's budget.
    cuzk::groth16::held_block_t block;

    // Streamed only: the caller's host arrays (which outlive this handle), the most terms and
    // rows one chunk copies (at least the longest row's terms), and the host arrays this
    // handle page-locked (unlocked when it goes).
    bool streamed = false;
    cuzk_sparse_rows_t host[3]{};
    size_t stream_chunk = 0;
    std::vector<void*> pinned;

    cuzk_groth16_matrices() = default;
    cuzk_groth16_matrices(const cuzk_groth16_matrices&) = delete;
    cuzk_groth16_matrices& operator=(const cuzk_groth16_matrices&) = delete;
    ~cuzk_groth16_matrices();

    size_t num_variables() const { return num_inputs + num_aux; }
    // The device bytes an evaluation takes beside its outputs and the witness: the two chunk
    // buffers of streamed matrices (row ends, columns and coefficient indices).
    size_t evaluation_bytes() const { return streamed ? 2 * stream_chunk * (sizeof(uint64_t) + 2 * sizeof(uint32_t)) : 0; }
};

namespace cuzk::groth16 {

using matrices_t = cuzk_groth16_matrices;

// The witness w (num_inputs + num_aux values, inputs first) rebuilt on the device from the
// splits a proof uploads anyway: the inputs are the first num_inputs points of the a split
// (A's query starts with every input), the aux values are the l split (one point per aux
// variable). Ones come from the bitmaps, other values from the (index, scalar) pairs, the
// rest is zero.
void witness_from_splits(const matrices_t& m, const uint64_t* d_a_ones, const uint32_t* d_a_index,
                         const fr_t* d_a_scalars, size_t a_count, const uint64_t* d_l_ones,
                         const uint32_t* d_l_index, const fr_t* d_l_scalars, size_t l_count, fr_t* d_w,
                         cudaStream_t stream);

// d_a, d_b, d_c (num_constraints each) = A w, B w, C w; a null output is skipped. Streamed
// matrices are copied in chunks on a copy stream of the call's own, overlapping the products.
void evaluate_matrices(const matrices_t& m, const fr_t* d_w, fr_t* d_a, fr_t* d_b, fr_t* d_c, cudaStream_t stream);

}  // namespace cuzk::groth16
