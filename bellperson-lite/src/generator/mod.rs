//! Parameter generation (a trusted setup done by one party, for tests and private circuits)
//! and the benchmark-only SRS.
//!
//! The circuit's constraints are recorded once (not a witness, see
//! [`crate::matrices::record_matrices`]), wrapped exactly as the prover wraps them (the
//! constant one as input 0, one `x_i * 0 = 0` constraint per input), so that the QAP here
//! and the evaluations in [`crate::synthesis`] line up; `qap` evaluates them at tau. With
//! secret `tau, alpha, beta, gamma, delta` and the Lagrange basis `L_j` of the domain:
//! `u_k(tau) = sum_j A[j][k] L_j(tau)` (likewise `v_k` from B, `w_k` from C), and
//!
//! - `a[k] = u_k(tau) G1`, `b_g1[k] = v_k(tau) G1`, `b_g2[k] = v_k(tau) G2`, leaving out zero
//!   polynomials (the prover's density bitmaps skip the same variables);
//! - `ic[k] = (beta u_k + alpha v_k + w_k)/gamma G1` for inputs, `l[k]` the same over delta
//!   for auxiliary variables;
//! - `h[i] = tau^i Z(tau)/delta G1` for `i < n - 1`, with `Z(X) = X^n - 1`.

mod benchmark;
mod fixed_base;
#[cfg(feature = "cuda")]
mod gpu;
mod qap;

pub use self::benchmark::{BenchmarkSrs, CircuitShape};
pub use self::fixed_base::FixedBaseTable;
#[cfg(feature = "cuda")]
pub use self::gpu::GpuFixedBase;

use bellpepper_core::{Circuit, SynthesisError};
use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar};
use ff::Field;
use group::{prime::PrimeCurveAffine, Curve, Group};
use rand_core::RngCore;
use rayon::prelude::*;

use crate::domain::EvaluationDomain;
use crate::error::ProverError;
use crate::matrices::record_matrices;
use crate::params::{Parameters, ParametersWriter, VerifyingKey};

/// The secrets of a setup: the two generators and the trapdoor scalars of the paper. Whoever
/// keeps them can forge proofs, so parameters made from them are for tests and circuits whose
/// single-party setup is acceptable.
#[derive(Clone, Copy, Debug)]
pub struct SetupSecrets {
    pub g1: G1Projective,
    pub g2: G2Projective,
    pub alpha: Scalar,
    pub beta: Scalar,
    pub gamma: Scalar,
    pub delta: Scalar,
    pub tau: Scalar,
}

impl SetupSecrets {
    /// Fresh secrets drawn from `rng`.
    pub fn random<R: RngCore>(rng: &mut R) -> Self {
        Self {
            g1: G1Projective::random(&mut *rng),
            g2: G2Projective::random(&mut *rng),
            alpha: Scalar::random(&mut *rng),
            beta: Scalar::random(&mut *rng),
            gamma: Scalar::random(&mut *rng),
            delta: Scalar::random(&mut *rng),
            tau: Scalar::random(&mut *rng),
        }
    }
}

/// Where the generator's fixed-base multiplications run. Every query point is one of the two
/// generators times a secret evaluation, millions of them for Filecoin's circuits: most of a
/// setup's time on a CPU, milliseconds on a GPU (`GpuFixedBase`, feature `cuda`).
pub trait FixedBaseMultiplier: Sync {
    /// `base * s` in affine form for every scalar, `table` being `base`'s table.
    fn mul_g1(
        &self,
        table: &FixedBaseTable<G1Projective>,
        scalars: &[Scalar],
    ) -> Result<Vec<G1Affine>, ProverError>;

    /// The same over G2.
    fn mul_g2(
        &self,
        table: &FixedBaseTable<G2Projective>,
        scalars: &[Scalar],
    ) -> Result<Vec<G2Affine>, ProverError>;
}

