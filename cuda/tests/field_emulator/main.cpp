// The device field and G1 arithmetic (ff/mont.cuh over ff/bls12_381.cuh, ff/fp2.cuh and
// ec/xyzz.cuh) run on the CPU and checked against big-integer arithmetic written here from
// the definitions. ff/ptx.cuh models its carry-chain instructions in C++ when no CUDA
// compiler is present, so the very code the kernels use (products, squares, sums of
// products, conversions, inverse, the curve formulas) runs unchanged. Built and run by
// field_emulated.rs.
//
// For Fp and Fr, and Fp2 over pairs of the Fp values: values at the edges (0, 1, p - 1,
// p - 2, limbs of all ones below p, halves equal, halves in either order) and seeded random
// values; each operation's result must equal the reference exactly (mont_t keeps elements
// fully reduced). A product with one bit of an operand flipped must differ from the
// reference, so that a comparison that always passes would be caught. Then G1's XYZZ
// formulas (ec/xyzz.cuh) against affine arithmetic on big integers: seeded chains of mixed and
// full additions and doublings from the published generator, through the doubling, the
// cancellation and the infinity branches, each result read back through to_affine and
// to_jacobian. Then the host field of the MSM's last step against the device field, and that
// step itself (host.h). Prints one line per field and one for G1, and one per host check;
// exits non-zero at the first mismatch.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "curve.h"
#include "device.h"
#include "reference.h"

