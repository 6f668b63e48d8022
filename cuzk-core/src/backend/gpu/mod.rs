//! One GPU as a backend (feature `cuda`).
//!
//! The start half, on one of the device's workers: the parameter set on the device (made on
//! first use), a, b and c from the matrices on the device or else on the CPU, then the GPU
//! half of the proof ([`prove_start`]: uploads under the memory lock, kernels under the
//! compute lock), which returns once the GPU no longer needs the assignment. The finish half,
//! on a finalizer: B in G2 (when it was placed on the CPU), the assembly, and the GPU half's
//! phase timings into the job's and the timeline's records.
//!
//! - `device`: the device's locks and what is put on it (parameter sets, matrices).

use std::sync::Arc;
use std::time::{Duration, Instant};

use bellperson_lite::gpu::{
    prove_start, G2Placement, GpuPending, GpuTarget, Priority as GpuPriority,
};
use bellperson_lite::{Parameters, ProverError};
use supraseal_c2::CudaError;

use super::{
    DeviceSrsStatus, Finished, GpuStatus, PartitionInputs, PendingProof, ProvingBackend, Started,
};
use crate::config::Config;
use crate::error::EngineError;
use crate::gpu_phases::GpuPhases;
use crate::job::Priority;
use crate::partition_error::PartitionError;
use crate::scheduler::QueuedPartition;
use crate::shared::Shared;
use crate::timeline::Lane;

mod device;

use device::GpuDevice;

/// How long a worker whose device refused a circuit's matrices waits for the RAM its CPU
/// products need before making them over the budget.
const CPU_PRODUCTS_PATIENCE: Duration = Duration::from_secs(10);

/// The GPUs the configuration asks for, each a backend (see [`device::open_devices`]).
pub(super) fn open(config: &Config) -> Result<Vec<Arc<dyn ProvingBackend>>, EngineError> {
    Ok(device::open_devices(config)?
        .into_iter()
        .map(|d| d as Arc<dyn ProvingBackend>)
        .collect())
}

/// The CPU threads B's G2 sum would get if placed on the CPU now: the machine's, less one per
/// partition in synthesis (at least one). Under load (many proofs in flight) the "auto"
/// placement then moves it to the GPU, where it does not compete with synthesis for cores;
/// for a proof on an idle host it stays on the CPU when the cores finish it within the
/// kernels' time (`bellperson_lite::placement::b_g2_on_gpu_estimate`).
fn b_g2_threads(shared: &Shared) -> usize {
    // Read once: on Linux it consults cgroup quotas, which do not change while we run.
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    let cores = *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    cores.saturating_sub(shared.synthesizing.get()).max(1)
}

/// How a partition of `priority` shares the GPU: a CRITICAL one (a WinningPoSt, due within
/// seconds) runs beside the proof holding the compute lock instead of waiting for its kernels,
/// when the CRITICAL lane is on (`engine.critical_lane`); every other one takes the GPU in
/// turn. HIGH work (a WindowPoSt partition, as large as a PoRep one) is not urgent: two proofs
/// of that size side by side would only share the GPU, and double the VRAM in use.
fn gpu_priority(priority: Priority, critical_lane: bool) -> GpuPriority {
    if critical_lane && priority == Priority::Critical {
        GpuPriority::Urgent
    } else {
        GpuPriority::Normal
    }
}

