// Timing for the GPU experiments under tools/ (mont-experiment, affine-experiment): the
// shortest of three launches after a warm-up, in milliseconds, by CUDA events on the default
// stream. CUDA errors throw cuzk::cuda_error (util/error.cuh), whose message names the call.
#pragma once

#include <cuda_runtime.h>

#include "util/error.cuh"

template <class Launch>
float best_of(Launch launch) {
    cudaEvent_t a, b;
    CUZK_CUDA_CHECK(cudaEventCreate(&a));
    CUZK_CUDA_CHECK(cudaEventCreate(&b));
    float best = 1e30f;
    for (int rep = 0; rep < 4; rep++) {
        CUZK_CUDA_CHECK(cudaEventRecord(a));
        launch();
        CUZK_LAUNCH_CHECK();
        CUZK_CUDA_CHECK(cudaEventRecord(b));
        CUZK_CUDA_CHECK(cudaEventSynchronize(b));
        float ms;
        CUZK_CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
        if (rep > 0 && ms < best) best = ms;
    }
    CUZK_CUDA_CHECK(cudaEventDestroy(a));
    CUZK_CUDA_CHECK(cudaEventDestroy(b));
    return best;
}
