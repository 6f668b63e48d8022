// Fixed-base scalar multiplication over G1 and G2 (cuzk/fixed_base.h): one thread per scalar
// walks the scalar's 32 bytes and adds the table entry of each non-zero byte into an XYZZ
// accumulator, then converts it to affine with one field inversion. The table is small
// (786 KB for G1, 1.5 MB for G2) and read at random, so it stays in L2; the work is about 32
// mixed additions and one inversion per output, and the GPU finishes millions of outputs in
// milliseconds. The host copies (32-byte scalars in, affine points out) are the larger cost:
// the caller's buffers are page-locked for the call so that they run at full speed.
#include <algorithm>

#include "cuzk/fixed_base.h"
#include "ec/g1.cuh"
#include "ec/g2.cuh"
#include "util/error.cuh"
#include "util/resources.cuh"

namespace cuzk {
namespace {

constexpr unsigned THREADS = 128;
// Scalars per launch: bounds the device memory of one call (2^20 G2 outputs are 288 MiB).
constexpr size_t CHUNK = size_t(1) << 20;

static_assert(CUZK_FIXED_BASE_WINDOWS * 8 == 256 && CUZK_FIXED_BASE_DIGITS == 256, "byte windows");

template <class Affine, class Xyzz>
__global__ void __launch_bounds__(THREADS)
    fixed_base_kernel(const Affine* table, const fr_t* scalars, size_t n, Affine* out) {
    const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (i >= n) return;
    const fr_t k = scalars[i].to_canonical();
    Xyzz acc = Xyzz::inf();
#pragma unroll 1
    for (int w = 0; w < CUZK_FIXED_BASE_WINDOWS; w++) {
        const uint32_t byte = (k.l[w / 4] >> (8 * (w % 4))) & 0xff;
        if (byte) acc = acc.add_affine(table[w * CUZK_FIXED_BASE_DIGITS + byte]);
    }
    out[i] = acc.to_affine();
}

template <class Affine, class Xyzz>
void fixed_base_host(const void* table, const cuzk_fr_t* scalars, size_t n, void* out) {
    CUZK_REQUIRE(out != nullptr || n == 0, "fixed-base multiplication: null output");
    CUZK_REQUIRE(n == 0 || (table != nullptr && scalars != nullptr), "fixed-base multiplication: null input");
    if (n == 0) return;
    constexpr size_t table_len = size_t(CUZK_FIXED_BASE_WINDOWS) * CUZK_FIXED_BASE_DIGITS;
    const size_t chunk = std::min(n, CHUNK);
    host_pin_t pin_scalars(scalars, n * sizeof(fr_t), /*read_only=*/true, /*required=*/false);
    host_pin_t pin_out(out, n * sizeof(Affine), /*read_only=*/false, /*required=*/false);
    stream_t s;
    dev_ptr_t<Affine> d_table(table_len, s);
    dev_ptr_t<fr_t> d_scalars(chunk, s);
    dev_ptr_t<Affine> d_out(chunk, s);
    CUZK_CUDA_CHECK(cudaMemcpyAsync(d_table, table, table_len * sizeof(Affine), cudaMemcpyHostToDevice, s));
    for (size_t begin = 0; begin < n; begin += chunk) {
        const size_t len = std::min(chunk, n - begin);
        CUZK_CUDA_CHECK(
            cudaMemcpyAsync(d_scalars, scalars + begin, len * sizeof(fr_t), cudaMemcpyHostToDevice, s));
        const unsigned blocks = unsigned((len + THREADS - 1) / THREADS);
        fixed_base_kernel<Affine, Xyzz><<<blocks, THREADS, 0, s>>>(d_table, d_scalars, len, d_out);
        CUZK_LAUNCH_CHECK();
        CUZK_CUDA_CHECK(cudaMemcpyAsync(static_cast<Affine*>(out) + begin, d_out, len * sizeof(Affine),
                                        cudaMemcpyDeviceToHost, s));
    }
    s.sync();
}

}  // namespace
}  // namespace cuzk

using namespace cuzk;

extern "C" cuzk_error_t cuzk_fixed_base_mul_g1(const cuzk_g1_affine_t* table, const cuzk_fr_t* scalars, size_t n,
                                               cuzk_g1_affine_t* out) {
    static_assert(sizeof(cuzk_g1_affine_t) == sizeof(affine_t), "layout");
    return guard([&] { fixed_base_host<affine_t, xyzz_t>(table, scalars, n, out); });
}

extern "C" cuzk_error_t cuzk_fixed_base_mul_g2(const cuzk_g2_affine_t* table, const cuzk_fr_t* scalars, size_t n,
                                               cuzk_g2_affine_t* out) {
    static_assert(sizeof(cuzk_g2_affine_t) == sizeof(g2_affine_t), "layout");
    return guard([&] { fixed_base_host<g2_affine_t, g2_xyzz_t>(table, scalars, n, out); });
}
