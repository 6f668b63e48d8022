// Timing for the GPU experiments under tools/ (mont-experiment, affine-experiment,
// ntt-experiment), by CUDA events on the default stream, in milliseconds: the shortest of
// three launches after a warm-up (best_of), or the median of seven after two (median_of, the
// statistic of the tree's bench_ntt). CUDA errors throw cuzk::cuda_error (util/error.cuh),
// whose message names the call.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

#include "util/error.cuh"

// The times of `runs` launches after `warm_up` untimed ones.
template <class Launch>
std::vector<float> launch_times(Launch launch, int warm_up, int runs) {
    cudaEvent_t a, b;
    CUZK_CUDA_CHECK(cudaEventCreate(&a));
    CUZK_CUDA_CHECK(cudaEventCreate(&b));
    std::vector<float> times;
    for (int rep = 0; rep < warm_up + runs; rep++) {
        CUZK_CUDA_CHECK(cudaEventRecord(a));
        launch();
        CUZK_LAUNCH_CHECK();
        CUZK_CUDA_CHECK(cudaEventRecord(b));
        CUZK_CUDA_CHECK(cudaEventSynchronize(b));
        float ms;
        CUZK_CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
        if (rep >= warm_up) times.push_back(ms);
    }
    CUZK_CUDA_CHECK(cudaEventDestroy(a));
    CUZK_CUDA_CHECK(cudaEventDestroy(b));
    return times;
}

template <class Launch>
float best_of(Launch launch) {
    const std::vector<float> t = launch_times(launch, 1, 3);
    return *std::min_element(t.begin(), t.end());
}

template <class Launch>
float median_of(Launch launch) {
    std::vector<float> t = launch_times(launch, 2, 7);
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}
