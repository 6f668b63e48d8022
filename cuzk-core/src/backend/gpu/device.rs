//! The GPUs the engine uses: opening them, and what each keeps.
//!
//! A [`GpuDevice`] holds one device's [`GpuLocks`] (its memory lock, compute lock and VRAM
//! budget) and the parameter sets and constraint matrices put on it (the first time a
//! partition of their circuit reaches it, kept until the set changes or is evicted).

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bellperson_lite::gpu::{device_matrices, device_params_with, streamed_device_matrices};
use bellperson_lite::matrices::ConstraintMatrices;
use bellperson_lite::{Parameters, ProverError};
use parking_lot::Mutex;
use supraseal_c2::device::{device_count, device_info, DeviceInfo};
use supraseal_c2::groth16::{DeviceMatrices, DeviceParams, GpuLocks, Residency};

use crate::backend::DeviceSrsStatus;
use crate::config::{ByteSize, Config, G2Placement, SplitPlacement};
use crate::error::EngineError;
use crate::partition_error::PartitionError;
use crate::srs::LoadedSrs;

/// A parameter set and its query vectors on one GPU, with where B's G2 sum runs.
pub(crate) struct GpuParams {
    pub params: Arc<Parameters>,
    pub device: DeviceParams,
    pub b_g2: G2Placement,
}

