//! The GPU part of a batch of proofs: start (uploads and kernels under the GPU's locks) and
//! finish (the four G1 sums per circuit, and B's G2 sum where asked).

use std::ffi::c_void;
use std::ptr::NonNull;
use std::sync::Arc;
use std::time::Duration;

use blstrs::{G1Projective, G2Projective, Scalar};
use group::Group;

use super::locks::GpuLocks;
use super::matrices::DeviceMatrices;
use super::params::DeviceParams;
use super::upload::{on_uploaded, UploadHook, UploadSignal};
use crate::error::CudaError;
use crate::ffi;
use crate::pace::KernelPace;
use crate::split::MsmSplit;

/// Where a circuit's evaluations of A, B and C on the domain come from.
#[derive(Clone, Copy, Debug)]
pub enum Evaluations<'a> {
    /// Computed by the host (at most the domain size each, equal lengths) and uploaded.
    Host {
        a: &'a [Scalar],
        b: &'a [Scalar],
        c: &'a [Scalar],
    },
    /// Evaluated on the GPU from its resident matrices, with the witness given whole
    /// ([`Scalars::Witness`]) or read from the circuit's l split (the aux values) and a split
    /// (the inputs, its first points).
    Device(&'a DeviceMatrices),
}

/// A circuit's witness, for the GPU to split the l, a and b_g1 scalars itself
/// ([`Scalars::Witness`]): the values, and which of them the A and B queries have points for
/// (bitmaps of 64-bit words, bit `k % 64` of word `k / 64`, as `Density::words` gives them).
#[derive(Clone, Copy, Debug)]
pub struct WitnessRef<'a> {
    pub inputs: &'a [Scalar],
    pub aux: &'a [Scalar],
    /// The aux values A's query has points for (after every input).
    pub a_aux_density: &'a [u64],
    /// The inputs B's queries have points for; then `b_aux_density`, the aux values.
    pub b_input_density: &'a [u64],
    pub b_aux_density: &'a [u64],
}

/// How a circuit's l, a and b_g1 scalars reach the GPU.
#[derive(Clone, Copy, Debug)]
pub enum Scalars<'a> {
    /// Split on the host ([`MsmSplit`]), uploaded: for witnesses of mostly zeros and ones,
    /// whose splits shrink to bitmaps.
    Split {
        l: &'a MsmSplit,
        a_query: &'a MsmSplit,
        b_g1: &'a MsmSplit,
    },
    /// The witness uploaded once and split on the GPU: for witnesses of mostly full-width
    /// values, whose three splits would each be nearly the witness's size. Refused with
    /// [`CudaError::SplitOnHost`], before any work, where the GPU's budget would put the proof
    /// on the bounded-VRAM plan.
    Witness(WitnessRef<'a>),
}

/// One circuit's inputs to the GPU part.
#[derive(Clone, Copy, Debug)]
pub struct CircuitInputs<'a> {
    pub evaluations: Evaluations<'a>,
    pub scalars: Scalars<'a>,
    /// Whether B's G2 sum (over the b_g1 split) runs on the GPU too; the parameters must
    /// have been made with b_g2.
    pub b_g2_on_gpu: bool,
}

/// The GPU's sums for one circuit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GpuSums {
    pub h: G1Projective,
    pub l: G1Projective,
    pub a: G1Projective,
    pub b_g1: G1Projective,
    /// `Some` exactly when the circuit asked for it (`CircuitInputs::b_g2_on_gpu`).
    pub b_g2: Option<G2Projective>,
}

/// `cuzk_groth16_sums_t` with blstrs' types (the same layouts, asserted below), so that the
/// library writes the points straight into Rust values.
#[repr(C)]
#[derive(Clone, Copy)]
struct RawSums {
    h: G1Projective,
    l: G1Projective,
    a: G1Projective,
    b_g1: G1Projective,
    b_g2: G2Projective,
}