impl GpuDevice {
    /// The matrices on this device for a partition whose products synthesis left out, or
    /// `None` after computing a, b and c on the CPU (the device cannot hold the matrices).
    fn products(
        &self,
        shared: &Shared,
        inputs: &mut PartitionInputs<'_>,
        params: &device::GpuParams,
    ) -> Result<Option<Arc<supraseal_c2::groth16::DeviceMatrices>>, PartitionError> {
        let Some(host) = &inputs.deferred_products else {
            return Ok(None);
        };
        let circuit_id = inputs.srs.circuit_id.as_str();
        if let Some(m) = self.matrices_for(circuit_id, host, params) {
            return Ok(Some(m));
        }
        if !params.device.is_resident() && shared.keep_products_on_cpu(circuit_id) {
            tracing::info!(
                circuit = circuit_id,
                device = self.info.ordinal,
                "this GPU streams the parameters and cannot evaluate the matrices within its \
                 budget: the next partitions of this circuit compute a, b and c in synthesis"
            );
        }
        // The products the reservation was not made for: counted once they fit, waited for a
        // while (finalizers free bytes as proofs end), then made over the budget rather than
        // stalling the device.
        let bytes =
            (3 * host.num_constraints() * std::mem::size_of::<bellperson_lite::Scalar>()) as u64;
        if !inputs.reservation.grow_within(bytes, CPU_PRODUCTS_PATIENCE) {
            tracing::warn!(
                circuit = circuit_id,
                device = self.info.ordinal,
                bytes,
                "computing a, b and c on the CPU goes over the RAM budget for this partition \
                 (the bytes were not freed within {} s)",
                CPU_PRODUCTS_PATIENCE.as_secs()
            );
        }
        host.fill_products(&mut inputs.assignment)
            .map_err(|e| PartitionError::Prover {
                stage: "computing a, b and c",
                source: e.into(),
            })?;
        Ok(None)
    }

    /// The GPU half on `inputs`, with `matrices` when a, b and c are evaluated on the device.
    fn gpu_half(
        &self,
        shared: &Shared,
        inputs: PartitionInputs<'_>,
        params: &device::GpuParams,
        matrices: Option<&supraseal_c2::groth16::DeviceMatrices>,
    ) -> Result<GpuPending<Parameters>, ProverError> {
        if self.take_injected_fault() {
            return Err(ProverError::Gpu(CudaError::Cuda(
                "injected fault (Engine::inject_gpu_faults)".into(),
            )));
        }
        let b_g2 = match params.b_g2 {
            G2Placement::Auto => G2Placement::AutoWithThreads(b_g2_threads(shared)),
            placement => placement,
        };
        let priority = gpu_priority(inputs.item.job.priority, shared.config.engine.critical_lane);
        let target = GpuTarget::new(&params.device)
            .locks(&self.locks)
            .b_g2(b_g2)
            .matrices(matrices)
            .priority(priority)
            .splits(self.scalar_splits);
        prove_start(
            target,
            vec![inputs.assignment],
            &params.params,
            &[inputs.r],
            &[inputs.s],
        )
    }
}

/// A worker's partition in the device's status while its GPU half runs, cleared also when the
/// GPU half panics.
struct Held<'a> {
    device: &'a GpuDevice,
    worker: usize,
}

impl<'a> Held<'a> {
    fn new(device: &'a GpuDevice, worker: usize, item: &QueuedPartition) -> Held<'a> {
        device.hold(
            worker,
            Some((item.job.id.to_string(), item.job.kind.clone())),
        );
        Held { device, worker }
    }
}

impl Drop for Held<'_> {
    fn drop(&mut self) {
        self.device.hold(self.worker, None);
    }
}

/// A proof whose GPU half is done, on its way to a finalizer.
struct GpuPendingProof {
    pending: GpuPending<Parameters>,
    circuit_id: String,
    ordinal: i32,
    /// The worker's lane and its GPU half's start and end: drawn in a timeline once the
    /// proof's phase timings are known.
    gpu_half: (Lane, Instant, Instant),
}

