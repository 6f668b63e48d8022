// tools/fp64-experiment: Fp and Fr product throughput on the integer pipe (the library's fp_t
// and fr_t, 32-bit limbs), on the FP64 pipe (fp52.cuh, 52-bit limbs), and both at once in each
// thread, to see whether the two pipes add up (issue 23). See README.md.
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

using fp52::fe_t;

constexpr int BLOCK = 128;

template <class F>
struct chains_t {
    F x0, x1, y;
};

template <class F>
__global__ void __launch_bounds__(BLOCK) int_chains(chains_t<F>* io, int steps) {
    const size_t t = blockIdx.x * size_t(BLOCK) + threadIdx.x;
    chains_t<F> c = io[t];
    for (int s = 0; s < steps; s++) {
        c.x0 = c.x0 * c.y;
        c.x1 = c.x1 * c.y;
    }
    io[t] = c;
}

template <class P>
__global__ void __launch_bounds__(BLOCK) fp52_chains(chains_t<fe_t<P>>* io, int steps) {
    const size_t t = blockIdx.x * size_t(BLOCK) + threadIdx.x;
    chains_t<fe_t<P>> c = io[t];
    for (int s = 0; s < steps; s++) {
        c.x0 = fp52::mul(c.x0, c.y);
        c.x1 = fp52::mul(c.x1, c.y);
    }
    io[t] = c;
}

