/* Multi-scalar multiplication and batch addition over G1 and G2 on the GPU.
 *
 * Points are blst_p1_affine / blstrs::G1Affine or blst_p2_affine / blstrs::G2Affine (all
 * zeros = infinity), scalars are blst_fr / blstrs::Scalar in Montgomery form (converted to
 * canonical integers on the GPU), results are blst_p1 / blst_p2 (Jacobian). Any length, including 0 (the result
 * is the identity).
 *
 * The host-pointer functions copy their inputs to the GPU, compute, copy the result back and
 * return when done. The `_device` functions take device pointers and only enqueue work on
 * `stream` (results are written to device memory too); errors from the kernels themselves
 * surface when the caller synchronizes the stream. */
#ifndef CUZK_MSM_H
#define CUZK_MSM_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/error.h"
#include "cuzk/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* *out = sum_i scalars[i] * points[i], i < n (host memory). */
cuzk_error_t cuzk_msm_g1(const cuzk_g1_affine_t* points, const cuzk_fr_t* scalars, size_t n,
                         cuzk_g1_projective_t* out);

/* *out = sum_i scalars[i] * points[i] over G2, i < n (host memory). */
cuzk_error_t cuzk_msm_g2(const cuzk_g2_affine_t* points, const cuzk_fr_t* scalars, size_t n,
                         cuzk_g2_projective_t* out);

/* The same on device buffers; `d_out` is one point in device memory. */
cuzk_error_t cuzk_msm_g1_device(const cuzk_g1_affine_t* d_points, const cuzk_fr_t* d_scalars, size_t n,
                                cuzk_g1_projective_t* d_out, cuzk_stream_t stream);

/* Batch addition (host memory): for each of `count` bitmaps, the sum of the points i < n whose
 * bit i is set. Bitmap b is `words[b * words_per_bitmap ...]`, 64-bit little-endian words
 * (bit i is bit i % 64 of word i / 64, as bellperson's Density), words_per_bitmap >= ceil(n/64);
 * bits at or beyond n are ignored. out[b] receives bitmap b's sum. The points are read once
 * for up to 4 bitmaps at a time. */
cuzk_error_t cuzk_batch_add_g1(const cuzk_g1_affine_t* points, size_t n, const uint64_t* words,
                               size_t words_per_bitmap, size_t count, cuzk_g1_projective_t* out);

/* Batch addition over G2 (host memory), as cuzk_batch_add_g1; one bitmap per pass. */
cuzk_error_t cuzk_batch_add_g2(const cuzk_g2_affine_t* points, size_t n, const uint64_t* words,
                               size_t words_per_bitmap, size_t count, cuzk_g2_projective_t* out);

/* The G1 batch addition on device buffers; `d_out` holds `count` points in device memory. */
cuzk_error_t cuzk_batch_add_g1_device(const cuzk_g1_affine_t* d_points, size_t n, const uint64_t* d_words,
                                      size_t words_per_bitmap, size_t count, cuzk_g1_projective_t* d_out,
                                      cuzk_stream_t stream);

/* Benchmark timings: milliseconds, each the median of `iters` runs after `warmup` runs,
 * measured with CUDA events. */
typedef struct cuzk_msm_bench_t {
    /* The operation on inputs already in device memory. */
    float device_ms;
    /* The operation including the host-to-device copy of its inputs (pinned memory). */
    float with_h2d_ms;
    /* MSM only (zero for the batch addition), medians of separately profiled runs: signed
     * digits and their sorts, bucket sums, bucket reduction with window combination. */
    float sort_ms;
    float bucket_ms;
    float reduce_ms;
    /* MSM only: the window size c and the number of windows, so that a caller can state the
     * work done (n * windows mixed additions into buckets). */
    uint32_t window_bits;
    uint32_t windows;
} cuzk_msm_bench_t;

/* Times cuzk_msm_g1_device on the given host inputs (which are pinned for the duration).
 * `window_bits` 0 takes the window the MSM plans for n points; 4 to 22 forces that window, so
 * that windows can be compared in one run. */
cuzk_error_t cuzk_msm_g1_bench(const cuzk_g1_affine_t* points, const cuzk_fr_t* scalars, size_t n,
                               uint32_t window_bits, uint32_t warmup, uint32_t iters, cuzk_msm_bench_t* out);

/* Times the G2 MSM the same way. */
cuzk_error_t cuzk_msm_g2_bench(const cuzk_g2_affine_t* points, const cuzk_fr_t* scalars, size_t n,
                               uint32_t window_bits, uint32_t warmup, uint32_t iters, cuzk_msm_bench_t* out);

/* Times cuzk_batch_add_g1_device on the given host inputs. */
cuzk_error_t cuzk_batch_add_g1_bench(const cuzk_g1_affine_t* points, size_t n, const uint64_t* words,
                                     size_t words_per_bitmap, size_t count, uint32_t warmup, uint32_t iters,
                                     cuzk_msm_bench_t* out);

#ifdef __cplusplus
}
#endif

#endif /* CUZK_MSM_H */
