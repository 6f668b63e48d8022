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
int main() {
    const size_t npts = 1 << 22; const int per = 64; const int threads = 1 << 20;  // 2^26 additions
    std::mt19937_64 rng(7);
    std::vector<uint32_t> pts(npts * 24);
    for (size_t i = 0; i < npts; i++) {
        for (int k = 0; k < 24; k++) pts[i * 24 + k] = uint32_t(rng());
        pts[i * 24 + 11] &= 0x0fffffff; pts[i * 24 + 23] &= 0x0fffffff;  // x, y below p
    }
    std::vector<uint32_t> idx(size_t(threads) * per);
    for (auto& v : idx) v = uint32_t(rng() % npts);
    void *dp, *dout_a, *dout_b; unsigned* didx;
    cudaMalloc(&dp, pts.size() * 4); cudaMalloc(&didx, idx.size() * 4);
    cudaMalloc(&dout_a, size_t(threads) * 192); cudaMalloc(&dout_b, size_t(threads) * 192);
    cudaMemcpy(dp, pts.data(), pts.size() * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(didx, idx.data(), idx.size() * 4, cudaMemcpyHostToDevice);
    float to = acc_old(dp, didx, dout_a, threads, per);
    float tn = acc_new(dp, didx, dout_b, threads, per);
    std::vector<uint8_t> a(size_t(threads) * 192), b(size_t(threads) * 192);
    cudaMemcpy(a.data(), dout_a, a.size(), cudaMemcpyDeviceToHost);
    cudaMemcpy(b.data(), dout_b, b.size(), cudaMemcpyDeviceToHost);
    double adds = double(threads) * per;
    printf("mixed additions (2^26, scattered points): old %.2f ms (%.2f G/s), new %.2f ms (%.2f G/s), results %s, %s\n",
           to, adds / to / 1e6, tn, adds / tn / 1e6, memcmp(a.data(), b.data(), a.size()) ? "DIFFER" : "identical",
           cudaGetErrorString(cudaGetLastError()));
    // G2: the same pattern, 2^24 additions of random Fp2 pairs (c0, c1 below p) into 2^18
    // accumulators.
    {
        const int threads2 = 1 << 18;
        std::vector<uint32_t> pts2(npts * 48);
        for (size_t i = 0; i < npts; i++) {
            for (int k = 0; k < 48; k++) pts2[i * 48 + k] = uint32_t(rng());
            for (int k = 11; k < 48; k += 12) pts2[i * 48 + k] &= 0x0fffffff;
        }
        void *dp2, *o2a, *o2b;
        cudaMalloc(&dp2, pts2.size() * 4); cudaMalloc(&o2a, size_t(threads2) * 384); cudaMalloc(&o2b, size_t(threads2) * 384);
        cudaMemcpy(dp2, pts2.data(), pts2.size() * 4, cudaMemcpyHostToDevice);
        float t2o = acc2_old(dp2, didx, o2a, threads2, per), t2n = acc2_new(dp2, didx, o2b, threads2, per);
        std::vector<uint8_t> a2(size_t(threads2) * 384), b2(a2.size());
        cudaMemcpy(a2.data(), o2a, a2.size(), cudaMemcpyDeviceToHost);
        cudaMemcpy(b2.data(), o2b, b2.size(), cudaMemcpyDeviceToHost);
        double adds2 = double(threads2) * per;
        printf("G2 mixed additions (2^24, scattered points): old %.2f ms (%.3f G/s), new %.2f ms (%.3f G/s), results %s, %s\n",
               t2o, adds2 / t2o / 1e6, t2n, adds2 / t2n / 1e6, memcmp(a2.data(), b2.data(), a2.size()) ? "DIFFER" : "identical",
               cudaGetErrorString(cudaGetLastError()));
    }
    // Chains of products and of squares, each side on its own copy of the same inputs.
    const int mt = 132 * 4 * 128 * 2, iters = 2048;
    const size_t io_bytes = size_t(mt) * 2 * 48;
    void *io_a, *io_b; cudaMalloc(&io_a, io_bytes); cudaMalloc(&io_b, io_bytes);
    std::vector<uint8_t> ra(io_bytes), rb(io_bytes);
    auto chains = [&](const char* what, float (*f_old)(void*, int, int), float (*f_new)(void*, int, int)) {
        cudaMemcpy(io_a, pts.data(), io_bytes, cudaMemcpyHostToDevice);
        cudaMemcpy(io_b, pts.data(), io_bytes, cudaMemcpyHostToDevice);
        float mo = f_old(io_a, mt, iters), mn = f_new(io_b, mt, iters);
        cudaMemcpy(ra.data(), io_a, io_bytes, cudaMemcpyDeviceToHost);
        cudaMemcpy(rb.data(), io_b, io_bytes, cudaMemcpyDeviceToHost);
        double ops = double(mt) * iters * 2;
        printf("Fp %s (chains): old %.2f ms (%.2f G/s), new %.2f ms (%.2f G/s), results %s\n", what, mo, ops / mo / 1e6,
               mn, ops / mn / 1e6, memcmp(ra.data(), rb.data(), io_bytes) ? "DIFFER" : "identical");
    };
    chains("products", mul_old, mul_new);
    chains("squares", sqr_old, sqr_new);
    return 0;
}