// One chain of each kind: x0 of the integer chains and x0 of the FP64 chains.
template <class F, class P>
__global__ void __launch_bounds__(BLOCK) mixed_chains(chains_t<F>* int_io, chains_t<fe_t<P>>* fp52_io, int steps) {
    const size_t t = blockIdx.x * size_t(BLOCK) + threadIdx.x;
    F a = int_io[t].x0;
    const F ay = int_io[t].y;
    fe_t<P> b = fp52_io[t].x0;
    const fe_t<P> by = fp52_io[t].y;
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

// A random element of the library's field F below 2^(32 N - 4) (below p and r).
template <class F>
F random_int(std::mt19937_64& rng) {
    F x;
    for (int k = 0; k < F::N; k++) x.l[k] = uint32_t(rng());
    x.l[F::N - 1] &= 0x0fffffffu;
    return x;
}
// A random fp52 element below 2^(top_bits + 52 (N - 1)) (below 2p).
template <class P>
fe_t<P> random_fe(std::mt19937_64& rng, int top_bits) {
    fe_t<P> x;
    for (int k = 0; k < P::N; k++) x.l[k] = double(rng() & fp52::MASK);
    x.l[P::N - 1] = double(uint64_t(x.l[P::N - 1]) & ((uint64_t(1) << top_bits) - 1));
    return x;
}

bool same_bytes(const void* a, const void* b, size_t n) { return std::memcmp(a, b, n) == 0; }

// One field: F the library's type, P fp52's parameters; `top_bits` keeps fp52 inputs below 2p.
// Returns the number of mismatches.
template <class F, class P>
int run_field(const char* name, int top_bits, int blocks, int steps) {
    const size_t threads = size_t(blocks) * BLOCK;
    std::mt19937_64 rng(20261205);
    std::vector<chains_t<F>> int_in(threads);
    std::vector<chains_t<fe_t<P>>> fp52_in(threads);
    for (auto& c : int_in) c = {random_int<F>(rng), random_int<F>(rng), random_int<F>(rng)};
    for (auto& c : fp52_in) c = {random_fe<P>(rng, top_bits), random_fe<P>(rng, top_bits), random_fe<P>(rng, top_bits)};

    std::printf("== %s\n", name);
    for (auto [kernel, fn] : {std::pair{"int_chains", (const void*)int_chains<F>},
                              std::pair{"fp52_chains", (const void*)fp52_chains<P>},
                              std::pair{"mixed_chains", (const void*)mixed_chains<F, P>}}) {
        cudaFuncAttributes attr;
        CUZK_CUDA_CHECK(cudaFuncGetAttributes(&attr, fn));
        std::printf("%-13s %3d registers, %zu bytes local\n", kernel, attr.numRegs, attr.localSizeBytes);
    }

    device_array_t<chains_t<F>> int_io(int_in);
    device_array_t<chains_t<fe_t<P>>> fp52_io(fp52_in);
    const double products = 2.0 * double(threads) * steps;
    // Each timed launch starts from the same inputs, so the last one's results are checked.
    const float int_ms = best_of([&] {
        int_io.reset();
        int_chains<F><<<blocks, BLOCK>>>(int_io.p, steps);
    });
    const std::vector<chains_t<F>> int_out = int_io.read();
    const float fp52_ms = best_of([&] {
        fp52_io.reset();
        fp52_chains<P><<<blocks, BLOCK>>>(fp52_io.p, steps);
    });
    const std::vector<chains_t<fe_t<P>>> fp52_out = fp52_io.read();
    const float mixed_ms = best_of([&] {
        int_io.reset();
        fp52_io.reset();
        mixed_chains<F, P><<<blocks, BLOCK>>>(int_io.p, fp52_io.p, steps);
    });
    const std::vector<chains_t<F>> mixed_int = int_io.read();
    const std::vector<chains_t<fe_t<P>>> mixed_fp52 = fp52_io.read();
    // The resets inside the timed launches, alone, to take off.
    const float copy_int_ms = best_of([&] { int_io.reset(); });
    const float copy_fp52_ms = best_of([&] { fp52_io.reset(); });

    // The FP64 chains of the first threads, on the host.
    int bad = 0;
    for (size_t t = 0; t < 256 && t < threads; t++) {
        chains_t<fe_t<P>> c = fp52_in[t];
        for (int s = 0; s < steps; s++) {
            c.x0 = fp52::mul(c.x0, c.y);
            c.x1 = fp52::mul(c.x1, c.y);
        }
        bad += !same_bytes(&c.x0, &fp52_out[t].x0, sizeof c.x0) || !same_bytes(&c.x1, &fp52_out[t].x1, sizeof c.x1);
    }
    int mixed_bad = 0;
    for (size_t t = 0; t < threads; t++)
        mixed_bad += !same_bytes(&mixed_int[t].x0, &int_out[t].x0, sizeof(F)) ||
                     !same_bytes(&mixed_fp52[t].x0, &fp52_out[t].x0, sizeof(fe_t<P>));

    const double int_k = int_ms - copy_int_ms, fp52_k = fp52_ms - copy_fp52_ms,
                 mixed_k = mixed_ms - copy_int_ms - copy_fp52_ms;
    std::printf("%zu threads x %d steps x 2 chains = %.0f M products a launch (the input resets taken off)\n",
                threads, steps, products / 1e6);
    std::printf("%-30s %9s %12s\n", "kernel", "ms", "G products/s");
    std::printf("%-30s %9.3f %12.2f\n", "int (32-bit limbs)", int_k, products / int_k / 1e6);
    std::printf("%-30s %9.3f %12.2f\n", "fp52 (FP64, 52-bit limbs)", fp52_k, products / fp52_k / 1e6);
    std::printf("%-30s %9.3f %12.2f\n", "mixed (one chain of each)", mixed_k, products / mixed_k / 1e6);
    std::printf("%s: mixed against int alone: %.2fx the products a second\n", name, int_k / mixed_k);
    std::printf("fp52 chains against the host's: %s; mixed chains against the single-kind kernels': %s\n",
                bad ? "DIFFER" : "equal (256 threads)", mixed_bad ? "DIFFER" : "equal (every thread)");
    return bad + mixed_bad;
}

int run() {
    int sms = 0;
    CUZK_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const int blocks = sms * 16, steps = 256;
    const int bad = run_field<cuzk::fp_t, fp52::fp_params_t>("Fp", 17, blocks, steps) +
                    run_field<cuzk::fr_t, fp52::fr_params_t>("Fr", 46, blocks, steps);
    return bad ? 1 : 0;
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