impl PendingProof for GpuPendingProof {
    fn finish(
        self: Box<Self>,
        shared: &Shared,
        item: &QueuedPartition,
    ) -> Result<Finished, PartitionError> {
        let stage = "finishing the proof";
        let (mut proofs, timings, release) = self
            .pending
            .finish_before_release()
            .map_err(|source| PartitionError::Prover { stage, source })?;
        item.job
            .add_timings(|t| t.gpu.add(&GpuPhases::of(&timings)));
        if timings.chunk_points > 0 {
            // Once per circuit id and process: the operator learns why this card's proofs are
            // slower than its kernels would make them.
            static SEEN: parking_lot::Mutex<Vec<(String, i32)>> =
                parking_lot::Mutex::new(Vec::new());
            let key = (self.circuit_id.clone(), self.ordinal);
            let mut seen = SEEN.lock();
            if !seen.contains(&key) {
                seen.push(key);
                tracing::info!(
                    circuit = self.circuit_id.as_str(),
                    device = self.ordinal,
                    chunk_points = timings.chunk_points,
                    "proofs of this circuit take the bounded-VRAM plan on this GPU: its budget \
                     cannot hold a whole working set, so the parameters stream in chunks"
                );
            }
        }
        // Recorded before the proof is delivered: once its last proof is delivered, a job's
        // caller may take the timeline.
        shared.with_timeline(|r| {
            let (lane, started, ended) = self.gpu_half;
            let key = (item.job.id.0.as_str(), item.index);
            r.record_gpu_half(
                (lane, Lane::Gpu(self.ordinal)),
                key,
                (started, ended),
                &timings,
            );
        });
        match proofs.len() {
            1 => Ok(Finished {
                proof: proofs.remove(0),
                release: Some(release),
            }),
            count => {
                release.wait();
                Err(PartitionError::ProofCount { stage, count })
            }
        }
    }
}

impl ProvingBackend for GpuDevice {
    fn name(&self) -> String {
        format!("gpu{}", self.info.ordinal)
    }

    fn workers(&self) -> usize {
        self.workers
    }

    fn lane(&self, worker: usize) -> Lane {
        Lane::GpuWorker {
            device: self.info.ordinal,
            worker,
        }
    }

    fn phase(&self) -> &'static str {
        "gpu"
    }

    fn evaluates_products(&self) -> bool {
        true
    }

    fn start(
        &self,
        shared: &Shared,
        worker: usize,
        mut inputs: PartitionInputs<'_>,
    ) -> Result<Started, PartitionError> {
        let started = Instant::now();
        let item = inputs.item;
        let params = self.params_for(inputs.srs)?;
        let matrices = self.products(shared, &mut inputs, &params)?;
        let circuit_id = inputs.srs.circuit_id.clone();
        let gpu_half = {
            let _held = Held::new(self, worker, item);
            self.gpu_half(shared, inputs, &params, matrices.as_deref())
        };
        let pending = gpu_half.map_err(|e| PartitionError::from_gpu(self.info.ordinal, e))?;
        Ok(Started::Pending(Box::new(GpuPendingProof {
            pending,
            circuit_id,
            ordinal: self.info.ordinal,
            gpu_half: (self.lane(worker), started, Instant::now()),
        })))
    }

    fn ordinal(&self) -> Option<u32> {
        Some(self.info.ordinal as u32)
    }

    fn device_status(&self, uptime: Duration) -> Option<GpuStatus> {
        let now = supraseal_c2::device::device_info(self.info.ordinal).ok();
        Some(GpuStatus {
            ordinal: self.info.ordinal as u32,
            name: self.info.name.clone(),
            vram_total_bytes: self.info.total_bytes as u64,
            vram_free_bytes: now.map_or(0, |i| i.free_bytes as u64),
            busy_fraction: self.busy_fraction(uptime.as_nanos() as u64),
            out_of_rotation: false,
            in_hand: self.in_hand(),
            parameters: self.held_params(),
        })
    }

    fn busy_ns(&self) -> u64 {
        self.compute_busy_ns()
    }

    fn parameters(&self) -> Vec<DeviceSrsStatus> {
        self.held_params()
    }

    fn evict(&self, circuit_id: &str) {
        self.drop_copies(circuit_id)
    }

    fn inject_faults(&self, count: u32) -> bool {
        self.fail_next(count);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_critical_work_is_urgent_and_only_with_the_lane() {
        assert_eq!(gpu_priority(Priority::Critical, true), GpuPriority::Urgent);
        assert_eq!(gpu_priority(Priority::Critical, false), GpuPriority::Normal);
        for p in [Priority::High, Priority::Normal, Priority::Low] {
            assert_eq!(gpu_priority(p, true), GpuPriority::Normal, "{p:?}");
        }
    }
}
