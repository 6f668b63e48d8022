//! The synthesis threads: a partition's parameters, its RAM reservation and its assignment.
//!
//! ```text
//!  PartitionQueue --pop--> synthesis thread --(priority hand-off)--> provers (crate::proving)
//!     (priority)           SRS, RAM reservation,
//!                          synthesize
//! ```
//!
//! The hand-off between synthesis and provers (`handoff`) holds at most one partition per
//! prover and gives them out by priority, so synthesized partitions never pile up beyond what
//! the RAM budget admitted and the provers can take at once. Every stage checks whether the
//! partition's job has ended (cancelled, or failed elsewhere) before spending work on it.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;
use std::time::Instant;

use bellpepper_core::SynthesisError;
use bellperson_lite::matrices::ConstraintMatrices;
use bellperson_lite::prover::batch_randomness;
use bellperson_lite::synthesis::ProvingAssignment;
use bellperson_lite::Scalar;

use crate::budget::Reservation;
use crate::config::SynthesisPath;
use crate::handoff::HandOffSender;
use crate::job::Priority;
use crate::kind::{assignment_bytes, Partition};
use crate::panics::panic_message;
use crate::partition_error::PartitionError;
use crate::scheduler::QueuedPartition;
use crate::shared::Shared;
use crate::srs::LoadedSrs;
use crate::timeline::{Lane, Phase};

/// A partition between synthesis and a prover.
pub(crate) struct SynthesizedPartition {
    pub item: QueuedPartition,
    pub srs: Arc<LoadedSrs>,
    pub assignment: ProvingAssignment,
    /// The matrices whose products a, b and c were left out of `assignment` for the GPU to
    /// evaluate (`Shared::products_on_gpu`); a prover without them on its device computes
    /// them from these.
    pub deferred_products: Option<Arc<ConstraintMatrices>>,
    pub r: Scalar,
    pub s: Scalar,
    /// Held until the prover no longer needs the assignment.
    pub reservation: Reservation,
}

/// A synthesis thread (`index`: its lane in a timeline): takes partitions of at least
/// priority `takes` (CRITICAL for the CRITICAL lane's thread), highest first, until the queue
/// closes.
pub(crate) fn synthesis_loop(
    shared: Arc<Shared>,
    provers: HandOffSender<SynthesizedPartition>,
    index: usize,
    takes: Priority,
) {
    while let Some(item) = shared.queue.pop_at_least(takes) {
        let job = Arc::clone(&item.job);
        let _span = item.span().entered();
        job.mark_running();
        let synthesized = shared.on_priority_pool(job.priority, || {
            synthesize_partition(&shared, &item, Lane::Synthesis(index))
        });
        match synthesized {
            Ok(Some(ready)) => {
                let ready = ready.with(item);
                let priority = ready.item.job.priority;
                if provers.send(ready, priority).is_err() {
                    return; // the provers are gone: shutting down
                }
            }
            Ok(None) => {}
            Err(error) => shared.partition_failed(item, error),
        }
    }
}

/// A synthesized partition before it is joined to its queue entry
/// ([`Synthesis::with`]).
struct Synthesis {
    srs: Arc<LoadedSrs>,
    assignment: ProvingAssignment,
    deferred_products: Option<Arc<ConstraintMatrices>>,
    r: Scalar,
    s: Scalar,
    reservation: Reservation,
}

impl Synthesis {
    fn with(self, item: QueuedPartition) -> SynthesizedPartition {
        SynthesizedPartition {
            item,
            srs: self.srs,
            assignment: self.assignment,
            deferred_products: self.deferred_products,
            r: self.r,
            s: self.s,
            reservation: self.reservation,
        }
    }
}

/// `Ok(None)`: nothing to do (the job ended meanwhile, or shutdown).
fn synthesize_partition(
    shared: &Arc<Shared>,
    item: &QueuedPartition,
    lane: Lane,
) -> Result<Option<Synthesis>, PartitionError> {
    let job = &item.job;
    let partition = &job.partitions[item.index];
    let matrix_path = match shared.config.engine.synthesis {
        SynthesisPath::Matrices => partition.matrix_path(),
        SynthesisPath::Full => None,
    };
    if let Some(path) = matrix_path {
        // Before the parameters load: the recording needs only the circuit.
        shared.record_matrices_ahead(&job.circuit_id, path);
    }
    let (srs, load_time) = shared.srs.get(&job.circuit_id)?;
    job.add_timings(|t| t.srs_load += load_time);

    let witness_only = shared.products_left_to_gpu(&job.circuit_id) && matrix_path.is_some();
    // Measured apart: a circuit whose products moved to synthesis holds three more vectors.
    let measured_as = if witness_only {
        job.circuit_id.clone()
    } else {
        format!("{} (with a, b and c)", job.circuit_id)
    };
    // Asked again while waiting: a partition that began waiting before the first of its
    // circuit was measured is admitted by that measurement, not after the first is proved.
    let estimate = || {
        partition
            .working_set_hint
            .or_else(|| shared.seen_working_set(&measured_as))
            .unwrap_or_else(|| working_set_bound(&srs.params, witness_only))
    };
    let reserved = if job.priority == Priority::Critical {
        shared.budget.reserve_critical_with(estimate)
    } else {
        shared.budget.reserve_with(estimate)
    };
    let Some(mut reservation) = reserved else {
        return Ok(None);
    };
    if job.is_final() {
        return Ok(None);
    }

    let started = Instant::now();
    let synthesized = {
        let _counted = shared.synthesizing.enter();
        catch_unwind(AssertUnwindSafe(|| {
            synthesize_with(shared, &job.circuit_id, partition, witness_only)
        }))
    };
    let (assignment, deferred_products) = match synthesized {
        Ok(result) => result?,
        Err(panic) => {
            return Err(PartitionError::Panicked {
                stage: "synthesis",
                message: panic_message(&panic),
            })
        }
    };
    shared.trace(lane, Phase::Synthesis, item, started, Instant::now());
    let took = started.elapsed();
    job.add_timings(|t| t.synthesis += took);
    shared.metrics.phase("synthesis", took);

    let bytes = assignment_bytes(&assignment);
    shared.learn_working_set(&measured_as, bytes);
    reservation.shrink_to(bytes);

    let (r, s) = batch_randomness(1, &mut rand::rngs::OsRng);
    Ok(Some(Synthesis {
        srs,
        assignment,
        deferred_products,
        r: r[0],
        s: s[0],
        reservation,
    }))
}

