//! The `mix` circuit: one new auxiliary variable per constraint, a chosen fraction of them
//! bits, the rest field elements that look random.
//!
//! Constraint `j` allocates `y_j` and enforces one of
//! - `y_j * y_j = y_j` when `y_j` is a bit (0 or 1, drawn at random);
//! - `y_j * (y_{j-1} + k_j) = 1` otherwise, with a random constant `k_j`, so that
//!   `y_j = 1 / (y_{j-1} + k_j)` is a full-size field element and B uses the previous variable.
//!
//! One more constraint binds the public input: `x * 1 = y_0`.

use bellpepper_core::{Circuit, ConstraintSystem, SynthesisError};
use blstrs::Scalar;
use ff::Field;
use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::{CircuitSizeError, INPUT_CONSTRAINTS};

#[derive(Clone, Debug)]
pub struct MixCircuit {
    log_size: u32,
    /// Probability that a variable is a bit, as a threshold on a uniform `u64`.
    bit_threshold: u64,
    seed: u64,
}

/// One variable of the chain and how it is constrained.
enum Step {
    Bit(bool),
    /// `y = 1 / (prev + k)`.
    Inverse {
        k: Scalar,
        y: Scalar,
    },
}

impl MixCircuit {
    /// The default fraction of bit values: Filecoin witnesses are mostly bits.
    pub const DEFAULT_BIT_FRACTION: f64 = 0.9;

    /// A circuit of `2^log_size` constraints where about `bit_fraction` of the variables are
    /// bits. Sizes below 2^2 cannot hold the input constraints and the chain.
    pub fn try_new(log_size: u32, bit_fraction: f64, seed: u64) -> Result<Self, CircuitSizeError> {
        if !(2..=32).contains(&log_size) {
            return Err(CircuitSizeError {
                circuit: "mix",
                log_size,
                min_log_size: 2,
            });
        }
        let fraction = bit_fraction.clamp(0.0, 1.0);
        Ok(Self {
            log_size,
            bit_threshold: (fraction * u64::MAX as f64) as u64,
            seed,
        })
    }

    /// [`MixCircuit::try_new`] for sizes known to be valid (tests, benchmarks).
    ///
    /// # Panics
    /// If `log_size` is below 2 or above 32.
    pub fn new(log_size: u32, bit_fraction: f64, seed: u64) -> Self {
        match Self::try_new(log_size, bit_fraction, seed) {
            Ok(c) => c,
            Err(e) => panic!("{e}"),
        }
    }

    /// Variables in the chain (constraints that each add one variable).
    fn chain_len(&self) -> usize {
        (1usize << self.log_size) - INPUT_CONSTRAINTS - 1
    }

    /// Number of auxiliary variables.
    pub fn num_aux(&self) -> usize {
        self.chain_len()
    }

    fn step(&self, rng: &mut ChaCha8Rng, prev: Scalar) -> Step {
        if rng.next_u64() < self.bit_threshold {
            return Step::Bit(rng.next_u64() & 1 == 1);
        }
        let mut k = Scalar::random(&mut *rng);
        loop {
            if let Some(y) = Option::<Scalar>::from((prev + k).invert()) {
                return Step::Inverse { k, y };
            }
            k += Scalar::ONE;
        }
    }

    fn rng(&self) -> ChaCha8Rng {
        ChaCha8Rng::seed_from_u64(self.seed)
    }

    /// The public input, `y_0`.
    pub fn public_input(&self) -> Scalar {
        match self.step(&mut self.rng(), Scalar::ZERO) {
            Step::Bit(b) => Scalar::from(b as u64),
            Step::Inverse { y, .. } => y,
        }
    }
}

impl Circuit<Scalar> for MixCircuit {
    fn synthesize<CS: ConstraintSystem<Scalar>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        let mut rng = self.rng();
        let one = CS::one();
        let mut prev: Option<(bellpepper_core::Variable, Scalar)> = None;
        let mut first = None;
        for _ in 0..self.chain_len() {
            let prev_value = prev.map_or(Scalar::ZERO, |(_, v)| v);
            let (var, value) = match self.step(&mut rng, prev_value) {
                Step::Bit(bit) => {
                    let value = Scalar::from(bit as u64);
                    let y = cs.alloc(|| "bit", || Ok(value))?;
                    cs.enforce(|| "y*y=y", |lc| lc + y, |lc| lc + y, |lc| lc + y);
                    (y, value)
                }
                Step::Inverse { k, y: value } => {
                    let y = cs.alloc(|| "inverse", || Ok(value))?;
                    cs.enforce(
                        || "y*(prev+k)=1",
                        |lc| lc + y,
                        |lc| match prev {
                            Some((p, _)) => lc + p + (k, one),
                            None => lc + (k, one),
                        },
                        |lc| lc + one,
                    );
                    (y, value)
                }
            };
            first.get_or_insert((var, value));
            prev = Some((var, value));
        }
        let (y0, y0_value) = first.ok_or(SynthesisError::AssignmentMissing)?;
        let x = cs.alloc_input(|| "x", || Ok(y0_value))?;
        cs.enforce(|| "x*1=y0", |lc| lc + x, |lc| lc + one, |lc| lc + y0);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synthesis::synthesize_circuit;

    #[test]
    fn has_2_pow_n_constraints_and_is_satisfied() {
        for log_size in [2, 5, 10] {
            let c = MixCircuit::new(log_size, 0.9, 11);
            let cs = synthesize_circuit(c.clone()).unwrap();
            assert_eq!(cs.num_constraints(), 1 << log_size);
            assert_eq!(cs.input_assignment, vec![Scalar::ONE, c.public_input()]);
            assert_eq!(cs.aux_assignment.len(), c.num_aux());
            assert_eq!(cs.first_unsatisfied(), None);
        }
    }

    #[test]
    fn bit_fraction_is_respected() {
        let cs = synthesize_circuit(MixCircuit::new(12, 0.9, 1)).unwrap();
        let bits = cs
            .aux_assignment
            .iter()
            .filter(|v| **v == Scalar::ZERO || **v == Scalar::ONE)
            .count();
        let fraction = bits as f64 / cs.aux_assignment.len() as f64;
        assert!((0.87..0.93).contains(&fraction), "fraction {fraction}");
        let all_random = synthesize_circuit(MixCircuit::new(8, 0.0, 1)).unwrap();
        assert!(all_random
            .aux_assignment
            .iter()
            .all(|v| *v != Scalar::ZERO && *v != Scalar::ONE));
    }

    #[test]
    fn too_small_is_an_error() {
        assert!(MixCircuit::try_new(1, 0.9, 0).is_err());
    }
}
