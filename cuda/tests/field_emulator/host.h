// The host field (ff/host_mont.cuh: Fp on 64-bit limbs, and Fp2) and the MSM's last step on it
// (msm/combine.cuh), for the field emulator (main.cpp). The host types must give the very bits
// the device types give, operation by operation, since the device field is checked against
// big integers in main.cpp and the host field replaces it in the MSM's combination of windows:
// every operation of the curve formulas on the Fp samples (edge values included) and on pairs of
// them, then combinations of windows, G1 on multiples of the generator against the reference's
// affine arithmetic and G2 on random coordinates against the device formulas.
#pragma once

#include <array>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "curve.h"
#include "device.h"
#include "ec/g2.cuh"
#include "ff/host_mont.cuh"
#include "msm/combine.cuh"
#include "msm/reduction.cuh"
#include "reference.h"

namespace {

template <class H, class D>
H to_host(const D& d) {
    static_assert(sizeof(H) == sizeof(D), "one layout");
    H h;
    std::memcpy(&h, &d, sizeof(H));
    return h;
}

template <class H, class D>
bool same_bits(const H& h, const D& d) {
    static_assert(sizeof(H) == sizeof(D), "one layout");
    return std::memcmp(&h, &d, sizeof(H)) == 0;
}

template <class D>
[[noreturn]] void fail_host(const char* field, const std::string& what, const D& want, const void* got) {
    big w(reinterpret_cast<const uint32_t*>(&want), reinterpret_cast<const uint32_t*>(&want) + sizeof(D) / 4);
    big g(static_cast<const uint32_t*>(got), static_cast<const uint32_t*>(got) + sizeof(D) / 4);
    fail(field, "host " + what, w, g);
}

// Each operation the curve formulas use, of the host type H against the device type D, on
// operands make(i, trial) gives: a runs through every sample (i), b, c and d are drawn.
template <class D, class H, class Make>
int check_host_ops(const char* name, size_t samples_count, Make make) {
    const auto expect = [&](const char* what, const D& want, const H& got) {
        if (!same_bits(got, want)) fail_host(name, what, want, &got);
    };
    int checked = 0;
    for (size_t i = 0; i < samples_count; i++) {
        for (int trial = 0; trial < 8; trial++, checked++) {
            const auto [a, b, c, d] = make(i, trial);
            const H ha = to_host<H>(a), hb = to_host<H>(b), hc = to_host<H>(c), hd = to_host<H>(d);
            expect("a * b", a * b, ha * hb);
            expect("b * a", b * a, hb * ha);
            expect("a + b", a + b, ha + hb);
            expect("a - b", a - b, ha - hb);
            expect("b - a", b - a, hb - ha);
            expect("mul_sub", D::mul_sub(a, b, c, d), H::mul_sub(ha, hb, hc, hd));
            expect("sqr", a.sqr(), ha.sqr());
            expect("dbl", a.dbl(), ha.dbl());
            expect("neg", a.neg(), ha.neg());
            if (a.is_zero() != ha.is_zero()) fail_host(name, "is_zero", a, &ha);
        }
    }
    expect("one", D::one(), H::one());
    expect("zero", D::zero(), H::zero());
    return checked;
}

// host_fp_t against fp_t on the Fp samples (b = a in each sample's first trial: squares
// through the product).
void check_host_fp(std::mt19937_64& rng, int count) {
    using cuzk::host_fp_t;
    const field_ref<fp_t> ref;
    const std::vector<big> v = samples(ref, rng, count);
    const auto pick = [&] { return ref.to(v[rng() % v.size()]); };
    const int checked = check_host_ops<fp_t, host_fp_t>("Fp", v.size(), [&](size_t i, int trial) {
        const fp_t a = ref.to(v[i]);
        return std::array<fp_t, 4>{a, trial == 0 ? a : pick(), pick(), pick()};
    });
    // The comparison can fail: a product of a different operand differs.
    const fp_t a = ref.to(v[v.size() - 1]), b = ref.to(v[v.size() - 2]);
    host_fp_t other = to_host<host_fp_t>(a);
    other.l[0] ^= 1;
    if (same_bits(other * to_host<host_fp_t>(b), a * b)) {
        std::fprintf(stderr, "FAIL host Fp: a product equals that of a different operand\n");
        std::exit(1);
    }
    std::printf("host Fp: %d of each operation equal\n", checked);
}

// host_fp2_t against fp2_t, on pairs of the Fp samples (each sample in either half of a).
void check_host_fp2(std::mt19937_64& rng, int count) {
    const field_ref<fp_t> ref;
    const std::vector<big> v = samples(ref, rng, count);
    const auto pick = [&] { return ref.to(v[rng() % v.size()]); };
    const int checked = check_host_ops<fp2_t, cuzk::host_fp2_t>("Fp2", v.size(), [&](size_t i, int trial) {
        const fp_t x = ref.to(v[i]);
        const fp2_t a = trial % 2 ? fp2_t{x, pick()} : fp2_t{pick(), x};
        return std::array<fp2_t, 4>{a, fp2_t{pick(), pick()}, fp2_t{pick(), pick()}, fp2_t{pick(), pick()}};
    });
    std::printf("host Fp2: %d of each operation equal\n", checked);
}

// combine_windows on the host field: for G1, windows k_w G (k_w small, some infinity, each
// brought to ZZ != 1 by a doubling of a half or an addition) against sum_w 2^(o_w) k_w G by
// the reference's affine arithmetic, with every window c bits wide or the first `narrow` of
// them c - 1 (msm/digits.cuh's balanced layouts); for G1 and G2 (random coordinates: the
// formulas do not ask for curve points), the bits of the device field's combination.
void check_host_combine(std::mt19937_64& rng) {
    using cuzk::xyzz_t;
    using host_g1 = cuzk::g1_t::host_xyzz;
    using host_g2 = cuzk::g2_t::host_xyzz;
    const g1_ref g;
    using point = g1_ref::point;
    const point gen{hex("17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb"),
                    hex("08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1")};
    std::vector<point> multiples{point{{}, {}, true}, gen};  // k G for k = 0 .. 15
    while (multiples.size() < 16) multiples.push_back(g.add(multiples.back(), gen));
    int cases = 0;
    for (uint32_t c : {1u, 4u, 5u}) {
        for (uint32_t windows : {1u, 2u, 5u}) for (uint32_t narrow : {0u, 1u, 3u}) {
            if (narrow >= windows) continue;
            std::vector<xyzz_t> device(windows);
            std::vector<host_g1> host(windows);
            point want{{}, {}, true};
            for (uint32_t w = windows; w-- > 0;) {
                const uint32_t k = (w == 1) ? 0 : uint32_t(rng() % 16);  // window 1: infinity
                const point& p = multiples[k];
                // k G as an accumulator with ZZ != 1: 2 (k/2) G + (k mod 2) G, or k G + 0.
                xyzz_t acc = xyzz_t::from_affine(g.to_device(multiples[k / 2])).dbl();
                acc = acc.add_affine(g.to_device(multiples[k % 2]));
                device[w] = acc;
                host[w] = to_host<host_g1>(acc);
                // The windows above w weigh 2^(c_w) times more than window w.
                if (w + 1 < windows)
                    for (uint32_t i = 0; i < (w < narrow ? c - 1 : c); i++) want = g.add(want, want);
                want = g.add(want, p);
            }
            const cuzk::msm::digits::layout_t layout{c, windows, narrow};
            const cuzk::jacobian_t dev = cuzk::msm::combine_windows(device.data(), layout);
            const auto got = cuzk::msm::combine_windows(host.data(), layout);
            if (!same_bits(got, dev)) fail_host("G1", "combine_windows (c " + std::to_string(c) + ")", dev, &got);
            if (!g.jacobian_is(dev, want)) {
                std::fprintf(stderr,
                             "FAIL host G1: combine_windows is not sum 2^(o_w) W_w (c %u, %u windows, %u narrow)\n",
                             c, windows, narrow);
                std::exit(1);
            }
            cases++;
        }
    }
    // G2 (and G1) with the MSM's widths: random coordinates, the bits of both fields' chains.
    const field_ref<fp_t> ref;
    const auto random_fp = [&] {
        big x(12);
        for (auto& word : x) word = uint32_t(rng());
        return ref.to(mod(x, ref.p));
    };
    // A G2 XYZZ point of random coordinates (ZZ = Z^2, ZZZ = Z^3), and its host copy.
    const auto random_g2 = [&](cuzk::g2_xyzz_t& device, host_g2& host) {
        const fp2_t x{random_fp(), random_fp()}, y{random_fp(), random_fp()}, z{random_fp(), random_fp()};
        device = cuzk::g2_xyzz_t{x, y, z.sqr(), z.sqr() * z};
        host = to_host<host_g2>(device);
    };
    for (uint32_t c : {16u, 20u}) {
        const uint32_t windows = (256 + c - 1) / c;
        std::vector<cuzk::g2_xyzz_t> device(windows);
        std::vector<host_g2> host(windows);
        for (uint32_t w = 0; w < windows; w++) random_g2(device[w], host[w]);
        const cuzk::msm::digits::layout_t layout = cuzk::msm::digits::layout_t::uniform(c);
        const cuzk::g2_jacobian_t dev = cuzk::msm::combine_windows(device.data(), layout);
        const auto got = cuzk::msm::combine_windows(host.data(), layout);
        if (!same_bits(got, dev)) fail_host("G2", "combine_windows (c " + std::to_string(c) + ")", dev, &got);
        cases++;
        // The window sums from the reduction's rows, as the host's step 5 forms them: one window
        // (shifted copies) and all of them.
        for (uint32_t sets : {1u, windows}) {
            const cuzk::msm::level_shifts_t levels = cuzk::msm::reduction_levels(1u << (c - 1), sets);
            const size_t rows = size_t(levels.count + 1) * sets;
            std::vector<cuzk::g2_xyzz_t> device_rows(rows);
            std::vector<host_g2> host_rows(rows);
            for (size_t i = 0; i < rows; i++) random_g2(device_rows[i], host_rows[i]);
            for (uint32_t w = 0; w < sets; w++) {
                const auto d = cuzk::msm::window_sum(device_rows.data(), device_rows.data() + rows - sets, levels,
                                                     sets, w);
                const auto h = cuzk::msm::window_sum(host_rows.data(), host_rows.data() + rows - sets, levels,
                                                     sets, w);
                if (!same_bits(h, d)) fail_host("G2", "window_sum (c " + std::to_string(c) + ")", d, &h);
            }
            cases++;
        }
    }
    std::printf("host combine_windows and window_sum: %d cases equal (G1 against the reference, G1 and G2 against "
                "the device)\n",
                cases);
}

}  // namespace
