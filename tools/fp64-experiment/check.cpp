// Host check of fp52::mul (fp52.cuh) over Fp and Fr, compiled with the host's C++ compiler:
// std::fma is the IEEE fused multiply-add that the GPU's __fma_rn is, and the rounded-down
// high part is computed exactly from the integer product, so the host computes the GPU's bits.
// Each product c = mul(a, b) must satisfy c * R = a * b (mod p), R = 2^(52 N), with c below 2p
// and its limbs below 2^52, for random a, b below 2p and the edge values (0, 1, p - 1, p,
// 2p - 1, and a value of all ones below the top bit of p). The checker itself is checked: a
// product with one bit flipped must be rejected. Then fp52_ec.cuh's G1 additions: chains of
// mixed additions of random curve points, a point added to itself, to its negation and to
// infinity, each result against affine arithmetic on big integers. Last, ntt52.cuh's product
// of a library-form Fr element (32-bit limbs, R = 2^256) by a twiddle in fp52 form (16 w): the
// result, reduced once, must be the library's product a w / 2^256 mod r.
//
//   c++ -std=c++17 -O2 -I tools/fp64-experiment tools/fp64-experiment/check.cpp -o fp52check
//   ./fp52check [PRODUCTS [ADDITIONS]]    (products of each field, default 200000; G1 additions,
//                                          default 300; exits 1 on the first failure)
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "bigint.h"
#include "fp52.cuh"
#include "fp52_ec.cuh"
#include "ntt52.cuh"