/// The multiplications on the CPU, spread over rayon's threads.
#[derive(Clone, Copy, Debug, Default)]
pub struct CpuFixedBase;

impl FixedBaseMultiplier for CpuFixedBase {
    fn mul_g1(
        &self,
        table: &FixedBaseTable<G1Projective>,
        scalars: &[Scalar],
    ) -> Result<Vec<G1Affine>, ProverError> {
        Ok(table.mul_all(scalars))
    }

    fn mul_g2(
        &self,
        table: &FixedBaseTable<G2Projective>,
        scalars: &[Scalar],
    ) -> Result<Vec<G2Affine>, ProverError> {
        Ok(table.mul_all(scalars))
    }
}

/// Generates parameters for `circuit` with fresh secrets drawn from `rng`, on the CPU.
pub fn generate_random_parameters<C, R>(circuit: C, rng: &mut R) -> Result<Parameters, ProverError>
where
    C: Circuit<Scalar>,
    R: RngCore,
{
    generate_parameters(circuit, &SetupSecrets::random(rng), &CpuFixedBase)
}

/// Generates parameters from explicit secrets, with the fixed-base multiplications done by
/// `multiplier`. The result depends only on the circuit and the secrets.
pub fn generate_parameters<C: Circuit<Scalar>>(
    circuit: C,
    secrets: &SetupSecrets,
    multiplier: &dyn FixedBaseMultiplier,
) -> Result<Parameters, ProverError> {
    setup_scalars(circuit, secrets)?.parameters(multiplier)
}

/// The scalars of every point of a circuit's parameters: each point is a generator times one
/// of them. Made once from the circuit and the secrets; the multiplications come after, all
/// at once ([`SetupScalars::parameters`]) or streamed to a file
/// ([`SetupScalars::write_parameters`]), which for Filecoin's largest circuits is the
/// difference between fitting in memory or not.
pub struct SetupScalars {
    secrets: SetupSecrets,
    /// `(beta u_k + alpha v_k + w_k) / gamma` for each input: the verifying key's `ic`.
    ic: Vec<Scalar>,
    /// `tau^i Z(tau) / delta` for `i < n - 1`.
    h: Vec<Scalar>,
    /// `(beta u_k + alpha v_k + w_k) / delta` for each auxiliary variable.
    l: Vec<Scalar>,
    /// The nonzero `u_k(tau)`, inputs then auxiliary variables.
    a: Vec<Scalar>,
    /// The nonzero `v_k(tau)`: both `b_g1` and `b_g2`.
    b: Vec<Scalar>,
}

/// How many points each section of a parameter file holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SectionCounts {
    pub ic: usize,
    pub h: usize,
    pub l: usize,
    pub a: usize,
    pub b_g1: usize,
    pub b_g2: usize,
}

impl SectionCounts {
    /// The size of the parameter file, in bytes.
    pub fn file_bytes(&self) -> u64 {
        use crate::params::{G1_UNCOMPRESSED_BYTES as G1, G2_UNCOMPRESSED_BYTES as G2};
        let g1 = (3 + self.ic + self.h + self.l + self.a + self.b_g1) as u64 * G1 as u64;
        let g2 = (3 + self.b_g2) as u64 * G2 as u64;
        // The six counts (ic and the five query sections).
        g1 + g2 + 6 * 4
    }
}

