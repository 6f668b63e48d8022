//! A parameter set's query vectors on one GPU (the four G1 ones, and b_g2 when B's G2 sum may
//! run there): resident, or streamed per proof.

use std::any::Any;
use std::ptr::NonNull;
use std::sync::Arc;

use blstrs::{G1Affine, G2Affine};

use super::locks::GpuLocks;
use crate::error::CudaError;
use crate::ffi;
use crate::pace::KernelPace;

/// The query vectors of a parameter set, borrowed from their owner.
#[derive(Clone, Copy, Debug)]
pub struct QueryVectors<'a> {
    pub h: &'a [G1Affine],
    pub l: &'a [G1Affine],
    pub a: &'a [G1Affine],
    pub b_g1: &'a [G1Affine],
    /// Empty when B's G2 sum always runs on the CPU (it then takes no VRAM); otherwise as
    /// long as `b_g1`.
    pub b_g2: &'a [G2Affine],
}

/// Whether a parameter set's vectors may stay on the device.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Residency {
    /// Resident when they take at most half of the VRAM budget and fit what is left of it.
    #[default]
    Auto,
    /// Always streamed from host memory per proof.
    Streamed,
}

/// A parameter set's query vectors on one GPU.
pub struct DeviceParams {
    ptr: NonNull<ffi::cuzk_groth16_params_t>,
    // The owner of the host arrays: the library reads them again per proof when they are not
    // resident. Dropped after `ptr` is destroyed (see Drop).
    _owner: Arc<dyn Any + Send + Sync>,
    // The locks the reservation was made from; they must outlive this handle.
    locks: Option<GpuLocks>,
    device: i32,
    lens: [usize; 4],
    has_b_g2: bool,
    /// How long the GPU's kernels took per domain element in the proofs on this set, B's G2
    /// sum left out. B_G2's automatic placement weighs the CPU's sum against it: the kernels'
    /// pace depends on the card and on the witness, which no constant knows. Shared with each
    /// pending proof, which records its own figure when it finishes.
    kernel_pace: Arc<KernelPace>,
}

// SAFETY: the handle is immutable after creation; the library only reads it (and the host
// arrays, which `_owner` keeps alive and nobody mutates) while proofs run, from any thread.
// `kernel_pace` is atomic.
unsafe impl Send for DeviceParams {}
// SAFETY: as above: shared use only reads.
unsafe impl Sync for DeviceParams {}

impl std::fmt::Debug for DeviceParams {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceParams")
            .field("device", &self.device)
            .field("resident", &self.is_resident())
            .field("h_copies", &self.h_copies())
            .field("lens", &self.lens)
            .field("has_b_g2", &self.has_b_g2)
            .finish()
    }
}