namespace {

using namespace bigint;

template <class P>
big p_big() {
    uint64_t limbs[P::N];
    for (int k = 0; k < P::N; k++) limbs[k] = P::p_limb(k);
    return from_limbs52(limbs, P::N);
}

// Elements held as doubles (fe_t) or as integers (fi_t), to and from big integers.
template <class P>
big from_fe(const fp52::fe_t<P>& x) {
    uint64_t limbs[P::N];
    for (int k = 0; k < P::N; k++) limbs[k] = uint64_t(x.l[k]);
    return from_limbs52(limbs, P::N);
}
template <class P>
fp52::fe_t<P> to_fe(const big& v) {
    uint64_t limbs[P::N];
    to_limbs52(v, limbs, P::N);
    fp52::fe_t<P> x;
    for (int k = 0; k < P::N; k++) x.l[k] = double(limbs[k]);
    return x;
}
big from_fe_int(const fp52::g1_fi_t& x) { return from_limbs52(x.l, fp52::fp_params_t::N); }
fp52::g1_fi_t to_fe_int(const big& v) {
    fp52::g1_fi_t x;
    to_limbs52(v, x.l, fp52::fp_params_t::N);
    return x;
}

template <class P>
struct checker_t {
    big p = p_big<P>();
    big two_p = add(p, p);
    big r;  // R = 2^(52 N) mod p
    checker_t() {
        big one(W, 0);
        one[0] = 1;
        r = one;
        for (int i = 0; i < 52 * P::N; i++) r = mod_p(add(r, r), p);
    }
    // Empty when c is the product of a and b; else what is wrong.
    const char* wrong(const fp52::fe_t<P>& a, const fp52::fe_t<P>& b, const fp52::fe_t<P>& c) const {
        for (int k = 0; k < P::N; k++) {
            const double l = c.l[k];
            if (!(l >= 0 && l < fp52::TWO52) || double(uint64_t(l)) != l) return "a limb is not an integer below 2^52";
        }
        const big cv = from_fe(c);
        if (compare(cv, two_p) >= 0) return "the product is not below 2p";
        if (compare(mod_p(mul_big(cv, r), p), mod_p(mul_big(from_fe(a), from_fe(b)), p)) != 0)
            return "c * R != a * b (mod p)";
        return nullptr;
    }
};

template <class P>
void print_fe(const char* name, const fp52::fe_t<P>& x) {
    std::printf("  %s =", name);
    for (int k = P::N; k-- > 0;) std::printf(" %013llx", (unsigned long long)x.l[k]);
    std::printf("\n");
}

// Checks `products` products of the field P (p of `p_bits` bits); exits on the first failure.
template <class P>
void check_field(const char* name, int p_bits, long products) {
    const checker_t<P> check;
    std::mt19937_64 rng(20261205);
    big zero(W, 0), one(W, 0);
    one[0] = 1;
    big p_minus_1 = check.p, two_p_minus_1 = check.two_p;
    sub_in_place(p_minus_1, one);
    sub_in_place(two_p_minus_1, one);
    two_p_minus_1.resize(W);
    big ones(W, 0);  // 2^(p_bits - 1) - 1, below p
    for (int bit = 0; bit < p_bits - 1; bit++) ones[bit / 64] |= uint64_t(1) << (bit % 64);
    const std::vector<big> edges = {zero, one, p_minus_1, check.p, two_p_minus_1, ones};
    auto random_below_2p = [&]() {
        for (;;) {
            big v(W, 0);
            for (int bit = 0; bit < p_bits + 1; bit += 64) v[bit / 64] = rng();
            for (int bit = p_bits + 1; bit < W * 64; bit++) v[bit / 64] &= ~(uint64_t(1) << (bit % 64));
            if (compare(v, check.two_p) < 0) return v;
        }
    };

    long done = 0;
    auto run = [&](const big& av, const big& bv) {
        const fp52::fe_t<P> a = to_fe<P>(av), b = to_fe<P>(bv);
        const fp52::fe_t<P> c = fp52::mul(a, b);
        if (const char* why = check.wrong(a, b, c)) {
            std::printf("FAIL %s after %ld products: %s\n", name, done, why);
            print_fe("a", a);
            print_fe("b", b);
            print_fe("c", c);
            std::exit(1);
        }
        done++;
        return c;
    };
    for (const big& x : edges)
        for (const big& y : edges) run(x, y);
    // Chains as well as independent products: each output is the next input.
    fp52::fe_t<P> chain = to_fe<P>(random_below_2p());
    while (done < products) {
        run(random_below_2p(), random_below_2p());
        chain = run(from_fe(chain), random_below_2p());
    }

    // The checker must reject a wrong product: flip one bit of a correct one.
    const fp52::fe_t<P> a = to_fe<P>(random_below_2p()), b = to_fe<P>(random_below_2p());
    fp52::fe_t<P> c = fp52::mul(a, b);
    c.l[2] = double(uint64_t(c.l[2]) ^ (uint64_t(1) << 17));
    if (check.wrong(a, b, c) == nullptr) {
        std::printf("FAIL %s: the checker accepted a product with a bit flipped\n", name);
        std::exit(1);
    }
    std::printf("fp52 %s: %ld products (%zu edge pairs, random pairs and chains below 2p) equal a*b/2^%d mod p, "
                "below 2p, limbs below 2^52; a flipped bit is caught\n",
                name, done, edges.size() * edges.size(), 52 * P::N);
}



// ---- G1 ----------------------------------------------------------------------------------

struct g1_check_t {
    checker_t<fp52::fp_params_t> f;
    big mulmod(const big& a, const big& b) const { return mod_p(mul_big(a, b), f.p); }
    big addmod(const big& a, const big& b) const { return mod_p(add(a, b), f.p); }
    big submod(const big& a, const big& b) const {  // a, b below p
        big t = add(a, f.p);
        sub_in_place(t, b);
        return mod_p(t, f.p);
    }
    big powmod(big b, const big& e) const {
        big r(W, 0);
        r[0] = 1;
        for (size_t bit = e.size() * 64; bit-- > 0;) {
            r = mulmod(r, r);
            if ((e[bit / 64] >> (bit % 64)) & 1) r = mulmod(r, b);
        }
        return r;
    }
    big p_minus(uint64_t k) const {
        big e = f.p, kk(W, 0);
        kk[0] = k;
        sub_in_place(e, kk);
        return e;
    }
    big inverse(const big& a) const { return powmod(a, p_minus(2)); }
    bool equal(const big& a, const big& b) const { return compare(mod_p(a, f.p), mod_p(b, f.p)) == 0; }
};

// An affine point on big integers (plain, not Montgomery); inf when `inf`.
struct ref_point_t {
    big x, y;
    bool inf = false;
};

int check_g1(long additions) {
    const g1_check_t g;
    std::mt19937_64 rng(20261206);
    big four(W, 0), three(W, 0), two(W, 0);
    four[0] = 4;
    three[0] = 3;
    two[0] = 2;
    // (p + 1) / 4: p = 3 mod 4, so a square's root is its ((p + 1) / 4)-th power.
    big sqrt_exp = add(g.f.p, big{1});
    for (int i = 0; i < 2; i++) {
        for (size_t k = 0; k + 1 < sqrt_exp.size(); k++) sqrt_exp[k] = (sqrt_exp[k] >> 1) | (sqrt_exp[k + 1] << 63);
        sqrt_exp.back() >>= 1;
    }
    auto random_point = [&]() {
        for (;;) {
            big x(W, 0);
            for (int i = 0; i < 6; i++) x[i] = rng();
            x = mod_p(x, g.f.p);
            const big rhs = g.addmod(g.mulmod(g.mulmod(x, x), x), four);
            const big y = g.powmod(rhs, sqrt_exp);
            if (g.equal(g.mulmod(y, y), rhs)) return ref_point_t{x, y};
        }
    };
    auto to_affine52 = [&](const ref_point_t& p) {
        if (p.inf) return fp52::affine52_t{};
        return fp52::affine52_t{to_fe_int(g.mulmod(p.x, g.f.r)), to_fe_int(g.mulmod(p.y, g.f.r))};
    };
    auto ref_add = [&](const ref_point_t& a, const ref_point_t& b) {
        if (a.inf) return b;
        if (b.inf) return a;
        big lambda;
        if (g.equal(a.x, b.x)) {
            if (!g.equal(a.y, b.y) || g.equal(a.y, big(W, 0))) return ref_point_t{{}, {}, true};
            lambda = g.mulmod(g.mulmod(three, g.mulmod(a.x, a.x)), g.inverse(g.mulmod(two, a.y)));
        } else {
            lambda = g.mulmod(g.submod(b.y, a.y), g.inverse(g.submod(b.x, a.x)));
        }
        const big x3 = g.submod(g.submod(g.mulmod(lambda, lambda), a.x), b.x);
        return ref_point_t{x3, g.submod(g.mulmod(lambda, g.submod(a.x, x3)), a.y)};
    };
    // The accumulator against the reference: X/ZZ and Y/ZZZ (Montgomery factors cancel).
    long done = 0;
    auto expect = [&](const char* what, const fp52::xyzz52_t& acc, const ref_point_t& want) {
        bool ok;
        if (want.inf) {
            ok = acc.is_inf();
        } else {
            const big zz = mod_p(from_fe_int(acc.zz), g.f.p), zzz = mod_p(from_fe_int(acc.zzz), g.f.p);
            ok = !acc.is_inf() && g.equal(g.mulmod(mod_p(from_fe_int(acc.x), g.f.p), g.inverse(zz)), want.x) &&
                 g.equal(g.mulmod(mod_p(from_fe_int(acc.y), g.f.p), g.inverse(zzz)), want.y);
            for (const fp52::g1_fi_t* c : {&acc.x, &acc.y, &acc.zz, &acc.zzz})
                ok &= compare(from_fe_int(*c), g.f.two_p) < 0;
        }
        if (!ok) {
            std::printf("FAIL G1 after %ld additions: %s\n", done, what);
            std::exit(1);
        }
        done++;
    };

    const ref_point_t inf{{}, {}, true};
    fp52::xyzz52_t acc = fp52::xyzz52_t::inf();
    ref_point_t want = inf;
    while (done < additions) {
        const ref_point_t p = random_point();
        acc = acc.add_affine(to_affine52(p));
        want = ref_add(want, p);
        expect("a chain of random points", acc, want);
    }
    const ref_point_t p = random_point();
    const fp52::xyzz52_t single = fp52::xyzz52_t::inf().add_affine(to_affine52(p));
    expect("infinity plus a point", single, p);
    expect("a point plus itself", single.add_affine(to_affine52(p)), ref_add(p, p));
    expect("a point plus its negation", single.add_affine(to_affine52({p.x, g.submod(big(W, 0), p.y)})), inf);
    expect("a point plus infinity", single.add_affine(fp52::affine52_t{}), p);
    expect("a sum plus a point equal to it", acc.add_affine(to_affine52(want)), ref_add(want, want));

    // The checker must reject a wrong sum.
    fp52::xyzz52_t wrong = single;
    wrong.x.l[1] ^= 1;
    const big zz = mod_p(from_fe_int(wrong.zz), g.f.p);
    if (g.equal(g.mulmod(mod_p(from_fe_int(wrong.x), g.f.p), g.inverse(zz)), p.x)) {
        std::printf("FAIL G1: the checker accepted a sum with a bit flipped\n");
        std::exit(1);
    }
    std::printf("fp52 G1: %ld mixed additions (chains of random points, doubling, a point and its negation, "
                "infinity) equal affine arithmetic on big integers, coordinates below 2p; a flipped bit is caught\n",
                done);
    return 0;
}

// ntt52.cuh: mul_fr32_by_52(a, 16 w mod r) reduced once equals a w / 2^256 mod r, for random
// a, w below r and the edge values; a flipped bit in the result is caught.
int check_ntt52(long products) {
    const big r = p_big<fp52::fr_params_t>();
    big r_minus_1 = r;
    sub_in_place(r_minus_1, big{1});
    const big two256 = {0, 0, 0, 0, 1};
    std::mt19937_64 rng(20261205);
    auto to_u32 = [](const big& v, uint32_t (&x)[8]) {
        for (int i = 0; i < 8; i++) x[i] = uint32_t(i / 2 < int(v.size()) ? v[i / 2] >> (32 * (i % 2)) : 0);
    };
    auto from_u32 = [](const uint32_t (&x)[8]) {
        big v(4, 0);
        for (int i = 0; i < 8; i++) v[i / 2] |= uint64_t(x[i]) << (32 * (i % 2));
        return v;
    };
    auto random_below_r = [&] {
        big v(4);
        for (auto& w : v) w = rng();
        return mod_p(v, r);
    };
    const big edges[] = {big{0}, big{1}, r_minus_1, big{0xffffffffu}};
    for (long n = 0; n < products; n++) {
        const big a = n < 16 ? edges[n % 4] : random_below_r(), w = n < 16 ? edges[n / 4] : random_below_r();
        uint32_t a32[8], t32[8], out[8];
        to_u32(a, a32);
        to_u32(mod_p(mul_big(w, big{16}), r), t32);
        uint64_t tl[5];
        fp52::u32_to_limbs52(t32, tl);
        double t[5];
        for (int k = 0; k < 5; k++) t[k] = double(tl[k]);
        fp52::mul_fr32_by_52(a32, t, out);
        big c = from_u32(out);
        if (compare(c, add(r, r)) >= 0) {
            std::printf("FAIL ntt52: product %ld not below 2r\n", n);
            return 1;
        }
        if (compare(c, r) >= 0) sub_in_place(c, r);
        // c 2^256 = a w (mod r), and a flipped bit must break it.
        const big want = mod_p(mul_big(a, w), r);
        if (compare(mod_p(mul_big(c, two256), r), want) != 0) {
            std::printf("FAIL ntt52: product %ld is not a w / 2^256 mod r\n", n);
            return 1;
        }
        big flipped = c;
        flipped[n % 4] ^= uint64_t(1) << (n % 64);
        if (compare(mod_p(mul_big(flipped, two256), r), want) == 0) {
            std::printf("FAIL ntt52: the check missed a flipped bit\n");
            return 1;
        }
    }
    std::printf("ntt52: %ld products of library-form Fr elements by fp52-form twiddles equal a w / 2^256 mod r "
                "after one subtraction; a flipped bit is caught\n",
                products);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    const long products = argc > 1 ? std::atol(argv[1]) : 200000;
    const long additions = argc > 2 ? std::atol(argv[2]) : 300;
    check_field<fp52::fp_params_t>("Fp", 381, products);
    check_field<fp52::fr_params_t>("Fr", 255, products);
    return check_g1(additions) | check_ntt52(products / 10);
}
