//! The engine's prover seam: a [`ProvingBackend`] proves one synthesized partition in two
//! halves, [`ProvingBackend::start`] on one of its workers and [`PendingProof::finish`] on a
//! finalizer (a backend that makes the whole proof in the start half needs no finalizer), and
//! [`open`] lists the backends an engine proves on.
//!
//! - `cpu`: the CPU prover (the whole proof in the start half).
//! - `gpu` (feature `cuda`): one backend per GPU: its locks, the parameter sets and matrices
//!   put on it, the preparation of a partition's GPU half, and the proof's assembly.
//! - `fake` (feature `fake-backend`): the CPU prover behind a script of faults, so that the
//!   engine's tests can make proofs fail as a GPU would, on demand.
//! - `rotation`: the faults in a row that take a backend out of rotation.
//!
//! The prover threads (`crate::proving`) run any backend: they take a partition, call
//! `start`, count a failure against the backend when its error says so
//! ([`PartitionError::counts_against_device`]), and hand a pending proof to a finalizer,
//! which calls `finish`; every proof is self-checked.

use std::sync::Arc;
use std::time::Duration;

use bellperson_lite::matrices::ConstraintMatrices;
use bellperson_lite::release::Release;
use bellperson_lite::synthesis::ProvingAssignment;
use bellperson_lite::{Proof, Scalar};

use crate::budget::Reservation;
use crate::config::Config;
use crate::error::EngineError;
use crate::partition_error::PartitionError;
use crate::scheduler::QueuedPartition;
use crate::shared::Shared;
use crate::srs::LoadedSrs;
use crate::timeline::Lane;

mod cpu;
#[cfg(feature = "fake-backend")]
pub mod fake;
#[cfg(feature = "cuda")]
mod gpu;
mod rotation;

pub(crate) use rotation::{Rotation, FAULTS_TO_RETIRE};

/// One device the engine proves on (GPU, or a fake one in tests).
#[derive(Clone, Debug, PartialEq)]
pub struct GpuStatus {
    pub ordinal: u32,
    pub name: String,
    pub vram_total_bytes: u64,
    pub vram_free_bytes: u64,
    /// Fraction of the engine's uptime its compute lock was held.
    pub busy_fraction: f64,
    /// Taken out of rotation after repeated GPU faults: it takes no more work.
    pub out_of_rotation: bool,
    /// (job id, kind) of each partition its workers hold now.
    pub in_hand: Vec<(String, String)>,
    /// The parameter sets the device holds (put there when the first partition of their
    /// circuit reached it, dropped when the set is evicted), by circuit id.
    pub parameters: Vec<DeviceSrsStatus>,
}

/// One parameter set as a device holds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceSrsStatus {
    pub circuit_id: String,
    /// Whether its query vectors stay in VRAM; otherwise every proof streams them from host
    /// memory, which costs a copy of the whole set per proof (a budget too small for it).
    pub resident: bool,
    /// How many shifted copies of H's bases the device keeps: above 1, H's MSM (the largest of
    /// a proof) runs its windows over them and is faster. Chosen automatically, as many as fit
    /// a quarter of the VRAM budget beside the set; 1 when none fit or the set is streamed.
    pub h_copies: u32,
    /// The VRAM the set holds while it stays on the device, copies included (0 when
    /// streamed): what it leaves out of the budget for proofs.
    pub device_bytes: u64,
}

/// What a backend's start half is given of a synthesized partition.
pub(crate) struct PartitionInputs<'a> {
    pub item: &'a QueuedPartition,
    pub srs: &'a Arc<LoadedSrs>,
    pub assignment: ProvingAssignment,
    /// The matrices a, b and c were left out of the assignment for (products left to the
    /// GPU): a backend that does not evaluate them computes them from these.
    pub deferred_products: Option<Arc<ConstraintMatrices>>,
    pub r: Scalar,
    pub s: Scalar,
    /// The partition's RAM reservation, released once the proof is finished: a backend that
    /// needs more host memory than was reserved (a, b and c made on the CPU) grows it.
    #[cfg_attr(not(feature = "cuda"), allow(dead_code))] // grown by the GPU backend only
    pub reservation: &'a mut Reservation,
}

