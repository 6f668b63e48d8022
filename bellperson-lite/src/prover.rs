//! The Groth16 prover: H = (A*B - C)/Z on a coset, the MSMs, and the proof assembly.
//!
//! Every entry point ends in [`prove_from_assignments`], which takes synthesized circuits
//! ([`ProvingAssignment`]) and the randomness `(r, s)` of each proof. The GPU backend shares
//! that entry point's contract, so for the same inputs both give the same proof bytes.
//!
//! With `A = alpha + sum_i z_i u_i(tau) + r delta`, `B = beta + sum_i z_i v_i(tau) + s delta`
//! (in G2, and its twin `B1` in G1), the proof is `(A, B, C)` with
//! `C = sum_aux z_i L_i + sum_j h_j H_j + s A + r B1 - r s delta`.

use std::time::{Duration, Instant};

use bellpepper_core::Circuit;
use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar};
use ff::Field;
use group::{prime::PrimeCurveAffine, Curve};
use rand_core::RngCore;

use crate::domain::EvaluationDomain;
use crate::error::ProverError;
use crate::msm::{msm_g1, msm_g1_split, msm_g2_split};
use crate::params::ProvingKey;
use crate::proof::Proof;
use crate::query_splits::WitnessClasses;
use crate::synthesis::{synthesize_circuits, ProvingAssignment};

/// Wall-clock time of each proving phase, summed over the proofs of one call.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PhaseTimings {
    pub synthesis: Duration,
    /// The split of the scalars on the CPU (the values' classes and B's split, shared by its
    /// two sums; L's and A's splits are counted in their MSMs), and for the GPU backend the
    /// checks before the GPU part.
    pub prep: Duration,
    /// GPU backend: waiting for the GPU's locks and VRAM, and the host-to-device copies.
    pub upload: Duration,
    /// GPU backend, part of `upload`: waiting for the memory lock and a VRAM reservation.
    pub wait_memory: Duration,
    /// GPU backend, part of `upload`: waiting for the compute lock after the copies.
    pub wait_compute: Duration,
    /// GPU backend with device matrices: a, b and c evaluated on the GPU from the witness.
    pub abc: Duration,
    /// The seven NTTs and the pointwise work that give the coefficients of H.
    pub ntt: Duration,
    pub msm_h: Duration,
    pub msm_l: Duration,
    pub msm_a: Duration,
    pub msm_b_g1: Duration,
    /// B's G2 sum, wherever it ran (GPU backend: the CPU thread's time plus the GPU's).
    pub msm_b_g2: Duration,
    /// GPU backend, part of `msm_b_g2`: the kernels of the circuits whose B_G2 sum ran on
    /// the GPU (inside the compute lock).
    pub msm_b_g2_gpu: Duration,
    /// GPU backend: the GPU library's own checks and stream set-up before the first circuit.
    pub gpu_setup: Duration,
    /// GPU backend: on the GPU, from a circuit's first operation to its first kernel (its
    /// copies, and any wait behind other work on the device).
    pub gpu_queued: Duration,
    /// GPU backend: from the last kernel enqueued to the results on the host (what is left of
    /// the kernels, the copies back).
    pub gpu_results: Duration,
    /// Combining the MSM results with alpha, beta, delta, r and s, and normalising.
    pub assembly: Duration,
    pub total: Duration,
    /// GPU backend: the most points per chunk among the circuits proved on the bounded-VRAM
    /// plan (the parameters' bases streamed in chunks because the whole working set did not
    /// fit the card's budget); 0 when none was.
    pub chunk_points: u64,
    /// GPU backend: the circuits whose witness the GPU split itself (uploaded whole, see
    /// `gpu::SplitPlacement`); the others were split on the host, in `prep`.
    pub witness_split_on_gpu: usize,
}

impl PhaseTimings {
    /// GPU backend: the kernels, timed with CUDA events (a, b and c from device matrices,
    /// the H pipeline, the G1 MSMs and B_G2 when it ran on the GPU).
    pub fn gpu_kernels(&self) -> Duration {
        self.abc
            + self.ntt
            + self.msm_h
            + self.msm_l
            + self.msm_a
            + self.msm_b_g1
            + self.msm_b_g2_gpu
    }
}

/// Proves one circuit with the given randomness.
pub fn create_proof<C, P>(
    circuit: C,
    params: &P,
    r: Scalar,
    s: Scalar,
) -> Result<Proof, ProverError>
where
    C: Circuit<Scalar> + Send,
    P: ProvingKey + ?Sized,
{
    let mut proofs = create_proof_batch(vec![circuit], params, &[r], &[s])?;
    Ok(proofs.remove(0))
}

