//! The witness-only constraint system: runs a circuit for its values and skips every
//! `enforce` (the linear combinations are neither built into rows nor evaluated), which is
//! most of a full synthesis's work.

use bellpepper_core::{
    Circuit, ConstraintSystem, Index, LinearCombination, SynthesisError, Variable,
};
use blstrs::Scalar;

use crate::synthesis::synthesize_into;

/// The values of a circuit's variables, in allocation order (input 0 is the constant one).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Witness {
    pub inputs: Vec<Scalar>,
    pub aux: Vec<Scalar>,
}

impl ConstraintSystem<Scalar> for Witness {
    type Root = Self;

    fn new() -> Self {
        Self::default()
    }

    fn alloc<F, A, AR>(&mut self, _: A, f: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Scalar, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        self.aux.push(f()?);
        Ok(Variable::new_unchecked(Index::Aux(self.aux.len() - 1)))
    }

    fn alloc_input<F, A, AR>(&mut self, _: A, f: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Scalar, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        self.inputs.push(f()?);
        Ok(Variable::new_unchecked(Index::Input(self.inputs.len() - 1)))
    }

    fn enforce<A, AR, LA, LB, LC>(&mut self, _: A, _: LA, _: LB, _: LC)
    where
        A: FnOnce() -> AR,
        AR: Into<String>,
        LA: FnOnce(LinearCombination<Scalar>) -> LinearCombination<Scalar>,
        LB: FnOnce(LinearCombination<Scalar>) -> LinearCombination<Scalar>,
        LC: FnOnce(LinearCombination<Scalar>) -> LinearCombination<Scalar>,
    {
        // The constraints come from the recorded matrices.
    }

    fn push_namespace<NR, N>(&mut self, _: N)
    where
        NR: Into<String>,
        N: FnOnce() -> NR,
    {
    }

    fn pop_namespace(&mut self) {}

    fn get_root(&mut self) -> &mut Self::Root {
        self
    }

    fn is_extensible() -> bool {
        true
    }

    /// As `ProvingAssignment::extend`: the part's input 0 (its temporary one) is dropped.
    fn extend(&mut self, other: &Self) {
        self.inputs
            .extend_from_slice(other.inputs.get(1..).unwrap_or(&[]));
        self.aux.extend_from_slice(&other.aux);
    }
}

/// The values of `circuit`'s variables as the prover synthesizes it (the constant one first;
/// the input constraints the wrapping adds are skipped like every other).
pub fn synthesize_witness<C: Circuit<Scalar>>(circuit: C) -> Result<Witness, SynthesisError> {
    let mut cs = Witness::new();
    synthesize_into(&mut cs, circuit, |cs| cs.inputs.len())?;
    Ok(cs)
}
