//! A small circuit with the layouts that trip a recording of the constraint matrices: public
//! inputs allocated between constraints, a repeated variable and a zero coefficient in one
//! linear combination, and parts synthesized separately and merged with `extend` (as
//! Filecoin's circuits do).

use bellpepper_core::{Circuit, ConstraintSystem, SynthesisError};
use blstrs::Scalar;
use ff::Field;

/// Per value v: an aux x = v, an input x^2 (allocated after x's first constraint's
/// variables, before its constraint), x * x = x^2, and an aux y = 3v with 3x = y written as
/// x + x + 2x - x + 0 y. The first value is synthesized directly, the rest in parts of two
/// merged with `extend` when the constraint system allows it.
#[derive(Clone, Debug)]
pub struct InterleavedCircuit {
    pub values: Vec<u64>,
}

impl InterleavedCircuit {
    fn part<CS: ConstraintSystem<Scalar>>(
        cs: &mut CS,
        values: &[u64],
    ) -> Result<(), SynthesisError> {
        for &v in values {
            let x = cs.alloc(|| "x", || Ok(Scalar::from(v)))?;
            let sq = cs.alloc_input(|| "x^2", || Ok(Scalar::from(v * v)))?;
            cs.enforce(|| "x*x=sq", |lc| lc + x, |lc| lc + x, |lc| lc + sq);
            let y = cs.alloc(|| "y", || Ok(Scalar::from(3 * v)))?;
            // 3x = y, written with a repeated term and a zero-coefficient term.
            cs.enforce(
                || "x+x+x=y",
                |lc| lc + x + x + (Scalar::from(2u64), x) - x + (Scalar::ZERO, y),
                |lc| lc + CS::one(),
                |lc| lc + y,
            );
        }
        Ok(())
    }

    /// The public inputs the circuit allocates (after the constant one): the squares.
    pub fn public_inputs(&self) -> Vec<Scalar> {
        self.values.iter().map(|&v| Scalar::from(v * v)).collect()
    }
}

impl Circuit<Scalar> for InterleavedCircuit {
    fn synthesize<CS: ConstraintSystem<Scalar>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        let Some((first, rest)) = self.values.split_first() else {
            return Ok(());
        };
        if !CS::is_extensible() {
            return Self::part(cs, &self.values);
        }
        Self::part(cs, std::slice::from_ref(first))?;
        for chunk in rest.chunks(2) {
            let mut part = CS::new();
            part.alloc_input(|| "temporary one", || Ok(Scalar::ONE))?;
            Self::part(&mut part, chunk)?;
            cs.extend(&part);
        }
        Ok(())
    }
}
