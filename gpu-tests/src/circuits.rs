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

/// Public inputs and no constraint of its own: the only constraints are the input constraints
/// the prover adds (input * 0 = 0), so no variable is in B (b_g1 and b_g2 are empty) and,
/// with no input beyond the constant one, the domain is 1 and h has no points.
#[derive(Clone)]
pub struct NoConstraintsCircuit {
    pub inputs: Vec<Scalar>,
}

impl Circuit<Scalar> for NoConstraintsCircuit {
    fn synthesize<CS: ConstraintSystem<Scalar>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        for (i, v) in self.inputs.iter().enumerate() {
            cs.alloc_input(|| format!("x{i}"), || Ok(*v))?;
        }
        Ok(())
    }
}

/// Aux variables each constrained by x * 0 = 0, and one public input: an H query and an l
/// query, but no variable in B, so B's queries are empty and its G2 sum is the identity
/// wherever it is placed. (The proof is still bound to the input, through its input
/// constraint in A.)
#[derive(Clone)]
pub struct EmptyBCircuit {
    pub input: Scalar,
    pub values: Vec<Scalar>,
}

impl Circuit<Scalar> for EmptyBCircuit {
    fn synthesize<CS: ConstraintSystem<Scalar>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        cs.alloc_input(|| "input", || Ok(self.input))?;
        for (i, v) in self.values.iter().enumerate() {
            let x = cs.alloc(|| format!("x{i}"), || Ok(*v))?;
            cs.enforce(|| format!("zero {i}"), |l| l + x, |l| l, |l| l);
        }
        Ok(())
    }
}
