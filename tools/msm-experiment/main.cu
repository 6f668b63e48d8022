// msmexp: the library's G1 or G2 MSM (msm/pippenger.cuh through msm_device) alone, on random
// inputs generated on the GPU, for comparing builds of two source trees (build.sh) on one
// machine: per size, the MSM's median of seven after two warm-ups (tools/common/timing.cuh),
// its stages from the MSM's own events, and a hash of the result in affine form, which two
// builds must share. The G1 points are multiples k_i P of one random point P by random 64-bit
// k_i: points of the curve y^2 = x^3 + b that P lies on (a = 0, as the formulas assume, but not
// BLS12-381's b), so that the group law holds and a build that adds a bucket's points in
// another order gives the same sum. G2's points are random field elements (not on one curve:
// their sums depend on the order of the additions).
//   msmexp [LOG2[:C:COPIES][/MODE] | g2:LOG2[:C:COPIES] ...]
//        default 22 24 26; g2: a G2 MSM of that size, when built with MSMEXP_G2=1; C:COPIES:
//        windows of C bits over COPIES shifted copies of the bases (msm_device's `copies`,
//        made once by shift_bases, outside the timing); MODE, the scalars: r random below
//        2^254 (default), s small (below 2^32: every digit above bit 32 zero, bar one signed
//        carry), e all equal
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <vector>

#include "msm/msm.cuh"
#include "timing.cuh"
#include "util/random.cuh"

using namespace cuzk;

namespace {

// n words per element, the top one masked below the modulus's top limb.
__global__ void random_kernel(uint32_t* out, size_t count, uint32_t words, uint32_t top_mask, uint64_t seed) {
    const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (i >= count * words) return;
    uint32_t v = uint32_t(splitmix64(seed ^ i));
    if (i % words == words - 1) v &= top_mask;
    out[i] = v;
}

// G1 points k_i P, k_i = splitmix64(seed ^ i) (odd), from a point P with random coordinates:
// double and add over the 64 bits, then affine. Run once before the timing.
__global__ void multiples_kernel(g1_t::affine* points, size_t n, uint64_t seed, const g1_t::affine p) {
    const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (i >= n) return;
    const uint64_t k = splitmix64(seed ^ i) | 1;
    g1_t::xyzz acc = g1_t::xyzz::inf();
    for (int b = 63; b >= 0; b--) {
        acc = acc.dbl();
        if ((k >> b) & 1) acc = acc.add_affine(p);
    }
    points[i] = acc.to_affine();
}

// Scalars from canonical 32-bit words: mode 'r' keeps them (below 2^254), 's' keeps only the
// low word, 'e' gives every scalar the words `first` (scalar 0's); then Montgomery form.
__global__ void scalars_kernel(fr_t* scalars, size_t n, char mode, const fr_t first) {
    const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (i >= n) return;
    fr_t v = mode == 'e' ? first : scalars[i];
    if (mode == 's')
        for (int k = 1; k < fr_t::N; k++) v.l[k] = 0;
    scalars[i] = v.from_canonical();
}

// The result in affine form (ec_xyzz_t's conversions; infinity (0, 0)), so that equal points
// hash alike whatever their Jacobian coordinates.
template <class G>
__global__ void affine_kernel(const typename G::jacobian* in, typename G::affine* out) {
    *out = G::xyzz::from_jacobian(*in).to_affine();
}

uint64_t hash_bytes(const void* p, size_t len) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < len; i++) h = (h ^ static_cast<const uint8_t*>(p)[i]) * 0x100000001b3ull;
    return h;
}

