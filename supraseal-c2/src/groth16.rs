//! Safe wrappers over the GPU part of the Groth16 prover (`cuda/include/cuzk/groth16.h`).
//!
//! - [`GpuLocks`]: one per GPU, shared by its workers: the memory lock, the compute lock and
//!   the VRAM budget. Cloning shares the same object; the last clone destroys it.
//! - [`DeviceParams`]: a parameter set's G1 vectors on one GPU (resident, or streamed per proof
//!   when they do not fit), keeping alive whatever owns the host arrays.
//! - [`start`] / [`PendingG1::finish`]: the GPU sums of a batch of circuits. `start` returns
//!   when the GPU is done with the inputs; the caller computes B's G2 sum on the CPU meanwhile
//!   (on another thread) and assembles the proofs from both.

use std::any::Any;
use std::ffi::c_void;
use std::ptr::NonNull;
use std::sync::{Arc, Condvar, Mutex};

use blstrs::{G1Affine, G1Projective, Scalar};
use group::Group;

use crate::error::CudaError;
use crate::ffi;
use crate::split::MsmSplit;

/// The raw pointer to a GPU's locks, as the C ABI takes it. Null means the process-wide locks
/// of the device.
pub type GpuMutexPtr = *mut ffi::cuzk_gpu_locks_t;

/// A [`GpuMutexPtr`] that may cross threads.
#[derive(Clone, Copy, Debug)]
pub struct SendableGpuMutex(pub GpuMutexPtr);

// SAFETY: the object behind the pointer is made of mutexes, a condition-variable-guarded
// budget and atomic counters; every C entry point that takes it synchronizes through those,
// so using it from several threads at once is what it is for. Keeping it alive is the job of
// the `GpuLocks` it came from, which outlives the workers (the engine holds it).
unsafe impl Send for SendableGpuMutex {}
// SAFETY: as for Send: shared use is synchronized inside the object.
unsafe impl Sync for SendableGpuMutex {}

struct LocksOwner(NonNull<ffi::cuzk_gpu_locks_t>);

// SAFETY: see SendableGpuMutex: the object synchronizes internally.
unsafe impl Send for LocksOwner {}
// SAFETY: as above.
unsafe impl Sync for LocksOwner {}

impl Drop for LocksOwner {
    fn drop(&mut self) {
        // SAFETY: the pointer came from create_gpu_locks and is destroyed exactly once, here,
        // when the last GpuLocks clone (and so every DeviceParams holding one) is gone.
        unsafe { ffi::destroy_gpu_locks(self.0.as_ptr()) }
    }
}

/// The locks and VRAM budget of one GPU.
#[derive(Clone)]
pub struct GpuLocks {
    owner: Arc<LocksOwner>,
    device: i32,
}

impl std::fmt::Debug for GpuLocks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GpuLocks")
            .field("device", &self.device)
            .finish()
    }
}

/// The counters of a [`GpuLocks`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GpuLocksInfo {
    pub device: i32,
    pub vram_budget: usize,
    pub vram_reserved: usize,
    pub vram_peak: usize,
    /// Total time the compute lock was held, in nanoseconds.
    pub compute_busy_ns: u64,
    pub proofs_done: u64,
    pub proofs_failed: u64,
}

impl GpuLocks {
    /// Creates the locks of `device` with a VRAM budget in bytes (`None`: the device's free
    /// memory less a margin, see `create_gpu_locks`).
    pub fn new(device: i32, vram_budget: Option<usize>) -> Result<GpuLocks, CudaError> {
        let mut ptr: *mut ffi::cuzk_gpu_locks_t = std::ptr::null_mut();
        // SAFETY: `ptr` is a valid place for the output; the call keeps no reference to it.
        unsafe {
            ffi::check(ffi::create_gpu_locks(
                device,
                vram_budget.unwrap_or(0),
                &mut ptr,
            ))?
        };
        let ptr = NonNull::new(ptr)
            .ok_or_else(|| CudaError::Internal("create_gpu_locks returned null".into()))?;
        Ok(GpuLocks {
            owner: Arc::new(LocksOwner(ptr)),
            device,
        })
    }

    pub fn device(&self) -> i32 {
        self.device
    }

    /// The raw pointer, for the C ABI. Valid while this value (or a clone) lives.
    pub fn as_ptr(&self) -> GpuMutexPtr {
        self.owner.0.as_ptr()
    }

    /// The pointer wrapped to cross threads.
    pub fn sendable(&self) -> SendableGpuMutex {
        SendableGpuMutex(self.as_ptr())
    }

    pub fn info(&self) -> Result<GpuLocksInfo, CudaError> {
        info_of(self.as_ptr(), self.device)
    }
}