/// Synthesizes `circuit`'s constraints and evaluates its QAP at the secrets' `tau`.
pub fn setup_scalars<C: Circuit<Scalar>>(
    circuit: C,
    secrets: &SetupSecrets,
) -> Result<SetupScalars, ProverError> {
    let SetupSecrets {
        alpha,
        beta,
        gamma,
        delta,
        tau,
        ..
    } = *secrets;
    // Recorded row by row, in parallel where the circuit is extensible: a 32 GiB WindowPoSt
    // (125M constraints) took minutes on one thread, and a column-per-variable assembly of
    // it held more than 100 GB.
    let matrices = record_matrices(circuit)?;
    let domain = EvaluationDomain::new(matrices.num_constraints())?;
    let n = domain.size();
    let (gamma_inv, delta_inv) = match (
        Option::<Scalar>::from(gamma.invert()),
        Option::<Scalar>::from(delta.invert()),
    ) {
        (Some(g), Some(d)) => (g, d),
        _ => return Err(SynthesisError::UnexpectedIdentity.into()),
    };

    // Powers of tau -> (inverse NTT) -> the Lagrange basis evaluated at tau.
    let mut powers = vec![Scalar::ZERO; n];
    powers
        .par_chunks_mut(4096)
        .enumerate()
        .for_each(|(chunk, out)| {
            let mut p = tau.pow_vartime([(chunk * 4096) as u64]);
            for v in out {
                *v = p;
                p *= tau;
            }
        });
    let z_tau = powers[n - 1] * tau - Scalar::ONE;
    if bool::from(z_tau.is_zero()) {
        // tau is a root of unity of the domain: the setup would be degenerate.
        return Err(SynthesisError::UnexpectedIdentity.into());
    }
    let h: Vec<Scalar> = powers[..n - 1]
        .par_iter()
        .map(|p| *p * z_tau * delta_inv)
        .collect();
    let mut lagrange = powers;
    domain.ifft(&mut lagrange)?;

    let num_inputs = matrices.num_inputs;
    let num_vars = num_inputs + matrices.num_aux;
    let evaluate = |m| {
        qap::evaluate_columns(
            m,
            &matrices.coeff_table,
            &lagrange,
            num_vars,
            qap::BUCKET_COLUMNS,
        )
    };
    let u = evaluate(&matrices.a);
    let v = evaluate(&matrices.b);
    let mut w = evaluate(&matrices.c);
    // The matrices are the largest thing here (tens of GB for a 32 GiB PoRep): gone before
    // the points are made.
    drop(matrices);
    drop(lagrange);
    // w becomes (beta u + alpha v + w), over gamma for inputs (ic) and delta for the rest (l).
    w.par_iter_mut()
        .zip(u.par_iter().zip(&v))
        .enumerate()
        .for_each(|(k, (w, (u, v)))| {
            let scale = if k < num_inputs { gamma_inv } else { delta_inv };
            *w = (beta * u + alpha * v + *w) * scale;
        });
    let ic = w[..num_inputs].to_vec();
    w.drain(..num_inputs);
    let l = w;

    let nonzero = |u: Vec<Scalar>| -> Vec<Scalar> {
        u.into_iter().filter(|s| !bool::from(s.is_zero())).collect()
    };
    Ok(SetupScalars {
        secrets: *secrets,
        ic,
        h,
        l,
        a: nonzero(u),
        b: nonzero(v),
    })
}

impl SetupScalars {
    pub fn counts(&self) -> SectionCounts {
        SectionCounts {
            ic: self.ic.len(),
            h: self.h.len(),
            l: self.l.len(),
            a: self.a.len(),
            b_g1: self.b.len(),
            b_g2: self.b.len(),
        }
    }

    /// The verifying key (its `ic` multiplied by `multiplier`).
    pub fn verifying_key(
        &self,
        multiplier: &dyn FixedBaseMultiplier,
    ) -> Result<VerifyingKey, ProverError> {
        let SetupSecrets {
            g1,
            g2,
            alpha,
            beta,
            gamma,
            delta,
            ..
        } = self.secrets;
        let vk = VerifyingKey {
            alpha_g1: (g1 * alpha).to_affine(),
            beta_g1: (g1 * beta).to_affine(),
            beta_g2: (g2 * beta).to_affine(),
            gamma_g2: (g2 * gamma).to_affine(),
            delta_g1: (g1 * delta).to_affine(),
            delta_g2: (g2 * delta).to_affine(),
            ic: multiplier.mul_g1(&FixedBaseTable::new(g1), &self.ic)?,
        };
        no_infinity(&vk.ic)?;
        Ok(vk)
    }