const _: () = {
    use std::mem::{align_of, offset_of, size_of};
    assert!(size_of::<RawSums>() == size_of::<ffi::cuzk_groth16_sums_t>());
    assert!(align_of::<RawSums>() == align_of::<ffi::cuzk_groth16_sums_t>());
    assert!(offset_of!(RawSums, b_g2) == offset_of!(ffi::cuzk_groth16_sums_t, b_g2));
    assert!(size_of::<G1Projective>() == size_of::<ffi::cuzk_g1_projective_t>());
    assert!(size_of::<G2Projective>() == size_of::<ffi::cuzk_g2_projective_t>());
};

/// Where the GPU part's time went, in milliseconds (see `cuzk_groth16_timings_t`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct GpuTimings {
    pub wait_memory_ms: f32,
    pub upload_ms: f32,
    pub wait_compute_ms: f32,
    /// a, b and c evaluated from device matrices (zero for host evaluations).
    pub abc_ms: f32,
    pub ntt_ms: f32,
    pub msm_h_ms: f32,
    pub msm_l_ms: f32,
    pub msm_a_ms: f32,
    pub msm_b_g1_ms: f32,
    /// B's G2 sum, for the circuits that ran it on the GPU.
    pub msm_b_g2_ms: f32,
    /// Circuits proved on the bounded-VRAM plan (the parameters' bases in chunks), and the
    /// most points per chunk among them (0 when none was).
    pub chunked_circuits: u32,
    pub chunk_points: u64,
    /// Host: the call's checks and the CUDA stream made, before the first circuit.
    pub setup_ms: f32,
    /// GPU: from a circuit's first operation to its first kernel (its copies, and any wait
    /// behind other work on the device).
    pub queued_ms: f32,
    /// Host: from the last kernel enqueued to the results in host memory.
    pub results_ms: f32,
}

impl GpuTimings {
    /// The kernels B's G2 sum on the CPU runs beside: every timed kernel phase but B's G2
    /// sum on the GPU.
    pub fn g1_kernels(&self) -> Duration {
        let ms = self.abc_ms
            + self.ntt_ms
            + self.msm_h_ms
            + self.msm_l_ms
            + self.msm_a_ms
            + self.msm_b_g1_ms;
        Duration::from_secs_f64(f64::from(ms.max(0.0)) / 1e3)
    }
}

/// What the GPU part gives for a batch, per circuit in order.
#[derive(Clone, Debug)]
pub struct GpuBatch {
    pub sums: Vec<GpuSums>,
    /// The first constraint with a·b ≠ c, checked on the GPU before H; `None` when every
    /// constraint holds. The sums of an unsatisfied circuit must not become a proof.
    pub unsatisfied: Vec<Option<u64>>,
    pub timings: GpuTimings,
}

/// A batch whose GPU part has run; [`PendingGpu::finish`] hands out the sums.
pub struct PendingGpu {
    ptr: NonNull<ffi::cuzk_groth16_pending_t>,
    count: usize,
    /// Per circuit, whether its B_G2 sum is among the results.
    b_g2_on_gpu: Vec<bool>,
    /// The parameter set's pace, and the domain elements of the batch: the finished batch
    /// records its kernels' time per element there. (An Option so that finish can take it
    /// before forgetting self.)
    pace: Option<Arc<KernelPace>>,
    elements: usize,
}

// SAFETY: the pending handle owns plain host data (the results); the library touches it only
// in finish/destroy, which take it by value here.
unsafe impl Send for PendingGpu {}

impl std::fmt::Debug for PendingGpu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PendingGpu")
            .field("count", &self.count)
            .finish()
    }
}

fn split_view(s: &MsmSplit) -> ffi::cuzk_msm_split_t {
    ffi::cuzk_msm_split_t {
        ones: s.ones.as_ptr(),
        ones_words: s.ones.len(),
        other_index: s.other_index.as_ptr(),
        other_scalars: s.other_scalars.as_ptr().cast(),
        other_count: s.other_index.len().min(s.other_scalars.len()),
    }
}