namespace {

using cuzk::fp2_t;
using cuzk::fp_t;
using cuzk::fr_t;

// Edge values and `count` seeded random ones, all below p.
template <class F>
std::vector<big> samples(const field_ref<F>& ref, std::mt19937_64& rng, int count) {
    std::vector<big> v;
    const big& p = ref.p;
    v.push_back({});
    v.push_back({1});
    v.push_back(sub(p, {1}));
    v.push_back(sub(p, {2}));
    v.push_back(shr1(p));
    // All-ones limbs in the low half, the high half, and everywhere below the top limb.
    for (int lo_half = 0; lo_half < 3; lo_half++) {
        big x(F::N, 0);
        for (int i = 0; i < F::N - 1; i++)
            if (lo_half == 2 || (lo_half == 0) == (i < F::N / 2)) x[i] = 0xffffffffu;
        v.push_back(mod(x, p));
    }
    // Halves equal, and each half the larger (the Karatsuba differences' signs and zero).
    for (int k = 0; k < 4; k++) {
        big x(F::N, 0);
        for (int i = 0; i < F::N / 2; i++) {
            const uint32_t w = uint32_t(rng());
            x[i] = w;
            x[i + F::N / 2] = k == 0 ? w : k == 1 ? w >> 4 : (i == F::N / 2 - 1 ? w >> 4 : w);
        }
        if (k == 2) std::swap(x[0], x[F::N / 2]);
        v.push_back(mod(x, p));
    }
    for (int k = 0; k < count; k++) {
        big x(F::N);
        for (auto& w : x) w = uint32_t(rng());
        v.push_back(mod(x, p));
    }
    return v;
}

template <class F, int K>
void check_sums(const char* name, const field_ref<F>& ref, const std::vector<big>& v, std::mt19937_64& rng) {
    for (int trial = 0; trial < 200; trial++) {
        F a[K], b[K];
        big want;
        for (int k = 0; k < K; k++) {
            const big& x = v[rng() % v.size()];
            const big& y = v[rng() % v.size()];
            a[k] = ref.to(x);
            b[k] = ref.to(y);
            want = add(want, mul(x, y));
        }
        want = redc(want, ref.p, ref.bits);
        const big got = ref.of(F::template sum_of_products<K>(a, b));
        if (cmp(got, want) != 0) fail(name, "sum_of_products<" + std::to_string(K) + ">", want, got);
    }
}

template <class F>
void check_field(const char* name, std::mt19937_64& rng, int count) {
    const field_ref<F> ref;
    const std::vector<big> v = samples(ref, rng, count);
    size_t checked = 0;
    for (size_t i = 0; i < v.size(); i++) {
        const F a = ref.to(v[i]);
        for (size_t j = 0; j < v.size(); j += (i < 16 ? 1 : 7)) {
            const F b = ref.to(v[j]);
            const big want = ref.mont_mul(v[i], v[j]);
            big got = ref.of(a * b);
            if (cmp(got, want) != 0) fail(name, "a * b", want, got);
            got = ref.of(a + b);
            if (cmp(got, ref.add_mod(v[i], v[j])) != 0) fail(name, "a + b", ref.add_mod(v[i], v[j]), got);
            got = ref.of(a - b);
            if (cmp(got, ref.sub_mod(v[i], v[j])) != 0) fail(name, "a - b", ref.sub_mod(v[i], v[j]), got);
            const F c = ref.to(v[(i + j + 1) % v.size()]), d = ref.to(v[(3 * i + j) % v.size()]);
            const big cd = ref.mont_mul(ref.of(c), ref.of(d));
            got = ref.of(F::mul_sub(a, b, c, d));
            if (cmp(got, ref.sub_mod(want, cd)) != 0) fail(name, "mul_sub", ref.sub_mod(want, cd), got);
            checked++;
        }
        const big sq = ref.mont_mul(v[i], v[i]);
        if (cmp(ref.of(a.sqr()), sq) != 0) fail(name, "sqr", sq, ref.of(a.sqr()));
        const big canon = redc(v[i], ref.p, ref.bits);
        if (cmp(ref.of(a.to_canonical()), canon) != 0) fail(name, "to_canonical", canon, ref.of(a.to_canonical()));
        if (cmp(ref.of(a.to_canonical().from_canonical()), v[i]) != 0)
            fail(name, "from_canonical(to_canonical)", v[i], ref.of(a.to_canonical().from_canonical()));
    }
    // The inverse of a few values: x * x^-1 is one.
    for (size_t i = 1; i < 6; i++) {
        const F a = ref.to(v[i + 4]);
        if (a.is_zero()) continue;
        if (!(a * a.inverse()).is_one()) fail(name, "x * inverse(x)", ref.of(F::one()), ref.of(a * a.inverse()));
    }
    // Sums of products, as many terms as the field allows (K p < R).
    check_sums<F, 1>(name, ref, v, rng);
    check_sums<F, 2>(name, ref, v, rng);
    if constexpr (F::N == 12) {
        check_sums<F, 4>(name, ref, v, rng);
        check_sums<F, 9>(name, ref, v, rng);
    }
    // The comparison can fail: one flipped bit gives a different product.
    big x = v[v.size() - 1], y = v[v.size() - 2];
    const F a = ref.to(x), b = ref.to(y);
    x[0] ^= 1;
    if (cmp(ref.of(a * b), ref.mont_mul(x, y)) == 0) {
        std::fprintf(stderr, "FAIL %s: a product equals the reference of a different operand\n", name);
        std::exit(1);
    }
    std::printf("%s: %zu products, sums, differences and mul_sub, %zu squares and conversions equal\n", name,
                checked, v.size());
}

// Fp2 = Fp[u] / (u^2 + 1): products, a * b - c * d and squares against the reference's Fp
// operations, on pairs of the Fp samples (edge values included).
void check_fp2(std::mt19937_64& rng, int count) {
    const field_ref<fp_t> ref;
    const std::vector<big> v = samples(ref, rng, count);
    const auto pick = [&] { return v[rng() % v.size()]; };
    struct pair_ref {
        big re, im;
    };
    const auto mul = [&](const pair_ref& a, const pair_ref& b) {
        return pair_ref{ref.sub_mod(ref.mont_mul(a.re, b.re), ref.mont_mul(a.im, b.im)),
                        ref.add_mod(ref.mont_mul(a.re, b.im), ref.mont_mul(a.im, b.re))};
    };
    const auto to = [&](const pair_ref& a) { return fp2_t{ref.to(a.re), ref.to(a.im)}; };
    const auto check = [&](const char* what, const pair_ref& want, const fp2_t& got) {
        if (cmp(ref.of(got.c0), want.re) != 0) fail("Fp2", std::string(what) + " (real part)", want.re, ref.of(got.c0));
        if (cmp(ref.of(got.c1), want.im) != 0) fail("Fp2", std::string(what) + " (u part)", want.im, ref.of(got.c1));
    };
    int checked = 0;
    for (size_t i = 0; i < v.size(); i++) {
        for (int trial = 0; trial < 8; trial++, checked++) {
            // The first operand runs through every sample, in both halves.
            const pair_ref a = trial % 2 ? pair_ref{v[i], pick()} : pair_ref{pick(), v[i]};
            const pair_ref b{pick(), pick()}, c{pick(), pick()}, d{pick(), pick()};
            const pair_ref ab = mul(a, b), cd = mul(c, d);
            check("a * b", ab, to(a) * to(b));
            check("mul_sub", pair_ref{ref.sub_mod(ab.re, cd.re), ref.sub_mod(ab.im, cd.im)},
                  fp2_t::mul_sub(to(a), to(b), to(c), to(d)));
            check("sqr", mul(a, a), to(a).sqr());
        }
    }
    std::printf("Fp2: %d products, mul_sub and squares equal\n", checked);
}

}  // namespace

// After samples(), which the host field's checks draw from.
#include "host.h"

int main(int argc, char** argv) {
    const int count = argc > 1 ? std::atoi(argv[1]) : 200;
    std::mt19937_64 rng(20261205);
    check_field<fp_t>("Fp", rng, count);
    check_field<fr_t>("Fr", rng, count);
    check_fp2(rng, count / 4);
    check_g1(rng, count / 4);
    check_host_fp(rng, count / 4);
    check_host_fp2(rng, count / 4);
    check_host_combine(rng);
    return 0;
}
