// Benchmark entry point for the NTT: times the forward transform (data on the device, and
// with the host-to-device copy from pinned memory) and the fused H pipeline with CUDA
// events, reporting medians. The timing loop lives here so that the Rust benchmark needs no
// device-memory bindings.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "cuzk/testing.h"
#include "ff/bls12_381.cuh"
#include "ntt/ntt.cuh"
#include "util/error.cuh"
#include "util/random.cuh"
#include "util/resources.cuh"

namespace cuzk {
namespace {

// Pseudo-random field elements: four 64-bit words with the top one masked below 2^62, so the
// value is below the modulus and therefore a valid Montgomery-form element.
__global__ void fill_random_kernel(fr_t* x, size_t n, uint64_t seed) {
    size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= n) return;
    fr_t v;
    for (int w = 0; w < 4; w++) {
        uint64_t r = splitmix64(seed ^ (uint64_t(i) * 4 + w));
        if (w == 3) r &= 0x3fffffffffffffffull;
        v.l[2 * w] = uint32_t(r);
        v.l[2 * w + 1] = uint32_t(r >> 32);
    }
    x[i] = v;
}

void fill_random(fr_t* x, size_t n, uint64_t seed, cudaStream_t s) {
    fill_random_kernel<<<unsigned((n + 255) / 256), 256, 0, s>>>(x, n, seed);
    CUZK_LAUNCH_CHECK();
}

// Median milliseconds of `iters` runs of `body`, each bracketed by events on `s`.
template <class F>
float median_ms(uint32_t warmup, uint32_t iters, cudaStream_t s, F&& body) {
    for (uint32_t i = 0; i < warmup; i++) body();
    CUZK_CUDA_CHECK(cudaStreamSynchronize(s));
    std::vector<float> times;
    event_t start, stop;
    for (uint32_t i = 0; i < iters; i++) {
        start.record(s);
        body();
        stop.record(s);
        stop.sync();
        times.push_back(stop.since(start));
    }
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

void bench_ntt(uint32_t log_n, uint32_t warmup, uint32_t iters, bool with_h, cuzk_ntt_bench_t* out) {
    ntt::check_args(log_n, 0);
    CUZK_REQUIRE(out != nullptr, "null output");
    CUZK_REQUIRE(iters >= 1, "at least one timed run");
    const size_t n = size_t(1) << log_n;
    stream_t s;
    dev_ptr_t<fr_t> d(n, s);
    fill_random(d.get(), n, 1, s);
    // First use builds the twiddle tables: keep it out of the timings.
    ntt::transform(d.get(), log_n, ntt::kind_t::forward, s);

    out->ntt_ms = median_ms(warmup, iters, s, [&] { ntt::transform(d.get(), log_n, ntt::kind_t::forward, s); });

    pinned_ptr_t<fr_t> host(n);
    CUZK_CUDA_CHECK(cudaMemcpyAsync(host.get(), d.get(), n * sizeof(fr_t), cudaMemcpyDeviceToHost, s));
    out->ntt_with_h2d_ms = median_ms(warmup, iters, s, [&] {
        CUZK_CUDA_CHECK(cudaMemcpyAsync(d.get(), host.get(), n * sizeof(fr_t), cudaMemcpyHostToDevice, s));
        ntt::transform(d.get(), log_n, ntt::kind_t::forward, s);
    });

    out->h_ms = 0;
    if (with_h) {
        dev_ptr_t<fr_t> b(n, s), c(n, s);
        fill_random(b.get(), n, 2, s);
        fill_random(c.get(), n, 3, s);
        out->h_ms = median_ms(warmup, iters, s, [&] { ntt::h_pipeline(d.get(), b.get(), c.get(), log_n, s); });
    }
    s.sync();
}

}  // namespace
}  // namespace cuzk

extern "C" cuzk_error_t cuzk_bench_ntt(uint32_t log_n, uint32_t warmup, uint32_t iters, int with_h,
                                       cuzk_ntt_bench_t* out) {
    return cuzk::guard([&] { cuzk::bench_ntt(log_n, warmup, iters, with_h != 0, out); });
}
