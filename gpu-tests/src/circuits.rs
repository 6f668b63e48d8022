//! Small circuits with edge-case witnesses, shared by the GPU prover tests
//! (`tests/groth16.rs`) and the device-matrices tests (`tests/device_matrices.rs`).

use bellpepper_core::{Circuit, ConstraintSystem, SynthesisError};
use blstrs::Scalar;
use ff::Field;

/// `n` aux variables all equal to `value` (each x * x = x and x * 1 = input), one public input.
#[derive(Clone)]
pub struct ConstantCircuit {
    pub n: usize,
    pub value: bool,
}

impl Circuit<Scalar> for ConstantCircuit {
    fn synthesize<CS: ConstraintSystem<Scalar>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        let v = if self.value {
            Scalar::ONE
        } else {
            Scalar::ZERO
        };
        let input = cs.alloc_input(|| "input", || Ok(v))?;
        for i in 0..self.n {
            let x = cs.alloc(|| format!("x{i}"), || Ok(v))?;
            cs.enforce(|| format!("bit {i}"), |lc| lc + x, |lc| lc + x, |lc| lc + x);
            cs.enforce(
                || format!("eq {i}"),
                |lc| lc + x,
                |lc| lc + CS::one(),
                |lc| lc + input,
            );
        }
        Ok(())
    }
}

/// Public inputs only, no aux variable: each input times one is itself.
#[derive(Clone)]
pub struct InputsOnlyCircuit {
    pub values: Vec<Scalar>,
}

impl Circuit<Scalar> for InputsOnlyCircuit {
    fn synthesize<CS: ConstraintSystem<Scalar>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        for (i, v) in self.values.iter().enumerate() {
            let x = cs.alloc_input(|| format!("x{i}"), || Ok(*v))?;
            cs.enforce(
                || format!("c{i}"),
                |lc| lc + x,
                |lc| lc + CS::one(),
                |lc| lc + x,
            );
        }
        Ok(())
    }
}