/// The counters of the process-wide locks of `device` (those used when no locks are given).
pub fn default_locks_info(device: i32) -> Result<GpuLocksInfo, CudaError> {
    info_of(std::ptr::null_mut(), device)
}

fn info_of(ptr: GpuMutexPtr, device: i32) -> Result<GpuLocksInfo, CudaError> {
    let mut out = ffi::cuzk_gpu_locks_info_t {
        device: 0,
        vram_budget: 0,
        vram_reserved: 0,
        vram_peak: 0,
        compute_busy_ns: 0,
        proofs_done: 0,
        proofs_failed: 0,
    };
    // SAFETY: `ptr` is null or a live locks object (its GpuLocks is borrowed by the caller);
    // `out` is a valid output.
    unsafe { ffi::check(ffi::cuzk_gpu_locks_info(ptr, device, &mut out))? };
    Ok(GpuLocksInfo {
        device: out.device,
        vram_budget: out.vram_budget,
        vram_reserved: out.vram_reserved,
        vram_peak: out.vram_peak,
        compute_busy_ns: out.compute_busy_ns,
        proofs_done: out.proofs_done,
        proofs_failed: out.proofs_failed,
    })
}

/// The G1 query vectors of a parameter set, borrowed from their owner.
#[derive(Clone, Copy, Debug)]
pub struct G1Vectors<'a> {
    pub h: &'a [G1Affine],
    pub l: &'a [G1Affine],
    pub a: &'a [G1Affine],
    pub b_g1: &'a [G1Affine],
}

/// Whether a parameter set's G1 vectors may stay on the device.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Residency {
    /// Resident when they take at most half of the VRAM budget and fit what is left of it.
    #[default]
    Auto,
    /// Always streamed from host memory per proof.
    Streamed,
}

/// A parameter set's G1 vectors on one GPU.
pub struct DeviceParams {
    ptr: NonNull<ffi::cuzk_groth16_params_t>,
    // The owner of the host arrays: the library reads them again per proof when they are not
    // resident. Dropped after `ptr` is destroyed (see Drop).
    _owner: Arc<dyn Any + Send + Sync>,
    // The locks the reservation was made from; they must outlive this handle.
    locks: Option<GpuLocks>,
    device: i32,
    lens: [usize; 4],
}

// SAFETY: the handle is immutable after creation; the library only reads it (and the host
// arrays, which `_owner` keeps alive and nobody mutates) while proofs run, from any thread.
unsafe impl Send for DeviceParams {}
// SAFETY: as above: shared use only reads.
unsafe impl Sync for DeviceParams {}

impl std::fmt::Debug for DeviceParams {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceParams")
            .field("device", &self.device)
            .field("resident", &self.is_resident())
            .field("lens", &self.lens)
            .finish()
    }
}

impl DeviceParams {
    /// Puts the G1 vectors that `vectors` picks out of `owner` on the GPU of `locks` (or of
    /// `device`'s process-wide locks). `owner` is kept alive as long as this handle.
    pub fn new<O, F>(
        locks: Option<&GpuLocks>,
        device: i32,
        residency: Residency,
        owner: Arc<O>,
        vectors: F,
    ) -> Result<DeviceParams, CudaError>
    where
        O: Send + Sync + 'static,
        F: FnOnce(&O) -> G1Vectors<'_>,
    {
        let device = locks.map_or(device, GpuLocks::device);
        let v = vectors(&owner);
        let lens = [v.h.len(), v.l.len(), v.a.len(), v.b_g1.len()];
        let mut ptr: *mut ffi::cuzk_groth16_params_t = std::ptr::null_mut();
        // SAFETY: the four slices are valid for their lengths and live in `owner`, which this
        // handle keeps alive until the library's handle is destroyed; G1Affine has blst's
        // layout (cuzk_g1_affine_t); `ptr` is a valid output.
        unsafe {
            ffi::check(ffi::cuzk_groth16_params_create(
                locks.map_or(std::ptr::null_mut(), GpuLocks::as_ptr),
                device,
                match residency {
                    Residency::Auto => ffi::CUZK_RESIDENCY_AUTO as i32,
                    Residency::Streamed => ffi::CUZK_RESIDENCY_STREAMED as i32,
                },
                v.h.as_ptr().cast(),
                v.h.len(),
                v.l.as_ptr().cast(),
                v.l.len(),
                v.a.as_ptr().cast(),
                v.a.len(),
                v.b_g1.as_ptr().cast(),
                v.b_g1.len(),
                &mut ptr,
            ))?;
        }
        let ptr = NonNull::new(ptr).ok_or_else(|| {
            CudaError::Internal("cuzk_groth16_params_create returned null".into())
        })?;
        Ok(DeviceParams {
            ptr,
            _owner: owner,
            locks: locks.cloned(),
            device,
            lens,
        })
    }

