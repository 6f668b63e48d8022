// msmexp: the library's G1 or G2 MSM (msm/pippenger.cuh through msm_device) alone, on random
// inputs generated on the GPU, for comparing builds of two source trees (build.sh) on one
// machine: per size, the MSM's median of seven after two warm-ups (tools/common/timing.cuh),
// its stages from the MSM's own events, and a hash of the result, which two builds of the
// same arithmetic must share. The points are random field elements, not curve points: the
// additions cost the same, and every build sees the same ones.
//   msmexp [LOG2[:C:COPIES] | g2:LOG2[:C:COPIES] ...]
//        default 22 24 26; g2: a G2 MSM of that size, when built with MSMEXP_G2=1; C:COPIES:
//        windows of C bits over COPIES shifted copies of the bases (msm_device's `copies`,
//        made once by shift_bases, outside the timing)
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

uint64_t hash_bytes(const void* p, size_t len) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < len; i++) h = (h ^ static_cast<const uint8_t*>(p)[i]) * 0x100000001b3ull;
    return h;
}

// One size: the MSM of group G on 2^log_n random points and scalars, timed and hashed.
template <class G>
void run(const char* group, int log_n, uint32_t c, uint32_t copies) {
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
    jacobian h_out;
    CUZK_CUDA_CHECK(cudaMemcpy(&h_out, out, sizeof(h_out), cudaMemcpyDeviceToHost));
    std::printf("  %s 2^%-4d c %-2u x%-2u %8.2f %8.2f %8.2f %8.2f   %016llx  (copies made in %.1f ms)\n", group,
                log_n, c, copies, ms, profile.sorted.since(profile.begin), profile.summed.since(profile.sorted),
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
    std::printf("MSM, random inputs, median of 7 after 2 (ms)\n");
    std::printf("  group size  window        MSM     sort  buckets   reduce   result hash\n");
    for (const char* size : sizes) {
        const bool g2 = std::strncmp(size, "g2:", 3) == 0;
        unsigned log_n = 0, c = 0, copies = 1;
        if (std::sscanf(size + (g2 ? 3 : 0), "%u:%u:%u", &log_n, &c, &copies) < 1 || copies < 1) {
            std::fprintf(stderr, "msmexp: %s is not LOG2[:C:COPIES]\n", size);
            return 2;
        }
        if (!g2) {
            run<g1_t>("G1", int(log_n), c, copies);
            continue;
        }
#ifdef MSMEXP_G2
        run<g2_t>("G2", int(log_n), c, copies);
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
