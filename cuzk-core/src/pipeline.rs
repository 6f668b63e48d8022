//! The stages of a proof as the engine runs them: synthesis on the CPU (in full, or through
//! constraint matrices recorded once per shape), then proving on a GPU
//! (a start half on the GPU worker, a finish half on a finalizer) or on the CPU.
//!
//! [`gpu_prove_start`] returns once the GPU no longer needs the synthesized circuits (their
//! a, b, c vectors are freed then), leaving B's G2 sum running on the CPU; the worker hands the
//! [`GpuPending`] to a finalizer and takes its next partition while [`gpu_prove_finish`]
//! assembles the proofs.

use bellpepper_core::{Circuit, SynthesisError};
use bellperson_lite::matrices::{synthesize_witness, ConstraintMatrices, MatrixError};
use bellperson_lite::prover::{
    batch_randomness, prove_from_assignments_with_timings, PhaseTimings,
};
use bellperson_lite::synthesis::{synthesize_circuits, ProvingAssignment};
use bellperson_lite::{Proof, ProverError, ProvingKey, Scalar};
use rand_core::RngCore;
use rayon::prelude::*;

#[cfg(feature = "cuda")]
pub use gpu::{gpu_prove, gpu_prove_finish, gpu_prove_start, GpuParams};

/// Circuits of one shape, synthesized, with the randomness of their proofs.
#[derive(Clone, Debug)]
pub struct Synthesized {
    pub assignments: Vec<ProvingAssignment>,
    /// One `r` per circuit.
    pub r_s: Vec<Scalar>,
    /// One `s` per circuit.
    pub s_s: Vec<Scalar>,
}

/// Synthesizes `circuits` (in parallel) and draws every `r`, then every `s`, from `rng`, in
/// the order bellperson draws them for a batch.
pub fn synthesize<C, R>(circuits: Vec<C>, rng: &mut R) -> Result<Synthesized, ProverError>
where
    C: Circuit<Scalar> + Send,
    R: RngCore,
{
    let (r_s, s_s) = batch_randomness(circuits.len(), rng);
    Ok(Synthesized {
        assignments: synthesize_circuits(circuits)?,
        r_s,
        s_s,
    })
}

/// [`synthesize`] through constraint matrices recorded once for the circuits' shape (see
/// `bellperson_lite::matrices`): each circuit runs only for its values, and a, b, c come from
/// three sparse products. The result is the same as [`synthesize`]'s, with less work per
/// circuit; the randomness is drawn in the same order.
pub fn synthesize_with_matrices<C, R>(
    circuits: Vec<C>,
    matrices: &ConstraintMatrices,
    rng: &mut R,
) -> Result<Synthesized, SynthesisPathError>
where
    C: Circuit<Scalar> + Send,
    R: RngCore,
{
    let (r_s, s_s) = batch_randomness(circuits.len(), rng);
    let assignments = circuits
        .into_par_iter()
        .map(|c| Ok(matrices.assignment(synthesize_witness(c)?)?))
        .collect::<Result<Vec<_>, SynthesisPathError>>()?;
    Ok(Synthesized {
        assignments,
        r_s,
        s_s,
    })
}

/// Why the matrix path could not synthesize a circuit.
#[derive(Debug, thiserror::Error)]
pub enum SynthesisPathError {
    #[error("circuit synthesis failed: {0}")]
    Synthesis(#[from] SynthesisError),
    #[error(transparent)]
    Matrices(#[from] MatrixError),
}

/// Proves on the CPU (the reference backend).
pub fn cpu_prove<P: ProvingKey + ?Sized>(
    synth: Synthesized,
    params: &P,
) -> Result<(Vec<Proof>, PhaseTimings), ProverError> {
    prove_from_assignments_with_timings(synth.assignments, params, &synth.r_s, &synth.s_s)
}

#[cfg(feature = "cuda")]
mod gpu {
    use std::sync::Arc;

    use bellperson_lite::gpu::{
        device_params_with, prove_start_on, G2Placement, GpuPending, GpuTarget, Priority,
    };
    use bellperson_lite::prover::PhaseTimings;
    use bellperson_lite::{Proof, ProverError, ProvingKey};
    use supraseal_c2::groth16::{DeviceMatrices, DeviceParams, GpuLocks, Residency};

    use super::Synthesized;
    use crate::config;

    /// A parameter set and its query vectors on one GPU, with where B's G2 sum runs.
    pub struct GpuParams<P> {
        pub params: Arc<P>,
        pub device: DeviceParams,
        pub b_g2: G2Placement,
    }

    impl<P: ProvingKey + Send + Sync + 'static> GpuParams<P> {
        /// Puts `params` on the GPU of `locks` (resident when they fit its budget; b_g2 too
        /// unless B's G2 sum is configured to stay on the CPU).
        pub fn new(
            params: Arc<P>,
            locks: &GpuLocks,
            b_g2: config::G2Placement,
        ) -> Result<Self, ProverError> {
            let b_g2 = match b_g2 {
                config::G2Placement::Auto => G2Placement::Auto,
                config::G2Placement::Cpu => G2Placement::Cpu,
                config::G2Placement::Gpu => G2Placement::Gpu,
            };
            let device = device_params_with(locks, Arc::clone(&params), Residency::Auto, b_g2)?;
            Ok(GpuParams {
                params,
                device,
                b_g2,
            })
        }
    }

    /// The GPU worker's half: runs the GPU part under `gpu_mtx` (the device's locks) and
    /// returns once the GPU is done with the circuits. `b_g2_threads`: with B's G2 placement
    /// "auto", the CPU threads the sum would get (`None`: all of them). `matrices`: the
    /// circuits' matrices on this GPU, when their assignments were synthesized without a, b
    /// and c (`ConstraintMatrices::witness_assignment`). `priority`: whether the proof takes
    /// the GPU in turn or, urgent, runs beside the proof holding it.
    pub fn gpu_prove_start<P: ProvingKey + Send + Sync + 'static>(
        synth: Synthesized,
        params: &GpuParams<P>,
        gpu_mtx: &GpuLocks,
        b_g2_threads: Option<usize>,
        matrices: Option<&DeviceMatrices>,
        priority: Priority,
    ) -> Result<GpuPending<P>, ProverError> {
        let b_g2 = match (params.b_g2, b_g2_threads) {
            (G2Placement::Auto, Some(threads)) => G2Placement::AutoWithThreads(threads),
            (placement, _) => placement,
        };
        let target = GpuTarget {
            device_params: &params.device,
            locks: Some(gpu_mtx),
            b_g2,
            matrices,
            priority,
        };
        prove_start_on(
            target,
            synth.assignments,
            &params.params,
            &synth.r_s,
            &synth.s_s,
        )
    }