// One size: the MSM of group G on 2^log_n random points and scalars, timed and hashed.
template <class G>
void run(const char* group, int log_n, uint32_t c, uint32_t copies, char mode) {
    using affine = typename G::affine;
    using jacobian = typename G::jacobian;
    const size_t n = size_t(1) << log_n;
    constexpr size_t coords = sizeof(affine) / sizeof(fp_t);  // Fp elements a point: 2 (G1), 4 (G2)
    affine* points;
    fr_t* scalars;
    jacobian* out;
    CUZK_CUDA_CHECK(cudaMalloc(&points, copies * n * sizeof(affine)));
    CUZK_CUDA_CHECK(cudaMalloc(&scalars, n * sizeof(fr_t)));
    CUZK_CUDA_CHECK(cudaMalloc(&out, sizeof(jacobian)));
    // Coordinates below 2^380 < p, scalars below 2^254 < r.
    random_kernel<<<unsigned((n * coords * 12 + 255) / 256), 256>>>(reinterpret_cast<uint32_t*>(points), n * coords,
                                                                     12, 0x0fffffffu, 1);
    random_kernel<<<unsigned((n * 8 + 255) / 256), 256>>>(reinterpret_cast<uint32_t*>(scalars), n, 8, 0x3fffffffu, 2);
    CUZK_LAUNCH_CHECK();
    if constexpr (sizeof(affine) == sizeof(g1_t::affine)) {
        g1_t::affine p;
        CUZK_CUDA_CHECK(cudaMemcpy(&p, points, sizeof(p), cudaMemcpyDeviceToHost));
        multiples_kernel<<<unsigned((n + 127) / 128), 128>>>(reinterpret_cast<g1_t::affine*>(points), n, 3, p);
        CUZK_LAUNCH_CHECK();
    }
    fr_t first;
    CUZK_CUDA_CHECK(cudaMemcpy(&first, scalars, sizeof(first), cudaMemcpyDeviceToHost));
    scalars_kernel<<<unsigned((n + 255) / 256), 256>>>(scalars, n, mode, first);
    CUZK_LAUNCH_CHECK();
    float shift_ms = 0;
    if (copies > 1) {
        event_t start, stop;
        start.record(0);
        msm::shift_bases<G>(points, n, c, copies, 0);
        stop.record(0);
        stop.sync();
        shift_ms = stop.since(start);
    }
    msm::msm_profile_t profile;
    const float ms = median_of([&] { msm::msm_device<G>(points, scalars, n, out, 0, &profile, c, nullptr, copies); });
    affine* d_aff;
    CUZK_CUDA_CHECK(cudaMalloc(&d_aff, sizeof(affine)));
    affine_kernel<G><<<1, 1>>>(out, d_aff);
    CUZK_LAUNCH_CHECK();
    affine h_out;
    CUZK_CUDA_CHECK(cudaMemcpy(&h_out, d_aff, sizeof(h_out), cudaMemcpyDeviceToHost));
    CUZK_CUDA_CHECK(cudaFree(d_aff));
    std::printf("  %s 2^%-4d %c c %-2u x%-2u %8.2f %8.2f %8.2f %8.2f   %016llx  (copies made in %.1f ms)\n", group,
                log_n, mode, c, copies, ms, profile.sorted.since(profile.begin), profile.summed.since(profile.sorted),
                profile.done.since(profile.summed), static_cast<unsigned long long>(hash_bytes(&h_out, sizeof(h_out))),
                shift_ms);
    CUZK_CUDA_CHECK(cudaFree(points));
    CUZK_CUDA_CHECK(cudaFree(scalars));
    CUZK_CUDA_CHECK(cudaFree(out));
}

}  // namespace

int main(int argc, char** argv) try {
    std::vector<const char*> sizes(argv + 1, argv + argc);
    if (sizes.empty()) sizes = {"22", "24", "26"};
    std::printf("MSM on generated inputs, median of 7 after 2 (ms; scalars r random, s below 2^32, e equal)\n");
    std::printf("  grp size  s window        MSM     sort  buckets   reduce   result hash\n");
    for (const char* size : sizes) {
        const bool g2 = std::strncmp(size, "g2:", 3) == 0;
        unsigned log_n = 0, c = 0, copies = 1;
        const char* slash = std::strchr(size, '/');
        const char mode = slash ? slash[1] : 'r';
        if (std::sscanf(size + (g2 ? 3 : 0), "%u:%u:%u", &log_n, &c, &copies) < 1 || copies < 1 ||
            (mode != 'r' && mode != 's' && mode != 'e') || (slash && slash[2] != '\0')) {
            std::fprintf(stderr, "msmexp: %s is not LOG2[:C:COPIES][/r|s|e]\n", size);
            return 2;
        }
        if (!g2) {
            run<g1_t>("G1", int(log_n), c, copies, mode);
            continue;
        }
#ifdef MSMEXP_G2
        run<g2_t>("G2", int(log_n), c, copies, mode);
#else
        std::fprintf(stderr, "msmexp: built without G2 (build.sh with MSMEXP_G2=1)\n");
        return 2;
#endif
    }
    return 0;
} catch (const std::exception& e) {
    std::fprintf(stderr, "msmexp: %s\n", e.what());
    return 1;
}