/// A proof whose start half is done, finished on a finalizer thread.
pub(crate) trait PendingProof: Send {
    /// The proof, with the backend's own book-keeping (its phase timings in the job's and the
    /// timeline's records).
    fn finish(
        self: Box<Self>,
        shared: &Shared,
        item: &QueuedPartition,
    ) -> Result<Finished, PartitionError>;
}

/// A finished proof, and the freeing of its host buffers when that is still under way: the
/// finalizer delivers the proof, then waits for the buffers before it gives back the
/// partition's RAM reservation.
pub(crate) struct Finished {
    pub proof: Proof,
    pub release: Option<Release>,
}

/// What a start half gives.
pub(crate) enum Started {
    /// The whole proof (the CPU prover's): self-checked on the worker, no finalizer needed.
    Proof(Box<Proof>),
    /// A proof whose finish half is left to a finalizer.
    #[cfg_attr(not(any(feature = "cuda", feature = "fake-backend")), allow(dead_code))]
    Pending(Box<dyn PendingProof>),
}

/// A way of proving partitions; see the module doc.
pub(crate) trait ProvingBackend: Send + Sync {
    /// Names the backend's threads ("cpu", "gpu0").
    fn name(&self) -> String;

    /// Its workers taking partitions of any priority (with the CRITICAL lane on, each
    /// backend has one more, taking only CRITICAL ones).
    fn workers(&self) -> usize;

    /// The timeline lane of its worker `worker`.
    fn lane(&self, worker: usize) -> Lane;

    /// The metrics phase of its start half ("prove", "gpu").
    fn phase(&self) -> &'static str;

    /// Whether it evaluates a, b and c from the matrices itself, so that synthesis may leave
    /// them out of the assignments (`gpus.matrices_on_gpu`).
    fn evaluates_products(&self) -> bool {
        false
    }

    /// The start half of one partition's proof, on worker `worker` (called on the CRITICAL
    /// pool for a CRITICAL partition). A panic inside is caught by the caller.
    fn start(
        &self,
        shared: &Shared,
        worker: usize,
        inputs: PartitionInputs<'_>,
    ) -> Result<Started, PartitionError>;

    /// For a device (a GPU, or a fake one), its ordinal: its workers count as GPU workers and
    /// it has a line in the status.
    fn ordinal(&self) -> Option<u32> {
        None
    }

    /// Its line in the engine's status, for a device (`out_of_rotation` is filled in by the
    /// caller).
    fn device_status(&self, _uptime: Duration) -> Option<GpuStatus> {
        None
    }

    /// For a device: the nanoseconds its compute lock was held since the engine started (no
    /// driver call: cheap enough for every metrics scrape).
    fn busy_ns(&self) -> u64 {
        0
    }

    /// For a device: the parameter sets it holds, by circuit id (no driver call, and not
    /// held up by a set being put on the device: cheap enough for every metrics scrape).
    fn parameters(&self) -> Vec<DeviceSrsStatus> {
        Vec::new()
    }

    /// Drops what it keeps of a parameter set (device copies).
    fn evict(&self, _circuit_id: &str) {}

    /// For a device: makes its next `count` start halves fail as a GPU fault would (0: none);
    /// false when it cannot.
    fn inject_faults(&self, _count: u32) -> bool {
        false
    }
}

/// A backend with its place in the rotation.
pub(crate) struct Backend {
    pub prover: Arc<dyn ProvingBackend>,
    pub rotation: Rotation,
}

/// The backends an engine proves on, and what the engine asks of them all.
pub(crate) struct Backends(Vec<Arc<Backend>>);