    /// The finalizer's half: B in G2 joined, the proofs assembled, in circuit order.
    pub fn gpu_prove_finish<P: ProvingKey + Send + Sync + 'static>(
        pending: GpuPending<P>,
    ) -> Result<(Vec<Proof>, PhaseTimings), ProverError> {
        pending.finish()
    }

    /// Both halves in one call.
    pub fn gpu_prove<P: ProvingKey + Send + Sync + 'static>(
        synth: Synthesized,
        params: &GpuParams<P>,
        gpu_mtx: &GpuLocks,
    ) -> Result<(Vec<Proof>, PhaseTimings), ProverError> {
        gpu_prove_finish(gpu_prove_start(
            synth,
            params,
            gpu_mtx,
            None,
            None,
            Priority::Normal,
        )?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bellperson_lite::circuits::ShaCircuit;
    use bellperson_lite::generator::generate_random_parameters;
    use bellperson_lite::prover::create_random_proof_batch;
    use bellperson_lite::verifier::{prepare_verifying_key, verify_proof};
    use ff::Field;
    use rand::SeedableRng;
    use rand_chacha::ChaCha20Rng;

    #[test]
    fn matrix_synthesis_gives_the_same_batch() {
        let circuits: Vec<ShaCircuit> = (0..3).map(|i| ShaCircuit::new(11, i)).collect();
        let matrices = bellperson_lite::matrices::record_matrices(circuits[0].clone()).unwrap();
        let full = synthesize(circuits.clone(), &mut ChaCha20Rng::seed_from_u64(4)).unwrap();
        let fast =
            synthesize_with_matrices(circuits, &matrices, &mut ChaCha20Rng::seed_from_u64(4))
                .unwrap();
        assert_eq!(fast.assignments, full.assignments);
        assert_eq!((fast.r_s, fast.s_s), (full.r_s, full.s_s));

        // A circuit of another shape is a typed error, not a wrong assignment.
        let other = synthesize_with_matrices(
            vec![ShaCircuit::new(10, 0)],
            &matrices,
            &mut ChaCha20Rng::seed_from_u64(4),
        );
        assert!(matches!(other, Err(SynthesisPathError::Matrices(_))));
    }

    #[test]
    fn cpu_pipeline_matches_the_batch_prover_and_verifies() {
        let mut rng = ChaCha20Rng::seed_from_u64(3);
        // SHA-256 circuits share one shape whatever the message (mix circuits of other seeds
        // have other shapes, and a batch must have one).
        let circuits: Vec<ShaCircuit> = (0..2).map(|i| ShaCircuit::new(10, i)).collect();
        let params = generate_random_parameters(circuits[0].clone(), &mut rng).unwrap();
        let inputs: Vec<Scalar> = circuits.iter().map(ShaCircuit::public_input).collect();

        let synth = synthesize(circuits.clone(), &mut ChaCha20Rng::seed_from_u64(9)).unwrap();
        let (proofs, _) = cpu_prove(synth, &params).unwrap();
        let reference =
            create_random_proof_batch(circuits, &params, &mut ChaCha20Rng::seed_from_u64(9))
                .unwrap();
        let pvk = prepare_verifying_key(&params.vk);
        for ((p, q), input) in proofs.iter().zip(&reference).zip(&inputs) {
            assert_eq!(p.to_bytes(), q.to_bytes());
            assert!(verify_proof(&pvk, p, &[*input]).unwrap());
            assert!(!verify_proof(&pvk, p, &[*input + Scalar::ONE]).unwrap());
        }
    }
}
