//! The GPU side of the engine's threads (feature `cuda`): the workers and the finalizers.
//!
//! Each device ([`GpuDevice`]) has `gpus.gpu_workers_per_device` worker threads sharing its
//! locks. A worker takes a synthesized partition, runs the GPU half of the proof
//! ([`gpu_prove_start`]: uploads under the memory lock, kernels under the compute lock), hands
//! the pending proof to a finalizer and takes its next partition at once; a finalizer waits
//! for B in G2, assembles the proof and self-checks it.
//!
//! Every device's workers take partitions from one channel, so work spreads over the devices
//! by who is free. When a device is taken out of rotation its workers put back what they
//! hold (synthesized again and proved elsewhere, without using up the partition's one retry)
//! and stop. With no other GPU to go to, the last device's faults count against the
//! partitions as on a one-GPU host (one retry, then the job fails).

use std::sync::Arc;
use std::time::{Duration, Instant};

use bellperson_lite::gpu::{GpuPending, Priority as GpuPriority};
use bellperson_lite::{Parameters, ProverError};
use crossbeam_channel::{Receiver, Sender};
use supraseal_c2::CudaError;

use crate::budget::Reservation;
use crate::gpu_device::{GpuDevice, FAULTS_TO_RETIRE};
use crate::gpu_phases::GpuPhases;
use crate::gpu_prover::{prove_start, StartOn};
use crate::handoff::HandOffReceiver;
use crate::job::Priority;
use crate::panics::panic_message;
use crate::partition_error::PartitionError;
use crate::scheduler::QueuedPartition;
use crate::shared::Shared;
use crate::srs::LoadedSrs;
use crate::timeline::{Lane, Phase};
use crate::workers::{deliver, partition_span, SynthesizedPartition};

/// How long a worker whose device refused a circuit's matrices waits for the RAM its CPU
/// products need before making them over the budget.
const CPU_PRODUCTS_PATIENCE: Duration = Duration::from_secs(10);

/// A proof whose GPU half is done, on its way to a finalizer.
pub(crate) struct PendingPartition {
    item: QueuedPartition,
    srs: Arc<LoadedSrs>,
    pending: GpuPending<Parameters>,
    /// Released once B in G2 (which still reads the assignment) is done.
    reservation: Reservation,
    /// The GPU worker's lane and its GPU half's start and end: the finalizer draws that half
    /// in a timeline once the proof's phase timings are known.
    gpu_half: (Lane, i32, Instant, Instant),
}

/// The CPU threads B's G2 sum would get if placed on the CPU now: the machine's, less one per
/// partition in synthesis (at least one). Under load (many proofs in flight) the "auto"
/// placement then moves it to the GPU, where it does not compete with synthesis for cores;
/// for a proof on an idle host it stays on the CPU, hidden behind the kernels.
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

/// A GPU half's error as the partition's: kernel and driver errors count against the
/// device, a proof the library refuses as asked is not retried (e.g. more VRAM than the
/// device's budget can ever hold: trying again would synthesize every partition first, then
/// fail the same way), other library errors (memory that other work holds) are retried, and
/// the rest is the partition's own (constraints not satisfied, wrong lengths).
fn gpu_error(ordinal: i32, e: ProverError) -> PartitionError {
    match e {
        ProverError::Gpu(CudaError::Cuda(_)) => PartitionError::DeviceFault { ordinal, source: e },
        ProverError::Gpu(CudaError::InvalidArgument(_)) => {
            PartitionError::Refused { ordinal, source: e }
        }
        ProverError::Gpu(_) => PartitionError::DeviceTransient { ordinal, source: e },
        source => PartitionError::Prover {
            stage: "the GPU half",
            source,
        },
    }
}

