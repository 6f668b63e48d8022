//! A test circuit chosen by name ("sha", "mix" or "mix<percent>"), for the benchmarks, the engine's sweep and
//! the daemon's test kind, which all take the circuit as a word.

use bellpepper_core::{Circuit, ConstraintSystem, SynthesisError};
use blstrs::Scalar;

use super::{CircuitSizeError, MixCircuit, ShaCircuit};

/// One of the test circuits; see [`TestCircuit::by_name`].
#[derive(Clone, Debug)]
pub enum TestCircuit {
    Sha(ShaCircuit),
    /// With [`MixCircuit::DEFAULT_BIT_FRACTION`] bits, or the fraction the name gives.
    Mix(MixCircuit),
}

/// Why [`TestCircuit::by_name`] could not make a circuit.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TestCircuitError {
    #[error("unknown test circuit `{0}` (sha, mix, or mix<P> with P% non-boolean values, such as mix50)")]
    UnknownName(String),
    #[error(transparent)]
    Size(#[from] CircuitSizeError),
}

impl TestCircuit {
    /// The circuit `name` of `2^log_size` constraints, its witness from `seed`: "sha", "mix"
    /// (10% non-boolean values) or "mix<P>" with P (0 to 100) percent non-boolean values.
    pub fn by_name(name: &str, log_size: u32, seed: u64) -> Result<Self, TestCircuitError> {
        let unknown = || TestCircuitError::UnknownName(name.to_string());
        Ok(match name {
            "sha" => TestCircuit::Sha(ShaCircuit::try_new(log_size, seed)?),
            "mix" => TestCircuit::Mix(MixCircuit::try_new(
                log_size,
                MixCircuit::DEFAULT_BIT_FRACTION,
                seed,
            )?),
            other => {
                let percent: u32 = other
                    .strip_prefix("mix")
                    .filter(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
                    .and_then(|p| p.parse().ok())
                    .filter(|p| *p <= 100)
                    .ok_or_else(unknown)?;
                let bit_fraction = 1.0 - f64::from(percent) / 100.0;
                TestCircuit::Mix(MixCircuit::try_new(log_size, bit_fraction, seed)?)
            }
        })
    }

    /// The circuit's one public input.
    pub fn public_input(&self) -> Scalar {
        match self {
            TestCircuit::Sha(c) => c.public_input(),
            TestCircuit::Mix(c) => c.public_input(),
        }
    }
}

impl Circuit<Scalar> for TestCircuit {
    fn synthesize<CS: ConstraintSystem<Scalar>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        match self {
            TestCircuit::Sha(c) => c.synthesize(cs),
            TestCircuit::Mix(c) => c.synthesize(cs),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synthesis::synthesize_circuit;

    #[test]
    fn names_sizes_and_the_same_circuit() {
        let named = TestCircuit::by_name("mix", 6, 3).unwrap();
        let direct = MixCircuit::new(6, MixCircuit::DEFAULT_BIT_FRACTION, 3);
        assert_eq!(named.public_input(), direct.public_input());
        assert_eq!(
            synthesize_circuit(named).unwrap().a,
            synthesize_circuit(direct).unwrap().a
        );
        assert!(matches!(
            TestCircuit::by_name("rsa", 6, 0),
            Err(TestCircuitError::UnknownName(_))
        ));
        // mix<P>: P percent non-boolean values.
        let half = TestCircuit::by_name("mix50", 6, 3).unwrap();
        let direct = MixCircuit::new(6, 0.5, 3);
        assert_eq!(
            synthesize_circuit(half).unwrap().aux_assignment,
            synthesize_circuit(direct).unwrap().aux_assignment
        );
        for bad in ["mix101", "mix-5", "mix5x", "mixer", "mix 5"] {
            assert!(
                matches!(
                    TestCircuit::by_name(bad, 6, 0),
                    Err(TestCircuitError::UnknownName(_))
                ),
                "{bad}"
            );
        }
        assert!(matches!(
            TestCircuit::by_name("sha", 3, 0),
            Err(TestCircuitError::Size(_))
        ));
    }
}
