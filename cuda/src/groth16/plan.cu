// The VRAM plans of a proof (plan.cuh): what each holds at its peak, and the choice.
#include <algorithm>
#include <array>

#include "groth16/chunks.cuh"
#include "groth16/matrices.cuh"
#include "groth16/plan.cuh"
#include "msm/msm.cuh"

namespace cuzk::groth16 {
namespace {

// The pool hands out memory in blocks of a few MiB: a margin for the rounding.
constexpr size_t POOL_MARGIN = size_t(64) << 20;
// The NTT's scale tables.
constexpr size_t NTT_TABLES = size_t(16) << 20;
// The bounded plan's chunk sizes, in points (smaller only for shorter vectors).
constexpr size_t LARGEST_CHUNK = size_t(1) << 25;
constexpr size_t SMALLEST_CHUNK = size_t(1) << 16;

// One split as the plan counts it, over `len` points: the host's, or for a witness the GPU
// splits, the room made for it (every scalar other than zero and one; the counts are known
// only once it is split).
struct planned_split_t {
    cuzk_msm_split_t split;
    size_t len;
};

// The l, a and b_g1 splits as the plan counts them (b_g1's also stands for B's G2 sum).
std::array<planned_split_t, 3> planned_splits(const params_t& p, const cuzk_groth16_circuit_t& c) {
    auto planned = [&](const cuzk_msm_split_t& s, size_t len) {
        if (!c.witness) return planned_split_t{s, len};
        cuzk_msm_split_t bound{};
        bound.ones_words = (len + 63) / 64;
        bound.other_count = len;
        return planned_split_t{bound, len};
    };
    return {planned(c.l, p.l.len), planned(c.a_query, p.a.len), planned(c.b_g1, p.b_g1.len)};
}

// What both plans hold throughout: the split scalars and the results.
size_t fixed_bytes(const params_t& p, const cuzk_groth16_circuit_t& c) {
    size_t bytes = sizeof(cuzk_groth16_sums_t) + 4 * sizeof(jacobian_t) + sizeof(g2_jacobian_t) + sizeof(uint32_t) +
                   POOL_MARGIN;
    for (const planned_split_t& s : planned_splits(p, c)) bytes += split_bytes(s.split, s.len);
    return bytes;
}

// The witness (uploaded whole, or rebuilt from the splits for the matrices) and its density
// bitmaps, and for streamed matrices their chunk buffers.
size_t witness_bytes(const cuzk_groth16_circuit_t& c) {
    size_t bytes = c.matrices ? c.matrices->num_variables() * sizeof(fr_t) + c.matrices->evaluation_bytes() : 0;
    if (const cuzk_witness_t* w = c.witness) {
        if (!c.matrices) bytes += (w->num_inputs + w->num_aux) * sizeof(fr_t);
        bytes += witness_density_words(*w) * sizeof(uint64_t);
    }
    return bytes;
}

// The whole working set: a, b, c, the witness, the streaming buffer for non-resident
// parameters, and the largest scratch of the MSMs (they run one after another on one stream,
// so their scratch memory is reused).
size_t whole_bytes(const params_t& p, const cuzk_groth16_circuit_t& c, size_t n) {
    size_t bytes = fixed_bytes(p, c) + 3 * n * sizeof(fr_t) + witness_bytes(c);
    if (!p.resident) bytes += p.largest_bytes();
    size_t scratch = msm::msm_scratch_bytes<g1_t>(n - 1, p.h_window, p.h_copies) + NTT_TABLES;
    const auto splits = planned_splits(p, c);
    for (const planned_split_t& s : splits)
        scratch = std::max(scratch, msm::split_msm_scratch_bytes<g1_t>(s.len, s.split.other_count));
    if (c.b_g2_on_gpu)
        scratch = std::max(scratch, msm::split_msm_scratch_bytes<g2_t>(p.b_g2.len, splits[2].split.other_count));
    return bytes + scratch;
}

// The bounded plan's peak with chunks of `chunk` points (see plan.cuh).
size_t bounded_bytes(const params_t& p, const cuzk_groth16_circuit_t& c, size_t n, size_t chunk, bool c_late) {
    const size_t fr = sizeof(fr_t);
    // c_late: c's check against a*b runs a chunk of c at a time, then c takes b's place.
    const size_t h_phase =
        (c_late ? 2 * n * fr + std::min(n, chunk) * fr : 3 * n * fr) + witness_bytes(c) + NTT_TABLES;
    const size_t buffers = base_loader_t::bytes(p, chunk, chunk_point_bytes(p, c));
    const size_t h_msm = n * fr + buffers + msm::chunked_msm_scratch_bytes<g1_t>(p.h.len, chunk);
    size_t split_scratch = 0;
    const auto splits = planned_splits(p, c);
    for (const planned_split_t& s : splits)
        split_scratch =
            std::max(split_scratch, msm::chunked_split_msm_scratch_bytes<g1_t>(s.len, s.split.other_count, chunk));
    if (c.b_g2_on_gpu)
        split_scratch = std::max(split_scratch, msm::chunked_split_msm_scratch_bytes<g2_t>(
                                                    p.b_g2.len, splits[2].split.other_count, chunk));
    return fixed_bytes(p, c) + std::max({h_phase, h_msm, buffers + split_scratch});
}

}  // namespace

size_t witness_density_words(const cuzk_witness_t& w) {
    return 2 * ((w.num_aux + 63) / 64) + (w.num_inputs + 63) / 64;
}

size_t split_bytes(const cuzk_msm_split_t& s, size_t len) {
    return len ? s.ones_words * 8 + s.other_count * (4 + sizeof(fr_t)) : 0;
}

size_t chunk_point_bytes(const params_t& p, const cuzk_groth16_circuit_t& c) {
    return c.b_g2_on_gpu && p.b_g2.len ? sizeof(g2_affine_t) : sizeof(affine_t);
}

plan_t choose_plan(const cuzk_gpu_locks& locks, const params_t& p, const cuzk_groth16_circuit_t& c, size_t n) {
    const size_t held = locks.vram.held(), total = locks.vram.total();
    const size_t available = total > held ? total - held : 0;
    // c_late needs c from the host; with the matrices, c is made on the device with a and b.
    const bool c_late_allowed = c.matrices == nullptr;
    if (const size_t forced = locks.forced_chunk.load()) {
        const bool c_late = locks.forced_c_late.load() && c_late_allowed;
        return {true, forced, c_late, bounded_bytes(p, c, n, forced, c_late)};
    }
    const size_t whole = whole_bytes(p, c, n);
    if (whole <= available) return {false, 0, false, whole};
    size_t longest = p.b_g2.len;
    for (const g1_vector_t* v : p.g1_vectors()) longest = std::max(longest, v->len);
    // The first chunk holds the longest vector whole, up to the largest chunk.
    size_t first = 64;
    while (first < longest && first < LARGEST_CHUNK) first *= 2;
    const size_t last = std::min(first, SMALLEST_CHUNK);
    for (const bool c_late : {false, true}) {
        if (c_late && !c_late_allowed) break;
        for (size_t chunk = first; chunk >= last; chunk /= 2) {
            const size_t bytes = bounded_bytes(p, c, n, chunk, c_late);
            if (bytes <= available) return {true, chunk, c_late, bytes};
        }
    }
    return {true, last, c_late_allowed, bounded_bytes(p, c, n, last, c_late_allowed)};
}

}  // namespace cuzk::groth16
