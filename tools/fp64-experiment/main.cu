// tools/fp64-experiment: Fp and Fr product throughput on the integer pipe (the library's fp_t
// and fr_t, 32-bit limbs), on the FP64 pipe (fp52.cuh, 52-bit limbs), and both at once in each
// thread, to see whether the two pipes add up (issue 23); then the same for G1 mixed additions
// in XYZZ coordinates, the bucket sums' step (the library's ec_xyzz_t over fp_t against
// fp52_ec.cuh). See README.md.
//
// Every thread runs two independent chains of products (x <- x * y), so that one chain's
// latency hides behind the other's; the mixed kernel runs one chain of each kind. Results:
// the FP64 chains of the first threads are recomputed on the host (std::fma gives the GPU's
// bits) and must be equal; the mixed kernel's chains must equal the single-kind kernels'.
// The additions are checked the same way.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <random>
#include <vector>

#include "ec/xyzz.cuh"
#include "ff/bls12_381.cuh"
#include "fp52.cuh"
#include "fp52_ec.cuh"
#include "timing.cuh"
#include "util/error.cuh"
#include "util/resources.cuh"

namespace {

using fp52::fe_t;

constexpr int BLOCK = 128;

template <class F>
struct chains_t {
    F x0, x1, y;
};

// The single-kind kernels stride over their n items by the grid, so that side by side each
// can run on a grid that leaves room on every multiprocessor for the other's blocks.
template <class F>
__global__ void __launch_bounds__(BLOCK) int_chains(chains_t<F>* io, size_t n, int steps) {
    for (size_t t = blockIdx.x * size_t(BLOCK) + threadIdx.x; t < n; t += size_t(gridDim.x) * BLOCK) {
        chains_t<F> c = io[t];
        for (int s = 0; s < steps; s++) {
            c.x0 = c.x0 * c.y;
            c.x1 = c.x1 * c.y;
        }
        io[t] = c;
    }
}

template <class P>
__global__ void __launch_bounds__(BLOCK) fp52_chains(chains_t<fe_t<P>>* io, size_t n, int steps) {
    for (size_t t = blockIdx.x * size_t(BLOCK) + threadIdx.x; t < n; t += size_t(gridDim.x) * BLOCK) {
        chains_t<fe_t<P>> c = io[t];
        for (int s = 0; s < steps; s++) {
            c.x0 = fp52::mul(c.x0, c.y);
            c.x1 = fp52::mul(c.x1, c.y);
        }
        io[t] = c;
    }
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

// ---- G1 mixed additions: each thread adds ADDS_PER points, picked by idx, into its
// accumulator. The points are random field elements (the arithmetic costs what curve points
// cost; no sum meets a doubling or infinity), as tools/mont-experiment does.
constexpr int ADDS_PER = 64;
using int_affine_t = cuzk::ec_affine_t<cuzk::fp_t>;
using int_xyzz_t = cuzk::ec_xyzz_t<cuzk::fp_t>;

__global__ void __launch_bounds__(BLOCK)
    int_adds(const int_affine_t* pts, const uint32_t* idx, int_xyzz_t* out, size_t n) {
    for (size_t t = blockIdx.x * size_t(BLOCK) + threadIdx.x; t < n; t += size_t(gridDim.x) * BLOCK) {
        int_xyzz_t acc = int_xyzz_t::inf();
        for (int s = 0; s < ADDS_PER; s++) acc = acc.add_affine(pts[idx[t * ADDS_PER + s]]);
        out[t] = acc;
    }
}

__global__ void __launch_bounds__(BLOCK)
    fp52_adds(const fp52::affine52_t* pts, const uint32_t* idx, fp52::xyzz52_t* out, size_t n) {
    for (size_t t = blockIdx.x * size_t(BLOCK) + threadIdx.x; t < n; t += size_t(gridDim.x) * BLOCK) {
        fp52::xyzz52_t acc = fp52::xyzz52_t::inf();
        for (int s = 0; s < ADDS_PER; s++) acc = acc.add_affine(pts[idx[t * ADDS_PER + s]]);
        out[t] = acc;
    }
}

// One accumulator of each kind, the same indices into each kind's points.
__global__ void __launch_bounds__(BLOCK) mixed_adds(const int_affine_t* int_pts, const fp52::affine52_t* fp52_pts,
                                                    const uint32_t* idx, int_xyzz_t* int_out, fp52::xyzz52_t* fp52_out) {
    const size_t t = blockIdx.x * size_t(BLOCK) + threadIdx.x;
    int_xyzz_t a = int_xyzz_t::inf();
    fp52::xyzz52_t b = fp52::xyzz52_t::inf();
    for (int s = 0; s < ADDS_PER; s++) {
        const uint32_t i = idx[t * ADDS_PER + s];
        a = a.add_affine(int_pts[i]);
        b = b.add_affine(fp52_pts[i]);
    }
    int_out[t] = a;
    fp52_out[t] = b;
}

// A host vector's copy in device memory (the library's dev_ptr_t, on the default stream).
template <class T>
struct device_array_t {
    cuzk::dev_ptr_t<T> d;
    explicit device_array_t(const std::vector<T>& h) : d(h.size(), nullptr) {
        CUZK_CUDA_CHECK(cudaMemcpy(d.get(), h.data(), d.bytes(), cudaMemcpyHostToDevice));
    }
    T* get() const { return d.get(); }
    // Enqueues a copy of `o` (the same size) over this one: a reset of the inputs that costs
    // microseconds, inside a timed launch.
    void copy_from(const device_array_t& o) {
        CUZK_CUDA_CHECK(cudaMemcpyAsync(d.get(), o.get(), d.bytes(), cudaMemcpyDeviceToDevice));
    }
    std::vector<T> read() const {
        std::vector<T> h(d.size());
        CUZK_CUDA_CHECK(cudaMemcpy(h.data(), d.get(), d.bytes(), cudaMemcpyDeviceToHost));
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

// A grid of half the blocks of `kernel` that fit on the device at once (at least one a SM).
unsigned half_grid(const void* kernel) {
    int sms = 0, per_sm = 0;
    CUZK_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    CUZK_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, BLOCK, 0));
    return unsigned(sms * (per_sm > 1 ? per_sm / 2 : 1));
}

// Two launches at once, each on its own stream, after the default stream's earlier work and
// before its later work, so that launch_times' events on the default stream time both. The
// other way to use both pipes: blocks of an integer kernel and of an FP64 kernel side by side
// on each multiprocessor, each kernel with only its own registers, where a mixed kernel
// needs the registers of both in every thread.
struct side_by_side_t {
    cuzk::stream_t s1, s2;
    cuzk::event_t fork, join1, join2;
    template <class A, class B>
    void run(A launch_a, B launch_b) {
        fork.record(nullptr);
        CUZK_CUDA_CHECK(cudaStreamWaitEvent(s1, fork, 0));
        CUZK_CUDA_CHECK(cudaStreamWaitEvent(s2, fork, 0));
        launch_a(cudaStream_t(s1));
        CUZK_LAUNCH_CHECK();
        launch_b(cudaStream_t(s2));
        CUZK_LAUNCH_CHECK();
        join1.record(s1);
        join2.record(s2);
        CUZK_CUDA_CHECK(cudaStreamWaitEvent(nullptr, join1, 0));
        CUZK_CUDA_CHECK(cudaStreamWaitEvent(nullptr, join2, 0));
    }
};

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

    // Each timed launch starts from the same inputs: the working copies are reset from the
    // pristine ones inside it, so the last launch's results are the ones checked.
    const device_array_t<chains_t<F>> int_pristine(int_in);
    const device_array_t<chains_t<fe_t<P>>> fp52_pristine(fp52_in);
    device_array_t<chains_t<F>> int_io(int_in);
    device_array_t<chains_t<fe_t<P>>> fp52_io(fp52_in);
    const double products = 2.0 * double(threads) * steps;
    const float int_ms = best_of([&] {
        int_io.copy_from(int_pristine);
        int_chains<F><<<blocks, BLOCK>>>(int_io.get(), threads, steps);
    });
    const std::vector<chains_t<F>> int_out = int_io.read();
    const float fp52_ms = best_of([&] {
        fp52_io.copy_from(fp52_pristine);
        fp52_chains<P><<<blocks, BLOCK>>>(fp52_io.get(), threads, steps);
    });
    const std::vector<chains_t<fe_t<P>>> fp52_out = fp52_io.read();
    const float mixed_ms = best_of([&] {
        int_io.copy_from(int_pristine);
        fp52_io.copy_from(fp52_pristine);
        mixed_chains<F, P><<<blocks, BLOCK>>>(int_io.get(), fp52_io.get(), steps);
    });
    const std::vector<chains_t<F>> mixed_int = int_io.read();
    const std::vector<chains_t<fe_t<P>>> mixed_fp52 = fp52_io.read();
    side_by_side_t both;
    const unsigned int_grid = half_grid((const void*)int_chains<F>), fp52_grid = half_grid((const void*)fp52_chains<P>);
    const float side_ms = best_of([&] {
        int_io.copy_from(int_pristine);
        fp52_io.copy_from(fp52_pristine);
        both.run([&](cudaStream_t s) { int_chains<F><<<int_grid, BLOCK, 0, s>>>(int_io.get(), threads, steps); },
                 [&](cudaStream_t s) { fp52_chains<P><<<fp52_grid, BLOCK, 0, s>>>(fp52_io.get(), threads, steps); });
    });
    const bool side_bad = !same_bytes(int_io.read().data(), int_out.data(), threads * sizeof(chains_t<F>)) ||
                          !same_bytes(fp52_io.read().data(), fp52_out.data(), threads * sizeof(chains_t<fe_t<P>>));
    // The resets inside the timed launches, alone, to take off.
    const float copy_int_ms = best_of([&] { int_io.copy_from(int_pristine); });
    const float copy_fp52_ms = best_of([&] { fp52_io.copy_from(fp52_pristine); });

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
                 mixed_k = mixed_ms - copy_int_ms - copy_fp52_ms, side_k = side_ms - copy_int_ms - copy_fp52_ms;
    std::printf("%zu threads x %d steps x 2 chains = %.0f M products a launch (the input resets taken off)\n",
                threads, steps, products / 1e6);
    std::printf("%-30s %9s %12s\n", "kernel", "ms", "G products/s");
    std::printf("%-30s %9.3f %12.2f\n", "int (32-bit limbs)", int_k, products / int_k / 1e6);
    std::printf("%-30s %9.3f %12.2f\n", "fp52 (FP64, 52-bit limbs)", fp52_k, products / fp52_k / 1e6);
    std::printf("%-30s %9.3f %12.2f\n", "mixed (one chain of each)", mixed_k, products / mixed_k / 1e6);
    std::printf("%-30s %9.3f %12.2f\n", "side by side (two kernels)", side_k, 2 * products / side_k / 1e6);
    std::printf("%s: mixed against int alone: %.2fx the products a second; side by side: %.2fx\n", name,
                int_k / mixed_k, 2 * int_k / side_k);
    std::printf("fp52 chains against the host's: %s; mixed chains against the single-kind kernels': %s; "
                "side by side: %s\n",
                bad ? "DIFFER" : "equal (256 threads)", mixed_bad ? "DIFFER" : "equal (every thread)",
                side_bad ? "DIFFER" : "equal (every thread)");
    return bad + mixed_bad + side_bad;
}

// The additions of 2^20 accumulators, 64 each, from 2^22 points. Returns the mismatches.
int run_additions() {
    const size_t threads = size_t(1) << 20, points = size_t(1) << 22;
    const unsigned blocks = unsigned(threads / BLOCK);
    std::mt19937_64 rng(20261207);
    std::vector<int_affine_t> int_pts(points);
    std::vector<fp52::affine52_t> fp52_pts(points);
    for (auto& p : int_pts) p = {random_int<cuzk::fp_t>(rng), random_int<cuzk::fp_t>(rng)};
    for (auto& p : fp52_pts) {
        for (fp52::g1_fi_t* c : {&p.x, &p.y}) {
            for (int k = 0; k < fp52::fp_params_t::N; k++) c->l[k] = rng() & fp52::MASK;
            c->l[fp52::fp_params_t::N - 1] &= 0xffff;  // below 2^380 < p
        }
    }
    std::vector<uint32_t> idx(threads * ADDS_PER);
    for (auto& i : idx) i = uint32_t(rng() % points);

    std::printf("== G1 mixed additions (XYZZ)\n");
    for (auto [kernel, fn] : {std::pair{"int_adds", (const void*)int_adds}, std::pair{"fp52_adds", (const void*)fp52_adds},
                              std::pair{"mixed_adds", (const void*)mixed_adds}}) {
        cudaFuncAttributes attr;
        CUZK_CUDA_CHECK(cudaFuncGetAttributes(&attr, fn));
        std::printf("%-13s %3d registers, %zu bytes local\n", kernel, attr.numRegs, attr.localSizeBytes);
    }
    device_array_t<int_affine_t> d_int_pts(int_pts);
    device_array_t<fp52::affine52_t> d_fp52_pts(fp52_pts);
    device_array_t<uint32_t> d_idx(idx);
    device_array_t<int_xyzz_t> d_int_out{std::vector<int_xyzz_t>(threads)};
    device_array_t<fp52::xyzz52_t> d_fp52_out{std::vector<fp52::xyzz52_t>(threads)};

    const float int_ms =
        best_of([&] { int_adds<<<blocks, BLOCK>>>(d_int_pts.get(), d_idx.get(), d_int_out.get(), threads); });
    const std::vector<int_xyzz_t> int_out = d_int_out.read();
    const float fp52_ms =
        best_of([&] { fp52_adds<<<blocks, BLOCK>>>(d_fp52_pts.get(), d_idx.get(), d_fp52_out.get(), threads); });
    const std::vector<fp52::xyzz52_t> fp52_out = d_fp52_out.read();
    const float mixed_ms = best_of([&] {
        mixed_adds<<<blocks, BLOCK>>>(d_int_pts.get(), d_fp52_pts.get(), d_idx.get(), d_int_out.get(), d_fp52_out.get());
    });
    const std::vector<int_xyzz_t> mixed_int = d_int_out.read();
    const std::vector<fp52::xyzz52_t> mixed_fp52 = d_fp52_out.read();
    side_by_side_t both;
    const unsigned int_grid = half_grid((const void*)int_adds), fp52_grid = half_grid((const void*)fp52_adds);
    const float side_ms = best_of([&] {
        both.run(
            [&](cudaStream_t s) {
                int_adds<<<int_grid, BLOCK, 0, s>>>(d_int_pts.get(), d_idx.get(), d_int_out.get(), threads);
            },
            [&](cudaStream_t s) {
                fp52_adds<<<fp52_grid, BLOCK, 0, s>>>(d_fp52_pts.get(), d_idx.get(), d_fp52_out.get(), threads);
            });
    });
    const bool side_bad = !same_bytes(d_int_out.read().data(), int_out.data(), threads * sizeof(int_xyzz_t)) ||
                          !same_bytes(d_fp52_out.read().data(), fp52_out.data(), threads * sizeof(fp52::xyzz52_t));

    int bad = 0;
    for (size_t t = 0; t < 64; t++) {
        fp52::xyzz52_t acc = fp52::xyzz52_t::inf();
        for (int s = 0; s < ADDS_PER; s++) acc = acc.add_affine(fp52_pts[idx[t * ADDS_PER + s]]);
        bad += !same_bytes(&acc, &fp52_out[t], sizeof acc);
    }
    int mixed_bad = 0;
    for (size_t t = 0; t < threads; t++)
        mixed_bad += !same_bytes(&mixed_int[t], &int_out[t], sizeof(int_xyzz_t)) ||
                     !same_bytes(&mixed_fp52[t], &fp52_out[t], sizeof(fp52::xyzz52_t));

    const double adds = double(threads) * ADDS_PER;
    std::printf("%zu accumulators x %d additions from %zu points\n", threads, ADDS_PER, points);
    std::printf("%-30s %9s %12s\n", "kernel", "ms", "G adds/s");
    std::printf("%-30s %9.3f %12.3f\n", "int (ec_xyzz_t<fp_t>)", int_ms, adds / int_ms / 1e6);
    std::printf("%-30s %9.3f %12.3f\n", "fp52 (xyzz52_t)", fp52_ms, adds / fp52_ms / 1e6);
    std::printf("%-30s %9.3f %12.3f\n", "mixed (one of each)", mixed_ms, 2 * adds / mixed_ms / 1e6);
    std::printf("%-30s %9.3f %12.3f\n", "side by side (two kernels)", side_ms, 2 * adds / side_ms / 1e6);
    std::printf("G1: mixed against int alone: %.2fx the additions a second; side by side: %.2fx\n",
                2 * int_ms / mixed_ms, 2 * int_ms / side_ms);
    std::printf("fp52 sums against the host's: %s; mixed sums against the single-kind kernels': %s; side by side: %s\n",
                bad ? "DIFFER" : "equal (64 accumulators)", mixed_bad ? "DIFFER" : "equal (every accumulator)",
                side_bad ? "DIFFER" : "equal (every accumulator)");
    return bad + mixed_bad + int(side_bad);
}

int run() {
    int sms = 0;
    CUZK_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const int blocks = sms * 16, steps = 256;
    const int bad = run_field<cuzk::fp_t, fp52::fp_params_t>("Fp", 17, blocks, steps) +
                    run_field<cuzk::fr_t, fp52::fr_params_t>("Fr", 46, blocks, steps) + run_additions();
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
