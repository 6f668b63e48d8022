// The NTT's passes run on the CPU: the kernels' own index and phase code (ntt/layout.cuh,
// ntt/rounds.cuh) over the prime field Z/(3 2^30 + 1), block by block and, between two
// barriers, thread by thread, as the GPU schedules them. Built and run by ntt_emulated.rs.
//
// 1. For every transform size 2^1 .. 2^28 and both families, without data: the pass plan's
//    sizes, each pass a bijection from (block, element) onto the indices (up to 2^26), each
//    round covering its block exactly once, the rounds covering the pass's stages once, the
//    twiddle indices inside the table, and no two lanes of a warp on one shared-memory bank in
//    any round, load or store.
// 2. Up to 2^20 with data, against a textbook radix-2 FFT (itself checked against the
//    definition of the DFT at small sizes): the forward family with w and w^-1, the reverse
//    family, a * b formed on load, powers of g applied on load, powers at the bit-reversed
//    index and a constant applied on store.
// 3. The H pipeline as ntt.cu runs it (six transforms: c never goes to the coset, and the bit
//    reversal at the end, through rounds.cuh's bitrev_source, takes c's coefficients off) against
//    the textbook seven-transform form, for c equal to a * b on the domain and for any c; and
//    for the satisfied case against (a(X) b(X) - c(X)) / (X^n - 1) by long division.
// Prints one line per group of checks; exits non-zero at the first failure.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "ntt/layout.cuh"
#include "ntt/rounds.cuh"

