//! A fake device for tests of the engine's fault handling (feature `fake-backend`; never for
//! production): it proves on the CPU, as the CPU backend does, and fails on demand the way a
//! GPU can, following a script of [`Fault`]s.
//!
//! ```ignore
//! let devices = [FakeDevice::new(0, 1), FakeDevice::new(1, 1)];
//! let engine = Engine::start_with_fakes(config, &devices)?;
//! devices[0].fail_next(Fault::DeviceFault, u32::MAX); // device 0 fails from now on
//! ```

use std::collections::{BTreeSet, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use bellperson_lite::{Proof, ProverError};
use parking_lot::Mutex;
use supraseal_c2::CudaError;

use super::cpu::prove_traced;
use super::{
    DeviceSrsStatus, Finished, GpuStatus, PartitionInputs, PendingProof, ProvingBackend, Started,
};
use crate::partition_error::PartitionError;
use crate::scheduler::QueuedPartition;
use crate::shared::Shared;
use crate::timeline::Lane;

/// How a fake device fails a proof.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// A kernel or driver error in the start half: retried, counted against the device.
    DeviceFault,
    /// The device short of memory for now: retried, not counted against it.
    Transient,
    /// The library refuses the request as made: the job fails.
    Refused,
    /// The start half panics.
    Panic,
    /// The finish half (B in G2, the assembly) fails.
    FinishError,
    /// A proof comes back that does not verify: the self-check catches it.
    WrongProof,
}

/// A fake device; see the module doc.
pub struct FakeDevice {
    ordinal: u32,
    workers: usize,
    /// The faults to come, in order, each with the number of proofs it fails.
    script: Mutex<VecDeque<(Fault, u32)>>,
    /// Start halves that did not fail.
    started: AtomicU64,
    /// How long each start half takes at least (a stand-in for kernels, so that tests can
    /// hold a device busy).
    start_time: Mutex<Duration>,
    /// The circuit ids whose parameter sets it holds: taken when a partition of the circuit
    /// first reaches it and dropped on eviction, as a GPU puts a set on the device and drops
    /// it, so that tests see the status a GPU gives.
    circuits: Mutex<BTreeSet<String>>,
}

impl FakeDevice {
    /// Device `ordinal` with `workers` workers (and one more for the CRITICAL lane when it is
    /// on), failing nothing yet.
    pub fn new(ordinal: u32, workers: usize) -> Arc<FakeDevice> {
        Arc::new(FakeDevice {
            ordinal,
            workers,
            script: Mutex::default(),
            started: AtomicU64::new(0),
            start_time: Mutex::new(Duration::ZERO),
            circuits: Mutex::default(),
        })
    }

    /// Fails the next `count` proofs that reach this device with `fault`, after the faults
    /// already scripted (`u32::MAX`: from then on).
    pub fn fail_next(&self, fault: Fault, count: u32) {
        if count > 0 {
            self.script.lock().push_back((fault, count));
        }
    }

    /// Forgets the faults still scripted.
    pub fn heal(&self) {
        self.script.lock().clear();
    }

    /// Proofs the faults still scripted will fail.
    pub fn faults_left(&self) -> u64 {
        self.script.lock().iter().map(|(_, n)| u64::from(*n)).sum()
    }

    /// Start halves that did not fail so far.
    pub fn started(&self) -> u64 {
        self.started.load(Ordering::Relaxed)
    }

    /// Makes every start half take at least `time`.
    pub fn set_start_time(&self, time: Duration) {
        *self.start_time.lock() = time;
    }

    /// The next scripted fault, used up.
    fn take_fault(&self) -> Option<Fault> {
        let mut script = self.script.lock();
        let (fault, left) = script.front_mut()?;
        let fault = *fault;
        *left -= 1;
        if *left == 0 {
            script.pop_front();
        }
        Some(fault)
    }
}