/// Proves one circuit with `r` then `s` drawn from `rng` (the order bellperson draws them in,
/// so the same seeded rng gives the same proof).
pub fn create_random_proof<C, P, R>(
    circuit: C,
    params: &P,
    rng: &mut R,
) -> Result<Proof, ProverError>
where
    C: Circuit<Scalar> + Send,
    P: ProvingKey + ?Sized,
    R: RngCore,
{
    let r = Scalar::random(&mut *rng);
    let s = Scalar::random(&mut *rng);
    create_proof(circuit, params, r, s)
}

/// Proves circuits of the same shape against one set of parameters.
pub fn create_proof_batch<C, P>(
    circuits: Vec<C>,
    params: &P,
    r_s: &[Scalar],
    s_s: &[Scalar],
) -> Result<Vec<Proof>, ProverError>
where
    C: Circuit<Scalar> + Send,
    P: ProvingKey + ?Sized,
{
    create_proof_batch_with_timings(circuits, params, r_s, s_s).map(|(proofs, _)| proofs)
}

/// [`create_proof_batch`], also returning the time spent in each phase.
pub fn create_proof_batch_with_timings<C, P>(
    circuits: Vec<C>,
    params: &P,
    r_s: &[Scalar],
    s_s: &[Scalar],
) -> Result<(Vec<Proof>, PhaseTimings), ProverError>
where
    C: Circuit<Scalar> + Send,
    P: ProvingKey + ?Sized,
{
    check_randomness(circuits.len(), r_s, s_s)?;
    let start = Instant::now();
    let assignments = synthesize_circuits(circuits)?;
    let synthesis = start.elapsed();
    let (proofs, mut timings) = prove_from_assignments_with_timings(assignments, params, r_s, s_s)?;
    timings.synthesis = synthesis;
    timings.total += synthesis;
    Ok((proofs, timings))
}

/// The randomness of a batch of `count` proofs: all `r`s, then all `s`s, drawn from `rng` in
/// the order bellperson draws them (so that a seeded rng gives bellperson's proofs).
pub fn batch_randomness<R: RngCore>(count: usize, rng: &mut R) -> (Vec<Scalar>, Vec<Scalar>) {
    let r_s = (0..count).map(|_| Scalar::random(&mut *rng)).collect();
    let s_s = (0..count).map(|_| Scalar::random(&mut *rng)).collect();
    (r_s, s_s)
}

/// Proves a batch with all `r`s then all `s`s drawn from `rng`, as bellperson does.
pub fn create_random_proof_batch<C, P, R>(
    circuits: Vec<C>,
    params: &P,
    rng: &mut R,
) -> Result<Vec<Proof>, ProverError>
where
    C: Circuit<Scalar> + Send,
    P: ProvingKey + ?Sized,
    R: RngCore,
{
    let (r_s, s_s) = batch_randomness(circuits.len(), rng);
    create_proof_batch(circuits, params, &r_s, &s_s)
}

/// Proves already-synthesized circuits: the entry point the CPU and GPU backends share.
///
/// The assignments are consumed: their evaluation vectors become the NTT buffers for H and
/// are freed as soon as H is known.
pub fn prove_from_assignments<P: ProvingKey + ?Sized>(
    assignments: Vec<ProvingAssignment>,
    params: &P,
    r_s: &[Scalar],
    s_s: &[Scalar],
) -> Result<Vec<Proof>, ProverError> {
    prove_from_assignments_with_timings(assignments, params, r_s, s_s).map(|(proofs, _)| proofs)
}

/// [`prove_from_assignments`], also returning the time spent in each phase.
pub fn prove_from_assignments_with_timings<P: ProvingKey + ?Sized>(
    assignments: Vec<ProvingAssignment>,
    params: &P,
    r_s: &[Scalar],
    s_s: &[Scalar],
) -> Result<(Vec<Proof>, PhaseTimings), ProverError> {
    let start = Instant::now();
    let Some(domain) = check_batch(&assignments, params, r_s, s_s)? else {
        return Ok((Vec::new(), PhaseTimings::default()));
    };
    check_satisfied(&assignments)?;

    let mut timings = PhaseTimings::default();
    let mut proofs = Vec::with_capacity(assignments.len());
    for ((assignment, r), s) in assignments.into_iter().zip(r_s).zip(s_s) {
        proofs.push(prove_one(
            assignment,
            &domain,
            params,
            *r,
            *s,
            &mut timings,
        )?);
    }
    timings.total = start.elapsed();
    Ok((proofs, timings))
}

