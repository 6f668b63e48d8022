// Device-resident (or streamed) query vectors of a Groth16 parameter set, and their C entry
// points.
#include "groth16/params.cuh"
#include "msm/msm.cuh"

using cuzk::affine_t;
using cuzk::g2_affine_t;
using cuzk::groth16::g1_vector_t;
using cuzk::groth16::g2_vector_t;

size_t cuzk_groth16_params::bytes() const {
    size_t total = b_g2.bytes();
    for (const g1_vector_t* v : g1_vectors()) total += v->bytes();
    return total;
}

size_t cuzk_groth16_params::largest_bytes() const {
    size_t most = b_g2.bytes();
    for (const g1_vector_t* v : g1_vectors()) most = std::max(most, v->bytes());
    return most;
}

namespace {

// Page-locks a streamed vector's host array for full-speed copies where the system allows it
// (a read-only file mapping may refuse; then copies are slower).
template <class A>
void pin(cuzk::groth16::query_vector_t<A>& v) {
    if (v.len == 0) return;
    // device-wide-ok: once per parameter set, when it is put on the device
    const cudaError_t err = cudaHostRegister(const_cast<A*>(v.host), v.bytes(), cudaHostRegisterReadOnly);
    if (err == cudaSuccess) v.pinned = true;
    else (void)cudaGetLastError();
}

template <class A>
void unpin(cuzk::groth16::query_vector_t<A>& v) {
    // device-wide-ok: teardown
    if (v.pinned) cudaHostUnregister(const_cast<A*>(v.host));
    v.pinned = false;
}

// Places a resident vector at `at` in the device block, enqueues its upload, and returns the
// address after it.
template <class A>
uint8_t* place(cuzk::groth16::query_vector_t<A>& v, uint8_t* at, cudaStream_t s) {
    v.d = reinterpret_cast<A*>(at);
    if (v.len) CUZK_CUDA_CHECK(cudaMemcpyAsync(v.d, v.host, v.bytes(), cudaMemcpyHostToDevice, s));
    return at + v.bytes();
}

// H's shifted copies for resident parameters: as many as keep the parameters and the copies
// within a quarter of the budget (the other three quarters stay for proofs, whose working sets
// are several times the vectors), as msm::plan_shifted takes them. {0, 1}: none. H's MSM is
// the largest of a proof, and its bases never change: the copies are made once here. On the
// H100 (msmexp, 2026-12-06) they took G1 MSMs of 2^22 points from 33.9 to 29.3 ms and of 2^24
// from 108.9 to 98.2.
cuzk::msm::shifted_plan_t plan_h_copies(const cuzk_groth16_params& p, size_t budget) {
    const size_t room = budget / 4, total = p.bytes();
    if (p.h.len == 0 || total >= room) return {0, 1};
    const size_t more = (room - total) / p.h.bytes();
    const auto plan = cuzk::msm::plan_shifted(p.h.len, uint32_t(std::min<size_t>(more + 1, 64)));
    return plan.copies > 1 ? plan : cuzk::msm::shifted_plan_t{0, 1};
}

}  // namespace

cuzk_groth16_params::~cuzk_groth16_params() {
    // The resident block gives itself back (held_block_t); streamed vectors are unpinned.
    for (g1_vector_t* v : g1_vectors()) unpin(*v);
    unpin(b_g2);
}

