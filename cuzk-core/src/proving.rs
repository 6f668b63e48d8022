//! The prover threads, for any backend: workers run a partition's start half, finalizers its
//! finish half, and whichever ends the proof self-checks it.
//!
//! ```text
//!  hand-off --(priority)--> worker: backend.start --> finalizer: pending.finish --> self-check --> job
//!                           (a fault may take the       (B in G2, assembly)        retry once
//!                            backend out of rotation)                              on failure
//!                                  \-- a whole proof (CPU) ----------------------> self-check
//! ```
//!
//! Each backend has `workers()` worker threads (one more with the CRITICAL lane, taking only
//! CRITICAL partitions), all backends' workers taking partitions from one hand-off, so work
//! spreads over the backends by who is free. A worker hands the pending proof to a finalizer
//! and takes its next partition at once. When a backend is taken out of rotation its workers
//! put back what they hold (synthesized again and proved elsewhere, without using up the
//! partition's one retry) and stop.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;
use std::time::Instant;

use bellperson_lite::verifier::verify_proof;
use bellperson_lite::Proof;
use crossbeam_channel::{Receiver, Sender};

use crate::backend::{Backend, Finished, PartitionInputs, PendingProof, Started, FAULTS_TO_RETIRE};
use crate::budget::Reservation;
use crate::handoff::HandOffReceiver;
use crate::panics::panic_message;
use crate::partition_error::PartitionError;
use crate::scheduler::QueuedPartition;
use crate::shared::Shared;
use crate::srs::LoadedSrs;
use crate::synthesis::SynthesizedPartition;
use crate::timeline::{Lane, Phase};

/// A proof whose start half is done, on its way to a finalizer.
pub(crate) struct PendingPartition {
    item: QueuedPartition,
    srs: Arc<LoadedSrs>,
    pending: Box<dyn PendingProof>,
    /// Released once the proof is finished (B in G2 may still read the assignment).
    reservation: Reservation,
}

/// A worker (number `worker` of `backend`): the start half of each partition, then on to the
/// finalizers, until the hand-off closes or the backend is out of rotation.
pub(crate) fn worker_loop(
    shared: Arc<Shared>,
    backend: Arc<Backend>,
    worker: usize,
    partitions: HandOffReceiver<SynthesizedPartition>,
    finalizers: Sender<PendingPartition>,
) {
    for ready in partitions {
        if backend.rotation.is_retired() {
            // Not this backend's any more: synthesized again, proved elsewhere.
            shared.queue.push_back(ready.item);
            return;
        }
        let SynthesizedPartition {
            item,
            srs,
            assignment,
            deferred_products,
            r,
            s,
            mut reservation,
        } = ready;
        if item.job.is_final() {
            continue;
        }
        let _span = item.span().entered();
        let started = Instant::now();
        let inputs = PartitionInputs {
            item: &item,
            srs: &srs,
            assignment,
            deferred_products,
            r,
            s,
            reservation: &mut reservation,
        };
        let prover = &backend.prover;
        let outcome = shared.on_priority_pool(item.job.priority, || {
            catch_unwind(AssertUnwindSafe(|| prover.start(&shared, worker, inputs)))
        });
        let took = started.elapsed();
        item.job.add_timings(|t| t.prove += took);
        shared.metrics.phase(prover.phase(), took);
        let error = match outcome {
            Ok(Ok(Started::Proof(proof))) => {
                backend.rotation.clear_faults();
                drop(reservation); // the assignment was consumed by the prover
                finish_partition(&shared, item, &srs, *proof);
                continue;
            }
            Ok(Ok(Started::Pending(pending))) => {
                backend.rotation.clear_faults();
                let handed = finalizers.send(PendingPartition {
                    item,
                    srs,
                    pending,
                    reservation,
                });
                if handed.is_err() {
                    return; // the finalizers are gone: shutting down
                }
                continue;
            }
            Ok(Err(error)) => error,
            Err(panic) => PartitionError::Panicked {
                stage: "the prover",
                message: panic_message(&panic),
            },
        };
        if error.counts_against_device() && backend.rotation.fault() {
            tracing::error!(
                "{} taken out of rotation after {FAULTS_TO_RETIRE} faults in a row (the last: \
                 partition {}: {error}); its work goes to the other provers",
                prover.name(),
                item.index
            );
        }
        if error.counts_against_device() && backend.rotation.is_retired() {
            // The backend is to blame (this fault retired it, or it was retired while this
            // proof ran), not the partition: no retry is used up.
            shared.queue.push_back(item);
            return;
        }
        shared.partition_failed(item, error);
    }
}

/// A finalizer (`index`: its lane in a timeline): the finish half, then the self-check.
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
        } = p;
        let _span = item.span().entered();
        let started = Instant::now();
        let finished = catch_unwind(AssertUnwindSafe(|| pending.finish(&shared, &item)))
            .unwrap_or_else(|panic| {
                Err(PartitionError::Panicked {
                    stage: "finishing the proof",
                    message: panic_message(&panic),
                })
            });
        // The proof goes out first; its host buffers may still be being freed, and the RAM
        // reservation is given back once they are (below).
        let (finished, release) = match finished {
            Ok(Finished { proof, release }) => (Ok(proof), release),
            Err(error) => (Err(error), None),
        };
        let took = started.elapsed();
        item.job.add_timings(|t| t.finalize += took);
        shared.metrics.phase("finalize", took);
        shared.trace(
            Lane::Finalizer(index),
            Phase::Finish,
            &item,
            started,
            Instant::now(),
        );
        match finished {
            Ok(proof) => finish_partition(&shared, item, &srs, proof),
            Err(error) => shared.partition_failed(item, error),
        }
        if let Some(release) = release {
            release.wait();
        }
        drop(reservation);
    }
}

/// The self-check, then the proof into its job's slot; a proof that does not verify is
/// proved again once (its partition goes back to the queue in its original place).
fn finish_partition(shared: &Shared, item: QueuedPartition, srs: &LoadedSrs, proof: Proof) {
    let job = Arc::clone(&item.job);
    if shared.config.engine.self_check {
        let started = Instant::now();
        let public_inputs = &job.partitions[item.index].public_inputs;
        let verified = verify_proof(&srs.pvk, &proof, public_inputs);
        let took = started.elapsed();
        job.add_timings(|t| t.verify += took);
        shared.metrics.phase("verify", took);
        match verified {
            Ok(true) => {}
            Ok(false) => {
                shared.metrics.self_check_failed();
                return shared.partition_failed(item, PartitionError::SelfCheck);
            }
            Err(e) => {
                return shared.partition_failed(item, PartitionError::SelfCheckUnrunnable(e));
            }
        }
    }
    job.deliver(item.index, proof, |result| shared.ended(&job, result));
}
