// The NTT passes of ntt/rounds.cuh and ntt/layout.cuh, run on the host over a small prime
// field (p = 3 * 2^30 + 1, which has 2^28-th roots of unity like Fr), block by block and
// thread by thread with the kernel's barriers between phases. Built and run by
// cuda/tests/ntt_emulated.rs, which needs no nvcc and no GPU: the GPU tests check the same
// transforms over Fr against the CPU, this checks the index arithmetic, the rounds and the
// twiddle choice everywhere, including sizes the GPU tests do not reach, and that every
// shared-memory access of every pass from 2^1 to 2^28 is free of bank conflicts.
//
// Usage: ntt_emulator [MAX_LOG_TRANSFORMED] (default 18). Prints what it checked; exits 1 on
// the first failure, with what differed and in which pass shape.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "ntt/layout.cuh"
#include "ntt/rounds.cuh"

namespace {

using namespace cuzk::ntt;

// The pass shape being checked (one of layout.cuh's PASS_SHAPES, which ntt.cu picks from).
pass_shape_t shape = PASS_SHAPES[0];

// An element of Z/p, p = 3 * 2^30 + 1, in two 32-bit limbs (so that the limb-major shared
// memory is exercised with more than one limb).
struct toy_t {
    static constexpr int N = 2;
    static constexpr uint64_t P = 3221225473ull;
    uint32_t l[N] = {0, 0};