    /// Every point, in memory.
    pub fn parameters(
        &self,
        multiplier: &dyn FixedBaseMultiplier,
    ) -> Result<Parameters, ProverError> {
        let g1_table = FixedBaseTable::new(self.secrets.g1);
        let g2_table = FixedBaseTable::new(self.secrets.g2);
        let params = Parameters {
            vk: self.verifying_key(multiplier)?,
            h: multiplier.mul_g1(&g1_table, &self.h)?,
            l: multiplier.mul_g1(&g1_table, &self.l)?,
            a: multiplier.mul_g1(&g1_table, &self.a)?,
            b_g1: multiplier.mul_g1(&g1_table, &self.b)?,
            b_g2: multiplier.mul_g2(&g2_table, &self.b)?,
        };
        no_infinity(&params.l)?;
        no_infinity(&params.h)?;
        Ok(params)
    }

    /// Writes the parameter file whose verifying key is `vk` (from
    /// [`SetupScalars::verifying_key`]) to `w`, `chunk_points` points made and written at a
    /// time: the memory held is these scalars and one chunk of points, whatever the file's
    /// size. The bytes are those of [`crate::params::write_parameters`] over
    /// [`SetupScalars::parameters`]. Each section's scalars are dropped once written.
    pub fn write_parameters<W: std::io::Write>(
        self,
        vk: &VerifyingKey,
        multiplier: &dyn FixedBaseMultiplier,
        w: W,
        chunk_points: usize,
    ) -> Result<W, ProverError> {
        let chunk_points = chunk_points.max(1);
        if vk.ic.len() != self.ic.len() {
            return Err(ProverError::ParamsMismatch {
                what: "the verifying key's ic",
                expected: self.ic.len(),
                actual: vk.ic.len(),
            });
        }
        let g1_table = FixedBaseTable::new(self.secrets.g1);
        let SetupScalars { h, l, a, b, .. } = self;
        let written = ProverError::WriteParameters;
        let mut out = ParametersWriter::new(vk, w).map_err(written)?;
        // h and l may not hold the point at infinity; a and b leave zero scalars out.
        let mut g1_section = |name, scalars: &[Scalar], finite: bool| -> Result<(), ProverError> {
            out.begin_section(name, scalars.len()).map_err(written)?;
            for chunk in scalars.chunks(chunk_points) {
                let points = multiplier.mul_g1(&g1_table, chunk)?;
                if finite {
                    no_infinity(&points)?;
                }
                out.write_g1(&points).map_err(written)?;
            }
            Ok(())
        };
        g1_section("h", &h, true)?;
        drop(h);
        g1_section("l", &l, true)?;
        drop(l);
        g1_section("a", &a, false)?;
        drop(a);
        g1_section("b_g1", &b, false)?;
        let g2_table = FixedBaseTable::new(self.secrets.g2);
        out.begin_section("b_g2", b.len()).map_err(written)?;
        for chunk in b.chunks(chunk_points) {
            out.write_g2(&multiplier.mul_g2(&g2_table, chunk)?)
                .map_err(written)?;
        }
        out.finish().map_err(written)
    }
}

