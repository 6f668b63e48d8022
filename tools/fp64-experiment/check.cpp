// Host check of fp52::mul (fp52.cuh) over Fp and Fr, compiled with the host's C++ compiler:
// std::fma is the IEEE fused multiply-add that the GPU's __fma_rn is, and the rounded-down
// high part is computed exactly from the integer product, so the host computes the GPU's bits.
// Each product c = mul(a, b) must satisfy c * R = a * b (mod p), R = 2^(52 N), with c below 2p
// and its limbs below 2^52, for random a, b below 2p and the edge values (0, 1, p - 1, p,
// 2p - 1, and a value of all ones below the top bit of p). The checker itself is checked: a
// product with one bit flipped must be rejected.
//
//   c++ -std=c++17 -O2 -I tools/fp64-experiment tools/fp64-experiment/check.cpp -o fp52check
//   ./fp52check [PRODUCTS]    (of each field; default 200000; exits 1 on the first failure)
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "fp52.cuh"

namespace {

// Integers of 7 x 64 bits (448 bits: every value below R <= 2^416 and products reduced below p).
constexpr int W = 7;
using big = std::vector<uint64_t>;  // little-endian 64-bit words, any length

template <class P>
big p_big() {
    big p(W, 0);
    for (int k = 0; k < P::N; k++)
        for (int b = 0; b < 52; b++)
            if ((P::p_limb(k) >> b) & 1) p[(52 * k + b) / 64] |= uint64_t(1) << ((52 * k + b) % 64);
    return p;
}

template <class P>
big from_fe(const fp52::fe_t<P>& x) {
    big v(W, 0);
    for (int k = 0; k < P::N; k++) {
        const uint64_t limb = uint64_t(x.l[k]);
        for (int b = 0; b < 64; b++)
            if ((limb >> b) & 1) {
                const int bit = 52 * k + b;
                if (bit / 64 < W) v[bit / 64] |= uint64_t(1) << (bit % 64);
            }
    }
    return v;
}

template <class P>
fp52::fe_t<P> to_fe(const big& v) {
    fp52::fe_t<P> x;
    for (int k = 0; k < P::N; k++) {
        uint64_t limb = 0;
        for (int b = 0; b < 52; b++) {
            const int bit = 52 * k + b;
            if (bit / 64 < int(v.size()) && ((v[bit / 64] >> (bit % 64)) & 1)) limb |= uint64_t(1) << b;
        }
        x.l[k] = double(limb);
    }
    return x;
}

int compare(const big& a, const big& b) {
    const size_t n = std::max(a.size(), b.size());
    for (size_t i = n; i-- > 0;) {
        const uint64_t x = i < a.size() ? a[i] : 0, y = i < b.size() ? b[i] : 0;
        if (x != y) return x < y ? -1 : 1;
    }
    return 0;
}
void sub_in_place(big& a, const big& b) {  // a -= b, a >= b
    unsigned __int128 borrow = 0;
    for (size_t i = 0; i < a.size(); i++) {
        const unsigned __int128 y = (i < b.size() ? b[i] : 0) + borrow;
        borrow = a[i] < y;
        a[i] = uint64_t(a[i] - uint64_t(y));
    }
}
big add(const big& a, const big& b) {
    big r(std::max(a.size(), b.size()) + 1, 0);
    unsigned __int128 carry = 0;
    for (size_t i = 0; i < r.size(); i++) {
        carry += (unsigned __int128)(i < a.size() ? a[i] : 0) + (i < b.size() ? b[i] : 0);
        r[i] = uint64_t(carry);
        carry >>= 64;
    }
    return r;
}
big mul_big(const big& a, const big& b) {
    big r(a.size() + b.size(), 0);
    for (size_t i = 0; i < a.size(); i++) {
        unsigned __int128 carry = 0;
        for (size_t j = 0; j < b.size(); j++) {
            carry += (unsigned __int128)a[i] * b[j] + r[i + j];
            r[i + j] = uint64_t(carry);
            carry >>= 64;
        }
        r[i + b.size()] = uint64_t(carry);
    }
    return r;
}
// v mod p by shift-and-subtract, one bit at a time from the top.
big mod_p(const big& v, const big& p) {
    big r(W + 1, 0);
    for (size_t bit = v.size() * 64; bit-- > 0;) {
        for (size_t i = r.size(); i-- > 1;) r[i] = (r[i] << 1) | (r[i - 1] >> 63);
        r[0] = (r[0] << 1) | ((v[bit / 64] >> (bit % 64)) & 1);
        if (compare(r, p) >= 0) sub_in_place(r, p);
    }
    r.resize(W);
    return r;
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

}  // namespace

int main(int argc, char** argv) {
    const long products = argc > 1 ? std::atol(argv[1]) : 200000;
    check_field<fp52::fp_params_t>("Fp", 381, products);
    check_field<fp52::fr_params_t>("Fr", 255, products);
    return 0;
}