/// The backends an engine proves on, listed here: the fakes a test asked for, else the GPUs
/// (feature `cuda`, unless `gpus.cpu_only`), else the CPU prover.
pub(crate) fn open(
    config: &Config,
    fakes: Vec<Arc<dyn ProvingBackend>>,
) -> Result<Backends, EngineError> {
    let mut provers = fakes;
    #[cfg(feature = "cuda")]
    if provers.is_empty() {
        provers.extend(gpu::open(config)?);
        if provers.is_empty() && !config.gpus.cpu_only {
            tracing::warn!("no GPU found: proving on the CPU");
        }
    }
    if provers.is_empty() {
        provers.push(Arc::new(cpu::CpuBackend::new(config)));
    }
    let rotations = Rotation::shared_by(provers.len());
    Ok(Backends(
        provers
            .into_iter()
            .zip(rotations)
            .map(|(prover, rotation)| Arc::new(Backend { prover, rotation }))
            .collect(),
    ))
}

impl Backends {
    pub(crate) fn iter(&self) -> impl Iterator<Item = &Arc<Backend>> {
        self.0.iter()
    }

    /// Workers of the CPU backend (0 when devices are used).
    pub(crate) fn cpu_provers(&self) -> usize {
        self.workers(false)
    }

    /// Workers of the devices.
    pub(crate) fn gpu_workers(&self) -> usize {
        self.workers(true)
    }

    fn workers(&self, of_devices: bool) -> usize {
        self.iter()
            .filter(|b| b.prover.ordinal().is_some() == of_devices)
            .map(|b| b.prover.workers())
            .sum()
    }

    /// Whether synthesis may leave a, b and c out of the assignments: every backend evaluates
    /// them itself.
    pub(crate) fn evaluate_products(&self) -> bool {
        self.iter().all(|b| b.prover.evaluates_products())
    }

    /// The devices' lines in the status.
    pub(crate) fn gpu_status(&self, uptime: Duration) -> Vec<GpuStatus> {
        self.iter()
            .filter_map(|b| {
                let mut status = b.prover.device_status(uptime)?;
                status.out_of_rotation = b.rotation.is_retired();
                Some(status)
            })
            .collect()
    }

    /// Per device: its ordinal and the fraction of `uptime` its compute lock was held.
    pub(crate) fn gpu_busy(&self, uptime: Duration) -> Vec<(u32, f64)> {
        let wall = uptime.as_nanos() as f64;
        self.iter()
            .filter_map(|b| Some((b.prover.ordinal()?, b.prover.busy_ns())))
            .map(|(ordinal, ns)| {
                let fraction = if wall > 0.0 { ns as f64 / wall } else { 0.0 };
                (ordinal, fraction.min(1.0))
            })
            .collect()
    }

    /// Per device: its ordinal and the parameter sets it holds.
    pub(crate) fn gpu_parameters(&self) -> Vec<(u32, Vec<DeviceSrsStatus>)> {
        self.iter()
            .filter_map(|b| Some((b.prover.ordinal()?, b.prover.parameters())))
            .collect()
    }

    /// Per device, the nanoseconds its compute lock was held since the engine started.
    pub(crate) fn gpu_busy_ns(&self) -> Vec<u64> {
        self.iter()
            .filter(|b| b.prover.ordinal().is_some())
            .map(|b| b.prover.busy_ns())
            .collect()
    }

    /// The ordinals of the devices taken out of rotation.
    pub(crate) fn gpus_out_of_rotation(&self) -> Vec<u32> {
        self.iter()
            .filter(|b| b.rotation.is_retired())
            .filter_map(|b| b.prover.ordinal())
            .collect()
    }

    /// See [`ProvingBackend::inject_faults`]: false when no backend is device `ordinal`.
    pub(crate) fn inject_faults(&self, ordinal: u32, count: u32) -> bool {
        self.iter()
            .find(|b| b.prover.ordinal() == Some(ordinal))
            .is_some_and(|b| b.prover.inject_faults(count))
    }

    /// Drops the backends' copies of a parameter set.
    pub(crate) fn evict(&self, circuit_id: &str) {
        self.iter().for_each(|b| b.prover.evict(circuit_id));
    }
}