/// The most a partition proved with `params` can hold once synthesized, before any has been
/// measured: its witness (one scalar per variable) and, unless the products are left to the
/// GPU, a, b and c for at most the domain's constraints. Known from the parameters, so the
/// first partitions of a new circuit id synthesize side by side instead of one at a time
/// while its matrices are recorded (minutes at 32 GiB). Should one fall back to a full
/// synthesis, its a, b and c go past the estimate until it is measured.
fn working_set_bound(params: &bellperson_lite::Parameters, witness_only: bool) -> u64 {
    let variables = (params.vk.ic.len() + params.l.len()) as u64;
    let domain = (params.h.len() as u64 + 1).next_power_of_two();
    let products = if witness_only { 0 } else { 3 * domain };
    // Three density bitmaps of at most one bit per variable.
    (variables + products) * 32 + (3 * variables).div_ceil(8)
}

/// A partition's assignment: through its circuit id's matrices when the configuration and the
/// partition allow it (recorded on first use), else, or if that path fails, in full. With
/// the products left to the GPU (`defer`), the assignment has no a, b and c, and the
/// matrices come with it.
fn synthesize_with(
    shared: &Shared,
    circuit_id: &str,
    partition: &Partition,
    defer: bool,
) -> Result<(ProvingAssignment, Option<Arc<ConstraintMatrices>>), SynthesisError> {
    if shared.config.engine.synthesis == SynthesisPath::Matrices {
        if let Some(path) = partition.matrix_path() {
            // The witness first: while a new circuit id's matrices are recorded (minutes at
            // 32 GiB, `Shared::record_matrices_ahead`), its partitions compute their
            // witnesses instead of waiting for the matrices to start them.
            let witness = shared
                .native_witnesses
                .witness(circuit_id, path, &shared.metrics)?;
            match shared.matrices_for(circuit_id, path) {
                Ok(matrices) => match if defer {
                    matrices.witness_assignment(witness)
                } else {
                    matrices.assignment(witness)
                } {
                    Ok(a) => return Ok((a, defer.then_some(matrices))),
                    Err(e) => tracing::warn!(
                        circuit = circuit_id,
                        "the recorded matrices do not fit this partition ({e}); synthesizing it in full"
                    ),
                },
                Err(e) => tracing::warn!(
                    circuit = circuit_id,
                    "no constraint matrices ({e}); synthesizing in full"
                ),
            }
        }
    }
    Ok((partition.synthesize()?, None))
}

#[cfg(test)]
mod tests {
    use super::working_set_bound;
    use crate::kind::{assignment_bytes, Partition};
    use bellperson_lite::circuits::ShaCircuit;
    use bellperson_lite::generator::generate_random_parameters;
    use rand::SeedableRng;

    #[test]
    fn working_set_bound_covers_what_synthesis_measures() {
        let circuit = ShaCircuit::new(10, 1);
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(3);
        let params = generate_random_parameters(circuit.clone(), &mut rng).unwrap();
        let partition = Partition::from_circuit(circuit.clone(), vec![circuit.public_input()]);

        let full = assignment_bytes(&partition.synthesize().unwrap());
        let witness_only = {
            let mut a = partition.synthesize().unwrap();
            a.a.clear();
            a.b.clear();
            a.c.clear();
            assignment_bytes(&a)
        };
        let (full_bound, witness_bound) = (
            working_set_bound(&params, false),
            working_set_bound(&params, true),
        );
        assert!(full_bound >= full, "{full_bound} < {full}");
        assert!(
            witness_bound >= witness_only,
            "{witness_bound} < {witness_only}"
        );
        // Bounds, not guesses: within the domain's rounding of what is measured.
        assert!(full_bound < 2 * full, "{full_bound} vs {full}");
        assert!(
            witness_bound < full,
            "witness only is {witness_bound}, full {full}"
        );
    }
}
