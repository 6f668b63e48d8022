// Times the host field's XYZZ additions (ff/host_mont.cuh over ec/xyzz.cuh, the arithmetic of
// the MSM's last step on a CPU core, msm/host_combine.cuh): a chain of dependent full
// additions, as the host sums a row of partial sums, for G1 and G2. Prints one line each and,
// with --json FILE, writes them as JSON. See README.md.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "cuda_shims.h"
#include "ec/g1.cuh"
#include "ec/g2.cuh"

namespace {

// Microseconds a dependent addition, over `n` accumulators of random coordinates (the cost of
// an addition does not depend on the point being on the curve; the branches for infinity and
// equal points are not taken).
template <class X>
double chain_us(size_t n, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<X> v(n);
    for (X& x : v) {
        unsigned char* b = reinterpret_cast<unsigned char*>(&x);
        for (size_t i = 0; i < sizeof(X); i++) b[i] = uint8_t(rng() & 0x0f);  // below p in every limb
    }
    const auto t0 = std::chrono::steady_clock::now();
    X acc = v[0];
    for (size_t i = 1; i < n; i++) acc = acc.add(v[i]);
    const auto t1 = std::chrono::steady_clock::now();
    unsigned char sink = 0;
    for (size_t i = 0; i < sizeof(X); i++) sink ^= reinterpret_cast<const unsigned char*>(&acc)[i];
    volatile unsigned char kept = sink;  // a store the compiler must make: the chain stays
    (void)kept;
    return std::chrono::duration<double, std::micro>(t1 - t0).count() / double(n - 1);
}

}  // namespace

int main(int argc, char** argv) {
    std::string json;
    for (int i = 1; i < argc; i++) {
        if (std::string(argv[i]) == "--json" && i + 1 < argc) {
            json = argv[++i];
        } else {
            std::fprintf(stderr, "usage: %s [--json FILE]\n", argv[0]);
            return 2;
        }
    }
    constexpr size_t N = 20000;
    const double g1 = chain_us<cuzk::g1_t::host_xyzz>(N, 1);
    const double g2 = chain_us<cuzk::g2_t::host_xyzz>(N, 2);
    std::printf("host XYZZ addition, a chain of %zu: G1 %.3f us, G2 %.3f us\n", N, g1, g2);
    if (!json.empty()) {
        FILE* f = std::fopen(json.c_str(), "w");
        if (!f) {
            std::perror(json.c_str());
            return 1;
        }
        const int written = std::fprintf(f,
                                         "{\"benchmark\": \"host-add-bench\", \"chain\": %zu, \"rows\": [\n"
                                         "  {\"group\": \"g1\", \"us_per_add\": %.4f},\n"
                                         "  {\"group\": \"g2\", \"us_per_add\": %.4f}\n]}\n",
                                         N, g1, g2);
        // A full disk shows at the write or at the close: either way the JSON is not whole.
        if (std::fclose(f) != 0 || written < 0) {
            std::fprintf(stderr, "%s: could not write the JSON\n", json.c_str());
            return 1;
        }
    }
    return 0;
}
