//! The `sha` circuit: chained SHA-256 compressions over random input bits, padded with
//! boolean constraints to exactly `2^N` constraints.
//!
//! - 512 random bits are allocated as the message block (one booleanity constraint each);
//! - `k` calls of bellpepper's `sha256_compression_function`, each on that block with the
//!   previous call's output as its chaining state (the first starts from the SHA-256 IV);
//! - the public input is the first 224 bits of the last state, `sum_w state[w] 2^(32 w)` over
//!   words 0..7, bound by one constraint;
//! - the rest, up to `2^N`, is random bits with booleanity constraints.
//!
//! `k` is the largest count that fits, so the circuit is almost all SHA-256 from 2^15 up,
//! and bit-heavy throughout, as Filecoin's PoRep is.

use bellpepper::gadgets::sha256::sha256_compression_function;
use bellpepper::gadgets::uint32::UInt32;
use bellpepper_core::boolean::{AllocatedBit, Boolean};
use bellpepper_core::{Circuit, ConstraintSystem, LinearCombination, SynthesisError};
use blstrs::Scalar;
use ff::Field;
use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::{CircuitSizeError, INPUT_CONSTRAINTS};

/// Constraints of the first `sha256_compression_function` call (allocated input bits, the
/// constant IV as its state).
pub const SHA256_FIRST_COMPRESSION_CONSTRAINTS: usize = 25_840;
/// Constraints of each later call: its chaining state is allocated (the previous output),
/// which makes the additions of the rounds 352 constraints dearer than with constants.
pub const SHA256_NEXT_COMPRESSION_CONSTRAINTS: usize = 26_192;

/// SHA-256 initial hash value (FIPS 180-4, section 5.3.3).
const IV: [u32; 8] = [
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
];

const BLOCK_BITS: usize = 512;
/// Words of the final state packed into the public input (7 * 32 = 224 bits < 255).
const PUBLIC_WORDS: usize = 7;

#[derive(Clone, Debug)]
pub struct ShaCircuit {
    log_size: u32,
    seed: u64,
}

impl ShaCircuit {
    /// Smallest size that holds the 512 block bits, the binding and the input constraints.
    pub const MIN_LOG_SIZE: u32 = 10;

    pub fn try_new(log_size: u32, seed: u64) -> Result<Self, CircuitSizeError> {
        if !(Self::MIN_LOG_SIZE..=32).contains(&log_size) {
            return Err(CircuitSizeError {
                circuit: "sha",
                log_size,
                min_log_size: Self::MIN_LOG_SIZE,
            });
        }
        Ok(Self { log_size, seed })
    }

    /// [`ShaCircuit::try_new`] for sizes known to be valid.
    ///
    /// # Panics
    /// If `log_size` is outside `10..=32`.
    pub fn new(log_size: u32, seed: u64) -> Self {
        match Self::try_new(log_size, seed) {
            Ok(c) => c,
            Err(e) => panic!("{e}"),
        }
    }

    /// Constraints available for SHA-256 calls and padding.
    fn budget(&self) -> usize {
        (1usize << self.log_size) - INPUT_CONSTRAINTS - BLOCK_BITS - 1
    }

    /// Number of compression calls: as many as fit the budget.
    pub fn compressions(&self) -> usize {
        match self
            .budget()
            .checked_sub(SHA256_FIRST_COMPRESSION_CONSTRAINTS)
        {
            None => 0,
            Some(rest) => 1 + rest / SHA256_NEXT_COMPRESSION_CONSTRAINTS,
        }
    }

    fn padding(&self) -> usize {
        let calls = self.compressions();
        let used = match calls {
            0 => 0,
            k => {
                SHA256_FIRST_COMPRESSION_CONSTRAINTS + (k - 1) * SHA256_NEXT_COMPRESSION_CONSTRAINTS
            }
        };
        self.budget() - used
    }

    fn block(&self) -> [u8; BLOCK_BITS / 8] {
        let mut block = [0u8; BLOCK_BITS / 8];
        ChaCha8Rng::seed_from_u64(self.seed).fill_bytes(&mut block);
        block
    }

