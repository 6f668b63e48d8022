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
// to_jacobian. Prints one line per field and one for G1; exits non-zero at the first
// mismatch.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__
#define __constant__
inline uint32_t __funnelshift_l(uint32_t lo, uint32_t hi, uint32_t shift) {
    return uint32_t(((uint64_t(hi) << 32 | lo) << (shift & 31)) >> 32);
}

#include "ec/g1.cuh"
#include "ff/bls12_381.cuh"
#include "ff/fp2.cuh"

namespace {

using cuzk::fp2_t;
using cuzk::fp_t;
using cuzk::fr_t;

// Little-endian 32-bit limbs, any length; values are kept trimmed of nothing (fixed width
// where it matters is the caller's business).
using big = std::vector<uint32_t>;

big trimmed(big a) {
    while (!a.empty() && a.back() == 0) a.pop_back();
    return a;
}
int cmp(const big& x, const big& y) {
    const big a = trimmed(x), b = trimmed(y);
    if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
    for (size_t i = a.size(); i-- > 0;)
        if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
    return 0;
}
big add(const big& a, const big& b) {
    big r(std::max(a.size(), b.size()) + 1, 0);
    uint64_t c = 0;
    for (size_t i = 0; i < r.size(); i++) {
        c += uint64_t(i < a.size() ? a[i] : 0) + (i < b.size() ? b[i] : 0);
        r[i] = uint32_t(c);
        c >>= 32;
    }
    return trimmed(r);
}
// a - b for a >= b.
big sub(const big& a, const big& b) {
    big r(a.size(), 0);
    int64_t c = 0;
    for (size_t i = 0; i < a.size(); i++) {
        c += int64_t(a[i]) - (i < b.size() ? b[i] : 0);
        r[i] = uint32_t(c);
        c = c < 0 ? -1 : 0;
    }
    if (c != 0) {
        std::fprintf(stderr, "reference: negative difference\n");
        std::exit(2);
    }
    return trimmed(r);
}
big mul(const big& a, const big& b) {
    big r(a.size() + b.size() + 1, 0);
    for (size_t i = 0; i < a.size(); i++) {
        uint64_t c = 0;
        for (size_t j = 0; j < b.size(); j++) {
            c += uint64_t(a[i]) * b[j] + r[i + j];
            r[i + j] = uint32_t(c);
            c >>= 32;
        }
        for (size_t k = i + b.size(); c; k++) {
            c += r[k];
            r[k] = uint32_t(c);
            c >>= 32;
        }
    }
    return trimmed(r);
}
big shr1(big a) {
    for (size_t i = 0; i < a.size(); i++) a[i] = (a[i] >> 1) | (i + 1 < a.size() ? a[i + 1] << 31 : 0);
    return trimmed(a);
}
big mod(big a, const big& p) {
    // Shift-and-subtract: long division by p, one bit at a time.
    big r;
    for (size_t i = a.size() * 32; i-- > 0;) {
        r = add(r, r);
        if ((a[i / 32] >> (i % 32)) & 1) r = add(r, big{1});
        if (cmp(r, p) >= 0) r = sub(r, p);
    }
    return r;
}
// t * 2^-bits mod p, one bit at a time (add p when odd, halve): Montgomery's reduction from
// its definition, independent of the limb-wise algorithms under test.
big redc(big t, const big& p, int bits) {
    for (int i = 0; i < bits; i++) {
        if (!t.empty() && (t[0] & 1)) t = add(t, p);
        t = shr1(t);
    }
    return mod(t, p);
}

template <class F>
struct field_ref {
    big p;
    int bits = 32 * F::N;
    field_ref() {
        for (int i = 0; i < F::N; i++) p.push_back(F::modulus().l[i]);
        p = trimmed(p);
    }
    big of(const F& x) const {
        big r(x.l, x.l + F::N);
        return trimmed(r);
    }
    F to(const big& x) const {
        F r;
        for (int i = 0; i < F::N; i++) r.l[i] = i < int(x.size()) ? x[i] : 0;
        return r;
    }
    big mont_mul(const big& a, const big& b) const { return redc(mul(a, b), p, bits); }
    big add_mod(const big& a, const big& b) const { return mod(add(a, b), p); }
    big sub_mod(const big& a, const big& b) const { return mod(sub(add(a, p), b), p); }
};

[[noreturn]] void fail(const char* field, const std::string& what, const big& want, const big& got) {
    std::fprintf(stderr, "FAIL %s %s\n  want", field, what.c_str());
    for (size_t i = want.size(); i-- > 0;) std::fprintf(stderr, " %08x", want[i]);
    std::fprintf(stderr, "\n  got ");
    for (size_t i = got.size(); i-- > 0;) std::fprintf(stderr, " %08x", got[i]);
    std::fprintf(stderr, "\n");
    std::exit(1);
}

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

// ---- G1 (y^2 = x^3 + 4): the XYZZ formulas of ec/xyzz.cuh against affine arithmetic ----

// Canonical integers mod p, and points in affine form with a flag for infinity.
struct g1_ref {
    field_ref<fp_t> f;
    struct point {
        big x, y;
        bool inf = false;
        bool operator==(const point& o) const {
            return inf == o.inf && (inf || (cmp(x, o.x) == 0 && cmp(y, o.y) == 0));
        }
    };
    big mulm(const big& a, const big& b) const { return mod(mul(a, b), f.p); }
    big inv(const big& a) const {
        const big e = sub(f.p, {2});
        big r{1};
        for (size_t i = e.size() * 32; i-- > 0;) {
            r = mulm(r, r);
            if ((e[i / 32] >> (i % 32)) & 1) r = mulm(r, a);
        }
        return r;
    }
    point neg(const point& p) const { return p.inf ? p : point{p.x, f.sub_mod({}, p.y)}; }
    point add(const point& p, const point& q) const {
        if (p.inf) return q;
        if (q.inf) return p;
        big lambda;
        if (cmp(p.x, q.x) == 0) {
            if (cmp(p.y, q.y) != 0 || p.y.empty()) return point{{}, {}, true};
            lambda = mulm(mulm({3}, mulm(p.x, p.x)), inv(f.add_mod(p.y, p.y)));  // 3 x^2 / 2y
        } else {
            lambda = mulm(f.sub_mod(q.y, p.y), inv(f.sub_mod(q.x, p.x)));
        }
        const big x3 = f.sub_mod(f.sub_mod(mulm(lambda, lambda), p.x), q.x);
        return point{x3, f.sub_mod(mulm(lambda, f.sub_mod(p.x, x3)), p.y)};
    }
    // Montgomery form (x 2^384 mod p) and back.
    fp_t to_mont(const big& x) const {
        big shifted(12, 0);
        shifted.insert(shifted.end(), x.begin(), x.end());
        return f.to(mod(shifted, f.p));
    }
    big of_mont(const fp_t& x) const { return redc(f.of(x), f.p, 384); }
    cuzk::affine_t to_device(const point& p) const {
        return p.inf ? cuzk::affine_t::inf() : cuzk::affine_t{to_mont(p.x), to_mont(p.y)};
    }
    point of_affine(const cuzk::affine_t& a) const {
        if (a.is_inf()) return point{{}, {}, true};
        return point{of_mont(a.x), of_mont(a.y)};
    }
    // Whether a Jacobian (X, Y, Z) is p: X = x Z^2 and Y = y Z^3 (Z = 0 for infinity).
    bool jacobian_is(const cuzk::jacobian_t& j, const point& p) const {
        if (j.z.is_zero() || p.inf) return j.z.is_zero() && p.inf;
        const big z = of_mont(j.z), z2 = mulm(z, z);
        return cmp(of_mont(j.x), mulm(p.x, z2)) == 0 && cmp(of_mont(j.y), mulm(p.y, mulm(z2, z))) == 0;
    }
    bool on_curve(const point& p) const {
        return p.inf || cmp(mulm(p.y, p.y), f.add_mod(mulm(mulm(p.x, p.x), p.x), {4})) == 0;
    }
};

big hex(const char* h) {
    big r;
    const std::string s(h);
    for (size_t end = s.size(); end > 0; end = end > 8 ? end - 8 : 0) {
        const size_t begin = end > 8 ? end - 8 : 0;
        r.push_back(uint32_t(std::stoul(s.substr(begin, end - begin), nullptr, 16)));
    }
    return trimmed(r);
}

// Chains of mixed additions (add_affine) through every branch: a new point, the same point
// (doubling), its negation (infinity), infinity on either side; full additions (add) and
// doublings (dbl) of accumulators; results read back through to_affine and to_jacobian.
void check_g1(std::mt19937_64& rng, int steps) {
    using cuzk::xyzz_t;
    const g1_ref g;
    using point = g1_ref::point;
    // The generator (the published BLS12-381 G1 generator), and k G for k = 1 .. 24.
    const point gen{hex("17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb"),
                    hex("08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1")};
    if (!g.on_curve(gen)) {
        std::fprintf(stderr, "FAIL G1: the generator is not on the curve\n");
        std::exit(1);
    }
    std::vector<point> multiples{gen};
    while (multiples.size() < 24) multiples.push_back(g.add(multiples.back(), gen));
    if (multiples[2] == multiples[3] || !g.on_curve(multiples[23])) {
        std::fprintf(stderr, "FAIL G1: the reference's multiples\n");
        std::exit(1);
    }
    const auto expect = [&](const char* what, int step, const point& want, const xyzz_t& acc) {
        const point got = g.of_affine(acc.to_affine());
        const bool jacobian_right = g.jacobian_is(acc.to_jacobian(), want);
        if (!(got == want) || !jacobian_right) {
            std::fprintf(stderr, "FAIL G1 %s at step %d (to_affine %s, to_jacobian %s)\n", what, step,
                         got == want ? "right" : "wrong", jacobian_right ? "right" : "wrong");
            std::exit(1);
        }
    };
    // The scripted start: infinity + P, + P (doubling), + (-2P) (infinity), + infinity.
    point ref{{}, {}, true};
    xyzz_t acc = xyzz_t::inf();
    const point infinity{{}, {}, true};
    const point script[] = {multiples[0], multiples[0], g.neg(multiples[1]), infinity, multiples[4]};
    int step = 0;
    for (const point& p : script) {
        acc = acc.add_affine(g.to_device(p));
        ref = g.add(ref, p);
        expect("scripted add_affine", step++, ref, acc);
    }
    // Seeded random steps: mostly new points, sometimes the accumulator itself or its negation.
    int doublings = 1, cancels = 1, full = 0;  // the script's one of each, and full additions
    for (; step < steps; step++) {
        const int kind = int(rng() % 8);
        point p = multiples[rng() % multiples.size()];
        if (kind == 0 && !ref.inf) p = ref, doublings++;  // doubling branch
        if (kind == 1 && !ref.inf) p = g.neg(ref), cancels++;  // to infinity
        if (kind == 2) p = g.neg(p);
        acc = acc.add_affine(g.to_device(p));
        ref = g.add(ref, p);
        expect("add_affine", step, ref, acc);
        if (kind == 3) {
            acc = acc.dbl();
            ref = g.add(ref, ref);
            expect("dbl", step, ref, acc);
        }
        if (kind == 4) {
            // A full addition with another accumulator: 3 P_k built by mixed additions,
            // or the accumulator itself (doubling), or its negation.
            const int sub = int(rng() % 3);
            xyzz_t other = acc;
            point other_ref = ref;
            if (sub == 1) {
                other = acc.neg();
                other_ref = g.neg(ref);
            } else if (sub == 2) {
                const point q = multiples[rng() % multiples.size()];
                other = xyzz_t::from_affine(g.to_device(q)).add_affine(g.to_device(q)).add_affine(g.to_device(q));
                other_ref = g.add(g.add(q, q), q);
            }
            acc = acc.add(other);
            ref = g.add(ref, other_ref);
            expect("add", step, ref, acc);
            full++;
        }
    }
    if (doublings < 3 || cancels < 3 || full < 3) {
        std::fprintf(stderr, "FAIL G1: too few steps through the branches (%d doublings, %d cancellations, %d full)\n",
                     doublings, cancels, full);
        std::exit(1);
    }
    std::printf("G1: %d steps of add_affine, add and dbl equal (%d doublings, %d cancellations, %d full additions)\n",
                steps, doublings, cancels, full);
}

}  // namespace

int main(int argc, char** argv) {
    const int count = argc > 1 ? std::atoi(argv[1]) : 200;
    std::mt19937_64 rng(20261205);
    check_field<fp_t>("Fp", rng, count);
    check_field<fr_t>("Fr", rng, count);
    check_fp2(rng, count / 4);
    check_g1(rng, count / 4);
    return 0;
}
