// NTT over Fr: per-device twiddle tables, the passes' launches, the four transforms, the fused H
// pipeline of Groth16, and their C entry points (cuzk/ntt.h).
//
// Every transform is a chain of radix-2^k passes (kernels.cuh) plus at most one in-place
// bit-reversal pass, so 2^27 elements cost four trips through global memory:
//   forward        DIF passes with w                         then bit reversal
//   inverse        DIF passes with w^-1                      then bit reversal scaled by 1/n
//   coset forward  DIF passes with w, g^i applied on load    then bit reversal
//   coset inverse  DIF passes with w^-1                      then bit reversal scaled by g^-i/n
// The H pipeline needs no bit reversal until its very end: ifft by DIF passes with w^-1 leaves
// coefficients in bit-reversed order, scaled on the way out by g^i/n at their true index i,
// which is exactly the input DIT passes with w want to produce coset evaluations in natural
// order. Only a and b go to the coset: Z(x) = x^n - 1 is the constant g^n - 1 on the coset
// g*H, and the coset transforms are linear, so
//     h = coset_ifft((A*B - C) / (g^n - 1)) = (coset_ifft(A*B) - c) / (g^n - 1),
// with A, B, C the coset evaluations and c the coefficients of the polynomial that interpolates
// c on H (coset_ifft(C) = c whatever c is: no satisfied witness is assumed, and h is the same
// field elements as the seven-transform form). That is six transforms, not seven. c's ifft
// leaves its coefficients bit-reversed and divided by n (g^n - 1); the last transform forms a*b
// as it loads and ends with a bit reversal that scales by g^-i/(n (g^n - 1)) and takes c off.
#include <cuda_runtime.h>

#include <algorithm>
#include <memory>
#include <cstdint>
#include <mutex>
#include <vector>

#include "cuzk/ntt.h"
#include "ntt/kernels.cuh"
#include "ntt/ntt.cuh"
#include "util/error.cuh"
#include "util/resources.cuh"