namespace {

using namespace cuzk::ntt;

constexpr uint64_t P = 3u * (uint64_t(1) << 30) + 1;  // prime; 2^30 divides P - 1

struct fe {
    static constexpr int N = 1;
    uint32_t l[1];
    static fe of(uint64_t v) { return fe{{uint32_t(v % P)}}; }
    friend fe operator+(fe a, fe b) { return of(uint64_t(a.l[0]) + b.l[0]); }
    friend fe operator-(fe a, fe b) { return of(uint64_t(a.l[0]) + P - b.l[0]); }
    friend bool operator==(fe a, fe b) { return a.l[0] == b.l[0]; }
    friend bool operator!=(fe a, fe b) { return !(a == b); }
};

fe mul(fe a, fe b) { return fe::of(uint64_t(a.l[0]) * b.l[0]); }
fe power(fe b, uint64_t e) {
    fe r = fe::of(1);
    for (; e; e >>= 1, b = mul(b, b))
        if (e & 1) r = mul(r, b);
    return r;
}
fe inverse(fe a) { return power(a, P - 2); }

struct host_env {
    fe mul(fe a, fe b) const { return ::mul(a, b); }
    fe mul_table(fe a, const fe* p) const { return ::mul(a, *p); }
    fe mul_root(fe a, const fe* hi, uint32_t i) const { return ::mul(a, hi[i]); }
    fe table(const fe* p) const { return *p; }
};

[[noreturn]] void fail(const char* what, uint32_t L, const char* detail) {
    std::fprintf(stderr, "FAIL %s at 2^%u: %s\n", what, L, detail);
    std::exit(1);
}

// hi[j] = base^(j 2^14), lo[j] = base^j: the device's split power tables.
struct tables {
    std::vector<fe> hi, lo;
    explicit tables(fe base) : hi(TABLE_LEN), lo(TABLE_LEN) {
        const fe step = power(base, TABLE_LEN);
        fe h = fe::of(1), l = fe::of(1);
        for (uint32_t j = 0; j < TABLE_LEN; j++, h = mul(h, step), l = mul(l, base)) {
            hi[j] = h;
            lo[j] = l;
        }
    }
    fe at(uint64_t e) const { return mul(hi[(e >> TABLE_BITS) & TABLE_MASK], lo[e & TABLE_MASK]); }
};

// The device's table of 2^ROOTS_LOG-th roots: the powers of base^(2^(MAX_LOG - ROOTS_LOG)).
struct root_tables : tables {
    std::vector<fe> roots;
    explicit root_tables(fe base) : tables(base), roots(size_t(1) << ROOTS_LOG) {
        for (uint32_t j = 0; j < roots.size(); j++) roots[j] = at(uint64_t(j) << (MAX_LOG - ROOTS_LOG));
    }
};

// ---- 1. structure, without data -----------------------------------------------------------

void check_banks(const char* what, uint32_t L, const std::vector<uint32_t>& pos_of_lane) {
    // pos_of_lane: the shared-memory positions one warp touches at once (up to 32 lanes).
    uint32_t seen = 0;
    for (uint32_t x : pos_of_lane) {
        const uint32_t bit = 1u << (x & 31);
        if (seen & bit) fail(what, L, "two lanes of a warp on one shared-memory bank");
        seen |= bit;
    }
}

void check_pass_structure(uint32_t L, const pass_t& p, bool dit, std::vector<uint8_t>& hit) {
    const uint32_t E = block_elems(p), threads = block_threads(p), blocks = block_count(p);
    if (E > (1u << BLOCK_LOG) || threads > PASS_THREADS) fail("block size", L, "block larger than the kernel's");
    // Every index exactly once over all blocks (bitmap of 2^L entries; the largest sizes are
    // the same code with more blocks and would take minutes).
    if (L <= 26) {
        std::fill(hit.begin(), hit.begin() + (size_t(1) << L), 0);
        for (uint32_t blk = 0; blk < blocks; blk++)
            for (uint32_t e = 0; e < E; e++) {
                uint32_t q, c;
                const uint32_t gi = global_index(p, blk, e, q, c);
                if (gi >> L || hit[gi]) fail("global index", L, "not a bijection");
                hit[gi] = 1;
                if (q >> p.k || c >> p.m) fail("global index", L, "q or c out of range");
                if (pass_uses_roots(p) && roots_index(p, q, c) >> ROOTS_LOG) fail("roots", L, "index outside the table");
            }
    }
    // Loads and stores: warps of consecutive elements.
    if (E >= 32)
        for (uint32_t w = 0; w < E; w += 32) {
            std::vector<uint32_t> lanes;
            for (uint32_t e = w; e < w + 32; e++) lanes.push_back(smem_pos(e));
            check_banks("load/store banks", L, lanes);
        }
    // smem_pos is a bijection on [0, E).
    std::vector<uint8_t> pos_hit(E, 0);
    for (uint32_t e = 0; e < E; e++) {
        const uint32_t x = smem_pos(e);
        if (x >= E || pos_hit[x]) fail("smem_pos", L, "not a bijection on the block");
        pos_hit[x] = 1;
    }
    // Rounds.
    std::vector<uint8_t> stage_hit(p.k, 0);
    for (uint32_t i = 0; i < round_count(p.k); i++) {
        const round_t rd = pass_round(p.k, i, dit);
        if (rd.r < 1 || rd.r > ROUND_LOG || rd.b + rd.r > p.k) fail("rounds", L, "round outside the pass");
        for (uint32_t s = 0; s < rd.r; s++) {
            if (stage_hit[rd.b + s]) fail("rounds", L, "a stage in two rounds");
            stage_hit[rd.b + s] = 1;
        }
        if (i > 0) {
            const round_t prev = pass_round(p.k, i - 1, dit);
            if (dit ? prev.b > rd.b : prev.b < rd.b) fail("rounds", L, "rounds out of the family's order");
        }
        const uint32_t slots = E >> rd.r, f = round_shift(p, rd);
        std::vector<uint8_t> covered(E, 0);
        for (uint32_t slot = 0; slot < slots; slot++) {
            const uint32_t base = round_base(p, rd, slot);
            for (uint32_t j = 0; j < (1u << rd.r); j++) {
                const uint32_t e = base | (j << f);
                if (e >= E || covered[e]) fail("rounds", L, "a round does not cover its block exactly once");
                covered[e] = 1;
            }
            const uint32_t q_low = round_q_low(p, rd, base);
            for (uint32_t s = 0; s < rd.r; s++)
                for (uint32_t j0 = 0; j0 < (1u << rd.r); j0++)
                    if (!((j0 >> s) & 1) && twiddle_index(rd, s, q_low, j0) >= TABLE_LEN)
                        fail("rounds", L, "twiddle index outside the table");
        }
        // A warp is 32 consecutive slots (threads, and for short rounds each further pass of
        // the slot loop); all lanes read register j at once.
        if (slots >= 32)
            for (uint32_t w = 0; w < slots; w += 32)
                for (uint32_t j = 0; j < (1u << rd.r); j++) {
                    std::vector<uint32_t> lanes;
                    for (uint32_t slot = w; slot < w + 32; slot++)
                        lanes.push_back(smem_pos(round_base(p, rd, slot) | (j << f)));
                    check_banks("round banks", L, lanes);
                }
    }
    for (uint32_t s = 0; s < p.k; s++)
        if (!stage_hit[s]) fail("rounds", L, "a stage in no round");
}

void check_structure() {
    std::vector<uint8_t> hit(size_t(1) << 26);
    uint32_t passes = 0;
    for (uint32_t L = 1; L <= MAX_LOG; L++) {
        const std::vector<uint32_t> ks = split(L);
        uint32_t sum = 0;
        for (size_t i = 0; i < ks.size(); i++) {
            sum += ks[i];
            const bool last = i + 1 == ks.size();
            if (ks[i] == 0 || ks[i] > (last ? BLOCK_LOG : INNER_PASS_MAX)) fail("plan", L, "pass size");
        }
        if (sum != L) fail("plan", L, "pass sizes do not add up");
        for (bool dit : {false, true}) {
            uint32_t m = L;
            for (uint32_t k : ks) {
                m -= k;
                check_pass_structure(L, make_pass(L, k, m), dit, hit);
                passes++;
            }
        }
    }
    std::printf("structure: %u passes of 2^1..2^%u, both families: plan, indices, rounds, banks ok\n", passes,
                MAX_LOG);
}

// ---- 2. transforms, with data -------------------------------------------------------------

// One pass, as the GPU runs it: per block, every thread's load phase, a barrier, every
// thread's round phase, a barrier, ..., every thread's store phase.
template <bool DIT>
void run_pass(const pass_args_of<fe>& a) {
    const host_env env{};
    const uint32_t E = block_elems(a.p), threads = block_threads(a.p);
    std::vector<uint32_t> sm(size_t(fe::N) * E);
    for (uint32_t blk = 0; blk < block_count(a.p); blk++) {
        for (uint32_t t = 0; t < threads; t++) load_phase<fe, DIT>(env, a, sm.data(), blk, t, threads);
        for (uint32_t i = 0; i < round_count(a.p.k); i++)
            for (uint32_t t = 0; t < threads; t++) round_phase<fe, DIT>(env, a, sm.data(), i, t, threads);
        for (uint32_t t = 0; t < threads; t++) store_phase<fe, DIT>(env, a, sm.data(), blk, t, threads);
    }
}

// The forward family (as ntt.cu's dif): natural order in, bit-reversed out.
void dif(std::vector<fe>& x, uint32_t L, const root_tables& w, const scale_of<fe>& pre, const scale_of<fe>& post,
         const fe* b) {
    const std::vector<uint32_t> ks = split(L);
    uint32_t m = L;
    for (size_t i = 0; i < ks.size(); i++) {
        m -= ks[i];
        const bool first = i == 0, last = i + 1 == ks.size();
        const pass_args_of<fe> a{x.data(),
                                 first ? b : nullptr,
                                 make_pass(L, ks[i], m),
                                 w.hi.data(),
                                 w.lo.data(),
                                 w.roots.data(),
                                 first ? pre : scale_of<fe>{},
                                 last ? post : scale_of<fe>{}};
        run_pass<false>(a);
    }
}

// The reverse family (as ntt.cu's dit): bit-reversed order in, natural out.
void dit(std::vector<fe>& x, uint32_t L, const root_tables& w) {
    const std::vector<uint32_t> ks = split(L);
    uint32_t m = 0;
    for (size_t i = ks.size(); i-- > 0;) {
        const pass_args_of<fe> a{x.data(),   nullptr,        make_pass(L, ks[i], m), w.hi.data(),
                                 w.lo.data(), w.roots.data(), scale_of<fe>{}, scale_of<fe>{}};
        run_pass<true>(a);
        m += ks[i];
    }
}

// Textbook iterative radix-2 FFT: natural order in and out, root `root` of order 2^L.
std::vector<fe> reference_fft(std::vector<fe> x, uint32_t L, fe root) {
    const uint32_t n = 1u << L;
    for (uint32_t i = 0; i < n; i++) {
        const uint32_t j = bitrev(i, L);
        if (i < j) std::swap(x[i], x[j]);
    }
    for (uint32_t len = 2; len <= n; len <<= 1) {
        const fe wl = power(root, n / len);
        for (uint32_t i = 0; i < n; i += len) {
            fe w = fe::of(1);
            for (uint32_t j = 0; j < len / 2; j++, w = mul(w, wl)) {
                const fe u = x[i + j], v = mul(x[i + j + len / 2], w);
                x[i + j] = u + v;
                x[i + j + len / 2] = u - v;
            }
        }
    }
    return x;
}

std::vector<fe> definition_dft(const std::vector<fe>& x, uint32_t L, fe root) {
    const uint32_t n = 1u << L;
    std::vector<fe> y(n, fe::of(0));
    for (uint32_t k = 0; k < n; k++)
        for (uint32_t i = 0; i < n; i++) y[k] = y[k] + mul(x[i], power(root, uint64_t(i) * k));
    return y;
}

void expect_equal(const char* what, uint32_t L, const std::vector<fe>& got, const std::vector<fe>& want) {
    for (size_t i = 0; i < want.size(); i++)
        if (got[i] != want[i]) {
            char detail[128];
            std::snprintf(detail, sizeof detail, "element %zu: %u, expected %u", i, got[i].l[0], want[i].l[0]);
            fail(what, L, detail);
        }
}

std::vector<fe> from_bitrev(const std::vector<fe>& y, uint32_t L) {
    std::vector<fe> r(y.size());
    for (uint32_t i = 0; i < y.size(); i++) r[bitrev(i, L)] = y[i];
    return r;
}

// A pass's scale: the powers of a table's base (at the bit-reversed index with by_bitrev), or
// the constant *c.
scale_of<fe> powers_of(const tables& t, bool by_bitrev) {
    scale_of<fe> s;
    s.mode = SCALE_POWERS;
    s.bitrev = by_bitrev;
    s.hi = t.hi.data();
    s.lo = t.lo.data();
    return s;
}

scale_of<fe> constant_of(const fe* c) {
    scale_of<fe> s;
    s.mode = SCALE_CONST;
    s.c = c;
    return s;
}

// The coefficients of the polynomial that takes the values v on the 2^L-th roots of unity.
std::vector<fe> coefficients(const std::vector<fe>& v, uint32_t L, fe root) {
    std::vector<fe> r = reference_fft(v, L, inverse(root));
    const fe n_inv = inverse(fe::of(uint64_t(1) << L));
    for (auto& x : r) x = mul(x, n_inv);
    return r;
}

// A generator of Z/P*: P - 1 = 2^30 3, so g generates iff g^((P-1)/2) and g^((P-1)/3) are not 1.
uint64_t generator() {
    uint64_t g = 2;
    while (power(fe::of(g), (P - 1) / 2) == fe::of(1) || power(fe::of(g), (P - 1) / 3) == fe::of(1)) g++;
    return g;
}

void check_transforms(uint32_t max_log) {
    const uint64_t g = generator();
    const fe w_max = power(fe::of(g), (P - 1) >> MAX_LOG), w_max_inv = inverse(w_max);
    if (power(w_max, uint64_t(1) << (MAX_LOG - 1)) == fe::of(1)) fail("setup", MAX_LOG, "w_max not primitive");
    const root_tables tw(w_max), tw_inv(w_max_inv);
    const tables coset(fe::of(g)), scale(fe::of(5));
    std::mt19937_64 rng(0x6e7474);
    auto random_vec = [&](uint32_t n) {
        std::vector<fe> v(n);
        for (auto& e : v) e = fe::of(rng());
        return v;
    };

    for (uint32_t L = 1; L <= 8; L++) {
        const std::vector<fe> x = random_vec(1u << L);
        const fe root = power(w_max, uint64_t(1) << (MAX_LOG - L));
        expect_equal("reference FFT against the DFT's definition", L, reference_fft(x, L, root),
                     definition_dft(x, L, root));
    }

    for (uint32_t L = 1; L <= max_log; L++) {
        const uint32_t n = 1u << L;
        const fe root = power(w_max, uint64_t(1) << (MAX_LOG - L)), root_inv = inverse(root);
        const std::vector<fe> x = random_vec(n), bv = random_vec(n);

        // Forward family, both roots.
        std::vector<fe> y = x;
        dif(y, L, tw, {}, {}, nullptr);
        expect_equal("forward family, w", L, from_bitrev(y, L), reference_fft(x, L, root));
        y = x;
        dif(y, L, tw_inv, {}, {}, nullptr);
        expect_equal("forward family, w^-1", L, from_bitrev(y, L), reference_fft(x, L, root_inv));

        // Reverse family: bit-reversed in, natural out.
        std::vector<fe> xr(n);
        for (uint32_t i = 0; i < n; i++) xr[bitrev(i, L)] = x[i];
        std::vector<fe> xr_inv = xr;
        dit(xr, L, tw);
        expect_equal("reverse family, w", L, xr, reference_fft(x, L, root));
        dit(xr_inv, L, tw_inv);
        expect_equal("reverse family, w^-1", L, xr_inv, reference_fft(x, L, root_inv));

        // a * b on load.
        std::vector<fe> ab(n);
        for (uint32_t i = 0; i < n; i++) ab[i] = mul(x[i], bv[i]);
        y = x;
        dif(y, L, tw, {}, {}, bv.data());
        expect_equal("a * b on load", L, from_bitrev(y, L), reference_fft(ab, L, root));

        // Powers of g on load (the coset forward transform).
        const scale_of<fe> pre = powers_of(coset, false);
        std::vector<fe> xg(n);
        for (uint32_t i = 0; i < n; i++) xg[i] = mul(x[i], power(fe::of(g), i));
        y = x;
        dif(y, L, tw, pre, {}, nullptr);
        expect_equal("powers on load", L, from_bitrev(y, L), reference_fft(xg, L, root));

        // Powers of 5 at the natural index on the bit-reversed output, then a constant.
        const scale_of<fe> post = powers_of(scale, true);
        std::vector<fe> want = reference_fft(x, L, root);
        for (uint32_t i = 0; i < n; i++) want[i] = mul(want[i], power(fe::of(5), i));
        y = x;
        dif(y, L, tw, {}, post, nullptr);
        expect_equal("powers at the bit-reversed index on store", L, from_bitrev(y, L), want);
        const fe k = fe::of(12345);
        const scale_of<fe> konst = constant_of(&k);
        want = reference_fft(x, L, root);
        for (auto& e : want) e = mul(e, k);
        y = x;
        dif(y, L, tw, {}, konst, nullptr);
        expect_equal("a constant on store", L, from_bitrev(y, L), want);
    }
    std::printf("transforms: 2^1..2^%u equal the textbook FFT (both families, both roots, every load and "
                "store option)\n",
                max_log);
}

// ---- 3. the H pipeline ------------------------------------------------------------------------

// ntt.cu's scaled_powers: the high table times a constant.
tables scaled(tables t, fe k) {
    for (auto& h : t.hi) h = mul(h, k);
    return t;
}

// ntt.cu's bit_reverse: element j lands at bitrev(j), through the kernel's bitrev_source.
std::vector<fe> bit_reverse(const std::vector<fe>& x, uint32_t L, const scale_of<fe>& post, const fe* sub) {
    std::vector<fe> out(x.size());
    for (uint32_t j = 0; j < x.size(); j++) out[bitrev(j, L)] = bitrev_source<fe>(host_env{}, post, sub, x[j], j, L);
    return out;
}

// ntt.cu's h_pipeline: a and b to the coset g*H, c to its bit-reversed coefficients over
// n (g^n - 1), then a*b back from the coset with c taken off in the bit reversal.
std::vector<fe> h_six(std::vector<fe> a, std::vector<fe> b, std::vector<fe> c, uint32_t L, fe g,
                      const root_tables& tw, const root_tables& tw_inv) {
    const fe n_inv = inverse(fe::of(uint64_t(1) << L));
    const fe nz_inv = mul(n_inv, inverse(power(g, uint64_t(1) << L) - fe::of(1)));
    const tables to_coset = scaled(tables(g), n_inv), from_coset = scaled(tables(inverse(g)), nz_inv);
    for (std::vector<fe>* x : {&a, &b}) {
        dif(*x, L, tw_inv, {}, powers_of(to_coset, true), nullptr);
        dit(*x, L, tw);
    }
    dif(c, L, tw_inv, {}, constant_of(&nz_inv), nullptr);
    dif(a, L, tw_inv, {}, {}, b.data());
    return bit_reverse(a, L, powers_of(from_coset, false), c.data());
}

// The textbook form, seven transforms: a, b and c to the coset, (A B - C) / (g^n - 1), back.
std::vector<fe> h_seven(const std::vector<fe>& a, const std::vector<fe>& b, const std::vector<fe>& c, uint32_t L,
                        fe g, fe root) {
    const uint32_t n = 1u << L;
    const fe n_inv = inverse(fe::of(n)), root_inv = inverse(root), g_inv = inverse(g);
    auto to_coset = [&](const std::vector<fe>& v) {
        std::vector<fe> coef = coefficients(v, L, root);
        for (uint32_t i = 0; i < n; i++) coef[i] = mul(coef[i], power(g, i));
        return reference_fft(coef, L, root);
    };
    const std::vector<fe> A = to_coset(a), B = to_coset(b), C = to_coset(c);
    const fe z_inv = inverse(power(g, n) - fe::of(1));
    std::vector<fe> e(n);
    for (uint32_t i = 0; i < n; i++) e[i] = mul(mul(A[i], B[i]) - C[i], z_inv);
    std::vector<fe> h = reference_fft(e, L, root_inv);
    for (uint32_t i = 0; i < n; i++) h[i] = mul(mul(h[i], n_inv), power(g_inv, i));
    return h;
}

// For c = a*b on H: (a(X) b(X) - c(X)) / (X^n - 1) by long division, which must leave no
// remainder; h has degree below n - 1, its last coefficient is 0.
std::vector<fe> h_by_division(const std::vector<fe>& a, const std::vector<fe>& b, const std::vector<fe>& c,
                              uint32_t L, fe root) {
    const uint32_t n = 1u << L;
    const std::vector<fe> ca = coefficients(a, L, root), cb = coefficients(b, L, root), cc = coefficients(c, L, root);
    std::vector<fe> p(2 * n, fe::of(0));
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = 0; j < n; j++) p[i + j] = p[i + j] + mul(ca[i], cb[j]);
    for (uint32_t i = 0; i < n; i++) p[i] = p[i] - cc[i];
    // p = q (X^n - 1): p_k = q_(k-n) - q_k, so from the top q_(k-n) = p_k + q_k.
    std::vector<fe> q(n, fe::of(0));
    for (uint32_t k = 2 * n - 1; k >= n; k--) q[k - n] = p[k] + (k < n ? q[k] : fe::of(0));
    for (uint32_t k = 0; k < n; k++)
        if (p[k] + q[k] != fe::of(0)) fail("H by long division", L, "a remainder: c is not a*b on H");
    return q;
}

