// How one proof uses VRAM: the whole working set at once, or the bounded-VRAM plan for a card
// too small for it.
//
// The whole working set (the fastest plan) holds a, b and c, the split scalars (for a witness
// the GPU splits, room for every scalar of each split), the witness when given whole, a buffer as
// large as the largest query vector for streamed parameters, and the MSM scratch of the whole
// domain: about 46 GiB for a 2^27 PoRep partition. The bounded plan holds at most, at once:
//   the H pipeline   a, b and c (or, with c_late, a and b, c coming in after a*b is formed),
//                    and the witness (and streamed matrices' chunk buffers) while the GPU
//                    evaluates the matrices;
//   H's MSM          a (now H's coefficients), two chunk buffers of bases, one chunk's scratch;
//   the split MSMs   two chunk buffers and one chunk's scratch;
// plus the split scalars throughout. b and c are freed after the H pipeline, a after H's MSM.
// Chunks are as large as the budget allows, from 2^25 points (or the longest vector) down to
// 2^16.
#pragma once

#include <cstddef>

#include "cuzk/groth16.h"
#include "groth16/locks.cuh"
#include "groth16/params.cuh"

namespace cuzk::groth16 {

struct plan_t {
    // The bounded plan: bases in chunks of `chunk` points (a multiple of 64).
    bool bounded = false;
    size_t chunk = 0;
    // Bounded only: two of a, b and c at once.
    bool c_late = false;
    // The VRAM to reserve: the most the proof holds at once.
    size_t bytes = 0;
};

// The plan for circuit `c` over a domain of `n` under `locks`: the whole working set when it
// fits what the held bytes leave of the budget (and no plan is forced), else the bounded plan
// with the largest chunk that fits, else the bounded plan's smallest form (whose reservation
// then reports that the proof cannot fit this card).
plan_t choose_plan(const cuzk_gpu_locks& locks, const params_t& p, const cuzk_groth16_circuit_t& c, size_t n);

// The 64-bit words of a witness's three density bitmaps (a's aux, b's inputs, b's aux), as
// the GPU holds them.
size_t witness_density_words(const cuzk_witness_t& w);

// The device bytes of one split (cuzk_msm_split_t) over `len` points.
size_t split_bytes(const cuzk_msm_split_t& s, size_t len);

// The bytes of G1 or G2 points the chunk buffers must hold one of.
size_t chunk_point_bytes(const params_t& p, const cuzk_groth16_circuit_t& c);

}  // namespace cuzk::groth16
