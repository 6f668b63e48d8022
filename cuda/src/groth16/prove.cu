// The GPU part of the Groth16 prover (cuzk/groth16.h): per circuit, reserve and upload under
// the memory lock, then the H pipeline, the four G1 MSMs and (when asked) B's G2 MSM under the
// compute lock; an urgent proof does both under its own lock instead, on a stream of the
// greatest priority.
#include <algorithm>
#include <cstddef>
#include <atomic>
#include <memory>
#include <optional>
#include <stdexcept>
#include <chrono>
#include <string>
#include <type_traits>
#include <vector>

#include "cuzk/groth16.h"
#include "groth16/chunks.cuh"
#include "groth16/locks.cuh"
#include "groth16/matrices.cuh"
#include "groth16/params.cuh"
#include "groth16/plan.cuh"
#include "groth16/witness_split.cuh"
#include "msm/msm.cuh"
#include "ntt/ntt.cuh"

struct cuzk_groth16_pending {
    std::vector<cuzk_groth16_sums_t> sums;
    // Per circuit: the first constraint with a*b != c, or UINT32_MAX when all hold.
    std::vector<uint32_t> unsatisfied;
    cuzk_groth16_timings_t timings{};
};

namespace cuzk::groth16 {
namespace {

std::atomic<uint32_t> injected_faults{0};

bool take_fault() {
    uint32_t n = injected_faults.load();
    while (n > 0 && !injected_faults.compare_exchange_weak(n, n - 1)) {
    }
    return n > 0;
}

__global__ void never_launched_kernel() {}

// *first = the least offset + i, i < len, with a[i] * b[i] != c[i] (left alone when there is
// none). Run before the H pipeline overwrites a, b and c: a proof of an unsatisfied circuit
// would not verify, and this costs one multiplication per constraint on the GPU instead of
// the CPU's. `offset` places a chunk of c (and a, b from the same constraint) in the circuit.
__global__ void unsatisfied_kernel(const fr_t* a, const fr_t* b, const fr_t* c, size_t len, uint32_t offset,
                                   uint32_t* first) {
    const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (i < len && !(a[i] * b[i] == c[i])) atomicMin(first, offset + uint32_t(i));
}

// a[i] *= b[i], i < n.
__global__ void mul_assign_kernel(fr_t* a, const fr_t* b, size_t n) {
    const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (i < n) a[i] = a[i] * b[i];
}

float ms_since(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<float, std::milli>(std::chrono::steady_clock::now() - t).count();
}

// Checks one split against the length of its query vector. Every index is read here: a bad
// one would make the GPU read outside the points.
void check_split(const cuzk_msm_split_t& s, size_t len, const char* what) {
    const std::string name(what);
    if (len == 0) return;
    CUZK_REQUIRE(s.ones != nullptr, name + ": null ones bitmap");
    CUZK_REQUIRE(s.ones_words >= (len + 63) / 64, name + ": ones bitmap shorter than the query vector");
    CUZK_REQUIRE(s.other_count <= len, name + ": more scalars than points");
    CUZK_REQUIRE(s.other_count == 0 || (s.other_index != nullptr && s.other_scalars != nullptr),
                 name + ": null scalars");
    for (size_t j = 0; j < s.other_count; j++)
        CUZK_REQUIRE(s.other_index[j] < len, name + ": scalar index " + std::to_string(s.other_index[j]) +
                                                 " outside the " + std::to_string(len) + " points");
}

// The bounded plan finds each chunk's scalars by searching the indices: they must ascend.
void check_ascending(const cuzk_msm_split_t& s, size_t len, const char* what) {
    if (len == 0) return;  // nothing of the split is read
    for (size_t j = 1; j < s.other_count; j++)
        CUZK_REQUIRE(s.other_index[j - 1] < s.other_index[j],
                     std::string(what) + ": scalar indices must ascend for a proof on the bounded-VRAM plan (index " +
                         std::to_string(j) + ")");
}

// A split's arrays on the device.
struct device_split_t {
    dev_ptr_t<uint64_t> ones;
    dev_ptr_t<uint32_t> index;
    dev_ptr_t<fr_t> scalars;
    size_t ones_words = 0, count = 0;