/// A fake proof on its way to a finalizer.
struct FakePending {
    proof: Proof,
    fail_finish: Option<ProverError>,
}

impl PendingProof for FakePending {
    fn finish(
        self: Box<Self>,
        _: &Shared,
        _: &QueuedPartition,
    ) -> Result<Finished, PartitionError> {
        match self.fail_finish {
            Some(source) => Err(PartitionError::Prover {
                stage: "finishing the proof",
                source,
            }),
            None => Ok(Finished {
                proof: self.proof,
                release: None,
            }),
        }
    }
}

impl ProvingBackend for FakeDevice {
    fn name(&self) -> String {
        format!("fake{}", self.ordinal)
    }

    fn workers(&self) -> usize {
        self.workers
    }

    fn lane(&self, worker: usize) -> Lane {
        Lane::GpuWorker {
            device: self.ordinal as i32,
            worker,
        }
    }

    fn phase(&self) -> &'static str {
        "gpu"
    }

    fn start(
        &self,
        shared: &Shared,
        worker: usize,
        inputs: PartitionInputs<'_>,
    ) -> Result<Started, PartitionError> {
        let ordinal = self.ordinal as i32;
        // Before the faults, as a GPU puts the set on the device before its kernels run.
        self.circuits.lock().insert(inputs.srs.circuit_id.clone());
        let fault = self.take_fault();
        let injected = format!("fake device {}: injected fault", self.ordinal);
        // The errors a GPU half gives for these, classified as the GPU backend's are.
        let gpu_error = match fault {
            Some(Fault::DeviceFault) => Some(CudaError::Cuda(injected)),
            Some(Fault::Transient) => Some(CudaError::OutOfMemory(injected)),
            Some(Fault::Refused) => Some(CudaError::InvalidArgument(injected)),
            Some(Fault::Panic) => panic!("fake device {}: injected panic", self.ordinal),
            _ => None,
        };
        if let Some(e) = gpu_error {
            return Err(PartitionError::from_gpu(ordinal, ProverError::Gpu(e)));
        }
        let at_least = *self.start_time.lock();
        let mut proof = prove_traced(shared, self.lane(worker), inputs, at_least)?;
        if fault == Some(Fault::WrongProof) {
            proof.a = -proof.a;
        }
        self.started.fetch_add(1, Ordering::Relaxed);
        Ok(Started::Pending(Box::new(FakePending {
            proof,
            fail_finish: (fault == Some(Fault::FinishError)).then(|| {
                ProverError::WorkerPanicked(format!(
                    "fake device {}: injected finish error",
                    self.ordinal
                ))
            }),
        })))
    }

    fn ordinal(&self) -> Option<u32> {
        Some(self.ordinal)
    }

    fn device_status(&self, _uptime: Duration) -> Option<GpuStatus> {
        Some(GpuStatus {
            ordinal: self.ordinal,
            name: format!("fake device {}", self.ordinal),
            vram_total_bytes: 0,
            vram_free_bytes: 0,
            busy_fraction: 0.0,
            out_of_rotation: false,
            in_hand: Vec::new(),
            parameters: self.parameters(),
        })
    }

    /// The sets it holds. It proves with the host's copy in place: nothing is streamed per
    /// proof (resident) and no device memory is taken (0 bytes, as its VRAM is 0), without
    /// shifted copies of H's bases (1).
    fn parameters(&self) -> Vec<DeviceSrsStatus> {
        self.circuits
            .lock()
            .iter()
            .map(|circuit_id| DeviceSrsStatus {
                circuit_id: circuit_id.clone(),
                resident: true,
                h_copies: 1,
                device_bytes: 0,
            })
            .collect()
    }

    fn evict(&self, circuit_id: &str) {
        self.circuits.lock().remove(circuit_id);
    }

    fn inject_faults(&self, count: u32) -> bool {
        self.heal();
        self.fail_next(Fault::DeviceFault, count);
        true
    }
}
