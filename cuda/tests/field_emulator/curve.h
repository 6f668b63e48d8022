// G1 (y^2 = x^3 + 4): the XYZZ formulas of ec/xyzz.cuh against affine arithmetic on the
// reference's big integers, for the field emulator (main.cpp).
#pragma once

#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "device.h"
#include "reference.h"

namespace {

using cuzk::fp_t;

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
    // The script's one doubling and one cancellation; full additions and additions of a point
    // to itself in other coordinates are counted from none.
    int doublings = 1, cancels = 1, full = 0, rescaled = 0;
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
        if (kind == 5 && !ref.inf) {
            // A full addition of the accumulator to itself in other coordinates
            // (X l^2, Y l^3, ZZ l^2, ZZZ l^3 for an l of the field): add's same-point branch,
            // reached with operands that differ in every coordinate.
            const auto l = g.to_device(multiples[rng() % multiples.size()]).x;
            const auto l2 = l.sqr();
            const auto l3 = l2 * l;
            const xyzz_t other{acc.x * l2, acc.y * l3, acc.zz * l2, acc.zzz * l3};
            acc = acc.add(other);
            ref = g.add(ref, ref);
            expect("add of the same point, rescaled", step, ref, acc);
            rescaled++;
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
    if (doublings < 3 || cancels < 3 || full < 3 || rescaled < 3) {
        std::fprintf(stderr,
                     "FAIL G1: too few steps through the branches (%d doublings, %d cancellations, %d full, %d "
                     "rescaled)\n",
                     doublings, cancels, full, rescaled);
        std::exit(1);
    }
    std::printf(
        "G1: %d steps of add_affine, add and dbl equal (%d doublings, %d cancellations, %d full additions, %d of a "
        "point to itself rescaled)\n",
        steps, doublings, cancels, full, rescaled);
}

}  // namespace