namespace cuzk::ntt {
namespace {

// The constants of one device, built on first use and kept for the life of the process
// (about 20 MiB; freeing them at exit would race the CUDA runtime's own teardown).
struct domain_t {
    // Index 0: the forward root w_max / the generator g; index 1: their inverses.
    const fr_t* w_hi[2];
    const fr_t* w_lo[2];
    const fr_t* roots[2];  // [2^ROOTS_LOG]: the powers of w_max^(2^(MAX_LOG - ROOTS_LOG)), of its inverse
    const fr_t* g_hi[2];
    const fr_t* g_lo[2];
    const fr_t* n_inv;   // [MAX_LOG + 1]: 1/2^L
    const fr_t* z_inv;   // [MAX_LOG + 1]: 1/(g^(2^L) - 1)
    const fr_t* nz_inv;  // [MAX_LOG + 1]: their product, c's scale in the H pipeline
};

// A full block's shared memory (32 KiB; set as the kernels' limit so that a change of
// BLOCK_LOG past 48 KiB needs no other edit).
constexpr uint32_t PASS_SMEM_MAX = fr_t::N * 4u << BLOCK_LOG;

domain_t build_domain() {
    const size_t consts = 3 * (MAX_LOG + 1) + 1;
    const size_t roots_len = size_t(1) << ROOTS_LOG;
    const size_t total = 8 * size_t(TABLE_LEN) + 2 * roots_len + consts;
    fr_t* mem = nullptr;
    // device-wide-ok: the tables are built once per device, when its locks are created
    CUZK_CUDA_CHECK(cudaMalloc(&mem, total * sizeof(fr_t)));
    fr_t* tables = mem;
    fr_t* roots = mem + 8 * size_t(TABLE_LEN);
    fr_t* n_inv = roots + 2 * roots_len;
    fr_t* z_inv = n_inv + MAX_LOG + 1;
    fr_t* nz_inv = z_inv + MAX_LOG + 1;
    fr_t* g_inv = nz_inv + MAX_LOG + 1;

    stream_t s;
    domain_consts_kernel<<<1, 32, 0, s>>>(n_inv, z_inv, nz_inv, g_inv);
    CUZK_LAUNCH_CHECK();
    power_tables_kernel<<<TABLE_LEN / 128, 128, 0, s>>>(tables, g_inv);
    CUZK_LAUNCH_CHECK();
    for (int i = 0; i < 2; i++) {
        roots_table_kernel<<<unsigned(roots_len / 128), 128, 0, s>>>(roots + i * roots_len,
                                                                    tables + (2 * i) * size_t(TABLE_LEN),
                                                                    tables + (2 * i + 1) * size_t(TABLE_LEN));
        CUZK_LAUNCH_CHECK();
    }
    s.sync();

    CUZK_CUDA_CHECK(cudaFuncSetAttribute(pass_kernel<false>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         PASS_SMEM_MAX));
    CUZK_CUDA_CHECK(cudaFuncSetAttribute(pass_kernel<true>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         PASS_SMEM_MAX));

    domain_t d;
    for (int i = 0; i < 4; i++) {
        const fr_t* hi = tables + (2 * i) * size_t(TABLE_LEN);
        const fr_t* lo = tables + (2 * i + 1) * size_t(TABLE_LEN);
        if (i < 2) {
            d.w_hi[i] = hi;
            d.w_lo[i] = lo;
            d.roots[i] = roots + i * roots_len;
        } else {
            d.g_hi[i - 2] = hi;
            d.g_lo[i - 2] = lo;
        }
    }
    d.n_inv = n_inv;
    d.z_inv = z_inv;
    d.nz_inv = nz_inv;
    return d;
}

const domain_t& domain() {
    static std::mutex mu;
    static std::vector<std::unique_ptr<domain_t>> per_device;
    int dev = 0;
    CUZK_CUDA_CHECK(cudaGetDevice(&dev));
    std::lock_guard<std::mutex> lock(mu);
    if (per_device.size() <= size_t(dev)) per_device.resize(dev + 1);
    if (!per_device[dev]) per_device[dev] = std::make_unique<domain_t>(build_domain());
    return *per_device[dev];
}

// One pass with the root tables of direction `root` (0: w, 1: w^-1).
template <bool DIT>
void launch_pass(fr_t* x, const fr_t* b, const pass_t& p, const domain_t& d, int root, const scale_t& pre,
                 const scale_t& post, cudaStream_t stream) {
    const pass_args_t a{x, b, p, d.w_hi[root], d.w_lo[root], d.roots[root], pre, post};
    const size_t smem = size_t(fr_t::N) * 4 * block_elems(p);
    pass_kernel<DIT><<<block_count(p), block_threads(p), smem, stream>>>(a);
    CUZK_LAUNCH_CHECK();
}

// The forward family: natural order in, bit-reversed out. The product x*b (b set) and `pre`
// apply on the first pass's loads, `post` on the last pass's stores.
void dif(const domain_t& d, fr_t* x, uint32_t L, int root, const scale_t& pre, const scale_t& post,
         const fr_t* b, cudaStream_t stream) {
    std::vector<uint32_t> ks = split(L);
    uint32_t m = L;
    for (size_t i = 0; i < ks.size(); i++) {
        m -= ks[i];
        bool first = i == 0, last = i + 1 == ks.size();
        launch_pass<false>(x, first ? b : nullptr, make_pass(L, ks[i], m), d, root, first ? pre : scale_t{},
                           last ? post : scale_t{}, stream);
    }
}

// The reverse family: bit-reversed order in, natural out.
void dit(const domain_t& d, fr_t* x, uint32_t L, int root, cudaStream_t stream) {
    std::vector<uint32_t> ks = split(L);
    uint32_t m = 0;
    for (size_t i = ks.size(); i-- > 0;) {
        launch_pass<true>(x, nullptr, make_pass(L, ks[i], m), d, root, scale_t{}, scale_t{}, stream);
        m += ks[i];
    }
}

// In place; with `sub` set, out[i] = x[bitrev(i)] * post(i) - sub[bitrev(i)].
void bit_reverse(fr_t* x, uint32_t L, const scale_t& post, const fr_t* sub, cudaStream_t stream) {
    uint32_t B = std::min(BITREV_TILE_LOG, L / 2);
    uint32_t blocks = 1u << (L - 2 * B);
    uint32_t threads = std::min(256u, 1u << (2 * B));
    bitrev_kernel<<<blocks, threads, 0, stream>>>(x, sub, L, B, post);
    CUZK_LAUNCH_CHECK();
}

// A power table of g^(+-1) scaled by constants, covering indices below 2^L: the per-call
// high half of s * g^(+-i). Lives until the end of the caller's stream work.
dev_ptr_t<fr_t> scaled_powers(const domain_t& d, int inv, uint32_t L, const fr_t* c1, const fr_t* c2,
                              cudaStream_t stream) {
    uint32_t count = ((1u << L) + TABLE_LEN - 1) >> TABLE_BITS;
    dev_ptr_t<fr_t> t(count, stream);
    scale_table_kernel<<<(count + 127) / 128, 128, 0, stream>>>(t.get(), d.g_hi[inv], c1, c2, count);
    CUZK_LAUNCH_CHECK();
    return t;
}

scale_t powers(const fr_t* hi, const fr_t* lo, bool by_bitrev) {
    scale_t s;
    s.mode = SCALE_POWERS;
    s.hi = hi;
    s.lo = lo;
    s.bitrev = by_bitrev;
    return s;
}

scale_t constant(const fr_t* c) {
    scale_t s;
    s.mode = SCALE_CONST;
    s.c = c;
    return s;
}

}  // namespace

void warm_up() { (void)domain(); }

void check_args(uint32_t log_n, int kind) {
    CUZK_REQUIRE(log_n >= 1 && log_n <= MAX_LOG, "NTT size must be 2^1 .. 2^28");
    CUZK_REQUIRE(kind >= 0 && kind <= 3, "unknown NTT kind");
}

void transform(fr_t* x, uint32_t L, kind_t kind, cudaStream_t stream) {
    const domain_t& d = domain();
    switch (kind) {
        case kind_t::forward:
            dif(d, x, L, 0, scale_t{}, scale_t{}, nullptr, stream);
            bit_reverse(x, L, scale_t{}, nullptr, stream);
            break;
        case kind_t::inverse: {
            dif(d, x, L, 1, scale_t{}, scale_t{}, nullptr, stream);
            bit_reverse(x, L, constant(d.n_inv + L), nullptr, stream);
            break;
        }
        case kind_t::coset_forward:
            dif(d, x, L, 0, powers(d.g_hi[0], d.g_lo[0], false), scale_t{}, nullptr, stream);
            bit_reverse(x, L, scale_t{}, nullptr, stream);
            break;
        case kind_t::coset_inverse: {
            dif(d, x, L, 1, scale_t{}, scale_t{}, nullptr, stream);
            dev_ptr_t<fr_t> hi = scaled_powers(d, 1, L, d.n_inv + L, nullptr, stream);
            bit_reverse(x, L, powers(hi.get(), d.g_lo[1], false), nullptr, stream);
            break;
        }
    }
}

void h_to_coset(fr_t* x, uint32_t L, cudaStream_t stream) {
    const domain_t& d = domain();
    // Evaluations -> coefficients (bit-reversed, times g^i / n) -> coset evaluations.
    dev_ptr_t<fr_t> to_coset = scaled_powers(d, 0, L, d.n_inv + L, nullptr, stream);
    dif(d, x, L, 1, scale_t{}, powers(to_coset.get(), d.g_lo[0], true), nullptr, stream);
    dit(d, x, L, 0, stream);
}

void h_c_coefficients(fr_t* c, uint32_t L, cudaStream_t stream) {
    const domain_t& d = domain();
    dif(d, c, L, 1, scale_t{}, constant(d.nz_inv + L), nullptr, stream);
}

void h_finish(fr_t* a, const fr_t* b, const fr_t* c, uint32_t L, cudaStream_t stream) {
    const domain_t& d = domain();
    // a*b on the coset -> coefficients, times g^-i / (n (g^n - 1)), less c's share.
    dev_ptr_t<fr_t> from_coset = scaled_powers(d, 1, L, d.n_inv + L, d.z_inv + L, stream);
    dif(d, a, L, 1, scale_t{}, scale_t{}, b, stream);
    bit_reverse(a, L, powers(from_coset.get(), d.g_lo[1], false), c, stream);
}

void h_pipeline(fr_t* a, fr_t* b, fr_t* c, uint32_t L, cudaStream_t stream) {
    h_to_coset(a, L, stream);
    h_to_coset(b, L, stream);
    h_c_coefficients(c, L, stream);
    h_finish(a, b, c, L, stream);
}

}  // namespace cuzk::ntt