void check_h_pipeline(uint32_t max_log, fe w_max, fe g) {
    const root_tables tw(w_max), tw_inv(inverse(w_max));
    std::mt19937_64 rng(0x68706970);
    auto random_vec = [&](uint32_t n) {
        std::vector<fe> v(n);
        for (auto& e : v) e = fe::of(rng());
        return v;
    };
    for (uint32_t L = 1; L <= max_log; L++) {
        const uint32_t n = 1u << L;
        const fe root = power(w_max, uint64_t(1) << (MAX_LOG - L));
        const std::vector<fe> a = random_vec(n), b = random_vec(n), any_c = random_vec(n);
        std::vector<fe> ab(n);
        for (uint32_t i = 0; i < n; i++) ab[i] = mul(a[i], b[i]);
        const std::vector<fe> h = h_six(a, b, ab, L, g, tw, tw_inv);
        expect_equal("H pipeline, c = a*b, against seven transforms", L, h, h_seven(a, b, ab, L, g, root));
        if (L <= 10) expect_equal("H pipeline against long division", L, h, h_by_division(a, b, ab, L, root));
        if (h[n - 1] != fe::of(0)) fail("H pipeline", L, "h's top coefficient is not 0 for c = a*b");
        expect_equal("H pipeline, any c, against seven transforms", L, h_six(a, b, any_c, L, g, tw, tw_inv),
                     h_seven(a, b, any_c, L, g, root));
    }
    std::printf("H pipeline: 2^1..2^%u six transforms equal the seven-transform form (c = a*b and any c) and "
                "long division to 2^10\n",
                max_log);
}

}  // namespace

int main(int argc, char** argv) {
    const uint32_t max_log = argc > 1 ? uint32_t(std::atoi(argv[1])) : 20;
    if (max_log < 1 || max_log > 24) {
        std::fprintf(stderr, "usage: ntt_emulator [MAX_LOG of the data checks, 1..24]\n");
        return 2;
    }
    check_structure();
    check_transforms(max_log);
    const uint64_t g = generator();
    check_h_pipeline(max_log, power(fe::of(g), (P - 1) >> MAX_LOG), fe::of(g));
    return 0;
}