    // A host split of a query vector of `len` points, uploaded.
    device_split_t(const cuzk_msm_split_t& s, size_t len, upload_staging_t& staging, cudaStream_t stream)
        : ones(len ? s.ones_words : 0, stream),
          index(len ? s.other_count : 0, stream),
          scalars(len ? s.other_count : 0, stream),
          ones_words(len ? s.ones_words : 0),
          count(len ? s.other_count : 0) {
        if (ones_words) staging.upload(ones, s.ones, ones.bytes(), stream);
        if (count) {
            staging.upload(index, s.other_index, index.bytes(), stream);
            staging.upload(scalars, s.other_scalars, scalars.bytes(), stream);
        }
    }

    // Room for a split of `len` points made on the device (split_witness): every scalar may be
    // an "other"; `count` is set once its total is known.
    device_split_t(size_t len, cudaStream_t stream)
        : ones((len + 63) / 64, stream), index(len, stream), scalars(len, stream), ones_words((len + 63) / 64) {}
};

// A witness the GPU cannot split: the proof would take the bounded plan, whose chunks find
// their scalars in host splits (CUZK_ERR_SPLIT_ON_HOST).
[[noreturn]] void refuse_device_split(size_t circuit) {
    throw split_on_host("groth16: circuit " + std::to_string(circuit) +
                        ": its witness cannot be split on the GPU within the VRAM budget (the proof would take "
                        "the bounded plan): split it on the host");
}

// Once `split` has passed: each device split's count, after checking that its selection took
// exactly the query's points (the densities were checked on the host; this checks the kernels).
void take_split_counts(const results_landing_t& landing, const params_t& p, device_split_t& l, device_split_t& a,
                       device_split_t& b) {
    const std::pair<device_split_t*, size_t> splits[] = {{&l, p.l.len}, {&a, p.a.len}, {&b, p.b_g1.len}};
    for (size_t i = 0; i < 3; i++) {
        const split_totals_t t{landing.split_totals[i]};
        auto [split, len] = splits[i];
        if (t.points() != len)
            throw std::logic_error("witness split " + std::to_string(i) + ": " + std::to_string(t.points()) +
                                   " values selected for " + std::to_string(len) + " points");
        split->count = t.others();
    }
}

// Uploads n field elements to `d` from `len` host ones, zero-padding the rest.
void upload_padded(fr_t* d, const cuzk_fr_t* host, size_t len, size_t n, upload_staging_t& staging,
                   cudaStream_t stream) {
    staging.upload(d, host, len * sizeof(fr_t), stream);
    if (n > len) CUZK_CUDA_CHECK(cudaMemsetAsync(d + len, 0, (n - len) * sizeof(fr_t), stream));
}

// Tells the caller that a circuit's inputs have left the host.
struct uploaded_hook_t {
    cuzk_uploaded_fn fn;
    void* ctx;
    void operator()(size_t circuit) const {
        if (fn) fn(ctx, circuit);
    }
};

// Enqueues the check of a*b = c with c read from the host a chunk at a time (the bounded
// plan's c_late: c has no buffer of its own yet).
void check_satisfied_by_chunks(upload_staging_t& staging, const fr_t* d_a, const fr_t* d_b, const cuzk_fr_t* c,
                               size_t len, size_t chunk, uint32_t* d_first, cudaStream_t s) {
    dev_ptr_t<fr_t> d_c(std::min(len, chunk), s);
    for (size_t lo = 0; lo < len; lo += chunk) {
        const size_t part = std::min(chunk, len - lo);
        // The previous chunk's check is ahead of this copy on the stream.
        staging.upload(d_c, c + lo, part * sizeof(fr_t), s);
        unsatisfied_kernel<<<msm::blocks_for(part, 256), 256, 0, s>>>(d_a + lo, d_b + lo, d_c, part, uint32_t(lo),
                                                                       d_first);
        CUZK_LAUNCH_CHECK();
    }
}

// Waits, when destroyed, for the work of a proof's tail stream (the MSMs' last steps, see
// msm_device). On the normal path the proof's stream has joined the tail before its sync;
// when an error leaves the tail unjoined, this keeps the buffers the tail writes, and the
// reservation, from being given back while it still runs.
class tail_guard_t {
public:
    explicit tail_guard_t(cudaStream_t tail) : tail_(tail) {}
    ~tail_guard_t() { cudaStreamSynchronize(tail_); }  // errors were reported by the proof itself
    tail_guard_t(const tail_guard_t&) = delete;
    tail_guard_t& operator=(const tail_guard_t&) = delete;

private:
    cudaStream_t tail_;
};

// `tail`: the stream of the MSMs' last steps (see msm_device), of the same priority as `s`.
void prove_circuit(cuzk_gpu_locks& locks, const params_t& p, const cuzk_groth16_circuit_t& c, uint32_t log_n,
                   const stream_t& s, const stream_t& tail, bool urgent, size_t index, const uploaded_hook_t& uploaded,
                   cuzk_groth16_sums_t& out, uint32_t& unsatisfied, cuzk_groth16_timings_t& t) {
    const size_t n = size_t(1) << log_n;
    const plan_t plan = choose_plan(locks, p, c, n);
    // start() refused these; the budget's held bytes may have grown since.
    if (plan.bounded && c.witness) refuse_device_split(index);
    if (plan.bounded) {
        check_ascending(c.l, p.l.len, "l");
        check_ascending(c.a_query, p.a.len, "a");
        check_ascending(c.b_g1, p.b_g1.len, "b_g1");
    }

    // Memory phase: reserve, then enqueue the uploads. The reservation outlives every device
    // buffer below (declared first, destroyed last) and syncs the stream before it releases.
    // An urgent proof holds its own lock throughout instead of the memory and compute locks.
    auto t0 = std::chrono::steady_clock::now();
    std::unique_lock<std::mutex> urgent_gate(locks.urgent, std::defer_lock), memory(locks.memory, std::defer_lock);
    if (urgent) urgent_gate.lock();
    else memory.lock();
    upload_staging_t& staging_in = urgent ? locks.urgent_staging : locks.staging;
    upload_staging_t& staging_late = urgent ? locks.urgent_staging : locks.compute_staging;
    reservation_t reservation(locks.vram, plan.bytes, s, urgent);
    t.wait_memory_ms += ms_since(t0);
    event_t queued;  // the circuit's first operation on its stream
    queued.record(s);
    auto t1 = std::chrono::steady_clock::now();
    // With c_late, c is uploaded into b's buffer once a*b is formed.
    dev_ptr_t<fr_t> d_a(n, s), d_b(n, s), d_c(plan.c_late ? 0 : n, s);
    // The witness, when a, b and c come from the matrices on the device or the GPU splits it.
    const size_t witness_len =
        c.matrices ? c.matrices->num_variables() : (c.witness ? c.witness->num_inputs + c.witness->num_aux : 0);
    dev_ptr_t<fr_t> d_w(witness_len, s);
    const size_t abc_len = c.matrices ? c.matrices->num_constraints : c.abc_len;
    if (c.matrices) {
        for (fr_t* d : {d_a.get(), d_b.get(), d_c.get()})
            if (n > abc_len) CUZK_CUDA_CHECK(cudaMemsetAsync(d + abc_len, 0, (n - abc_len) * sizeof(fr_t), s));
    } else {
        upload_padded(d_a, c.a, c.abc_len, n, staging_in, s);
        upload_padded(d_b, c.b, c.abc_len, n, staging_in, s);
        if (!plan.c_late) upload_padded(d_c, c.c, c.abc_len, n, staging_in, s);
    }
    device_witness_t dw;
    if (c.witness) dw = device_witness_t(*c.witness, d_w, staging_in, s);
    auto split_of = [&](const cuzk_msm_split_t& host, size_t len) {
        return c.witness ? device_split_t(len, s) : device_split_t(host, len, staging_in, s);
    };
    device_split_t l = split_of(c.l, p.l.len), a = split_of(c.a_query, p.a.len), b = split_of(c.b_g1, p.b_g1.len);
    dev_ptr_t<jacobian_t> d_sums(4, s);
    dev_ptr_t<g2_jacobian_t> d_b_g2(1, s);
    dev_ptr_t<uint32_t> d_unsatisfied(1, s);
    // Destroyed before the sums the tail writes are freed (and before the reservation).
    const tail_guard_t tail_guard(tail);
    dev_ptr_t<uint8_t> staging;  // the whole plan's streamed parameters only
    if (memory.owns_lock()) memory.unlock();
    t.upload_ms += ms_since(t1);
    uploaded(index);

    // Compute phase. The kernels queue behind the uploads on the same stream.
    auto t2 = std::chrono::steady_clock::now();
    std::optional<compute_section_t> compute;
    if (!urgent) compute.emplace(locks);
    t.wait_compute_ms += ms_since(t2);
    if (take_fault()) {
        never_launched_kernel<<<0, 1, 0, s>>>();  // an invalid configuration: a real launch error
        CUZK_LAUNCH_CHECK();
    }
    // The bounded plan's bases; destroyed before the buffers above (its copies end first).
    base_loader_t loader(p, std::max<size_t>(plan.chunk, 64), chunk_point_bytes(p, c), s);
    event_t e[8], split;
    e[7].record(s);
    results_landing_t& landing = *(urgent ? locks.urgent_results : locks.compute_results).get();
    if (c.witness) {
        const split_target_t targets[3] = {
            {l.ones, l.index, l.scalars}, {a.ones, a.index, a.scalars}, {b.ones, b.index, b.scalars}};
        split_on_device(*c.witness, d_w, dw, p, targets, landing.split_totals, s);
        split.record(s);
        dw = device_witness_t();
    }
    if (c.matrices) {
        if (!c.witness)
            witness_from_splits(*c.matrices, a.ones, a.index, a.scalars, a.count, l.ones, l.index, l.scalars, l.count,
                                d_w, s);
        evaluate_matrices(*c.matrices, d_w, d_a, d_b, d_c, s);
    }
    if (plan.bounded || !c.matrices) d_w = dev_ptr_t<fr_t>();
    e[0].record(s);
    CUZK_CUDA_CHECK(cudaMemsetAsync(d_unsatisfied, 0xff, sizeof(uint32_t), s));
    if (abc_len && plan.c_late) {
        check_satisfied_by_chunks(staging_late, d_a, d_b, c.c, abc_len, plan.chunk, d_unsatisfied, s);
    } else if (abc_len) {
        unsatisfied_kernel<<<msm::blocks_for(abc_len, 256), 256, 0, s>>>(d_a, d_b, d_c, abc_len, 0, d_unsatisfied);
        CUZK_LAUNCH_CHECK();
    }
    if (p.h.len) {
        if (plan.c_late) {
            ntt::h_to_coset(d_a, log_n, s);
            ntt::h_to_coset(d_b, log_n, s);
            mul_assign_kernel<<<msm::blocks_for(n, 256), 256, 0, s>>>(d_a, d_b, n);
            CUZK_LAUNCH_CHECK();
            upload_padded(d_b, c.c, c.abc_len, n, staging_late, s);
            ntt::h_c_coefficients(d_b, log_n, s);
            ntt::h_finish(d_a, nullptr, d_b, log_n, s);
        } else {
            ntt::h_pipeline(d_a, d_b, d_c, log_n, s);
        }
        e[1].record(s);
        if (plan.bounded) {
            d_b = dev_ptr_t<fr_t>();
            d_c = dev_ptr_t<fr_t>();
            msm::chunked_msm_device<g1_t>(loader.source(p.h), plan.chunk, d_a, n - 1, d_sums.get() + 0, s, tail);
            d_a = dev_ptr_t<fr_t>();
        } else {
            // With H's shifted copies (resident parameters only), the window they were made for.
            msm::msm_device<g1_t>(p.bases(p.h, staging, s), d_a, n - 1, d_sums.get() + 0, s, nullptr, p.h_window,
                                  tail, p.h_copies);
        }
    } else {
        // A domain of 1: H has no coefficients and no bases, its sum is the identity.
        e[1].record(s);
        CUZK_CUDA_CHECK(cudaMemsetAsync(d_sums.get() + 0, 0, sizeof(jacobian_t), s));
    }
    e[2].record(s);
    // One split MSM: the whole vector at once, or in chunks on the bounded plan.
    auto split_msm = [&](const auto& v, const device_split_t& d, const cuzk_msm_split_t& h, auto* out) {
        using G = std::conditional_t<std::is_same_v<std::decay_t<decltype(v)>, g2_vector_t>, g2_t, g1_t>;
        if (plan.bounded)
            msm::chunked_split_msm_device<G>(loader.source(v), plan.chunk, v.len, d.ones, d.index, d.scalars,
                                             h.other_index, d.count, out, s, tail);
        else
            msm::split_msm_device<G>(p.bases(v, staging, s), v.len, d.ones, d.ones_words, d.index, d.scalars, d.count,
                                     out, s, 0, tail);
    };
    // The H pipeline and H's MSM are queued: the split counts came back long before.
    if (c.witness) {
        split.sync();
        take_split_counts(landing, p, l, a, b);
    }
    // B's G2 sum first: its last step, the longest (a chain of G2 doublings, about 8 ms at
    // 2^24), then runs on the tail beside the G1 MSMs instead of after them. An empty B query
    // sums to the identity wherever it is placed.
    if (c.b_g2_on_gpu && p.b_g2.len)
        split_msm(p.b_g2, b, c.b_g1, d_b_g2.get());
    else
        CUZK_CUDA_CHECK(cudaMemsetAsync(d_b_g2.get(), 0, sizeof(g2_jacobian_t), s));  // the identity
    e[6].record(s);
    split_msm(p.l, l, c.l, d_sums.get() + 1);
    e[3].record(s);
    split_msm(p.a, a, c.a_query, d_sums.get() + 2);
    e[4].record(s);
    split_msm(p.b_g1, b, c.b_g1, d_sums.get() + 3);
    e[5].record(s);
    wait_for(s, tail);  // every MSM's last step, before the sums are read
    static_assert(offsetof(cuzk_groth16_sums_t, b_g2) == 4 * sizeof(jacobian_t), "four G1 points, then b_g2");
    static_assert(sizeof(cuzk_groth16_sums_t) == 4 * sizeof(jacobian_t) + sizeof(g2_jacobian_t), "layout");
    auto t3 = std::chrono::steady_clock::now();
    // Into pinned memory (results_landing_t says why), held under this proof's lock.
    CUZK_CUDA_CHECK(cudaMemcpyAsync(&landing.sums, d_sums.get(), 4 * sizeof(jacobian_t), cudaMemcpyDeviceToHost, s));
    CUZK_CUDA_CHECK(
        cudaMemcpyAsync(&landing.sums.b_g2, d_b_g2.get(), sizeof(g2_jacobian_t), cudaMemcpyDeviceToHost, s));
    CUZK_CUDA_CHECK(
        cudaMemcpyAsync(&landing.unsatisfied, d_unsatisfied.get(), sizeof(uint32_t), cudaMemcpyDeviceToHost, s));
    s.sync();
    out = landing.sums;
    unsatisfied = landing.unsatisfied;
    t.results_ms += ms_since(t3);
    t.queued_ms += e[7].since(queued);
    t.abc_ms += e[0].since(e[7]);
    t.ntt_ms += e[1].since(e[0]);
    t.msm_h_ms += e[2].since(e[1]);
    t.msm_b_g2_ms += e[6].since(e[2]);
    t.msm_l_ms += e[3].since(e[6]);
    t.msm_a_ms += e[4].since(e[3]);
    t.msm_b_g1_ms += e[5].since(e[4]);
    if (plan.bounded) {
        t.chunked_circuits++;
        t.chunk_points = std::max<uint64_t>(t.chunk_points, plan.chunk);
    }
}

std::unique_ptr<cuzk_groth16_pending> start(cuzk_gpu_locks* given, const params_t* p,
                                            const cuzk_groth16_circuit_t* circuits, size_t count, int priority,
                                            const uploaded_hook_t& uploaded) {
    CUZK_REQUIRE(priority == CUZK_PRIORITY_NORMAL || priority == CUZK_PRIORITY_URGENT,
                 "groth16: unknown priority " + std::to_string(priority));
    const auto entered = std::chrono::steady_clock::now();
    const bool urgent = priority == CUZK_PRIORITY_URGENT;
    CUZK_REQUIRE(p != nullptr, "groth16: null parameters");
    CUZK_REQUIRE(count == 0 || circuits != nullptr, "groth16: null circuits");
    cuzk_gpu_locks* locks = locks_or_default(given ? given : p->locks, p->device);
    CUZK_REQUIRE(locks->device == p->device, "groth16: the locks and the parameters belong to different GPUs");
    const size_t n = p->h.len + 1;
    uint32_t log_n = 0;
    while ((size_t(1) << log_n) < n) log_n++;
    for (size_t i = 0; i < count; i++) {
        const cuzk_groth16_circuit_t& c = circuits[i];
        CUZK_REQUIRE(c.abc_len <= n, "groth16: circuit " + std::to_string(i) + " has " + std::to_string(c.abc_len) +
                                         " constraints, more than the parameters' domain of " + std::to_string(n));
        CUZK_REQUIRE(c.abc_len == 0 || (c.a && c.b && c.c), "groth16: null a, b or c evaluations");
        if (c.matrices) {
            const groth16::matrices_t& m = *c.matrices;
            const std::string which = "groth16: circuit " + std::to_string(i) + ": ";
            CUZK_REQUIRE(c.abc_len == 0 && !c.a && !c.b && !c.c,
                         which + "a, b and c are given although the GPU evaluates the matrices");
            CUZK_REQUIRE(m.device == p->device, which + "the matrices are on another GPU than the parameters");
            CUZK_REQUIRE(m.num_constraints <= n, which + std::to_string(m.num_constraints) +
                                                     " constraints, more than the parameters' domain of " +
                                                     std::to_string(n));
            CUZK_REQUIRE(p->l.len == m.num_aux, which + "the matrices have " + std::to_string(m.num_aux) +
                                                    " aux variables, the parameters' l vector " +
                                                    std::to_string(p->l.len) + " points");
            CUZK_REQUIRE(p->a.len >= m.num_inputs, which + "the matrices have " + std::to_string(m.num_inputs) +
                                                       " inputs, more than the parameters' a vector's " +
                                                       std::to_string(p->a.len) + " points");
        }
        if (c.witness) {
            check_witness(c, *p, "groth16: circuit " + std::to_string(i) + ": ");
        } else {
            check_split(c.l, p->l.len, "l");
            check_split(c.a_query, p->a.len, "a");
            check_split(c.b_g1, p->b_g1.len, "b_g1");
        }
        CUZK_REQUIRE(!c.b_g2_on_gpu || p->b_g2.len == p->b_g1.len,
                     "groth16: circuit " + std::to_string(i) +
                         " asks for B's G2 sum on the GPU, but the parameters were made without b_g2");
    }

    CUZK_CUDA_CHECK(cudaSetDevice(p->device));  // before the plans: their scratch sizes ask the device
    // A witness to split on the GPU needs the whole working set: the bounded plan's chunks find
    // their scalars in host splits. Refused before any work, so that the caller can split on the
    // host and call again.
    for (size_t i = 0; i < count; i++)
        if (circuits[i].witness && choose_plan(*locks, *p, circuits[i], size_t(1) << log_n).bounded)
            refuse_device_split(i);
    auto pending = std::make_unique<cuzk_groth16_pending>();
    pending->sums.resize(count);
    pending->unsatisfied.resize(count, UINT32_MAX);
    stream_t s(urgent ? stream_t::greatest_priority() : 0), tail(urgent ? stream_t::greatest_priority() : 0);
    pending->timings.setup_ms += ms_since(entered);
    for (size_t i = 0; i < count; i++) {
        try {
            prove_circuit(*locks, *p, circuits[i], log_n, s, tail, urgent, i, uploaded, pending->sums[i],
                          pending->unsatisfied[i], pending->timings);
            locks->proofs_done++;
        } catch (...) {
            locks->proofs_failed++;
            throw;
        }
    }
    return pending;
}

}  // namespace
}  // namespace cuzk::groth16

