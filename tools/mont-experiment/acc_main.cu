// tools/mont-experiment: times and compares the two builds of acc_impl.cuh (see README.md).
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <vector>
#include <random>
#include <cuda_runtime.h>
extern "C" float acc_old(const void*, const unsigned*, void*, int, int);
extern "C" float acc_new(const void*, const unsigned*, void*, int, int);
extern "C" float acc2_old(const void*, const unsigned*, void*, int, int);
extern "C" float acc2_new(const void*, const unsigned*, void*, int, int);
extern "C" float sqr_old(void*, int, int);
extern "C" float sqr_new(void*, int, int);
extern "C" float mul_old(void*, int, int);
extern "C" float mul_new(void*, int, int);

using acc_fn = float (*)(const void*, const unsigned*, void*, int, int);
using chain_fn = float (*)(void*, int, int);

// n random "points" of `limbs` 32-bit limbs, each Fp coordinate (12 limbs) below p: random
// field elements cost the additions what curve points do.
std::vector<uint32_t> random_points(std::mt19937_64& rng, size_t n, int limbs) {
    std::vector<uint32_t> v(n * limbs);
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < limbs; k++) v[i * limbs + k] = uint32_t(rng()) & (k % 12 == 11 ? 0x0fffffffu : ~0u);
    return v;
}

// Copies `bytes` of device memory to a host vector.
std::vector<uint8_t> to_host(const void* d, size_t bytes) {
    std::vector<uint8_t> h(bytes);
    cudaMemcpy(h.data(), d, bytes, cudaMemcpyDeviceToHost);
    return h;
}

// Both sides' additions of the same points (per accumulator `per` of them, from `didx`) into
// `threads` accumulators of `acc_bytes`; prints their rates and whether the results agree.
void compare_additions(const char* what, acc_fn f_old, acc_fn f_new, const std::vector<uint32_t>& pts,
                       const unsigned* didx, int threads, int per, size_t acc_bytes) {
    void *dp, *out_a, *out_b;
    const size_t out_bytes = size_t(threads) * acc_bytes;
    cudaMalloc(&dp, pts.size() * 4); cudaMalloc(&out_a, out_bytes); cudaMalloc(&out_b, out_bytes);
    cudaMemcpy(dp, pts.data(), pts.size() * 4, cudaMemcpyHostToDevice);
    const float to = f_old(dp, didx, out_a, threads, per), tn = f_new(dp, didx, out_b, threads, per);
    const bool same = to_host(out_a, out_bytes) == to_host(out_b, out_bytes);
    const double adds = double(threads) * per;
    printf("%s: old %.2f ms (%.3f G/s), new %.2f ms (%.3f G/s), results %s, %s\n", what, to, adds / to / 1e6, tn,
           adds / tn / 1e6, same ? "identical" : "DIFFER", cudaGetErrorString(cudaGetLastError()));
    cudaFree(dp); cudaFree(out_a); cudaFree(out_b);
}

// Both sides' chains (products or squares) from copies of the same inputs.
void compare_chains(const char* what, chain_fn f_old, chain_fn f_new, const std::vector<uint32_t>& inputs) {
    const int threads = 132 * 4 * 128 * 2, iters = 2048;
    const size_t bytes = size_t(threads) * 2 * 48;
    void *io_a, *io_b;
    cudaMalloc(&io_a, bytes); cudaMalloc(&io_b, bytes);
    cudaMemcpy(io_a, inputs.data(), bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(io_b, inputs.data(), bytes, cudaMemcpyHostToDevice);
    const float mo = f_old(io_a, threads, iters), mn = f_new(io_b, threads, iters);
    const bool same = to_host(io_a, bytes) == to_host(io_b, bytes);
    const double ops = double(threads) * iters * 2;
    printf("Fp %s (chains): old %.2f ms (%.2f G/s), new %.2f ms (%.2f G/s), results %s\n", what, mo, ops / mo / 1e6,
           mn, ops / mn / 1e6, same ? "identical" : "DIFFER");
    cudaFree(io_a); cudaFree(io_b);
}

int main() {
    const size_t npts = 1 << 22; const int per = 64; const int threads = 1 << 20;  // 2^26 additions
    std::mt19937_64 rng(7);
    const std::vector<uint32_t> pts = random_points(rng, npts, 24);
    std::vector<uint32_t> idx(size_t(threads) * per);
    for (auto& v : idx) v = uint32_t(rng() % npts);
    unsigned* didx;
    cudaMalloc(&didx, idx.size() * 4);
    cudaMemcpy(didx, idx.data(), idx.size() * 4, cudaMemcpyHostToDevice);
    compare_additions("mixed additions (2^26, scattered points)", acc_old, acc_new, pts, didx, threads, per, 192);
    // G2: the same pattern, 2^24 additions of random Fp2 pairs into 2^18 accumulators.
    compare_additions("G2 mixed additions (2^24, scattered points)", acc2_old, acc2_new, random_points(rng, npts, 48),
                      didx, 1 << 18, per, 384);
    // The chains start from the G1 points' limbs, read as Fp elements.
    compare_chains("products", mul_old, mul_new, pts);
    compare_chains("squares", sqr_old, sqr_new, pts);
    return 0;
}