/// The C view of a witness for the GPU to split, after checking that each density bitmap has a
/// word for every 64 values it covers (the library reads that many).
fn witness_view(circuit: usize, w: &WitnessRef<'_>) -> Result<ffi::cuzk_witness_t, CudaError> {
    for (what, words, values) in [
        ("A's aux density", w.a_aux_density, w.aux.len()),
        ("B's input density", w.b_input_density, w.inputs.len()),
        ("B's aux density", w.b_aux_density, w.aux.len()),
    ] {
        if words.len() < values.div_ceil(64) {
            return Err(CudaError::InvalidArgument(format!(
                "circuit {circuit}: {what} has {} words for {values} values",
                words.len()
            )));
        }
    }
    Ok(ffi::cuzk_witness_t {
        inputs: ptr_or_null(w.inputs).cast(),
        num_inputs: w.inputs.len(),
        aux: ptr_or_null(w.aux).cast(),
        num_aux: w.aux.len(),
        a_aux_density: ptr_or_null(w.a_aux_density),
        b_input_density: ptr_or_null(w.b_input_density),
        b_aux_density: ptr_or_null(w.b_aux_density),
    })
}

/// Null for an empty slice (the library requires null for absent arrays), else its start.
fn ptr_or_null<T>(v: &[T]) -> *const T {
    if v.is_empty() {
        std::ptr::null()
    } else {
        v.as_ptr()
    }
}

/// How a batch shares its GPU with the other proofs on it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Priority {
    /// Uploads under the device's memory lock and kernels under its compute lock: proofs
    /// take the whole GPU in turn.
    #[default]
    Normal,
    /// For a proof with a deadline: one at a time per device, under a lock of its own, its
    /// kernels on a stream of the device's greatest priority beside those of the proof that
    /// holds the compute lock (the GPU schedules its blocks first), instead of waiting for
    /// that proof to end. Its VRAM comes from the same budget, ahead of ordinary proofs.
    Urgent,
}

impl Priority {
    fn raw(self) -> i32 {
        match self {
            Priority::Normal => ffi::CUZK_PRIORITY_NORMAL as i32,
            Priority::Urgent => ffi::CUZK_PRIORITY_URGENT as i32,
        }
    }
}