    /// Whether the vectors stay on the device (otherwise each proof streams them).
    pub fn is_resident(&self) -> bool {
        // SAFETY: `ptr` is a live handle.
        unsafe { ffi::cuzk_groth16_params_resident(self.ptr.as_ptr()) != 0 }
    }

    pub fn device(&self) -> i32 {
        self.device
    }

    /// The lengths of h, l, a and b_g1.
    pub fn lens(&self) -> [usize; 4] {
        self.lens
    }

    /// The locks this handle was made with (`None`: the device's process-wide ones).
    pub fn locks(&self) -> Option<&GpuLocks> {
        self.locks.as_ref()
    }
}

impl Drop for DeviceParams {
    fn drop(&mut self) {
        // SAFETY: created by cuzk_groth16_params_create, destroyed once; no proof uses it (a
        // proof borrows the DeviceParams for its whole GPU part).
        unsafe { ffi::cuzk_groth16_params_destroy(self.ptr.as_ptr()) }
    }
}

/// One circuit's inputs to the GPU part.
#[derive(Clone, Copy, Debug)]
pub struct CircuitInputs<'a> {
    /// The evaluations of A, B and C on the domain (at most the domain size each, equal
    /// lengths).
    pub a: &'a [Scalar],
    pub b: &'a [Scalar],
    pub c: &'a [Scalar],
    pub l: &'a MsmSplit,
    pub a_query: &'a MsmSplit,
    pub b_g1: &'a MsmSplit,
}

/// The GPU's four sums for one circuit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct G1Sums {
    pub h: G1Projective,
    pub l: G1Projective,
    pub a: G1Projective,
    pub b_g1: G1Projective,
}

/// Where the GPU part's time went, in milliseconds (see `cuzk_groth16_timings_t`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct GpuTimings {
    pub wait_memory_ms: f32,
    pub upload_ms: f32,
    pub wait_compute_ms: f32,
    pub ntt_ms: f32,
    pub msm_h_ms: f32,
    pub msm_l_ms: f32,
    pub msm_a_ms: f32,
    pub msm_b_g1_ms: f32,
}

/// A batch whose GPU part has run; [`PendingG1::finish`] hands out the sums.
pub struct PendingG1 {
    ptr: NonNull<ffi::cuzk_groth16_pending_t>,
    count: usize,
}

// SAFETY: the pending handle owns plain host data (the results); the library touches it only
// in finish/destroy, which take it by value here.
unsafe impl Send for PendingG1 {}

impl std::fmt::Debug for PendingG1 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PendingG1")
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

/// Set once the inputs of every circuit of a [`start`] call have left the host (or when the
/// call returns, whichever comes first), so that CPU work that would compete with the uploads
/// for cores and memory bandwidth can wait for it.
#[derive(Debug, Default)]
pub struct UploadSignal {
    done: Mutex<bool>,
    changed: Condvar,
}

impl UploadSignal {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn set(&self) {
        // A poisoned lock only means another thread panicked while holding it; the flag is
        // still a plain bool.
        *self.done.lock().unwrap_or_else(|e| e.into_inner()) = true;
        self.changed.notify_all();
    }

    /// Blocks until the signal is set.
    pub fn wait(&self) {
        let mut done = self.done.lock().unwrap_or_else(|e| e.into_inner());
        while !*done {
            done = self.changed.wait(done).unwrap_or_else(|e| e.into_inner());
        }
    }

