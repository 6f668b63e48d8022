/* Number-theoretic transforms over Fr on the GPU, and the H step of Groth16.
 *
 * Sizes are n = 2^log_n with 1 <= log_n <= 28. The domain is bellperson's: evaluations at
 * omega^i with omega = ROOT_OF_UNITY^(2^(32 - log_n)), the coset shift is g = 7
 * (MULTIPLICATIVE_GENERATOR). Elements are blst_fr / blstrs::Scalar values (Montgomery form),
 * natural order in and out. Results are bit-identical to bellperson-lite's EvaluationDomain.
 *
 * The host-pointer functions copy to the GPU and back and return when done. The `_device`
 * functions take device pointers (16-byte aligned; cudaMalloc's are) and only enqueue work on
 * `stream`: the caller synchronizes it before reading the results, and errors from the
 * kernels themselves surface at that synchronization. The first call on a device builds its
 * twiddle tables (about 4 MiB, kept for the life of the process). */
#ifndef CUZK_NTT_H
#define CUZK_NTT_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/error.h"
#include "cuzk/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Values of the `kind` argument. */
enum cuzk_ntt_kind {
    /* Coefficients to evaluations at omega^i (bellperson's fft). */
    CUZK_NTT_FORWARD = 0,
    /* Evaluations at omega^i to coefficients, 1/n included (ifft). */
    CUZK_NTT_INVERSE = 1,
    /* Coefficients to evaluations at g * omega^i: coefficient i times g^i, then forward
     * (coset_fft). */
    CUZK_NTT_COSET_FORWARD = 2,
    /* Evaluations at g * omega^i to coefficients (icoset_fft). */
    CUZK_NTT_COSET_INVERSE = 3,
};

/* In-place transform of `data[0 .. 2^log_n)` in host memory. */
cuzk_error_t cuzk_ntt(cuzk_fr_t* data, uint32_t log_n, int kind);

/* In-place transform of a device buffer, enqueued on `stream`. */
cuzk_error_t cuzk_ntt_device(cuzk_fr_t* d_data, uint32_t log_n, int kind, cuzk_stream_t stream);

/* The quotient H of Groth16, from host memory: `a`, `b`, `c` hold `len` <= 2^log_n
 * evaluations each on the domain (zero-padded to n); `h` receives the 2^log_n coefficients of
 *     icoset_fft((coset_fft(ifft(a)) * coset_fft(ifft(b)) - coset_fft(ifft(c))) / (g^n - 1)).
 * The top coefficient is zero when a*b = c on the domain; bellperson drops it. */
cuzk_error_t cuzk_ntt_h(const cuzk_fr_t* a, const cuzk_fr_t* b, const cuzk_fr_t* c, size_t len, uint32_t log_n,
                        cuzk_fr_t* h);

/* The same on device buffers of 2^log_n elements each (the caller zero-pads), enqueued on
 * `stream`: H replaces `d_a`; `d_b` and `d_c` are used as scratch and hold garbage after. */
cuzk_error_t cuzk_ntt_h_device(cuzk_fr_t* d_a, cuzk_fr_t* d_b, cuzk_fr_t* d_c, uint32_t log_n,
                               cuzk_stream_t stream);

#ifdef __cplusplus
}
#endif

#endif /* CUZK_NTT_H */
