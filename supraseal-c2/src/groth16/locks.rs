//! The locks and VRAM budget of one GPU, shared by the workers that prove on it.

use std::ffi::c_int;
use std::ptr::NonNull;
use std::sync::Arc;

use crate::error::CudaError;
use crate::ffi;

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

    /// Tests and benchmarks: every proof made under these locks takes the bounded-VRAM plan
    /// (the parameters' bases in chunks of at most `chunk_points` points, rounded up to a
    /// multiple of 64), even where its whole working set fits; with `c_late`, it also holds
    /// only two of a, b and c at once. `chunk_points` 0 restores the automatic choice (the
    /// bounded plan only when the whole working set does not fit the budget).
    pub fn force_chunks(&self, chunk_points: usize, c_late: bool) -> Result<(), CudaError> {
        // SAFETY: the pointer is live while `self` is; the call only stores two numbers in it.
        unsafe {
            ffi::check(ffi::cuzk_gpu_locks_force_chunks(
                self.as_ptr(),
                chunk_points,
                c_int::from(c_late),
            ))
        }
    }

    /// Tests: holds the compute lock for `ms` milliseconds (as a long proof's kernels would),
    /// then returns.
    pub fn hold_compute(&self, ms: u32) -> Result<(), CudaError> {
        // SAFETY: the pointer is live while `self` is; the call takes the lock, sleeps and
        // releases it.
        unsafe { ffi::check(ffi::cuzk_gpu_locks_hold_compute(self.as_ptr(), ms)) }
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