impl DeviceParams {
    /// Puts the vectors that `vectors` picks out of `owner` on the GPU of `locks` (or of
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
        F: FnOnce(&O) -> QueryVectors<'_>,
    {
        let device = locks.map_or(device, GpuLocks::device);
        let v = vectors(&owner);
        let lens = [v.h.len(), v.l.len(), v.a.len(), v.b_g1.len()];
        // With b_g2 when it has b_g1's points: an empty B query has an empty b_g2 either way,
        // and its G2 sum (the identity) can be placed anywhere.
        let has_b_g2 = v.b_g2.len() == v.b_g1.len();
        let mut ptr: *mut ffi::cuzk_groth16_params_t = std::ptr::null_mut();
        // SAFETY: the five slices are valid for their lengths and live in `owner`, which this
        // handle keeps alive until the library's handle is destroyed; G1Affine and G2Affine
        // have blst's layouts (cuzk_g1_affine_t, cuzk_g2_affine_t; asserted in the msm
        // module); `ptr` is a valid output.
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
                v.b_g2.as_ptr().cast(),
                v.b_g2.len(),
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
            has_b_g2,
            kernel_pace: Arc::new(KernelPace::default()),
        })
    }

    /// Whether the vectors stay on the device (otherwise each proof streams them).
    pub fn is_resident(&self) -> bool {
        // SAFETY: `ptr` is a live handle.
        unsafe { ffi::cuzk_groth16_params_resident(self.ptr.as_ptr()) != 0 }
    }

    /// How many shifted copies of H's bases (2^(c j) H_i) the device keeps for H's MSM, which
    /// make its windows share buckets: 1 without them (streamed parameters, or resident ones
    /// whose set leaves no room for them in a quarter of the budget).
    pub fn h_copies(&self) -> u32 {
        // SAFETY: `ptr` is a live handle.
        unsafe { ffi::cuzk_groth16_params_h_copies(self.ptr.as_ptr()) }
    }

    pub fn device(&self) -> i32 {
        self.device
    }

    /// The device memory the resident vectors hold, as the library lays them out in one block
    /// (`make_params` in `cuda/src/groth16/params.cu`): h, then H's `h_copies() - 1` shifted
    /// copies, then l, a, b_g1, and b_g2 (as many points as b_g1) when [`Self::has_b_g2`]; G1
    /// points are `blst_p1_affine` (96 bytes), G2 points `blst_p2_affine` (192). 0 when
    /// streamed: the staging buffer a proof streams through is that proof's, freed with it.
    pub fn device_bytes(&self) -> u64 {
        if !self.is_resident() {
            return 0;
        }
        resident_bytes(self.lens, self.h_copies(), self.has_b_g2)
    }

    /// The lengths of h, l, a and b_g1.
    pub fn lens(&self) -> [usize; 4] {
        self.lens
    }

    /// Whether b_g2 is on the device too, so that B's G2 sum can run there.
    pub fn has_b_g2(&self) -> bool {
        self.has_b_g2
    }

    /// The GPU kernels' time per domain element in nanoseconds (B's G2 sum left out) in the
    /// proofs finished on this set so far ([`KernelPace`]); `None` before the first.
    pub fn kernel_pace_ns(&self) -> Option<f64> {
        self.kernel_pace.ns_per_element()
    }

    /// Where the proofs on this set record their kernels' pace.
    pub(super) fn kernel_pace_cell(&self) -> Arc<KernelPace> {
        Arc::clone(&self.kernel_pace)
    }

    /// The domain of the circuits proved with this set: one more than H's bases.
    pub fn domain(&self) -> usize {
        self.lens[0] + 1
    }

    /// The library's handle, for the proving calls. Valid while `self` lives.
    pub(super) fn as_ptr(&self) -> *mut ffi::cuzk_groth16_params_t {
        self.ptr.as_ptr()
    }

    /// The locks this handle was made with (`None`: the device's process-wide ones).
    pub fn locks(&self) -> Option<&GpuLocks> {
        self.locks.as_ref()
    }
}

/// The bytes of a resident set's block (see [`DeviceParams::device_bytes`]): G1Affine and
/// G2Affine have the library's point layouts (asserted in the msm module).
fn resident_bytes(lens: [usize; 4], h_copies: u32, has_b_g2: bool) -> u64 {
    let g1 = std::mem::size_of::<G1Affine>() as u64;
    let g2 = std::mem::size_of::<G2Affine>() as u64;
    let [h, l, a, b_g1] = lens.map(|n| n as u64);
    // At least the one h the library always places, whatever the copies.
    let g1_points = h * u64::from(h_copies.max(1)) + l + a + b_g1;
    let g2_points = if has_b_g2 { b_g1 } else { 0 };
    g1_points * g1 + g2_points * g2
}

impl Drop for DeviceParams {
    fn drop(&mut self) {
        // SAFETY: created by cuzk_groth16_params_create, destroyed once; no proof uses it (a
        // proof borrows the DeviceParams for its whole GPU part).
        unsafe { ffi::cuzk_groth16_params_destroy(self.ptr.as_ptr()) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resident_bytes_follow_the_library_layout() {
        // h, l, a, b_g1 of 96-byte points; b_g2 of 192-byte ones when on the device.
        assert_eq!(resident_bytes([7, 3, 5, 4], 1, false), (7 + 3 + 5 + 4) * 96);
        assert_eq!(
            resident_bytes([7, 3, 5, 4], 1, true),
            (7 + 3 + 5 + 4) * 96 + 4 * 192
        );
        // Each of H's copies is another h.
        assert_eq!(
            resident_bytes([7, 3, 5, 4], 13, true),
            (13 * 7 + 3 + 5 + 4) * 96 + 4 * 192
        );
        assert_eq!(resident_bytes([0, 0, 0, 0], 1, true), 0);
    }
}
