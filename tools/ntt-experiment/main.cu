// nttexp: times the library's NTT (the build's cuda/src, given to build.sh) on random data,
// so that kernel variants can be built and compared on the GPU machine itself, without the
// Rust bundle. Prints, for 2^24 and 2^27: the forward transform and the H pipeline (medians
// of 7 after 2 warm-ups, CUDA events), and a hash of the forward 2^24 output: every variant
// of a correct kernel prints the same hash.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuzk/ntt.h"
#include "timing.cuh"
#include "util/error.cuh"

namespace {

// Deterministic field elements below r: eight 32-bit limbs of a hash of (seed, i), the top
// one cut to 30 bits (r's top limb is 0x73eda753).
__global__ void fill_kernel(uint32_t* x, size_t n, uint32_t seed) {
    size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (i >= n) return;
    uint64_t h = (uint64_t(i) + 1) * 0x9e3779b97f4a7c15ull ^ uint64_t(seed) * 0xc2b2ae3d27d4eb4full;
    for (int j = 0; j < 8; j++) {
        h ^= h >> 31;
        h *= 0xbf58476d1ce4e5b9ull;
        h ^= h >> 29;
        x[8 * i + j] = uint32_t(h >> 16) & (j == 7 ? 0x3fffffffu : 0xffffffffu);
    }
}

void fill(cuzk_fr_t* x, uint32_t L, uint32_t seed) {
    size_t n = size_t(1) << L;
    fill_kernel<<<unsigned((n + 255) / 256), 256>>>(reinterpret_cast<uint32_t*>(x), n, seed);
    CUZK_LAUNCH_CHECK();
}

// A library error as an exception, its message copied and freed.
void check(cuzk_error_t e, const char* what) {
    if (e.code == 0) return;
    std::string message = std::string(what) + " failed: " + (e.message ? e.message : "(no message)");
    cuzk_error_free(e.message);
    throw std::runtime_error(message);
}

int run(const char* name) {
    cuzk_fr_t *a, *b, *c;
    const size_t max = size_t(1) << 27;
    CUZK_CUDA_CHECK(cudaMalloc(&a, max * sizeof(cuzk_fr_t)));
    CUZK_CUDA_CHECK(cudaMalloc(&b, max * sizeof(cuzk_fr_t)));
    CUZK_CUDA_CHECK(cudaMalloc(&c, max * sizeof(cuzk_fr_t)));

    // The hash: forward 2^24 of seed 1, then its inverse must give the input back.
    fill(a, 24, 1);
    fill(b, 24, 1);
    check(cuzk_ntt_device(a, 24, CUZK_NTT_FORWARD, nullptr), "forward");
    CUZK_CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<uint32_t> host(size_t(8) << 24), orig(size_t(8) << 24);
    CUZK_CUDA_CHECK(cudaMemcpy(host.data(), a, host.size() * 4, cudaMemcpyDeviceToHost));
    uint64_t hash = 1469598103934665603ull;
    for (uint32_t w : host) hash = (hash ^ w) * 1099511628211ull;
    check(cuzk_ntt_device(a, 24, CUZK_NTT_INVERSE, nullptr), "inverse");
    CUZK_CUDA_CHECK(cudaMemcpy(host.data(), a, host.size() * 4, cudaMemcpyDeviceToHost));
    CUZK_CUDA_CHECK(cudaMemcpy(orig.data(), b, orig.size() * 4, cudaMemcpyDeviceToHost));
    const bool round_trip = host == orig;

    float fwd[2], h[2];
    const uint32_t sizes[2] = {24, 27};
    for (int s = 0; s < 2; s++) {
        const uint32_t L = sizes[s];
        fill(a, L, 2);
        fwd[s] = median_of([&] { check(cuzk_ntt_device(a, L, CUZK_NTT_FORWARD, nullptr), "forward"); });
        h[s] = median_of([&] { check(cuzk_ntt_h_device(a, b, c, L, nullptr), "h"); });
    }
    std::printf("%-14s %9.3f %9.3f %9.3f %9.3f  %016llx %s\n", name, fwd[0], h[0], fwd[1], h[1],
                (unsigned long long)hash, round_trip ? "round-trip" : "ROUND-TRIP FAILED");
    return round_trip ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        return run(argc > 1 ? argv[1] : "?");
    } catch (const std::exception& e) {
        std::fprintf(stderr, "nttexp: %s\n", e.what());
        return 1;
    }
}