impl GpuParams {
    /// Puts `params` on the GPU of `locks` (resident when they fit its budget; b_g2 too
    /// unless B's G2 sum is configured to stay on the CPU).
    fn new(
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

/// A circuit's parameters on one device, with the host set they were made from (a reloaded
/// set is a new `Arc`, and its device copy is made again).
type DeviceCopies = HashMap<String, (Arc<Parameters>, Arc<GpuParams>)>;

/// A circuit's constraint matrices on one device, with the host copy they were made from.
type DeviceMatrixCopies = HashMap<String, (Arc<ConstraintMatrices>, MatrixCopy)>;

/// A device's copy of one circuit's matrices, or when it was last refused (its products are
/// then computed on the CPU until [`MATRICES_RETRY`] has passed).
enum MatrixCopy {
    OnDevice(Arc<DeviceMatrices>),
    Refused(Instant),
}

/// How long after a refusal a device is asked again to hold a circuit's matrices.
const MATRICES_RETRY: Duration = Duration::from_secs(30);

/// One GPU in use.
pub(crate) struct GpuDevice {
    pub info: DeviceInfo,
    pub locks: GpuLocks,
    /// Its workers (`gpus.gpu_workers_per_device`) besides the CRITICAL lane's.
    pub workers: usize,
    /// Where B's G2 sum runs (`gpus.b_g2`), fixed when a parameter set is put on the device.
    b_g2: G2Placement,
    /// Where a proof's scalars are split (`gpus.scalar_splits`).
    pub scalar_splits: SplitPlacement,
    /// Parameter sets on this device, by circuit id.
    params: Mutex<DeviceCopies>,
    /// How each set in `params` is held, for the status, changed only under `params`' lock:
    /// that lock stays taken while a set is put on the device (seconds for a large one), and
    /// the status and metrics must not wait for an upload.
    params_held: Mutex<BTreeMap<String, DeviceSrsStatus>>,
    /// Constraint matrices on this device, by circuit id (`gpus.matrices_on_gpu`).
    matrices: Mutex<DeviceMatrixCopies>,
    /// The compute lock's busy time when the engine started.
    busy_at_start_ns: u64,
    /// Faults to report on the next proofs' GPU halves, instead of running them
    /// ([`crate::Engine::inject_gpu_faults`], for tests of the fault handling on a GPU).
    injected_faults: AtomicU32,
    /// The job id and kind each worker holds, by worker (for the status).
    in_hand: Mutex<Vec<Option<(String, String)>>>,
}

impl GpuDevice {
    /// This device's copy of `srs`, made on first use.
    pub fn params_for(&self, srs: &LoadedSrs) -> Result<Arc<GpuParams>, PartitionError> {
        // Held while a copy is made, so that two workers do not upload the same set twice.
        let mut cache = self.params.lock();
        if let Some((host, on_device)) = cache.get(&srs.circuit_id) {
            if Arc::ptr_eq(host, &srs.params) {
                return Ok(Arc::clone(on_device));
            }
        }
        let on_device = GpuParams::new(Arc::clone(&srs.params), &self.locks, self.b_g2)
            .map(Arc::new)
            .map_err(|source| PartitionError::DeviceParameters {
                circuit_id: srs.circuit_id.clone(),
                ordinal: self.info.ordinal,
                source,
            })?;
        let held = DeviceSrsStatus {
            circuit_id: srs.circuit_id.clone(),
            resident: on_device.device.is_resident(),
            h_copies: on_device.device.h_copies(),
            device_bytes: on_device.device.device_bytes(),
        };
        tracing::info!(
            circuit = srs.circuit_id.as_str(),
            device = self.info.ordinal,
            resident = held.resident,
            h_copies = held.h_copies,
            bytes = held.device_bytes,
            "parameters on the GPU (h_copies > 1: H's MSM runs over shifted copies of its bases)"
        );
        cache.insert(
            srs.circuit_id.clone(),
            (Arc::clone(&srs.params), Arc::clone(&on_device)),
        );
        self.params_held.lock().insert(srs.circuit_id.clone(), held);
        Ok(on_device)
    }

    /// This device's copy of `circuit_id`'s matrices, made on first use; `None` when they
    /// cannot be used on the device now (the caller computes the products on the CPU). A
    /// refusal is tried again after [`MATRICES_RETRY`]: the budget may have been full of
    /// proofs in flight, not too small. Made after the parameters, so that they do not take
    /// the VRAM that would have kept the parameters resident. Beside resident parameters the
    /// matrices are resident too; beside streamed parameters (a card whose budget cannot hold
    /// them) they are streamed from host memory by every proof, since resident they would take
    /// the room a proof's working set needs (on a 24 GiB card, a 32 GiB PoRep partition's
    /// matrices take 8.3 GiB and its a, b and c 12 GiB). Streamed matrices are refused where
    /// even the evaluation does not fit (a 16 GiB card at that size): a, b and c are then
    /// computed on the CPU.
    pub fn matrices_for(
        &self,
        circuit_id: &str,
        host: &Arc<ConstraintMatrices>,
        params: &GpuParams,
    ) -> Option<Arc<DeviceMatrices>> {
        let streamed = !params.device.is_resident();
        // Held while a copy is made, so that two workers do not upload the same matrices.
        let mut cache = self.matrices.lock();
        match cache.get(circuit_id) {
            Some((made_from, copy)) if Arc::ptr_eq(made_from, host) => match copy {
                MatrixCopy::OnDevice(m) => return Some(Arc::clone(m)),
                MatrixCopy::Refused(at) if at.elapsed() < MATRICES_RETRY => return None,
                MatrixCopy::Refused(_) => {}
            },
            _ => {}
        }
        let made = if streamed {
            streamed_device_matrices(&self.locks, Arc::clone(host), 0)
        } else {
            device_matrices(&self.locks, host)
        };
        let (copy, on_device) = match made {
            Ok(m) => {
                tracing::info!(
                    circuit = circuit_id,
                    device = self.info.ordinal,
                    bytes = m.bytes(),
                    streamed,
                    "constraint matrices on the GPU"
                );
                let m = Arc::new(m);
                (MatrixCopy::OnDevice(Arc::clone(&m)), Some(m))
            }
            Err(e) => {
                tracing::warn!(
                    circuit = circuit_id,
                    device = self.info.ordinal,
                    "constraint matrices not on this GPU (a, b and c computed on the CPU; \
                     tried again in {} s): {e}",
                    MATRICES_RETRY.as_secs()
                );
                (MatrixCopy::Refused(Instant::now()), None)
            }
        };
        cache.insert(circuit_id.to_string(), (Arc::clone(host), copy));
        on_device
    }

    /// Drops this device's copies of a parameter set and its matrices.
    pub fn drop_copies(&self, circuit_id: &str) {
        let mut params = self.params.lock();
        params.remove(circuit_id);
        self.params_held.lock().remove(circuit_id);
        drop(params);
        self.matrices.lock().remove(circuit_id);
    }

    /// The parameter sets on this device and how each is held, by circuit id.
    pub fn held_params(&self) -> Vec<DeviceSrsStatus> {
        self.params_held.lock().values().cloned().collect()
    }

    /// Nanoseconds the compute lock was held since the engine started.
    pub fn compute_busy_ns(&self) -> u64 {
        self.locks
            .info()
            .map(|i| i.compute_busy_ns.saturating_sub(self.busy_at_start_ns))
            .unwrap_or(0)
    }

    /// Makes the next `count` proofs on this device fail as a GPU fault would.
    pub fn fail_next(&self, count: u32) {
        self.injected_faults.store(count, Ordering::Relaxed);
    }

    /// Takes one injected fault, if any is left.
    pub fn take_injected_fault(&self) -> bool {
        self.injected_faults
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1))
            .is_ok()
    }