    toy_t() = default;
    explicit toy_t(uint64_t v) {
        v %= P;
        l[0] = uint32_t(v);
        l[1] = uint32_t(v >> 32);
    }
    uint64_t v() const { return l[0] | uint64_t(l[1]) << 32; }
    friend toy_t operator+(toy_t a, toy_t b) { return toy_t(a.v() + b.v()); }
    friend toy_t operator-(toy_t a, toy_t b) { return toy_t(a.v() + P - b.v()); }
    friend toy_t operator*(toy_t a, toy_t b) { return toy_t(a.v() * b.v()); }
    friend bool operator!=(toy_t a, toy_t b) { return a.v() != b.v(); }
};

toy_t power(toy_t b, uint64_t e) {
    toy_t r(1);
    for (; e; e >>= 1, b = b * b)
        if (e & 1) r = r * b;
    return r;
}

[[noreturn]] void fail(const char* what, uint32_t L, uint64_t at, uint64_t got, uint64_t want) {
    std::printf("FAIL %s, 2^%u (pass shape %s): at %llu got %llu, want %llu\n", what, L, shape.name,
                (unsigned long long)at, (unsigned long long)got, (unsigned long long)want);
    std::exit(1);
}

// The kernel's tables for one root: hi, lo and mid.
struct toy_tables {
    std::vector<toy_t> hi, lo, mid;
    explicit toy_tables(toy_t root) : hi(TABLE_LEN), lo(TABLE_LEN), mid(size_t(1) << MID_BITS) {
        toy_t step_hi = power(root, TABLE_LEN);
        toy_t a(1), b(1);
        for (uint32_t j = 0; j < TABLE_LEN; j++, a = a * root, b = b * step_hi) {
            lo[j] = a;
            hi[j] = b;
        }
        toy_t step_mid = power(root, uint64_t(1) << (MAX_LOG - MID_BITS));
        toy_t c(1);
        for (auto& e : mid) e = c, c = c * step_mid;
    }
    twiddles_t<toy_t> view() const { return {hi.data(), lo.data(), mid.data()}; }
};

// One pass over every block, as the kernel runs it (RL = p.reg_log).
template <bool DIT, uint32_t RL>
void emulate_blocks(const pass_t& p, std::vector<toy_t>& x, const toy_t* b, const toy_t* c,
                    const twiddles_t<toy_t>& tw, const scale_t<toy_t>& pre, const scale_t<toy_t>& post) {
    const uint32_t E = 1u << block_log(p), T = block_threads(p);
    std::vector<uint32_t> sm(size_t(toy_t::N) * E);
    for (uint32_t blk = 0; blk < (1u << (p.L - block_log(p))); blk++) {
        for (uint32_t t = 0; t < T; t++) load_phase<DIT, RL>(p, blk, t, x.data(), b, c, tw, pre, sm.data());
        for (uint32_t r = 0; r < p.rounds; r++)
            for (uint32_t t = 0; t < T; t++) round_phase<DIT, RL>(p, r, t, sm.data(), tw.hi);
        for (uint32_t t = 0; t < T; t++) store_phase<DIT, RL>(p, blk, t, x.data(), tw, post, sm.data());
    }
}
template <bool DIT>
void emulate_pass(const pass_t& p, std::vector<toy_t>& x, const toy_t* b, const toy_t* c, const twiddles_t<toy_t>& tw,
                  const scale_t<toy_t>& pre, const scale_t<toy_t>& post) {
    if (p.reg_log == 2)
        emulate_blocks<DIT, 2>(p, x, b, c, tw, pre, post);
    else
        emulate_blocks<DIT, 3>(p, x, b, c, tw, pre, post);
}

// The forward family's chain (as ntt.cu's dif): natural order in, bit-reversed out.
void dif(std::vector<toy_t>& x, uint32_t L, const twiddles_t<toy_t>& tw, const scale_t<toy_t>& pre,
         const scale_t<toy_t>& post, const toy_t* b, const toy_t* c) {
    const std::vector<pass_t> passes = plan_passes(L, false, shape);
    for (size_t i = 0; i < passes.size(); i++) {
        bool first = i == 0, last = i + 1 == passes.size();
        emulate_pass<false>(passes[i], x, first ? b : nullptr, first ? c : nullptr, tw,
                            first ? pre : scale_t<toy_t>{}, last ? post : scale_t<toy_t>{});
    }
}

// The reverse family's chain (as ntt.cu's dit): bit-reversed order in, natural out.
void dit(std::vector<toy_t>& x, uint32_t L, const twiddles_t<toy_t>& tw) {
    for (const pass_t& p : plan_passes(L, true, shape)) emulate_pass<true>(p, x, nullptr, nullptr, tw, {}, {});
}

std::vector<toy_t> bit_reversed(const std::vector<toy_t>& x, uint32_t L) {
    std::vector<toy_t> y(x.size());
    for (uint32_t i = 0; i < x.size(); i++) y[bitrev(i, L)] = x[i];
    return y;
}

// The reference: a textbook iterative radix-2 FFT, y[k] = sum_j x[j] w^(jk).
std::vector<toy_t> dft(std::vector<toy_t> x, uint32_t L, toy_t w) {
    x = bit_reversed(x, L);
    const size_t n = x.size();
    for (size_t len = 2; len <= n; len <<= 1) {
        toy_t wl = power(w, n / len);
        for (size_t i = 0; i < n; i += len) {
            toy_t t(1);
            for (size_t j = 0; j < len / 2; j++, t = t * wl) {
                toy_t u = x[i + j], v = x[i + j + len / 2] * t;
                x[i + j] = u + v;
                x[i + j + len / 2] = u - v;
            }
        }
    }
    return x;
}

void expect_equal(const char* what, uint32_t L, const std::vector<toy_t>& got, const std::vector<toy_t>& want) {
    for (size_t i = 0; i < want.size(); i++)
        if (got[i] != want[i]) fail(what, L, i, got[i].v(), want[i].v());
}

uint64_t rng_state = 0x9e3779b97f4a7c15ull;
toy_t random_element() {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return toy_t(rng_state);
}
std::vector<toy_t> random_vector(size_t n) {
    std::vector<toy_t> v(n);
    for (auto& e : v) e = random_element();
    return v;
}

// Every round of the pass maps (thread, register) onto the block's elements one to one, the
// address map is a bijection, and no warp's access in any phase has two lanes in one bank.
void check_layout(const pass_t& p) {
    const uint32_t E = 1u << block_log(p), T = block_threads(p), REGS = 1u << p.reg_log;
    auto base = [&](const round_t& rd, uint32_t t) {
        return p.reg_log == 2 ? round_base<2>(rd, t) : round_base<3>(rd, t);
    };
    auto offset = [&](const round_t& rd, uint32_t i) {
        return p.reg_log == 2 ? round_offset<2>(rd, i) : round_offset<3>(rd, i);
    };
    std::vector<int> seen(E);
    for (uint32_t e = 0; e < E; e++) {
        uint32_t a = smem_address(p, e);
        if (a >= E || seen[a]++) fail("shared-memory addresses are a bijection", p.L, e, a, e);
    }
    auto conflict_free = [&](const char* what, auto element_of) {
        for (uint32_t w = 0; w * 32 < T; w++) {
            for (uint32_t i = 0; i < REGS; i++) {
                uint32_t lanes_of_bank[32] = {};
                for (uint32_t t = w * 32; t < T && t < w * 32 + 32; t++) {
                    uint32_t e = element_of(t, i);
                    if (e >= E) continue;
                    uint32_t bank = smem_address(p, e) & 31;
                    if (lanes_of_bank[bank]++) fail(what, p.L, (uint64_t(p.k) << 32) | e, bank, p.m);
                }
            }
        }
    };
    conflict_free("load and store phases are free of bank conflicts", [&](uint32_t t, uint32_t i) { return t + T * i; });
    for (uint32_t r = 0; r < p.rounds; r++) {
        const round_t& rd = p.round[r];
        std::vector<int> hits(E);
        for (uint32_t t = 0; t < T; t++)
            for (uint32_t i = 0; i < REGS; i++) {
                uint32_t e = base(rd, t) | offset(rd, i);
                if (e < E) hits[e]++;
            }
        for (uint32_t e = 0; e < E; e++)
            if (hits[e] != 1) fail("a round holds every element once", p.L, e, hits[e], 1);
        conflict_free("rounds are free of bank conflicts",
                      [&](uint32_t t, uint32_t i) { return base(rd, t) | offset(rd, i); });
    }
}

// The field's roots and their tables.
struct roots_t {
    toy_t g;  // a quadratic non-residue: the coset generator, and w_max's source
    toy_t w_max, w_max_inv;
    toy_tables fwd, inv, coset;
    roots_t(toy_t g, toy_t w, toy_t w_inv) : g(g), w_max(w), w_max_inv(w_inv), fwd(w), inv(w_inv), coset(g) {}
};
roots_t make_roots() {
    // A primitive 2^28-th root: a quadratic non-residue to the power (p - 1) / 2^28.
    toy_t g(2);
    while (power(g, (toy_t::P - 1) / 2).v() == 1) g = g + toy_t(1);
    const toy_t w = power(g, (toy_t::P - 1) >> MAX_LOG);
    return roots_t(g, w, power(w, (uint64_t(1) << MAX_LOG) - 1));
}

// Every way ntt.cu runs the passes of a 2^L transform, against the textbook FFT.
void check_transforms(uint32_t L, const roots_t& r) {
    const size_t n = size_t(1) << L;
    const toy_t w = power(r.w_max, uint64_t(1) << (MAX_LOG - L));
    const toy_t w_inv = power(r.w_max_inv, uint64_t(1) << (MAX_LOG - L));
    const std::vector<toy_t> x = random_vector(n), b = random_vector(n), c = random_vector(n);
    const std::vector<toy_t> want = dft(x, L, w);

    std::vector<toy_t> y = x;
    dif(y, L, r.fwd.view(), {}, {}, nullptr, nullptr);
    expect_equal("forward passes (DIF, bit-reversed out)", L, bit_reversed(y, L), want);

    y = bit_reversed(x, L);
    dit(y, L, r.fwd.view());
    expect_equal("reverse passes (DIT, bit-reversed in)", L, y, want);

    y = x;
    dif(y, L, r.inv.view(), {}, {}, nullptr, nullptr);
    expect_equal("forward passes with the inverse root", L, bit_reversed(y, L), dft(x, L, w_inv));

    // The H pipeline's loads: x*b - c, and the coset scale g^i on load.
    std::vector<toy_t> xbc(n), xg(n);
    for (size_t i = 0; i < n; i++) xbc[i] = x[i] * b[i] - c[i], xg[i] = x[i] * power(r.g, i);
    y = x;
    dif(y, L, r.fwd.view(), {}, {}, b.data(), c.data());
    expect_equal("x*b - c formed on load", L, bit_reversed(y, L), dft(xbc, L, w));
    scale_t<toy_t> on_load;
    on_load.mode = SCALE_POWERS;
    on_load.hi = r.coset.hi.data();
    on_load.lo = r.coset.lo.data();
    y = x;
    dif(y, L, r.fwd.view(), on_load, {}, nullptr, nullptr);
    expect_equal("coset powers on load", L, bit_reversed(y, L), dft(xg, L, w));

    // The scale on the last store, by the bit reversal of the index (h_to_coset's).
    scale_t<toy_t> on_store = on_load;
    on_store.bitrev = true;
    y = x;
    dif(y, L, r.fwd.view(), {}, on_store, nullptr, nullptr);
    std::vector<toy_t> scaled = want;
    for (size_t i = 0; i < n; i++) scaled[i] = scaled[i] * power(r.g, i);
    expect_equal("powers of the true index on the last store", L, bit_reversed(y, L), scaled);
}

}  // namespace

int main(int argc, char** argv) {
    const uint32_t max_transformed = argc > 1 ? uint32_t(std::atoi(argv[1])) : 18;

    uint32_t passes = 0;
    for (const pass_shape_t& s : PASS_SHAPES) {
        shape = s;
        for (uint32_t L = 1; L <= MAX_LOG; L++) {
            for (bool dit : {false, true}) {
                for (const pass_t& p : plan_passes(L, dit, shape)) {
                    check_layout(p);
                    passes++;
                }
            }
        }
    }
    std::printf("layout: %u passes (2^1 .. 2^%u, both families, every pass shape): rounds cover their blocks, no "
                "bank conflicts\n",
                passes, MAX_LOG);

    const roots_t roots = make_roots();
    for (uint32_t L = 1; L <= max_transformed; L++) {
        for (const pass_shape_t& s : PASS_SHAPES) {
            shape = s;
            check_transforms(L, roots);
        }
    }
    std::printf("transforms: 2^1 .. 2^%u equal the textbook FFT (forward and reverse passes, every pass shape, "
                "both roots, x*b - c and the scales)\n",
                max_transformed);
    return 0;
}
