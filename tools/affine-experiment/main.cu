// tools/affine-experiment: the MSM's bucket sums with affine additions that share one field
// inversion per block and step (Montgomery's trick), against the XYZZ mixed additions the MSM
// uses, on the same chains of scattered points; the two results are compared point for point.
// See README.md.
//
// An affine addition (x1, y1) + (x2, y2) with x1 != x2 is
//     l = (y2 - y1) / (x2 - x1),  x3 = l^2 - x1 - x2,  y3 = l (x1 - x3) - y1:
// one inversion, two products and a square. A block of 32*W threads, each owning M chains,
// advances all its 32*W*M chains by one point at a time: each thread multiplies its M
// denominators into running products (M products, the prefixes kept), the block scans the
// threads' products (prefix and suffix, in shared memory), one thread inverts the total, and
// each thread walks its chains back, peeling each denominator's inverse off the running
// inverse (2 products each), then adds. Per addition: 5 products and a square, plus the
// scans' and the inversion's share; XYZZ takes 8 products and 2 squares (2,604 wide
// multiply-adds as built, against about 1,660 here).
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <random>
#include <vector>

#include "timing.cuh"
#include "ec/g1.cuh"

using namespace cuzk;

namespace {

// Chain `chain` sums pts[idx[chain * per + j]], j < per, in order.

// XYZZ: one thread a chain, as the MSM's chunks add (the first point from infinity).
__global__ void __launch_bounds__(128) xyzz_kernel(const affine_t* pts, const unsigned* idx, xyzz_t* out,
                                                   unsigned chains, int per) {
    const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= chains) return;
    xyzz_t acc = xyzz_t::inf();
    for (int j = 0; j < per; j++) acc = acc.add_affine(pts[idx[size_t(t) * per + j]]);
    out[t] = acc;
}

// The XYZZ results to canonical affine coordinates (untimed: one inversion each).
__global__ void xyzz_to_affine(const xyzz_t* in, affine_t* out, unsigned chains) {
    const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= chains) return;
    affine_t a = in[t].to_affine();
    out[t] = {a.x.to_canonical(), a.y.to_canonical()};
}

// Batch-affine: block of 32*W threads, M chains a thread. Chain (c, lane) is
// c * lanes + lane (lanes = every thread of the grid), so that a warp's accesses to its
// chains' state are contiguous. acc_x, acc_y, pre: one fp_t per chain.
template <int W, int M>
__global__ void __launch_bounds__(32 * W) affine_kernel(const affine_t* pts, const unsigned* idx, fp_t* acc_x,
                                                        fp_t* acc_y, fp_t* pre, int per, unsigned* zero_dens) {
    constexpr int T = 32 * W;
    __shared__ fp_t prefix[T], suffix[T];
    __shared__ fp_t inv_total;
    const unsigned lanes = gridDim.x * T;
    const unsigned lane = blockIdx.x * T + threadIdx.x;
    const int tid = threadIdx.x;
    auto point = [&](int c, int j) { return pts[idx[size_t(c * lanes + lane) * per + j]]; };
    auto at = [&](int c) { return size_t(c) * lanes + lane; };

    for (int c = 0; c < M; c++) {
        affine_t p = point(c, 0);
        acc_x[at(c)] = p.x;
        acc_y[at(c)] = p.y;
    }
    for (int j = 1; j < per; j++) {
        // The denominators' running products.
        fp_t run = fp_t::one();
        for (int c = 0; c < M; c++) {
            fp_t d = point(c, j).x - acc_x[at(c)];
            if (d.is_zero()) atomicAdd(zero_dens, 1u);
            run = run * d;
            pre[at(c)] = run;
        }
        // The block's prefix and suffix products of the threads' runs (Hillis-Steele).
        prefix[tid] = run;
        suffix[tid] = run;
        __syncthreads();
        for (int off = 1; off < T; off <<= 1) {
            fp_t a = prefix[tid], b = suffix[tid];
            if (tid >= off) a = a * prefix[tid - off];
            if (tid + off < T) b = b * suffix[tid + off];
            __syncthreads();
            prefix[tid] = a;
            suffix[tid] = b;
            __syncthreads();
        }
        if (tid == 0) inv_total = prefix[T - 1].inverse();
        __syncthreads();
        // 1/run = (1/total) * (the runs before this thread's) * (the runs after it).
        fp_t inv_run = inv_total;
        if (tid > 0) inv_run = inv_run * prefix[tid - 1];
        if (tid + 1 < T) inv_run = inv_run * suffix[tid + 1];
        __syncthreads();  // the next step rewrites prefix and suffix
        for (int c = M - 1; c >= 0; c--) {
            const affine_t p = point(c, j);
            const fp_t x1 = acc_x[at(c)], y1 = acc_y[at(c)];
            const fp_t d = p.x - x1;
            const fp_t inv_d = c > 0 ? inv_run * pre[at(c - 1)] : inv_run;
            inv_run = inv_run * d;
            const fp_t l = (p.y - y1) * inv_d;
            const fp_t x3 = l.sqr() - x1 - p.x;
            acc_x[at(c)] = x3;
            acc_y[at(c)] = l * (x1 - x3) - y1;
        }
    }
}

__global__ void canonical(const fp_t* x, const fp_t* y, affine_t* out, unsigned chains) {
    const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= chains) return;
    out[t] = {x[t].to_canonical(), y[t].to_canonical()};
}

