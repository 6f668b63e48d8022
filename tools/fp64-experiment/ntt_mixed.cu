// tools/fp64-experiment: nttmix, the library's NTT passes with some warps computing their round
// twiddles' products on the FP64 pipe (issue 23: the NTT is bound by its Fr products on the
// integer multiply pipe, and the FP64 pipe is idle).
//
// The passes are the library's own phases (cuda/src/ntt/rounds.cuh) in a kernel like the
// library's pass_kernel, with an environment whose mul_root, in the warps a mask selects, is
// ntt52.cuh's product (twiddles pre-converted to fp52 form) instead of fr_t's. The forward
// transform's passes (natural order in, bit-reversed out, as the library's dif with no
// scaling) run at 2^24 and 2^27 for each mask, timed as bench_ntt does (median of 7 after 2),
// and each mask's output must equal the library kernel's (mask 0) bit for bit.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <exception>
#include <vector>

#include "ntt/kernels.cuh"
#include "ntt52.cuh"
#include "timing.cuh"
#include "util/error.cuh"
#include "util/resources.cuh"

namespace {

using cuzk::fr_t;
using namespace cuzk::ntt;

// A twiddle in fp52 form: 16 w mod r in five 52-bit limbs (ntt52.cuh).
struct fr52_t {
    double l[5];
};

// hi52[j] = the fp52 form of hi[j].
__global__ void to_fr52_kernel(const fr_t* hi, fr52_t* hi52, uint32_t count) {
    const uint32_t j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= count) return;
    const fr_t t = hi[j].dbl().dbl().dbl().dbl();  // 16 w mod r, on the raw integers
    uint64_t l[5];
    fp52::u32_to_limbs52(t.l, l);
    for (int k = 0; k < 5; k++) hi52[j].l[k] = fp52::limb_to_double(l[k]);
}

// The integer product with a table entry as a call, as the library's pass kernel made its
// products when this experiment ran (2026-12-05): the FP64 variant is a call too, so the two
// compare like for like.
static __device__ __noinline__ fr_t fr_mul_table_call(fr_t a, const fr_t* p) { return a * ldg(p); }

static __device__ __noinline__ fr_t fr52_mul_root_call(fr_t a, const fr52_t* t) {
    double td[5];
#pragma unroll
    for (int k = 0; k < 5; k++) td[k] = __ldg(&t->l[k]);
    uint32_t out[8];
    fp52::mul_fr32_by_52(a.l, td, out);
    return fr_t::reduce_once(out);
}

// rounds.cuh's environment: the library's, except mul_root in the FP64 warps.
struct mixed_env_t {
    const fr52_t* hi52;  // the pass's high table in fp52 form in an FP64 warp, null otherwise
    __device__ __forceinline__ fr_t mul(fr_t a, fr_t b) const { return a * b; }
    __device__ __forceinline__ fr_t mul_table(fr_t a, const fr_t* p) const { return fr_mul_table_call(a, p); }
    __device__ __forceinline__ fr_t mul_root(fr_t a, const fr_t* hi, uint32_t i) const {
        return hi52 != nullptr ? fr52_mul_root_call(a, hi52 + i) : fr_mul_table_call(a, hi + i);
    }
    __device__ __forceinline__ fr_t table(const fr_t* p) const { return ldg(p); }
};

// The library's pass_kernel with mixed_env_t: warp w of a block computes its round twiddles'
// products on the FP64 pipe when bit w of fp64_warps is set.
template <bool DIT>
__global__ void __launch_bounds__(PASS_THREADS, 3)
    mixed_pass_kernel(const pass_args_t a, const fr52_t* hi52, uint32_t fp64_warps) {
    run_pass<DIT>(mixed_env_t{((fp64_warps >> (threadIdx.x >> 5)) & 1) ? hi52 : nullptr}, a);
}

// Pseudo-random elements below 2^252 < r (a hash of the index; the values only need to vary).
__global__ void fill_kernel(fr_t* x, size_t n) {
    const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (i >= n) return;
    uint64_t h = i * 0x9e3779b97f4a7c15ull + 0x6a09e667f3bcc909ull;
    fr_t v;
    for (int k = 0; k < 8; k++) {
        h ^= h >> 29;
        h *= 0xbf58476d1ce4e5b9ull;
        h ^= h >> 32;
        v.l[k] = uint32_t(h);
    }
    v.l[7] &= 0x0fffffffu;
    x[i] = v;
}

// *diff += the number of elements where a and b differ.
__global__ void count_diff_kernel(const fr_t* a, const fr_t* b, size_t n, unsigned long long* diff) {
    const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (i < n && a[i] != b[i]) atomicAdd(diff, 1ull);
}