/// What a batch must satisfy before any proving work, for every backend: one `r` and one `s`
/// per circuit, one shape for all, parameters of exactly that shape. Returns the domain, or
/// `None` for an empty batch. (Whether every constraint holds is checked separately: by the
/// CPU prover before its NTTs, by the GPU backend on the GPU.)
pub(crate) fn check_batch<P: ProvingKey + ?Sized>(
    assignments: &[ProvingAssignment],
    params: &P,
    r_s: &[Scalar],
    s_s: &[Scalar],
) -> Result<Option<EvaluationDomain>, ProverError> {
    let constraints = assignments
        .first()
        .map_or(0, ProvingAssignment::num_constraints);
    check_batch_with_constraints(assignments, constraints, params, r_s, s_s)
}

/// [`check_batch`] with the constraint count given rather than read from the first
/// assignment's evaluations (which the GPU computes itself from device matrices).
pub(crate) fn check_batch_with_constraints<P: ProvingKey + ?Sized>(
    assignments: &[ProvingAssignment],
    constraints: usize,
    params: &P,
    r_s: &[Scalar],
    s_s: &[Scalar],
) -> Result<Option<EvaluationDomain>, ProverError> {
    check_randomness(assignments.len(), r_s, s_s)?;
    let Some(first) = assignments.first() else {
        return Ok(None);
    };
    let domain = EvaluationDomain::new(constraints)?;
    check_shapes(assignments)?;
    check_params(first, &domain, params)?;
    Ok(Some(domain))
}

/// Every circuit must be satisfied: an unsatisfied one would give a proof that does not
/// verify.
fn check_satisfied(assignments: &[ProvingAssignment]) -> Result<(), ProverError> {
    for assignment in assignments {
        if let Some(index) = assignment.first_unsatisfied() {
            return Err(ProverError::Unsatisfied {
                index,
                total: assignment.num_constraints(),
            });
        }
    }
    Ok(())
}

fn check_randomness(circuits: usize, r_s: &[Scalar], s_s: &[Scalar]) -> Result<(), ProverError> {
    for (what, values) in [("r values", r_s), ("s values", s_s)] {
        if values.len() != circuits {
            return Err(ProverError::LengthMismatch {
                what,
                expected: circuits,
                actual: values.len(),
            });
        }
    }
    Ok(())
}

/// All circuits of a batch must have the same shape, since they share the parameters.
fn check_shapes(assignments: &[ProvingAssignment]) -> Result<(), ProverError> {
    let first = &assignments[0];
    for (index, other) in assignments.iter().enumerate().skip(1) {
        let differs = [
            (
                "constraint count",
                first.num_constraints() != other.num_constraints(),
            ),
            (
                "input count",
                first.input_assignment.len() != other.input_assignment.len(),
            ),
            (
                "aux count",
                first.aux_assignment.len() != other.aux_assignment.len(),
            ),
            ("A density", first.a_aux_density != other.a_aux_density),
            (
                "B input density",
                first.b_input_density != other.b_input_density,
            ),
            ("B aux density", first.b_aux_density != other.b_aux_density),
        ];
        if let Some((what, _)) = differs.into_iter().find(|(_, d)| *d) {
            return Err(ProverError::ShapeMismatch { index, what });
        }
    }
    Ok(())
}

/// The parameters must have exactly the query sizes this circuit implies; anything else means
/// they were made for another circuit and the proof could not verify.
fn check_params<P: ProvingKey + ?Sized>(
    shape: &ProvingAssignment,
    domain: &EvaluationDomain,
    params: &P,
) -> Result<(), ProverError> {
    let inputs = shape.input_assignment.len();
    let b_ones = shape.b_input_density.count_ones() + shape.b_aux_density.count_ones();
    let expected = [
        ("vk.ic (public inputs)", inputs, params.num_inputs()),
        ("h", domain.size() - 1, params.h().len()),
        ("l", shape.aux_assignment.len(), params.l().len()),
        (
            "a",
            inputs + shape.a_aux_density.count_ones(),
            params.a().len(),
        ),
        ("b_g1", b_ones, params.b_g1().len()),
        ("b_g2", b_ones, params.b_g2().len()),
    ];
    for (what, expected, actual) in expected {
        if expected != actual {
            return Err(ProverError::ParamsMismatch {
                what,
                expected,
                actual,
            });
        }
    }
    Ok(())
}

