// tools/mont-experiment: times and compares the two builds of acc_impl.cuh (see README.md).
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <vector>
#include <random>
#include <cuda_runtime.h>
extern "C" float acc_old(const void*, const unsigned*, void*, int, int);
extern "C" float acc_new(const void*, const unsigned*, void*, int, int);
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
    const int mt = 132 * 4 * 128 * 2, iters = 2048;
    void* io; cudaMalloc(&io, size_t(mt) * 2 * 48);
    cudaMemcpy(io, pts.data(), size_t(mt) * 2 * 48 < pts.size() * 4 ? size_t(mt) * 2 * 48 : pts.size() * 4, cudaMemcpyHostToDevice);
    float mo = mul_old(io, mt, iters), mn = mul_new(io, mt, iters);
    double prods = double(mt) * iters * 2;
    printf("Fp products (chains): old %.2f ms (%.2f G/s), new %.2f ms (%.2f G/s)\n", mo, prods / mo / 1e6, mn, prods / mn / 1e6);
    return 0;
}