/// Runs the GPU part for circuits of one shape: under `locks` (`None`: those `params` was
/// made with, or the device's process-wide ones), reserve VRAM and upload each circuit's
/// inputs, then its NTTs and MSMs. Returns when the GPU is done with the inputs. `uploaded`
/// (if given) is set when the last circuit's inputs have left the host, and in any case
/// before this returns. `priority` says whether the batch takes the GPU in turn with other
/// proofs or runs beside them ([`Priority`]).
pub fn start(
    locks: Option<&GpuLocks>,
    params: &DeviceParams,
    circuits: &[CircuitInputs<'_>],
    priority: Priority,
    uploaded: Option<&UploadSignal>,
) -> Result<PendingGpu, CudaError> {
    let result = start_inner(locks, params, circuits, priority, uploaded);
    if let Some(signal) = uploaded {
        signal.set();
    }
    result
}

fn start_inner(
    locks: Option<&GpuLocks>,
    params: &DeviceParams,
    circuits: &[CircuitInputs<'_>],
    priority: Priority,
    uploaded: Option<&UploadSignal>,
) -> Result<PendingGpu, CudaError> {
    let mut raw = Vec::with_capacity(circuits.len());
    let mut witnesses: Vec<Option<ffi::cuzk_witness_t>> = Vec::with_capacity(circuits.len());
    for (i, c) in circuits.iter().enumerate() {
        let (abc, matrices): ([&[Scalar]; 3], _) = match c.evaluations {
            Evaluations::Host { a, b, c } => {
                if a.len() != b.len() || a.len() != c.len() {
                    return Err(CudaError::InvalidArgument(format!(
                        "circuit {i}: a, b and c have {}, {} and {} evaluations",
                        a.len(),
                        b.len(),
                        c.len()
                    )));
                }
                ([a, b, c], std::ptr::null())
            }
            Evaluations::Device(m) => {
                if m.device() != params.device() {
                    return Err(CudaError::InvalidArgument(format!(
                        "circuit {i}: the matrices are on GPU {}, the parameters on GPU {}",
                        m.device(),
                        params.device()
                    )));
                }
                ([&[], &[], &[]], m.as_ptr())
            }
        };
        let empty = ffi::cuzk_msm_split_t {
            ones: std::ptr::null(),
            ones_words: 0,
            other_index: std::ptr::null(),
            other_scalars: std::ptr::null(),
            other_count: 0,
        };
        let (splits, witness) = match c.scalars {
            Scalars::Split { l, a_query, b_g1 } => {
                for (what, split, len) in [
                    ("l", l, params.lens()[1]),
                    ("a", a_query, params.lens()[2]),
                    ("b_g1", b_g1, params.lens()[3]),
                ] {
                    if split.len != len || split.other_index.len() != split.other_scalars.len() {
                        return Err(CudaError::InvalidArgument(format!(
                            "circuit {i}: the {what} split is for {} points, the parameters have {len}",
                            split.len
                        )));
                    }
                }
                ([split_view(l), split_view(a_query), split_view(b_g1)], None)
            }
            Scalars::Witness(w) => ([empty, empty, empty], Some(witness_view(i, &w)?)),
        };
        witnesses.push(witness);
        if c.b_g2_on_gpu && !params.has_b_g2() {
            return Err(CudaError::InvalidArgument(format!(
                "circuit {i} asks for B's G2 sum on the GPU, but the device parameters were \
                 made without b_g2"
            )));
        }
        raw.push(ffi::cuzk_groth16_circuit_t {
            // Null for absent evaluations, as the library requires with matrices.
            a: ptr_or_null(abc[0]).cast(),
            b: ptr_or_null(abc[1]).cast(),
            c: ptr_or_null(abc[2]).cast(),
            abc_len: abc[0].len(),
            l: splits[0],
            a_query: splits[1],
            b_g1: splits[2],
            b_g2_on_gpu: i32::from(c.b_g2_on_gpu),
            matrices,
            witness: std::ptr::null(),
        });
    }
    // Pointed to once `witnesses` no longer moves.
    for (r, w) in raw.iter_mut().zip(&witnesses) {
        if let Some(w) = w {
            r.witness = w;
        }
    }
    let locks_ptr = locks
        .or(params.locks())
        .map_or(std::ptr::null_mut(), GpuLocks::as_ptr);
    let hook = uploaded.map(|signal| UploadHook {
        signal,
        count: circuits.len(),
    });
    let (callback, ctx): (ffi::cuzk_uploaded_fn, *mut c_void) = match &hook {
        Some(h) => (Some(on_uploaded), h as *const UploadHook<'_> as *mut c_void),
        None => (None, std::ptr::null_mut()),
    };
    let mut ptr: *mut ffi::cuzk_groth16_pending_t = std::ptr::null_mut();
    // SAFETY: every pointer in `raw` points into the borrowed circuits (or is a borrowed
    // DeviceMatrices handle, or one of `witnesses`, alive and unmoved until after the call),
    // valid for the lengths given (the density bitmaps' checked by witness_view), and the
    // library stops using them before it returns; Scalar has blst_fr's layout;
    // the locks and params handles are alive (borrowed); `ctx` points to `hook`, which
    // outlives the call, and `on_uploaded` only reads it.
    unsafe {
        ffi::check(ffi::generate_groth16_proofs_start_c(
            locks_ptr,
            params.as_ptr(),
            raw.as_ptr(),
            raw.len(),
            priority.raw(),
            callback,
            ctx,
            &mut ptr,
        ))?;
    }
    let ptr = NonNull::new(ptr).ok_or_else(|| {
        CudaError::Internal("generate_groth16_proofs_start_c returned null".into())
    })?;
    Ok(PendingGpu {
        ptr,
        b_g2_on_gpu: circuits.iter().map(|c| c.b_g2_on_gpu).collect(),
        count: circuits.len(),
        pace: Some(params.kernel_pace_cell()),
        elements: circuits.len() * params.domain(),
    })
}

impl PendingGpu {
    /// The sums and satisfaction of every circuit, in order, and the GPU timings.
    pub fn finish(mut self) -> Result<GpuBatch, CudaError> {
        let identity = RawSums {
            h: G1Projective::identity(),
            l: G1Projective::identity(),
            a: G1Projective::identity(),
            b_g1: G1Projective::identity(),
            b_g2: G2Projective::identity(),
        };
        let mut raw = vec![identity; self.count];
        let mut unsatisfied = vec![u64::MAX; self.count];
        let mut t = ffi::cuzk_groth16_timings_t {
            wait_memory_ms: 0.0,
            upload_ms: 0.0,
            wait_compute_ms: 0.0,
            abc_ms: 0.0,
            ntt_ms: 0.0,
            msm_h_ms: 0.0,
            msm_l_ms: 0.0,
            msm_a_ms: 0.0,
            msm_b_g1_ms: 0.0,
            msm_b_g2_ms: 0.0,
            chunked_circuits: 0,
            chunk_points: 0,
            setup_ms: 0.0,
            queued_ms: 0.0,
            results_ms: 0.0,
        };
        let ptr = self.ptr.as_ptr();
        let count = self.count;
        let b_g2_on_gpu = std::mem::take(&mut self.b_g2_on_gpu);
        let (pace, elements) = (self.pace.take(), self.elements);
        // The library frees the handle in finish, also on error: Drop must not run.
        std::mem::forget(self);
        // SAFETY: `ptr` is a live pending handle, consumed here exactly once; `raw` holds
        // `count` RawSums, which have cuzk_groth16_sums_t's layout (asserted above), so the
        // library writes valid points into them; `unsatisfied` holds `count` entries.
        unsafe {
            ffi::check(ffi::generate_groth16_proofs_finish_c(
                ptr,
                raw.as_mut_ptr().cast::<ffi::cuzk_groth16_sums_t>(),
                count,
                unsatisfied.as_mut_ptr(),
                &mut t,
            ))?;
        }
        let timings = GpuTimings {
            wait_memory_ms: t.wait_memory_ms,
            upload_ms: t.upload_ms,
            wait_compute_ms: t.wait_compute_ms,
            abc_ms: t.abc_ms,
            ntt_ms: t.ntt_ms,
            msm_h_ms: t.msm_h_ms,
            msm_l_ms: t.msm_l_ms,
            msm_a_ms: t.msm_a_ms,
            msm_b_g1_ms: t.msm_b_g1_ms,
            msm_b_g2_ms: t.msm_b_g2_ms,
            chunked_circuits: t.chunked_circuits,
            chunk_points: t.chunk_points,
            setup_ms: t.setup_ms,
            queued_ms: t.queued_ms,
            results_ms: t.results_ms,
        };
        if let Some(pace) = pace {
            pace.record(timings.g1_kernels(), elements);
        }
        let sums = raw
            .iter()
            .zip(b_g2_on_gpu)
            .map(|(r, on_gpu)| GpuSums {
                h: r.h,
                l: r.l,
                a: r.a,
                b_g1: r.b_g1,
                b_g2: on_gpu.then_some(r.b_g2),
            })
            .collect();
        Ok(GpuBatch {
            sums,
            unsatisfied: unsatisfied
                .into_iter()
                .map(|u| (u != u64::MAX).then_some(u))
                .collect(),
            timings,
        })
    }
}

impl Drop for PendingGpu {
    fn drop(&mut self) {
        // SAFETY: a pending handle never finished (finish forgets self): destroyed once here.
        unsafe { ffi::generate_groth16_proofs_destroy_c(self.ptr.as_ptr()) }
    }
}

/// Makes the next `count` circuits proved in this process fail in their compute phase with a
/// real CUDA launch error (testing the error path); 0 cancels.
pub fn inject_faults(count: u32) {
    // SAFETY: sets an atomic counter.
    unsafe { ffi::cuzk_groth16_inject_faults(count) }
}