/// A zero scalar in ic, l or h would put the point at infinity in the file, which every
/// reader rejects; it only happens with a degenerate circuit or astronomically bad luck.
fn no_infinity(points: &[G1Affine]) -> Result<(), ProverError> {
    if points.iter().any(|p| bool::from(p.is_identity())) {
        return Err(SynthesisError::UnexpectedIdentity.into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::circuits::{InterleavedCircuit, MixCircuit};
    use crate::prover::create_random_proof;
    use crate::verifier::{prepare_verifying_key, verify_proof};
    use rand_chacha::rand_core::SeedableRng;

    #[test]
    fn parameters_have_the_expected_sizes_and_prove() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        let circuit = MixCircuit::new(8, 0.9, 3);
        let params = generate_random_parameters(circuit.clone(), &mut rng).unwrap();
        assert_eq!(params.h.len(), 255);
        assert_eq!(params.vk.ic.len(), 2);
        assert_eq!(params.l.len(), circuit.num_aux());
        let proof = create_random_proof(circuit.clone(), &params, &mut rng).unwrap();
        let pvk = prepare_verifying_key(&params.vk);
        assert!(verify_proof(&pvk, &proof, &[circuit.public_input()]).unwrap());
        assert!(!verify_proof(&pvk, &proof, &[circuit.public_input() + Scalar::ONE]).unwrap());
    }

    /// Multiplies by the table's base directly (base = the table's entry for 1), so that the
    /// generator's plumbing is checked against a multiplication that shares no code with the
    /// tables'.
    struct PlainMultiplier;

    impl FixedBaseMultiplier for PlainMultiplier {
        fn mul_g1(
            &self,
            table: &FixedBaseTable<G1Projective>,
            scalars: &[Scalar],
        ) -> Result<Vec<G1Affine>, ProverError> {
            let base = G1Projective::from(table.points()[1]);
            Ok(scalars.iter().map(|s| (base * s).to_affine()).collect())
        }

        fn mul_g2(
            &self,
            table: &FixedBaseTable<G2Projective>,
            scalars: &[Scalar],
        ) -> Result<Vec<G2Affine>, ProverError> {
            let base = G2Projective::from(table.points()[1]);
            Ok(scalars.iter().map(|s| (base * s).to_affine()).collect())
        }
    }

    /// The obvious, slow setup to check [`setup_scalars`] against: the recorded matrices
    /// (whose recording is checked against a full synthesis in `matrices::tests`) summed
    /// column by column the plain way, with the Lagrange polynomials from their closed form
    /// `L_j(tau) = omega^j (tau^n - 1) / (n (tau - omega^j))` instead of an inverse NTT.
    fn reference_scalars<C: Circuit<Scalar>>(circuit: C, secrets: &SetupSecrets) -> SetupScalars {
        let matrices = record_matrices(circuit).unwrap();
        let domain = EvaluationDomain::new(matrices.num_constraints()).unwrap();
        let (n, omega, tau) = (domain.size(), domain.omega(), secrets.tau);
        let z_tau = tau.pow_vartime([n as u64]) - Scalar::ONE;
        let n_inv = Scalar::from(n as u64).invert().unwrap();
        let lagrange: Vec<Scalar> = (0..matrices.num_constraints())
            .map(|j| {
                let w = omega.pow_vartime([j as u64]);
                w * z_tau * n_inv * (tau - w).invert().unwrap()
            })
            .collect();
        let num_vars = matrices.num_inputs + matrices.num_aux;
        let [u, v, w] = [&matrices.a, &matrices.b, &matrices.c]
            .map(|m| qap::tests::plain(m, &matrices.coeff_table, &lagrange, num_vars));
        let SetupSecrets {
            alpha,
            beta,
            gamma,
            delta,
            ..
        } = *secrets;
        let (gamma_inv, delta_inv) = (gamma.invert().unwrap(), delta.invert().unwrap());
        let mut scalars = SetupScalars {
            secrets: *secrets,
            ic: Vec::new(),
            h: (0..n - 1)
                .map(|i| tau.pow_vartime([i as u64]) * z_tau * delta_inv)
                .collect(),
            l: Vec::new(),
            a: Vec::new(),
            b: Vec::new(),
        };
        for (k, ((u, v), w)) in u.into_iter().zip(v).zip(w).enumerate() {
            let k_value = beta * u + alpha * v + w;
            if k < matrices.num_inputs {
                scalars.ic.push(k_value * gamma_inv);
            } else {
                scalars.l.push(k_value * delta_inv);
            }
            scalars
                .a
                .extend(Some(u).filter(|u| !bool::from(u.is_zero())));
            scalars
                .b
                .extend(Some(v).filter(|v| !bool::from(v.is_zero())));
        }
        scalars
    }

    /// The scalars from the recorded matrices (columns summed by bucket, Lagrange values by
    /// inverse NTT) are those of the obvious setup, for circuits with inputs between
    /// constraints, repeated and zero terms, parts merged with `extend` and zero columns.
    #[test]
    fn setup_scalars_are_the_obvious_ones() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(4);
        let secrets = SetupSecrets::random(&mut rng);
        let check = |what: &str, fast: SetupScalars, slow: SetupScalars| {
            assert_eq!(fast.ic, slow.ic, "{what}: ic");
            assert_eq!(fast.h, slow.h, "{what}: h");
            assert_eq!(fast.l, slow.l, "{what}: l");
            assert_eq!(fast.a, slow.a, "{what}: a");
            assert_eq!(fast.b, slow.b, "{what}: b");
        };
        let interleaved = InterleavedCircuit {
            values: vec![2, 3, 4, 5, 6, 7],
        };
        let reference = reference_scalars(interleaved.clone(), &secrets);
        let reference_l = reference.l.clone();
        check(
            "interleaved",
            setup_scalars(interleaved.clone(), &secrets).unwrap(),
            reference,
        );
        let mix = MixCircuit::new(6, 0.5, 2);
        check(
            "mix",
            setup_scalars(mix.clone(), &secrets).unwrap(),
            reference_scalars(mix, &secrets),
        );
        // The comparison can fail: other secrets, other scalars.
        let other = SetupSecrets::random(&mut rng);
        let different = setup_scalars(interleaved, &other).unwrap();
        assert_ne!(different.l, reference_l);
    }

    /// The file written chunk by chunk is the file of the parameters made in memory.
    #[test]
    fn streamed_parameters_are_the_same_file() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        let circuit = MixCircuit::new(7, 0.6, 2);
        let secrets = SetupSecrets::random(&mut rng);
        let params = generate_parameters(circuit.clone(), &secrets, &CpuFixedBase).unwrap();
        let mut whole = Vec::new();
        crate::params::write_parameters(&params, &mut whole).unwrap();
        let scalars = setup_scalars(circuit, &secrets).unwrap();
        let counts = scalars.counts();
        assert_eq!(counts.file_bytes(), whole.len() as u64);
        assert_eq!((counts.h, counts.l), (params.h.len(), params.l.len()));
        let vk = scalars.verifying_key(&CpuFixedBase).unwrap();
        assert_eq!(vk, params.vk);
        // 10 points a chunk: every section ends in a partial chunk.
        let streamed = scalars
            .write_parameters(&vk, &CpuFixedBase, Vec::new(), 10)
            .unwrap();
        assert_eq!(streamed, whole);
    }

    #[test]
    fn the_multiplier_does_not_change_the_parameters() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(2);
        let circuit = MixCircuit::new(6, 0.5, 2);
        let secrets = SetupSecrets::random(&mut rng);
        let with_tables = generate_parameters(circuit.clone(), &secrets, &CpuFixedBase).unwrap();
        let plain = generate_parameters(circuit.clone(), &secrets, &PlainMultiplier).unwrap();
        let bytes = |p: &Parameters| {
            let mut out = Vec::new();
            crate::params::write_parameters(p, &mut out).unwrap();
            out
        };
        assert_eq!(bytes(&with_tables), bytes(&plain));
        // Other secrets give other parameters (the comparison above can fail).
        let other = SetupSecrets::random(&mut rng);
        let different = generate_parameters(circuit, &other, &CpuFixedBase).unwrap();
        assert_ne!(bytes(&with_tables), bytes(&different));
    }
}
