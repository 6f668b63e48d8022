//! The CPU prover as a backend: the whole proof in the start half, on the worker's thread and
//! rayon's pool (the CRITICAL pool for a CRITICAL partition).

use std::time::{Duration, Instant};

use bellperson_lite::prover::prove_from_assignments_with_timings;
use bellperson_lite::{Proof, ProverError};

use super::{PartitionInputs, ProvingBackend, Started};
use crate::config::Config;
use crate::partition_error::PartitionError;
use crate::shared::Shared;
use crate::timeline::{Lane, Phase};

/// `engine.cpu_provers` workers proving on the CPU.
pub(crate) struct CpuBackend {
    workers: usize,
}

impl CpuBackend {
    pub(crate) fn new(config: &Config) -> CpuBackend {
        CpuBackend {
            workers: config.engine.cpu_provers,
        }
    }
}

/// [`prove_on_cpu`] taking at least `at_least` (a fake device's stand-in for kernels), drawn
/// in the timeline's `lane`.
pub(super) fn prove_traced(
    shared: &Shared,
    lane: Lane,
    inputs: PartitionInputs<'_>,
    at_least: Duration,
) -> Result<Proof, PartitionError> {
    let item = inputs.item;
    let started = Instant::now();
    let proof = prove_on_cpu(inputs)?;
    if let Some(rest) = at_least.checked_sub(started.elapsed()) {
        std::thread::sleep(rest);
    }
    shared.trace(lane, Phase::Prove, item, started, Instant::now());
    Ok(proof)
}

/// One partition's proof on the CPU, a, b and c first when synthesis left them out.
fn prove_on_cpu(inputs: PartitionInputs<'_>) -> Result<Proof, PartitionError> {
    let PartitionInputs {
        srs,
        mut assignment,
        deferred_products,
        r,
        s,
        ..
    } = inputs;
    if let Some(matrices) = deferred_products {
        matrices
            .fill_products(&mut assignment)
            .map_err(|e| PartitionError::Prover {
                stage: "computing a, b and c",
                source: ProverError::from(e),
            })?;
    }
    let (mut proofs, _) =
        prove_from_assignments_with_timings(vec![assignment], srs.params.as_ref(), &[r], &[s])
            .map_err(|source| PartitionError::Prover {
                stage: "proving",
                source,
            })?;
    match proofs.len() {
        1 => Ok(proofs.remove(0)),
        count => Err(PartitionError::ProofCount {
            stage: "proving",
            count,
        }),
    }
}

impl ProvingBackend for CpuBackend {
    fn name(&self) -> String {
        "cpu".to_string()
    }

    fn workers(&self) -> usize {
        self.workers
    }

    fn lane(&self, worker: usize) -> Lane {
        Lane::CpuProver(worker)
    }

    fn phase(&self) -> &'static str {
        "prove"
    }

    fn start(
        &self,
        shared: &Shared,
        worker: usize,
        inputs: PartitionInputs<'_>,
    ) -> Result<Started, PartitionError> {
        let proof = prove_traced(shared, self.lane(worker), inputs, Duration::ZERO)?;
        Ok(Started::Proof(Box::new(proof)))
    }
}