namespace cuzk::groth16 {
namespace {

std::unique_ptr<params_t> make_params(cuzk_gpu_locks* given, int device, int residency,
                                      const g1_vector_t (&vecs)[4], const g2_vector_t& b_g2) {
    CUZK_REQUIRE(residency == CUZK_RESIDENCY_AUTO || residency == CUZK_RESIDENCY_STREAMED,
                 "parameters: unknown residency " + std::to_string(residency));
    for (const g1_vector_t& v : vecs) CUZK_REQUIRE(v.len == 0 || v.host != nullptr, "parameters: null vector");
    CUZK_REQUIRE(b_g2.len == 0 || b_g2.host != nullptr, "parameters: null b_g2 vector");
    CUZK_REQUIRE(b_g2.len == 0 || b_g2.len == vecs[3].len,
                 "parameters: b_g2 has " + std::to_string(b_g2.len) + " points, b_g1 " + std::to_string(vecs[3].len) +
                     " (both follow B's densities, so they must be as long)");
    // A domain of 1 (a circuit of its input constraints alone) has no h points at all.
    const size_t h_domain = vecs[0].len + 1;
    CUZK_REQUIRE((h_domain & (h_domain - 1)) == 0,
                 "parameters: the h vector must have 2^k - 1 points (k >= 0), it has " + std::to_string(vecs[0].len));
    cuzk_gpu_locks* locks = locks_or_default(given, device);
    CUZK_REQUIRE(locks->device == device, "parameters: the locks belong to another device");
    CUZK_CUDA_CHECK(cudaSetDevice(device));

    auto p = std::make_unique<params_t>();
    p->device = device;
    p->locks = locks;
    p->h = vecs[0];
    p->l = vecs[1];
    p->a = vecs[2];
    p->b_g1 = vecs[3];
    p->b_g2 = b_g2;
    const size_t total = p->bytes();
    // Resident only if it leaves room for the largest proof this set can run: about the
    // size of the vectors again (scalars, scratch), checked roughly here and exactly by each
    // proof's reservation.
    // No room or a failed allocation: streamed instead. H's shifted copies go right after H
    // in the block; when the block with them cannot be had, it is tried without.
    msm::shifted_plan_t shift{0, 1};
    bool held = false;
    if (residency == CUZK_RESIDENCY_AUTO && total > 0 && total * 2 <= locks->vram.total()) {
        shift = plan_h_copies(*p, locks->vram.total());
        const auto hold = [&](size_t bytes) {
            return p->block.try_allocate(locks->vram, device, bytes, SIZE_MAX, nullptr) == held_block_t::result_t::held;
        };
        held = hold(total + (shift.copies - 1) * p->h.bytes());
        if (!held && shift.copies > 1) {
            shift = {0, 1};
            held = hold(total);
        }
    }
    if (held) {
        stream_t s;
        uint8_t* at = p->block.get();
        for (g1_vector_t* v : p->g1_vectors()) {
            at = place(*v, at, s);
            if (v == &p->h) at += (shift.copies - 1) * p->h.bytes();
        }
        place(p->b_g2, at, s);
        if (shift.copies > 1) msm::shift_bases<g1_t>(p->h.d, p->h.len, shift.bits, shift.copies, s);
        s.sync();
        p->resident = true;
        p->h_window = shift.bits;
        p->h_copies = shift.copies;
        for (g1_vector_t* v : p->g1_vectors()) v->host = nullptr;  // not used again
        p->b_g2.host = nullptr;
    } else {
        for (g1_vector_t* v : p->g1_vectors()) pin(*v);
        pin(p->b_g2);
    }
    return p;
}

}  // namespace
}  // namespace cuzk::groth16

using namespace cuzk;

extern "C" cuzk_error_t cuzk_groth16_params_create(cuzk_gpu_locks_t* locks, int device, int residency,
                                                   const cuzk_g1_affine_t* h,
                                                   size_t h_len, const cuzk_g1_affine_t* l, size_t l_len,
                                                   const cuzk_g1_affine_t* a, size_t a_len,
                                                   const cuzk_g1_affine_t* b_g1, size_t b_g1_len,
                                                   const cuzk_g2_affine_t* b_g2, size_t b_g2_len,
                                                   cuzk_groth16_params_t** out) {
    return guard([&] {
        CUZK_REQUIRE(out != nullptr, "parameters: null output");
        auto vec = [](const cuzk_g1_affine_t* p, size_t n) {
            return groth16::g1_vector_t{reinterpret_cast<const affine_t*>(p), n};
        };
        const groth16::g1_vector_t vecs[4] = {vec(h, h_len), vec(l, l_len), vec(a, a_len), vec(b_g1, b_g1_len)};
        const groth16::g2_vector_t g2{reinterpret_cast<const g2_affine_t*>(b_g2), b_g2_len};
        *out = groth16::make_params(locks, device, residency, vecs, g2).release();
    });
}

extern "C" int cuzk_groth16_params_resident(const cuzk_groth16_params_t* params) {
    return params && params->resident ? 1 : 0;
}

extern "C" uint32_t cuzk_groth16_params_h_copies(const cuzk_groth16_params_t* params) {
    return params ? params->h_copies : 0;
}

extern "C" void cuzk_groth16_params_destroy(cuzk_groth16_params_t* params) { delete params; }