/// Coefficients of H = (A*B - C)/Z, the `n - 1` scalars of the H MSM. The input vectors are
/// the evaluations of A, B, C on the domain and are reused as NTT buffers.
pub fn compute_h(
    domain: &EvaluationDomain,
    mut a: Vec<Scalar>,
    mut b: Vec<Scalar>,
    mut c: Vec<Scalar>,
) -> Result<Vec<Scalar>, ProverError> {
    let n = domain.size();
    for v in [&mut a, &mut b, &mut c] {
        v.resize(n, Scalar::ZERO);
    }
    // Evaluations on the domain -> coefficients -> evaluations on the coset, where Z does
    // not vanish and the division is a multiplication by one constant.
    let to_coset = |v: &mut Vec<Scalar>| -> Result<(), ProverError> {
        domain.ifft(v)?;
        domain.coset_fft(v)
    };
    let ((ra, rb), rc) = rayon::join(
        || rayon::join(|| to_coset(&mut a), || to_coset(&mut b)),
        || to_coset(&mut c),
    );
    ra?;
    rb?;
    rc?;
    {
        use rayon::prelude::*;
        a.par_iter_mut()
            .zip(b.par_iter())
            .zip(c.par_iter())
            .for_each(|((a, b), c)| *a = *a * b - c);
    }
    drop((b, c));
    domain.divide_by_z_on_coset(&mut a)?;
    domain.icoset_fft(&mut a)?;
    // deg(A*B - C) <= 2n - 2, so deg H <= n - 2: the top coefficient is zero.
    a.truncate(n - 1);
    Ok(a)
}

fn timed<T>(slot: &mut Duration, f: impl FnOnce() -> T) -> T {
    let start = Instant::now();
    let value = f();
    *slot += start.elapsed();
    value
}

fn prove_one<P: ProvingKey + ?Sized>(
    assignment: ProvingAssignment,
    domain: &EvaluationDomain,
    params: &P,
    r: Scalar,
    s: Scalar,
    t: &mut PhaseTimings,
) -> Result<Proof, ProverError> {
    let ProvingAssignment {
        a_aux_density,
        b_input_density,
        b_aux_density,
        a,
        b,
        c,
        input_assignment: inputs,
        aux_assignment: aux,
    } = assignment;
    let h = timed(&mut t.ntt, || compute_h(domain, a, b, c))?;
    let h_sum = timed(&mut t.msm_h, || msm_g1(params.h(), &h, None))?;
    drop(h);
    // Each value is classified once; the splits are made one at a time (a dense witness's
    // split holds most of its values again), and B's serves both of B's sums.
    let classes = timed(&mut t.prep, || WitnessClasses::of(&inputs, &aux));
    let l_sum = timed(&mut t.msm_l, || {
        msm_g1_split(params.l(), &classes.l(params.l().len())?)
    })?;
    let a_sum = timed(&mut t.msm_a, || {
        msm_g1_split(params.a(), &classes.a(params.a().len(), &a_aux_density)?)
    })?;
    let b_split = timed(&mut t.prep, || {
        classes.b(params.b_g1().len(), &b_input_density, &b_aux_density)
    })?;
    let b_g1_sum = timed(&mut t.msm_b_g1, || msm_g1_split(params.b_g1(), &b_split))?;
    let b_g2_sum = timed(&mut t.msm_b_g2, || msm_g2_split(params.b_g2(), &b_split))?;

    Ok(timed(&mut t.assembly, || {
        assemble(params, r, s, a_sum, b_g1_sum, b_g2_sum, h_sum, l_sum)
    }))
}

/// Combines the MSM results into the proof (see the module documentation for the formulas).
#[allow(clippy::too_many_arguments)]
pub fn assemble<P: ProvingKey + ?Sized>(
    params: &P,
    r: Scalar,
    s: Scalar,
    a_sum: G1Projective,
    b_g1_sum: G1Projective,
    b_g2_sum: G2Projective,
    h_sum: G1Projective,
    l_sum: G1Projective,
) -> Proof {
    let delta_g1 = G1Projective::from(params.delta_g1());
    let a = G1Projective::from(params.alpha_g1()) + a_sum + delta_g1 * r;
    let b_g1 = G1Projective::from(params.beta_g1()) + b_g1_sum + delta_g1 * s;
    let b =
        G2Projective::from(params.beta_g2()) + b_g2_sum + G2Projective::from(params.delta_g2()) * s;
    let c = h_sum + l_sum + a * s + b_g1 * r - delta_g1 * (r * s);
    let mut affine = [G1Affine::identity(); 2];
    G1Projective::batch_normalize(&[a, c], &mut affine);
    Proof {
        a: affine[0],
        b: G2Affine::from(b),
        c: affine[1],
    }
}