using namespace cuzk;

extern "C" cuzk_error_t generate_groth16_proofs_start_c(cuzk_gpu_locks_t* locks, const cuzk_groth16_params_t* params,
                                                        const cuzk_groth16_circuit_t* circuits, size_t count,
                                                        int priority, cuzk_uploaded_fn uploaded, void* uploaded_ctx,
                                                        cuzk_groth16_pending_t** out) {
    return guard([&] {
        CUZK_REQUIRE(out != nullptr, "groth16: null output");
        *out = nullptr;
        *out = groth16::start(locks, params, circuits, count, priority,
                              groth16::uploaded_hook_t{uploaded, uploaded_ctx})
                   .release();
    });
}

extern "C" cuzk_error_t generate_groth16_proofs_finish_c(cuzk_groth16_pending_t* pending,
                                                         cuzk_groth16_sums_t* sums, size_t count,
                                                         uint64_t* unsatisfied, cuzk_groth16_timings_t* timings) {
    std::unique_ptr<cuzk_groth16_pending> owned(pending);
    return guard([&] {
        CUZK_REQUIRE(owned != nullptr, "groth16: null pending batch");
        CUZK_REQUIRE(count == owned->sums.size(), "groth16: finish with another count than start");
        CUZK_REQUIRE(count == 0 || sums != nullptr, "groth16: null output");
        std::copy(owned->sums.begin(), owned->sums.end(), sums);
        if (unsatisfied)
            for (size_t i = 0; i < count; i++)
                unsatisfied[i] = owned->unsatisfied[i] == UINT32_MAX ? UINT64_MAX : owned->unsatisfied[i];
        if (timings) *timings = owned->timings;
    });
}

extern "C" void generate_groth16_proofs_destroy_c(cuzk_groth16_pending_t* pending) { delete pending; }

extern "C" cuzk_error_t generate_groth16_proofs_c(cuzk_gpu_locks_t* locks, const cuzk_groth16_params_t* params,
                                                  const cuzk_groth16_circuit_t* circuits, size_t count,
                                                  cuzk_groth16_sums_t* sums, uint64_t* unsatisfied,
                                                  cuzk_groth16_timings_t* timings) {
    cuzk_groth16_pending_t* pending = nullptr;
    cuzk_error_t err = generate_groth16_proofs_start_c(locks, params, circuits, count, CUZK_PRIORITY_NORMAL, nullptr,
                                                       nullptr, &pending);
    if (err.code != CUZK_OK) return err;
    return generate_groth16_proofs_finish_c(pending, sums, count, unsatisfied, timings);
}

extern "C" void cuzk_groth16_inject_faults(uint32_t count) { groth16::injected_faults = count; }