    /// The public input, computed natively.
    pub fn public_input(&self) -> Scalar {
        let block = self.block();
        let mut state = IV;
        for _ in 0..self.compressions() {
            sha2::compress256(&mut state, &[block.into()]);
        }
        let mut acc = Scalar::ZERO;
        for &word in state[..PUBLIC_WORDS].iter().rev() {
            acc = acc * Scalar::from(1u64 << 32) + Scalar::from(word as u64);
        }
        acc
    }
}

impl Circuit<Scalar> for ShaCircuit {
    fn synthesize<CS: ConstraintSystem<Scalar>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        let block = self.block();
        // SHA-256 reads each byte most significant bit first.
        let bits = block
            .iter()
            .flat_map(|byte| (0..8).rev().map(move |i| (byte >> i) & 1 == 1))
            .enumerate()
            .map(|(i, bit)| {
                AllocatedBit::alloc(cs.namespace(|| format!("block bit {i}")), Some(bit))
                    .map(Boolean::from)
            })
            .collect::<Result<Vec<_>, _>>()?;

        let mut state: Vec<UInt32> = IV.iter().map(|&w| UInt32::constant(w)).collect();
        for call in 0..self.compressions() {
            state = sha256_compression_function(
                cs.namespace(|| format!("compression {call}")),
                &bits,
                &state,
            )?;
        }

        // x = sum over the first 224 state bits of bit * 2^position (words little-endian).
        let mut packed = LinearCombination::<Scalar>::zero();
        let mut value = Some(Scalar::ZERO);
        let mut coeff = Scalar::ONE;
        for word in state.into_iter().take(PUBLIC_WORDS) {
            for bit in word.into_bits() {
                packed = packed + &bit.lc(CS::one(), coeff);
                value = match (value, bit.get_value()) {
                    (Some(v), Some(b)) => Some(if b { v + coeff } else { v }),
                    _ => None,
                };
                coeff = coeff.double();
            }
        }
        let x = cs.alloc_input(|| "x", || value.ok_or(SynthesisError::AssignmentMissing))?;
        cs.enforce(
            || "x = packed state",
            |lc| lc + x,
            |lc| lc + CS::one(),
            |_| packed,
        );

        let mut rng = ChaCha8Rng::seed_from_u64(self.seed ^ 0x5041_4444);
        for i in 0..self.padding() {
            AllocatedBit::alloc(
                cs.namespace(|| format!("pad {i}")),
                Some(rng.next_u32() & 1 == 1),
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synthesis::synthesize_circuit;

    #[test]
    fn has_2_pow_n_constraints_and_is_satisfied() {
        // 15: one compression (constant IV); 16 and 17: later compressions chain an
        // allocated state, which costs more constraints than the first.
        for log_size in [10, 15, 16, 17] {
            let c = ShaCircuit::new(log_size, 5);
            let cs = synthesize_circuit(c.clone()).unwrap();
            assert_eq!(cs.num_constraints(), 1 << log_size, "2^{log_size}");
            assert_eq!(cs.input_assignment, vec![Scalar::ONE, c.public_input()]);
            assert_eq!(cs.first_unsatisfied(), None);
        }
        assert_eq!(ShaCircuit::new(15, 0).compressions(), 1);
        assert_eq!(ShaCircuit::new(16, 0).compressions(), 2);
        assert_eq!(ShaCircuit::new(17, 0).compressions(), 4);
    }

    #[test]
    fn public_input_matches_the_gadget() {
        // The native SHA-256 and the gadget agree only if bit orders are right; with a
        // wrong order the packing constraint above would be unsatisfied.
        let c = ShaCircuit::new(15, 9);
        let cs = synthesize_circuit(c.clone()).unwrap();
        assert_eq!(cs.first_unsatisfied(), None);
        assert_ne!(c.public_input(), ShaCircuit::new(15, 10).public_input());
    }

    #[test]
    fn too_small_is_an_error() {
        assert!(ShaCircuit::try_new(9, 0).is_err());
    }
}