// The power tables of the forward root, as ntt.cu's build_domain makes them.
struct tables_t {
    cuzk::dev_ptr_t<fr_t> mem{8 * size_t(TABLE_LEN) + 3 * (MAX_LOG + 1) + 1, nullptr};
    cuzk::dev_ptr_t<fr_t> roots{size_t(1) << ROOTS_LOG, nullptr};
    cuzk::dev_ptr_t<fr52_t> hi52{TABLE_LEN, nullptr};
    const fr_t* hi() const { return mem.get(); }
    const fr_t* lo() const { return mem.get() + TABLE_LEN; }
    tables_t() {
        fr_t* consts = mem.get() + 8 * size_t(TABLE_LEN);
        fr_t* g_inv = consts + 3 * (MAX_LOG + 1);
        domain_consts_kernel<<<1, 32>>>(consts, consts + MAX_LOG + 1, consts + 2 * (MAX_LOG + 1), g_inv);
        CUZK_LAUNCH_CHECK();
        power_tables_kernel<<<TABLE_LEN / 128, 128>>>(mem.get(), g_inv);
        CUZK_LAUNCH_CHECK();
        roots_table_kernel<<<(1u << ROOTS_LOG) / 128, 128>>>(roots.get(), hi(), lo());
        CUZK_LAUNCH_CHECK();
        to_fr52_kernel<<<TABLE_LEN / 128, 128>>>(hi(), hi52.get(), TABLE_LEN);
        CUZK_LAUNCH_CHECK();
        CUZK_CUDA_CHECK(cudaDeviceSynchronize());
    }
};

// The forward family's passes over x (ntt.cu's dif with no scaling): the library's kernel
// when fp64_warps is 0, the mixed one otherwise.
void forward_passes(fr_t* x, uint32_t L, const tables_t& t, uint32_t fp64_warps) {
    const std::vector<uint32_t> ks = split(L);
    uint32_t m = L;
    for (uint32_t k : ks) {
        m -= k;
        const pass_t p = make_pass(L, k, m);
        const pass_args_t a{x, nullptr, p, t.hi(), t.lo(), t.roots.get(), scale_t{}, scale_t{}};
        const size_t smem = size_t(fr_t::N) * 4 * block_elems(p);
        if (fp64_warps == 0) {
            pass_kernel<false><<<block_count(p), block_threads(p), smem>>>(a);
        } else {
            mixed_pass_kernel<false><<<block_count(p), block_threads(p), smem>>>(a, t.hi52.get(), fp64_warps);
        }
        CUZK_LAUNCH_CHECK();
    }
}

int run() {
    const tables_t tables;
    for (auto [name, fn] : {std::pair{"pass_kernel (library)", (const void*)pass_kernel<false>},
                            std::pair{"mixed_pass_kernel", (const void*)mixed_pass_kernel<false>}}) {
        cudaFuncAttributes attr;
        CUZK_CUDA_CHECK(cudaFuncGetAttributes(&attr, fn));
        std::printf("%-22s %3d registers, %zu bytes local\n", name, attr.numRegs, attr.localSizeBytes);
    }
    // Masks over the four warps of a block: none, one, two (alternate), three, all on FP64.
    const uint32_t masks[] = {0x0, 0x8, 0xa, 0xe, 0xf};
    int bad = 0;
    std::printf("%-6s %-10s %10s %10s  %s\n", "size", "fp64 warps", "ms", "vs int", "output");
    for (uint32_t L : {24u, 27u}) {
        const size_t n = size_t(1) << L;
        cuzk::dev_ptr_t<fr_t> input(n, nullptr), x(n, nullptr), want(n, nullptr);
        cuzk::dev_ptr_t<unsigned long long> diff(1, nullptr);
        fill_kernel<<<unsigned((n + 255) / 256), 256>>>(input.get(), n);
        CUZK_LAUNCH_CHECK();
        const size_t bytes = n * sizeof(fr_t);
        float int_ms = 0;
        for (uint32_t mask : masks) {
            CUZK_CUDA_CHECK(cudaMemcpy(x.get(), input.get(), bytes, cudaMemcpyDeviceToDevice));
            forward_passes(x.get(), L, tables, mask);
            CUZK_CUDA_CHECK(cudaDeviceSynchronize());
            unsigned long long differ = 0;
            if (mask == 0) {
                CUZK_CUDA_CHECK(cudaMemcpy(want.get(), x.get(), bytes, cudaMemcpyDeviceToDevice));
            } else {
                CUZK_CUDA_CHECK(cudaMemset(diff.get(), 0, sizeof differ));
                count_diff_kernel<<<unsigned((n + 255) / 256), 256>>>(x.get(), want.get(), n, diff.get());
                CUZK_LAUNCH_CHECK();
                CUZK_CUDA_CHECK(cudaMemcpy(&differ, diff.get(), sizeof differ, cudaMemcpyDeviceToHost));
                bad += differ != 0;
            }
            // Timed in place on the transformed data (any field elements do).
            const float ms = median_of([&] { forward_passes(x.get(), L, tables, mask); });
            if (mask == 0) int_ms = ms;
            if (mask == 0) {
                std::printf("2^%-4u %-10x %10.3f %9.3fx  reference\n", L, mask, ms, 1.0);
            } else {
                std::printf("2^%-4u %-10x %10.3f %9.3fx  %s (%llu elements differ)\n", L, mask, ms, int_ms / ms,
                            differ ? "DIFFERS" : "equal", differ);
            }
        }
    }
    std::printf("nttmix: %s\n", bad ? "FAILED (outputs differ from the library kernel's)" : "every output equal");
    return bad ? 1 : 0;
}

}  // namespace

int main() {
    try {
        return run();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "nttmix: %s\n", e.what());
        return 1;
    }
}
