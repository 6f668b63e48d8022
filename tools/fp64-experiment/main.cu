// tools/fp64-experiment: Fp product throughput on the integer pipe (the library's fp_t, 12
// limbs of 32 bits), on the FP64 pipe (fp52.cuh, 8 limbs of 52 bits), and both at once in
// each thread, to see whether the two pipes add up (issue 23). See README.md.
//
// Every thread runs two independent chains of products (x <- x * y), so that one chain's
// latency hides behind the other's; the mixed kernel runs one chain of each kind. Results:
// the FP64 chains of the first threads are recomputed on the host (std::fma gives the GPU's
// bits) and must be equal; the mixed kernel's chains must equal the single-kind kernels'.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <random>
#include <vector>

#include "ff/bls12_381.cuh"
#include "fp52.cuh"
#include "timing.cuh"
#include "util/error.cuh"

namespace {

using cuzk::fp_t;
using fp52::fe_t;

constexpr int BLOCK = 128;

template <class F>
struct chains_t {
    F x0, x1, y;
};

__global__ void __launch_bounds__(BLOCK) int_chains(chains_t<fp_t>* io, int steps) {
    const size_t t = blockIdx.x * size_t(BLOCK) + threadIdx.x;
    chains_t<fp_t> c = io[t];
    for (int s = 0; s < steps; s++) {
        c.x0 = c.x0 * c.y;
        c.x1 = c.x1 * c.y;
    }
    io[t] = c;
}

__global__ void __launch_bounds__(BLOCK) fp52_chains(chains_t<fe_t>* io, int steps) {
    const size_t t = blockIdx.x * size_t(BLOCK) + threadIdx.x;
    chains_t<fe_t> c = io[t];
    for (int s = 0; s < steps; s++) {
        c.x0 = fp52::mul(c.x0, c.y);
        c.x1 = fp52::mul(c.x1, c.y);
    }
    io[t] = c;
}

// One chain of each kind: x0 of the integer chains and x0 of the FP64 chains.
__global__ void __launch_bounds__(BLOCK) mixed_chains(chains_t<fp_t>* int_io, chains_t<fe_t>* fp52_io, int steps) {
    const size_t t = blockIdx.x * size_t(BLOCK) + threadIdx.x;
    fp_t a = int_io[t].x0;
    const fp_t ay = int_io[t].y;
    fe_t b = fp52_io[t].x0;
    const fe_t by = fp52_io[t].y;
    for (int s = 0; s < steps; s++) {
        a = a * ay;
        b = fp52::mul(b, by);
    }
    int_io[t].x0 = a;
    fp52_io[t].x0 = b;
}

// Device memory holding a host vector twice: `p`, the kernels' working copy, and `pristine`,
// from which reset() restores it (a device-to-device copy, so that every timed launch starts
// from the same inputs for a few microseconds).
template <class T>
struct device_array_t {
    T* p = nullptr;
    T* pristine = nullptr;
    size_t n = 0;
    explicit device_array_t(const std::vector<T>& h) : n(h.size()) {
        CUZK_CUDA_CHECK(cudaMalloc(&p, n * sizeof(T)));
        CUZK_CUDA_CHECK(cudaMalloc(&pristine, n * sizeof(T)));
        CUZK_CUDA_CHECK(cudaMemcpy(pristine, h.data(), n * sizeof(T), cudaMemcpyHostToDevice));
        reset();
    }
    ~device_array_t() {
        cudaFree(p);
        cudaFree(pristine);
    }
    device_array_t(const device_array_t&) = delete;
    device_array_t& operator=(const device_array_t&) = delete;
    void reset() { CUZK_CUDA_CHECK(cudaMemcpyAsync(p, pristine, n * sizeof(T), cudaMemcpyDeviceToDevice)); }
    std::vector<T> read() const {
        std::vector<T> h(n);
        CUZK_CUDA_CHECK(cudaMemcpy(h.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost));
        return h;
    }
};

fp_t random_fp(std::mt19937_64& rng) {
    fp_t x;
    for (int k = 0; k < fp_t::N; k++) x.l[k] = uint32_t(rng());
    x.l[fp_t::N - 1] &= 0x0fffffffu;  // below 2^380 < p
    return x;
}
fe_t random_fe(std::mt19937_64& rng) {
    fe_t x;
    for (int k = 0; k < fp52::N; k++) x.l[k] = double(rng() & fp52::MASK);
    x.l[fp52::N - 1] = double(uint64_t(x.l[fp52::N - 1]) & ((uint64_t(1) << 17) - 1));  // below 2^381 < 2p
    return x;
}

bool same_bytes(const void* a, const void* b, size_t n) { return std::memcmp(a, b, n) == 0; }

int run() {
    int sms = 0;
    CUZK_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const int blocks = sms * 16;
    const size_t threads = size_t(blocks) * BLOCK;
    const int steps = 256;
    std::mt19937_64 rng(20261205);
    std::vector<chains_t<fp_t>> int_in(threads);
    std::vector<chains_t<fe_t>> fp52_in(threads);
    for (auto& c : int_in) c = {random_fp(rng), random_fp(rng), random_fp(rng)};
    for (auto& c : fp52_in) c = {random_fe(rng), random_fe(rng), random_fe(rng)};

    for (auto [name, fn] : {std::pair{"int_chains", (const void*)int_chains},
                            std::pair{"fp52_chains", (const void*)fp52_chains},
                            std::pair{"mixed_chains", (const void*)mixed_chains}}) {
        cudaFuncAttributes attr;
        CUZK_CUDA_CHECK(cudaFuncGetAttributes(&attr, fn));
        std::printf("%-13s %3d registers, %zu bytes local\n", name, attr.numRegs, attr.localSizeBytes);
    }

    device_array_t<chains_t<fp_t>> int_io(int_in);
    device_array_t<chains_t<fe_t>> fp52_io(fp52_in);
    const double products = 2.0 * double(threads) * steps;
    // Each timed launch starts from the same inputs, so the last one's results are checked.
    const float int_ms = best_of([&] {
        int_io.reset();
        int_chains<<<blocks, BLOCK>>>(int_io.p, steps);
    });
    const std::vector<chains_t<fp_t>> int_out = int_io.read();
    const float fp52_ms = best_of([&] {
        fp52_io.reset();
        fp52_chains<<<blocks, BLOCK>>>(fp52_io.p, steps);
    });
    const std::vector<chains_t<fe_t>> fp52_out = fp52_io.read();
    const float mixed_ms = best_of([&] {
        int_io.reset();
        fp52_io.reset();
        mixed_chains<<<blocks, BLOCK>>>(int_io.p, fp52_io.p, steps);
    });
    const std::vector<chains_t<fp_t>> mixed_int = int_io.read();
    const std::vector<chains_t<fe_t>> mixed_fp52 = fp52_io.read();
    // The resets inside the timed launches, alone, to take off.
    const float copy_int_ms = best_of([&] { int_io.reset(); });
    const float copy_fp52_ms = best_of([&] { fp52_io.reset(); });

    // The FP64 chains of the first threads, on the host.
    int bad = 0;
    for (size_t t = 0; t < 256 && t < threads; t++) {
        chains_t<fe_t> c = fp52_in[t];
        for (int s = 0; s < steps; s++) {
            c.x0 = fp52::mul(c.x0, c.y);
            c.x1 = fp52::mul(c.x1, c.y);
        }
        bad += !same_bytes(&c.x0, &fp52_out[t].x0, sizeof(fe_t)) || !same_bytes(&c.x1, &fp52_out[t].x1, sizeof(fe_t));
    }
    int mixed_bad = 0;
    for (size_t t = 0; t < threads; t++)
        mixed_bad += !same_bytes(&mixed_int[t].x0, &int_out[t].x0, sizeof(fp_t)) ||
                     !same_bytes(&mixed_fp52[t].x0, &fp52_out[t].x0, sizeof(fe_t));

    const double int_k = int_ms - copy_int_ms, fp52_k = fp52_ms - copy_fp52_ms,
                 mixed_k = mixed_ms - copy_int_ms - copy_fp52_ms;
    std::printf("%zu threads x %d steps x 2 chains = %.0f M products a launch (the input resets taken off)\n",
                threads, steps, products / 1e6);
    std::printf("%-26s %9s %12s\n", "kernel", "ms", "G products/s");
    std::printf("%-26s %9.3f %12.2f\n", "int (fp_t, 32-bit limbs)", int_k, products / int_k / 1e6);
    std::printf("%-26s %9.3f %12.2f\n", "fp52 (FP64, 52-bit limbs)", fp52_k, products / fp52_k / 1e6);
    std::printf("%-26s %9.3f %12.2f\n", "mixed (one chain of each)", mixed_k, products / mixed_k / 1e6);
    std::printf("mixed against int alone: %.2fx the products a second\n", int_k / mixed_k);
    std::printf("fp52 chains against the host's: %s; mixed chains against the single-kind kernels': %s\n",
                bad ? "DIFFER" : "equal (256 threads)", mixed_bad ? "DIFFER" : "equal (every thread)");
    return bad || mixed_bad ? 1 : 0;
}

}  // namespace

int main() {
    try {
        return run();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "fp64exp: %s\n", e.what());
        return 1;
    }
}