namespace {

void require_device_ptr(const void* p, const char* what) {
    CUZK_REQUIRE(p != nullptr, what);
    CUZK_REQUIRE(reinterpret_cast<uintptr_t>(p) % 16 == 0, "device buffers must be 16-byte aligned");
}

}  // namespace

extern "C" cuzk_error_t cuzk_ntt(cuzk_fr_t* data, uint32_t log_n, int kind) {
    return cuzk::guard([&] {
        cuzk::ntt::check_args(log_n, kind);
        CUZK_REQUIRE(data != nullptr, "null data");
        const size_t bytes = sizeof(cuzk::fr_t) << log_n;
        cuzk::stream_t s;
        cuzk::dev_ptr_t<cuzk::fr_t> d(size_t(1) << log_n, s);
        CUZK_CUDA_CHECK(cudaMemcpyAsync(d.get(), data, bytes, cudaMemcpyHostToDevice, s));
        cuzk::ntt::transform(d.get(), log_n, cuzk::ntt::kind_t(kind), s);
        CUZK_CUDA_CHECK(cudaMemcpyAsync(data, d.get(), bytes, cudaMemcpyDeviceToHost, s));
        s.sync();
    });
}

extern "C" cuzk_error_t cuzk_ntt_device(cuzk_fr_t* d_data, uint32_t log_n, int kind, cuzk_stream_t stream) {
    return cuzk::guard([&] {
        cuzk::ntt::check_args(log_n, kind);
        require_device_ptr(d_data, "null device buffer");
        cuzk::ntt::transform(reinterpret_cast<cuzk::fr_t*>(d_data), log_n, cuzk::ntt::kind_t(kind), stream);
    });
}

