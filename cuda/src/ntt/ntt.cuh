// The NTT's C++ interface inside the library (the C ABI is cuzk/ntt.h): used by the entry
// points in ntt.cu and by the benchmark and test helpers.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "ff/bls12_381.cuh"

namespace cuzk::ntt {

enum class kind_t : int { forward = 0, inverse = 1, coset_forward = 2, coset_inverse = 3 };

// Builds the current device's twiddle tables if they do not exist yet (a one-time cudaMalloc,
// which waits for the whole device: done when a device is set up, not on the proving path).
void warm_up();

// Checks log_n and the kind; throws invalid_argument.
void check_args(uint32_t log_n, int kind);

// In-place transform of d_data[0 .. 2^log_n), enqueued on `stream`.
void transform(fr_t* d_data, uint32_t log_n, kind_t kind, cudaStream_t stream);

// The H pipeline on device buffers (see cuzk_ntt_h_device), enqueued on `stream`: a and b to
// the coset (h_to_coset), c to its coefficients (h_c_coefficients), then h_finish. Six
// transforms (ntt.cu says why c needs no coset); d_b and d_c are overwritten.
void h_pipeline(fr_t* d_a, fr_t* d_b, fr_t* d_c, uint32_t log_n, cudaStream_t stream);

// Its steps, for a caller that holds fewer than three vectors at once. In place: evaluations
// on the domain -> evaluations on the coset g*H.
void h_to_coset(fr_t* d_x, uint32_t log_n, cudaStream_t stream);
// In place: c's evaluations on the domain -> its coefficients in bit-reversed order, divided by
// n (g^n - 1): the form h_finish takes off.
void h_c_coefficients(fr_t* d_c, uint32_t log_n, cudaStream_t stream);
// d_a <- the coefficients of (a*b - c) / Z, from a and b's coset evaluations (with d_b null,
// d_a already holds a*b) and d_c from h_c_coefficients.
void h_finish(fr_t* d_a, const fr_t* d_b, const fr_t* d_c, uint32_t log_n, cudaStream_t stream);

}  // namespace cuzk::ntt