template <class T>
std::vector<T> to_host(const T* d, size_t n) {
    std::vector<T> h(n);
    CUZK_CUDA_CHECK(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
    return h;
}

struct setup_t {
    unsigned chains;
    int per;
    const affine_t* pts;
    const unsigned* idx;
    std::vector<affine_t> want;  // XYZZ's sums, canonical affine
};

template <int W, int M>
void run_affine(const setup_t& s) {
    constexpr unsigned T = 32 * W;
    const unsigned lanes = s.chains / M, blocks = lanes / T;
    if (lanes * M != s.chains || blocks * T != lanes) {
        std::printf("W=%d M=%d: %u chains do not divide into blocks\n", W, M, s.chains);
        return;
    }
    fp_t *x, *y, *pre;
    affine_t* out;
    unsigned* zeros;
    CUZK_CUDA_CHECK(cudaMalloc(&x, s.chains * sizeof(fp_t)));
    CUZK_CUDA_CHECK(cudaMalloc(&y, s.chains * sizeof(fp_t)));
    CUZK_CUDA_CHECK(cudaMalloc(&pre, s.chains * sizeof(fp_t)));
    CUZK_CUDA_CHECK(cudaMalloc(&out, s.chains * sizeof(affine_t)));
    CUZK_CUDA_CHECK(cudaMalloc(&zeros, sizeof(unsigned)));
    CUZK_CUDA_CHECK(cudaMemset(zeros, 0, sizeof(unsigned)));
    const float ms = best_of([&] { affine_kernel<W, M><<<blocks, T>>>(s.pts, s.idx, x, y, pre, s.per, zeros); });
    canonical<<<(s.chains + 255) / 256, 256>>>(x, y, out, s.chains);
    CUZK_LAUNCH_CHECK();
    const std::vector<affine_t> got = to_host(out, s.chains);
    size_t differ = 0;
    for (unsigned i = 0; i < s.chains; i++) differ += std::memcmp(&got[i], &s.want[i], sizeof(affine_t)) != 0;
    const double adds = double(s.chains) * (s.per - 1);
    std::printf("affine, %3u threads a block, %2d chains a thread: %8.2f ms  %.3f G additions/s  "
                "%zu of %u sums differ from XYZZ's, %u zero denominators (4 runs)\n",
                T, M, ms, adds / ms / 1e6, differ, s.chains, to_host(zeros, 1)[0]);
    CUZK_CUDA_CHECK(cudaFree(x));
    CUZK_CUDA_CHECK(cudaFree(y));
    CUZK_CUDA_CHECK(cudaFree(pre));
    CUZK_CUDA_CHECK(cudaFree(out));
    CUZK_CUDA_CHECK(cudaFree(zeros));
}

int run(int argc, char** argv) {
    // 2^22 chains of 16 points from 2^22 random points: 2^22 * 15 = 63 M additions.
    const unsigned chains = 1u << 22;
    const int per = argc > 1 ? std::atoi(argv[1]) : 16;
    const size_t npts = size_t(1) << 22;
    std::mt19937_64 rng(7);
    // Random field elements stand in for points: neither kind of addition uses the curve
    // equation (no doublings happen), so both compute the same chords.
    std::vector<uint32_t> raw(npts * 24);
    for (size_t i = 0; i < raw.size(); i++) raw[i] = uint32_t(rng()) & (i % 12 == 11 ? 0x0fffffffu : ~0u);
    std::vector<unsigned> idx(size_t(chains) * per);
    for (auto& v : idx) v = unsigned(rng() % npts);

    affine_t* pts;
    unsigned* didx;
    xyzz_t* acc;
    affine_t* want;
    CUZK_CUDA_CHECK(cudaMalloc(&pts, npts * sizeof(affine_t)));
    CUZK_CUDA_CHECK(cudaMalloc(&didx, idx.size() * sizeof(unsigned)));
    CUZK_CUDA_CHECK(cudaMalloc(&acc, chains * sizeof(xyzz_t)));
    CUZK_CUDA_CHECK(cudaMalloc(&want, chains * sizeof(affine_t)));
    CUZK_CUDA_CHECK(cudaMemcpy(pts, raw.data(), raw.size() * 4, cudaMemcpyHostToDevice));
    CUZK_CUDA_CHECK(cudaMemcpy(didx, idx.data(), idx.size() * sizeof(unsigned), cudaMemcpyHostToDevice));

    const float ms = best_of([&] { xyzz_kernel<<<(chains + 127) / 128, 128>>>(pts, didx, acc, chains, per); });
    xyzz_to_affine<<<(chains + 255) / 256, 256>>>(acc, want, chains);
    CUZK_LAUNCH_CHECK();
    const double adds = double(chains) * (per - 1);
    std::printf("%u chains of %d scattered points (%.0f M additions)\n", chains, per, adds / 1e6);
    std::printf("XYZZ, one thread a chain:                         %8.2f ms  %.3f G additions/s\n", ms,
                adds / ms / 1e6);

    const setup_t s{chains, per, pts, didx, to_host(want, chains)};
    run_affine<4, 16>(s);
    run_affine<4, 32>(s);
    run_affine<8, 16>(s);
    run_affine<8, 32>(s);
    run_affine<8, 64>(s);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        return run(argc, argv);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "affexp: %s\n", e.what());
        return 1;
    }
}