/// A GPU worker (number `worker` of its device): the GPU half of each partition, then on to
/// the finalizers, until the channel closes or the device is out of rotation.
pub(crate) fn gpu_worker_loop(
    shared: Arc<Shared>,
    device: Arc<GpuDevice>,
    worker: usize,
    partitions: HandOffReceiver<SynthesizedPartition>,
    finalizers: Sender<PendingPartition>,
) {
    for ready in partitions {
        if device.is_retired() {
            // Not this device's any more: synthesized again, proved elsewhere.
            shared.queue.push_back(ready.item);
            return;
        }
        let SynthesizedPartition {
            item,
            srs,
            mut assignment,
            deferred_products,
            r,
            s,
            mut reservation,
        } = ready;
        if item.job.is_final() {
            continue;
        }
        let _span = partition_span(&item).entered();
        let params = match device.params_for(&srs) {
            Ok(p) => p,
            Err(error) => {
                shared.partition_failed(item, error);
                continue;
            }
        };
        let started = Instant::now();
        let on_device = match &deferred_products {
            Some(host) => match device.matrices_for(&srs.circuit_id, host, &params) {
                Some(m) => Some(m),
                None => {
                    if !params.device.is_resident() && shared.keep_products_on_cpu(&srs.circuit_id)
                    {
                        tracing::info!(
                            circuit = srs.circuit_id.as_str(),
                            device = device.info.ordinal,
                            "this GPU streams the parameters and cannot evaluate the matrices \
                             within its budget: the next partitions of this circuit compute a, b \
                             and c in synthesis"
                        );
                    }
                    // The products the reservation was not made for: counted once they fit,
                    // waited for a while (finalizers free bytes as proofs end), then made
                    // over the budget rather than stalling the device.
                    let bytes = (3
                        * host.num_constraints()
                        * std::mem::size_of::<bellperson_lite::Scalar>())
                        as u64;
                    if !reservation.grow_within(bytes, CPU_PRODUCTS_PATIENCE) {
                        tracing::warn!(
                            circuit = srs.circuit_id.as_str(),
                            device = device.info.ordinal,
                            bytes,
                            "computing a, b and c on the CPU goes over the RAM budget for this \
                             partition (the bytes were not freed within {} s)",
                            CPU_PRODUCTS_PATIENCE.as_secs()
                        );
                    }
                    if let Err(e) = host.fill_products(&mut assignment) {
                        let error = PartitionError::Prover {
                            stage: "computing a, b and c",
                            source: e.into(),
                        };
                        shared.partition_failed(item, error);
                        continue;
                    }
                    None
                }
            },
            None => None,
        };
        device.hold(
            worker,
            Some((item.job.id.to_string(), item.job.kind.clone())),
        );
        let priority = item.job.priority;
        let started_proof = shared.on_priority_pool(priority, || {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                if device.take_injected_fault() {
                    return Err(ProverError::Gpu(CudaError::Cuda(
                        "injected fault (Engine::inject_gpu_faults)".into(),
                    )));
                }
                let on = StartOn {
                    params: &params,
                    locks: &device.locks,
                    b_g2_threads: b_g2_threads(&shared),
                    matrices: on_device.as_deref(),
                    priority: gpu_priority(priority, shared.config.engine.critical_lane),
                };
                prove_start(on, assignment, r, s)
            }))
        });
        device.hold(worker, None);
        let took = started.elapsed();
        item.job.add_timings(|t| t.prove += took);
        shared.metrics.phase("gpu", took);
        let pending = match started_proof {
            Ok(Ok(p)) => {
                device.clear_faults();
                p
            }
            Ok(Err(e)) => {
                let error = gpu_error(device.info.ordinal, e);
                if error.counts_against_device() && device.fault() {
                    tracing::error!(
                        "GPU {} taken out of rotation after {FAULTS_TO_RETIRE} faults in a row \
                         (the last: partition {}: {error}); its work goes to the other provers",
                        device.info.ordinal,
                        item.index
                    );
                }
                if matches!(error, PartitionError::DeviceFault { .. }) && device.is_retired() {
                    // The device is to blame (this fault retired it, or it was retired while
                    // this proof ran), not the partition: no retry is used up.
                    shared.queue.push_back(item);
                    return;
                }
                shared.partition_failed(item, error);
                continue;
            }
            Err(panic) => {
                let error = PartitionError::Panicked {
                    stage: "the GPU worker",
                    message: panic_message(&panic),
                };
                shared.partition_failed(item, error);
                continue;
            }
        };
        let lane = Lane::GpuWorker {
            device: device.info.ordinal,
            worker,
        };
        let handed = finalizers.send(PendingPartition {
            item,
            srs,
            pending,
            reservation,
            gpu_half: (lane, device.info.ordinal, started, Instant::now()),
        });
        if handed.is_err() {
            return; // the finalizers are gone: shutting down
        }
    }
}

/// A finalizer (`index`: its lane in a timeline): B in G2, assembly, self-check.
pub(crate) fn finalizer_loop(
    shared: Arc<Shared>,
    pending: Receiver<PendingPartition>,
    index: usize,
) {
    for p in pending {
        let PendingPartition {
            item,
            srs,
            pending,
            reservation,
            gpu_half,
        } = p;
        let _span = partition_span(&item).entered();
        let started = Instant::now();
        let finished = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| pending.finish()));
        drop(reservation);
        let took = started.elapsed();
        item.job.add_timings(|t| t.finalize += took);
        shared.metrics.phase("finalize", took);
        // Traced before delivering: once its last proof is delivered, a job's caller may take
        // the timeline.
        if let Ok(Ok((_, timings))) = &finished {
            item.job.add_timings(|t| t.gpu.add(&GpuPhases::of(timings)));
            let (lane, ordinal, started, ended) = gpu_half;
            if timings.chunk_points > 0 {
                // Once per circuit id and process: the operator learns why this card's
                // proofs are slower than its kernels would make them.
                static SEEN: parking_lot::Mutex<Vec<(String, i32)>> =
                    parking_lot::Mutex::new(Vec::new());
                let key = (srs.circuit_id.clone(), ordinal);
                let mut seen = SEEN.lock();
                if !seen.contains(&key) {
                    seen.push(key);
                    tracing::info!(
                        circuit = srs.circuit_id.as_str(),
                        device = ordinal,
                        chunk_points = timings.chunk_points,
                        "proofs of this circuit take the bounded-VRAM plan on this GPU: its budget \
                         cannot hold a whole working set, so the parameters stream in chunks"
                    );
                }
            }
            shared.with_timeline(|r| {
                let key = (item.job.id.0.as_str(), item.index);
                r.record_gpu_half((lane, Lane::Gpu(ordinal)), key, (started, ended), timings);
            });
        }
        let lane = Lane::Finalizer(index);
        shared.trace(lane, Phase::Finish, &item, started, Instant::now());
        deliver(&shared, item, &srs, "finishing the proof", finished);
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