    pub fn is_set(&self) -> bool {
        *self.done.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// What the upload callback reads: the signal to set and the circuit count.
struct UploadHook<'a> {
    signal: &'a UploadSignal,
    count: usize,
}

extern "C" fn on_uploaded(ctx: *mut c_void, circuit: usize) {
    // SAFETY: `ctx` is the `UploadHook` that `start` passed with this function; it lives on
    // start's stack for the whole call, and the library calls back only during that call.
    let hook = unsafe { &*(ctx as *const UploadHook<'_>) };
    if circuit + 1 >= hook.count {
        hook.signal.set();
    }
}

/// Runs the GPU part for circuits of one shape: under `locks` (`None`: those `params` was
/// made with, or the device's process-wide ones), reserve VRAM and upload each circuit's
/// inputs, then its NTTs and MSMs. Returns when the GPU is done with the inputs. `uploaded`
/// (if given) is set when the last circuit's inputs have left the host, and in any case
/// before this returns.
pub fn start(
    locks: Option<&GpuLocks>,
    params: &DeviceParams,
    circuits: &[CircuitInputs<'_>],
    uploaded: Option<&UploadSignal>,
) -> Result<PendingG1, CudaError> {
    let result = start_inner(locks, params, circuits, uploaded);
    if let Some(signal) = uploaded {
        signal.set();
    }
    result
}

fn start_inner(
    locks: Option<&GpuLocks>,
    params: &DeviceParams,
    circuits: &[CircuitInputs<'_>],
    uploaded: Option<&UploadSignal>,
) -> Result<PendingG1, CudaError> {
    let mut raw = Vec::with_capacity(circuits.len());
    for (i, c) in circuits.iter().enumerate() {
        if c.a.len() != c.b.len() || c.a.len() != c.c.len() {
            return Err(CudaError::InvalidArgument(format!(
                "circuit {i}: a, b and c have {}, {} and {} evaluations",
                c.a.len(),
                c.b.len(),
                c.c.len()
            )));
        }
        for (what, split, len) in [
            ("l", c.l, params.lens[1]),
            ("a", c.a_query, params.lens[2]),
            ("b_g1", c.b_g1, params.lens[3]),
        ] {
            if split.len != len || split.other_index.len() != split.other_scalars.len() {
                return Err(CudaError::InvalidArgument(format!(
                    "circuit {i}: the {what} split is for {} points, the parameters have {len}",
                    split.len
                )));
            }
        }
        raw.push(ffi::cuzk_groth16_circuit_t {
            a: c.a.as_ptr().cast(),
            b: c.b.as_ptr().cast(),
            c: c.c.as_ptr().cast(),
            abc_len: c.a.len(),
            l: split_view(c.l),
            a_query: split_view(c.a_query),
            b_g1: split_view(c.b_g1),
        });
    }
    let locks_ptr = locks
        .or(params.locks.as_ref())
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
    // SAFETY: every pointer in `raw` points into the borrowed circuits, valid for the lengths
    // given, and the library stops using them before it returns; Scalar has blst_fr's layout;
    // the locks and params handles are alive (borrowed); `ctx` points to `hook`, which
    // outlives the call, and `on_uploaded` only reads it.
    unsafe {
        ffi::check(ffi::generate_groth16_proofs_start_c(
            locks_ptr,
            params.ptr.as_ptr(),
            raw.as_ptr(),
            raw.len(),
            callback,
            ctx,
            &mut ptr,
        ))?;
    }
    let ptr = NonNull::new(ptr).ok_or_else(|| {
        CudaError::Internal("generate_groth16_proofs_start_c returned null".into())
    })?;
    Ok(PendingG1 {
        ptr,
        count: circuits.len(),
    })
}

impl PendingG1 {
    /// The sums of every circuit, in order, and the GPU timings.
    pub fn finish(self) -> Result<(Vec<G1Sums>, GpuTimings), CudaError> {
        // cuzk_groth16_g1_sums_t is four blst_p1 in a row: h, l, a, b_g1.
        let mut raw = vec![[G1Projective::identity(); 4]; self.count];
        let mut t = ffi::cuzk_groth16_timings_t {
            wait_memory_ms: 0.0,
            upload_ms: 0.0,
            wait_compute_ms: 0.0,
            ntt_ms: 0.0,
            msm_h_ms: 0.0,
            msm_l_ms: 0.0,
            msm_a_ms: 0.0,
            msm_b_g1_ms: 0.0,
        };
        let ptr = self.ptr.as_ptr();
        let count = self.count;
        // The library frees the handle in finish, also on error: Drop must not run.
        std::mem::forget(self);
        // SAFETY: `ptr` is a live pending handle, consumed here exactly once; `raw` holds
        // `count` results of four G1Projective each, which is blst_p1's layout (checked in
        // the msm module), so the library writes valid points into it.
        unsafe {
            ffi::check(ffi::generate_groth16_proofs_finish_c(
                ptr,
                raw.as_mut_ptr().cast::<ffi::cuzk_groth16_g1_sums_t>(),
                count,
                &mut t,
            ))?;
        }
        let sums = raw
            .iter()
            .map(|[h, l, a, b_g1]| G1Sums {
                h: *h,
                l: *l,
                a: *a,
                b_g1: *b_g1,
            })
            .collect();
        Ok((
            sums,
            GpuTimings {
                wait_memory_ms: t.wait_memory_ms,
                upload_ms: t.upload_ms,
                wait_compute_ms: t.wait_compute_ms,
                ntt_ms: t.ntt_ms,
                msm_h_ms: t.msm_h_ms,
                msm_l_ms: t.msm_l_ms,
                msm_a_ms: t.msm_a_ms,
                msm_b_g1_ms: t.msm_b_g1_ms,
            },
        ))
    }
}

impl Drop for PendingG1 {
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
