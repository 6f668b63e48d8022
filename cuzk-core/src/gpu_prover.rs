//! The GPU prover's halves for one partition (feature `cuda`): the start half on a GPU
//! worker, the finish half on a finalizer.
//!
//! [`prove_start`] returns once the GPU no longer needs the partition's assignment (its a, b
//! and c are freed then), leaving B's G2 sum running on the CPU when it was placed there; the
//! worker hands the [`GpuPending`] to a finalizer and takes its next partition while
//! [`GpuPending::finish`] assembles the proof.

use std::sync::Arc;

use bellperson_lite::gpu::{
    device_params_with, prove_start_on, G2Placement, GpuPending, GpuTarget, Priority,
};
use bellperson_lite::synthesis::ProvingAssignment;
use bellperson_lite::{Parameters, ProverError, Scalar};
use supraseal_c2::groth16::{DeviceMatrices, DeviceParams, GpuLocks, Residency};

/// A parameter set and its query vectors on one GPU, with where B's G2 sum runs.
pub(crate) struct GpuParams {
    pub params: Arc<Parameters>,
    pub device: DeviceParams,
    pub b_g2: G2Placement,
}

impl GpuParams {
    /// Puts `params` on the GPU of `locks` (resident when they fit its budget; b_g2 too
    /// unless B's G2 sum is configured to stay on the CPU).
    pub fn new(
        params: Arc<Parameters>,
        locks: &GpuLocks,
        b_g2: G2Placement,
    ) -> Result<Self, ProverError> {
        let device = device_params_with(locks, Arc::clone(&params), Residency::Auto, b_g2)?;
        Ok(GpuParams {
            params,
            device,
            b_g2,
        })
    }
}

/// What one partition's GPU half needs besides its assignment and randomness.
pub(crate) struct StartOn<'a> {
    pub params: &'a GpuParams,
    /// The device's locks.
    pub locks: &'a GpuLocks,
    /// With B's G2 placement "auto", the CPU threads the sum would get.
    pub b_g2_threads: usize,
    /// The circuit's matrices on this GPU, when the assignment was synthesized without a, b
    /// and c (`ConstraintMatrices::witness_assignment`).
    pub matrices: Option<&'a DeviceMatrices>,
    /// Whether the proof takes the GPU in turn or, urgent, runs beside the proof holding it.
    pub priority: Priority,
}

/// The GPU worker's half: the GPU part under the device's locks; returns once the GPU is
/// done with the assignment.
pub(crate) fn prove_start(
    on: StartOn<'_>,
    assignment: ProvingAssignment,
    r: Scalar,
    s: Scalar,
) -> Result<GpuPending<Parameters>, ProverError> {
    let b_g2 = match on.params.b_g2 {
        G2Placement::Auto => G2Placement::AutoWithThreads(on.b_g2_threads),
        placement => placement,
    };
    let target = GpuTarget {
        device_params: &on.params.device,
        locks: Some(on.locks),
        b_g2,
        matrices: on.matrices,
        priority: on.priority,
    };
    prove_start_on(target, vec![assignment], &on.params.params, &[r], &[s])
}