    /// (job id, kind) of the partitions its workers hold.
    pub fn in_hand(&self) -> Vec<(String, String)> {
        self.in_hand.lock().iter().flatten().cloned().collect()
    }

    /// Records what `worker` holds now (for the status).
    pub fn hold(&self, worker: usize, held: Option<(String, String)>) {
        let mut in_hand = self.in_hand.lock();
        if in_hand.len() <= worker {
            in_hand.resize(worker + 1, None);
        }
        in_hand[worker] = held;
    }

    /// The fraction of `wall_ns` the compute lock was held since the engine started.
    pub fn busy_fraction(&self, wall_ns: u64) -> f64 {
        let busy = self.compute_busy_ns();
        if wall_ns == 0 {
            0.0
        } else {
            (busy as f64 / wall_ns as f64).min(1.0)
        }
    }
}

/// The devices the configuration asks for: none with `gpus.cpu_only` or when the machine
/// has no GPU; a listed device that does not exist is an error, one that exists but fails to
/// open is left out (an error only when no device opens).
pub(crate) fn open_devices(config: &Config) -> Result<Vec<Arc<GpuDevice>>, EngineError> {
    if config.gpus.cpu_only {
        return Ok(Vec::new());
    }
    let count = device_count().map_err(|source| EngineError::Gpu {
        ordinal: None,
        source,
    })?;
    let ordinals: Vec<i32> = if config.gpus.devices.is_empty() {
        (0..count as i32).collect()
    } else {
        let mut ordinals = Vec::new();
        for &d in &config.gpus.devices {
            if d as usize >= count {
                return Err(EngineError::NoSuchGpu { listed: d, count });
            }
            ordinals.push(d as i32);
        }
        ordinals
    };
    // A GPU that cannot be opened (a driver or hardware fault) is left out with an error in
    // the log, so that it does not keep the others from working; only when none opens does
    // the engine refuse to start.
    let vram_budget = match config.gpus.vram_budget {
        ByteSize::Auto => None,
        ByteSize::Bytes(b) => Some(usize::try_from(b).unwrap_or(usize::MAX)),
    };
    let mut opened = Vec::new();
    let mut first_error = None;
    for d in ordinals {
        let gpu_error = |source| EngineError::Gpu {
            ordinal: Some(d),
            source,
        };
        let open = device_info(d)
            .map_err(gpu_error)
            .and_then(|info| Ok((info, GpuLocks::new(d, vram_budget).map_err(gpu_error)?)));
        match open {
            Ok(device) => opened.push(device),
            Err(e) => {
                tracing::error!("{e}; proving without it");
                first_error.get_or_insert(e);
            }
        }
    }
    if let (true, Some(e)) = (opened.is_empty(), first_error) {
        return Err(e);
    }
    Ok(opened
        .into_iter()
        .map(|(info, locks)| {
            let busy_at_start_ns = locks.info().map(|i| i.compute_busy_ns).unwrap_or(0);
            Arc::new(GpuDevice {
                info,
                locks,
                workers: config.gpus.gpu_workers_per_device,
                b_g2: config.gpus.b_g2,
                scalar_splits: config.gpus.scalar_splits,
                params: Mutex::default(),
                params_held: Mutex::default(),
                matrices: Mutex::default(),
                busy_at_start_ns,
                injected_faults: AtomicU32::new(0),
                in_hand: Mutex::default(),
            })
        })
        .collect())
}