extern "C" cuzk_error_t cuzk_ntt_h(const cuzk_fr_t* a, const cuzk_fr_t* b, const cuzk_fr_t* c, size_t len,
                                   uint32_t log_n, cuzk_fr_t* h) {
    return cuzk::guard([&] {
        cuzk::ntt::check_args(log_n, 0);
        const size_t n = size_t(1) << log_n;
        CUZK_REQUIRE(len <= n, "more evaluations than the domain size");
        CUZK_REQUIRE(h != nullptr && (len == 0 || (a && b && c)), "null pointer");
        cuzk::stream_t s;
        cuzk::dev_ptr_t<cuzk::fr_t> d[3] = {{n, s}, {n, s}, {n, s}};
        const cuzk_fr_t* src[3] = {a, b, c};
        for (int i = 0; i < 3; i++) {
            if (len) CUZK_CUDA_CHECK(cudaMemcpyAsync(d[i].get(), src[i], len * sizeof(cuzk::fr_t),
                                                     cudaMemcpyHostToDevice, s));
            if (len < n) CUZK_CUDA_CHECK(cudaMemsetAsync(d[i].get() + len, 0, (n - len) * sizeof(cuzk::fr_t), s));
        }
        cuzk::ntt::h_pipeline(d[0].get(), d[1].get(), d[2].get(), log_n, s);
        CUZK_CUDA_CHECK(cudaMemcpyAsync(h, d[0].get(), n * sizeof(cuzk::fr_t), cudaMemcpyDeviceToHost, s));
        s.sync();
    });
}

extern "C" cuzk_error_t cuzk_ntt_h_device(cuzk_fr_t* d_a, cuzk_fr_t* d_b, cuzk_fr_t* d_c, uint32_t log_n,
                                          cuzk_stream_t stream) {
    return cuzk::guard([&] {
        cuzk::ntt::check_args(log_n, 0);
        require_device_ptr(d_a, "null device buffer a");
        require_device_ptr(d_b, "null device buffer b");
        require_device_ptr(d_c, "null device buffer c");
        cuzk::ntt::h_pipeline(reinterpret_cast<cuzk::fr_t*>(d_a), reinterpret_cast<cuzk::fr_t*>(d_b),
                              reinterpret_cast<cuzk::fr_t*>(d_c), log_n, stream);
    });
}
