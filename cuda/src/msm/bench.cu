// Benchmark timing loops for the MSMs and the batch addition (cuzk_msm_g1_bench,
// cuzk_msm_g2_bench, cuzk_batch_add_g1_bench): median of several runs after warm-up, measured with CUDA events,
// once on inputs already on the device and once including their host-to-device copy. The
// host inputs are pinned for the duration so that the copy runs at full PCIe speed.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <vector>

#include "cuzk/msm.h"
#include "msm/msm.cuh"

namespace cuzk::msm {
namespace {

// The current device's pool keeps freed memory between runs (see keep_freed_pool_memory).
void keep_pool_memory() {
    int dev = 0;
    CUZK_CUDA_CHECK(cudaGetDevice(&dev));
    keep_freed_pool_memory(dev);
}

float median_of(std::vector<float> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

float median_ms(uint32_t warmup, uint32_t iters, cudaStream_t s, const std::function<void()>& body) {
    std::vector<float> times;
    for (uint32_t i = 0; i < warmup + std::max(iters, 1u); i++) {
        event_t start, stop;
        start.record(s);
        body();
        stop.record(s);
        stop.sync();
        if (i >= warmup) times.push_back(stop.since(start));
    }
    return median_of(std::move(times));
}

}  // namespace
}  // namespace cuzk::msm

using namespace cuzk;

namespace {

template <class G>
void msm_bench(const void* points, const cuzk_fr_t* scalars, size_t n, uint32_t window_bits, uint32_t warmup,
               uint32_t iters, cuzk_msm_bench_t* out) {
    using affine = typename G::affine;
    CUZK_REQUIRE(out != nullptr && (n == 0 || (points && scalars)), "msm bench: null argument");
    msm::keep_pool_memory();
    host_pin_t pin_p(points, n * sizeof(affine)), pin_s(scalars, n * sizeof(fr_t));
    stream_t s;
    dev_ptr_t<affine> d_points(n, s);
    dev_ptr_t<fr_t> d_scalars(n, s);
    dev_ptr_t<typename G::jacobian> d_out(1, s);
    auto h2d = [&] {
        if (!n) return;
        CUZK_CUDA_CHECK(cudaMemcpyAsync(d_points, points, n * sizeof(affine), cudaMemcpyHostToDevice, s));
        CUZK_CUDA_CHECK(cudaMemcpyAsync(d_scalars, scalars, n * sizeof(fr_t), cudaMemcpyHostToDevice, s));
    };
    h2d();
    auto run = [&](msm::msm_profile_t* prof) {
        msm::msm_device<G>(d_points, d_scalars, n, d_out, s, prof, window_bits);
    };
    out->device_ms = msm::median_ms(warmup, iters, s, [&] { run(nullptr); });
    out->with_h2d_ms = msm::median_ms(warmup, iters, s, [&] {
        h2d();
        run(nullptr);
    });
    std::vector<float> sort, bucket, reduce;
    for (uint32_t i = 0; i < std::max(iters, 1u); i++) {
        msm::msm_profile_t prof;
        run(&prof);
        prof.done.sync();
        sort.push_back(prof.sorted.since(prof.begin));
        bucket.push_back(prof.summed.since(prof.sorted));
        reduce.push_back(prof.done.since(prof.summed));
    }
    out->sort_ms = msm::median_of(sort);
    out->bucket_ms = msm::median_of(bucket);
    out->reduce_ms = msm::median_of(reduce);
    const msm::window_plan_t plan = window_bits ? msm::plan_of_bits(window_bits) : msm::plan_windows(n);
    out->window_bits = plan.bits;
    out->windows = plan.windows;
    s.sync();
}

}  // namespace

extern "C" cuzk_error_t cuzk_msm_g1_bench(const cuzk_g1_affine_t* points, const cuzk_fr_t* scalars, size_t n,
                                          uint32_t window_bits, uint32_t warmup, uint32_t iters,
                                          cuzk_msm_bench_t* out) {
    return guard([&] { msm_bench<g1_t>(points, scalars, n, window_bits, warmup, iters, out); });
}

extern "C" cuzk_error_t cuzk_msm_g2_bench(const cuzk_g2_affine_t* points, const cuzk_fr_t* scalars, size_t n,
                                          uint32_t window_bits, uint32_t warmup, uint32_t iters,
                                          cuzk_msm_bench_t* out) {
    return guard([&] { msm_bench<g2_t>(points, scalars, n, window_bits, warmup, iters, out); });
}

extern "C" cuzk_error_t cuzk_batch_add_g1_bench(const cuzk_g1_affine_t* points, size_t n, const uint64_t* words,
                                                size_t words_per_bitmap, size_t count, uint32_t warmup,
                                                uint32_t iters, cuzk_msm_bench_t* out) {
    return guard([&] {
        CUZK_REQUIRE(out != nullptr && (n == 0 || (points && words)), "batch add bench: null argument");
        msm::keep_pool_memory();
        const size_t word_bytes = words_per_bitmap * count * sizeof(uint64_t);
        host_pin_t pin_p(points, n * sizeof(affine_t)), pin_w(words, word_bytes);
        stream_t s;
        dev_ptr_t<affine_t> d_points(n, s);
        dev_ptr_t<uint64_t> d_words(words_per_bitmap * count, s);
        dev_ptr_t<jacobian_t> d_out(std::max<size_t>(count, 1), s);
        auto h2d = [&] {
            if (n) CUZK_CUDA_CHECK(cudaMemcpyAsync(d_points, points, n * sizeof(affine_t), cudaMemcpyHostToDevice, s));
            if (word_bytes) CUZK_CUDA_CHECK(cudaMemcpyAsync(d_words, words, word_bytes, cudaMemcpyHostToDevice, s));
        };
        h2d();
        auto run = [&] { msm::batch_add_device<g1_t>(d_points, n, d_words, words_per_bitmap, count, d_out, s); };
        out->device_ms = msm::median_ms(warmup, iters, s, run);
        out->with_h2d_ms = msm::median_ms(warmup, iters, s, [&] {
            h2d();
            run();
        });
        out->sort_ms = out->bucket_ms = out->reduce_ms = 0;
        out->window_bits = out->windows = 0;
        s.sync();
    });
}
