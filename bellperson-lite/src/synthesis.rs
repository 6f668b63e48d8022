//! Circuit synthesis: running a bellpepper circuit into the data a Groth16 prover consumes.
//!
//! A [`ProvingAssignment`] is a `bellpepper_core::ConstraintSystem` that, instead of storing
//! the constraints, evaluates each one on the witness as it is enforced: for constraint `j`
//! it keeps `a[j] = <A_j, z>`, `b[j] = <B_j, z>` and `c[j] = <C_j, z>`. It also records
//! which variables appear in the A and B queries (the density bitmaps), because the
//! parameters only hold base points for those.
//!
//! [`synthesize_circuits`] wraps a circuit the way bellperson's prover does (the constant
//! one as input 0, then the circuit, then one constraint `x_i * 0 = 0` per public input so
//! that every input has a non-zero A polynomial). The result is what both the CPU and the
//! GPU backends prove from, so its layout is part of the byte-compatibility contract.

use bellpepper_core::{
    Circuit, ConstraintSystem, Index, LinearCombination, SynthesisError, Variable,
};
use blstrs::Scalar;
use ff::Field;
use rayon::prelude::*;

use crate::density::Density;

/// The evaluated constraint system of one circuit: the witness and `A z`, `B z`, `C z`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProvingAssignment {
    /// Which auxiliary variables appear (with a non-zero coefficient) in some A term.
    /// Inputs are always in the A query, so there is no input bitmap for A.
    pub a_aux_density: Density,
    /// Which inputs appear in some B term.
    pub b_input_density: Density,
    /// Which auxiliary variables appear in some B term.
    pub b_aux_density: Density,
    /// `<A_j, z>` for every constraint `j`.
    pub a: Vec<Scalar>,
    /// `<B_j, z>` for every constraint `j`.
    pub b: Vec<Scalar>,
    /// `<C_j, z>` for every constraint `j`.
    pub c: Vec<Scalar>,
    /// Public inputs; index 0 is the constant one.
    pub input_assignment: Vec<Scalar>,
    /// Private (auxiliary) variables.
    pub aux_assignment: Vec<Scalar>,
}

impl ProvingAssignment {
    /// Number of constraints enforced so far.
    pub fn num_constraints(&self) -> usize {
        self.a.len()
    }

    /// Index of the first constraint with `a * b != c`, if any. A prover must not turn an
    /// unsatisfied assignment into a proof: it would be a proof that does not verify.
    pub fn first_unsatisfied(&self) -> Option<usize> {
        const CHUNK: usize = 1 << 14;
        self.a
            .par_chunks(CHUNK)
            .zip(self.b.par_chunks(CHUNK))
            .zip(self.c.par_chunks(CHUNK))
            .enumerate()
            .filter_map(|(chunk, ((a, b), c))| {
                (0..a.len())
                    .find(|&i| a[i] * b[i] != c[i])
                    .map(|i| chunk * CHUNK + i)
            })
            .min()
    }
}

/// Evaluates `lc` on the witness and marks the variables it uses in the given bitmaps.
/// Terms with a zero coefficient are skipped and do not count as uses, as in bellperson:
/// the generator leaves out the (zero) base points of such variables. (Compared with `==`:
/// the constant-time `is_zero` costs more than the rest of a term.)
fn eval_tracking(
    lc: &LinearCombination<Scalar>,
    mut input_density: Option<&mut Density>,
    mut aux_density: Option<&mut Density>,
    inputs: &[Scalar],
    aux: &[Scalar],
) -> Scalar {
    let mut acc = Scalar::ZERO;
    for (&index, coeff) in lc.iter_inputs() {
        if *coeff == Scalar::ZERO {
            continue;
        }
        acc += scaled(inputs[index], coeff);
        if let Some(d) = input_density.as_deref_mut() {
            d.set(index);
        }
    }
    for (&index, coeff) in lc.iter_aux() {
        if *coeff == Scalar::ZERO {
            continue;
        }
        acc += scaled(aux[index], coeff);
        if let Some(d) = aux_density.as_deref_mut() {
            d.set(index);
        }
    }
    acc
}

/// `value * coeff`, skipping the multiplication for the very common coefficient one.
#[inline]
fn scaled(value: Scalar, coeff: &Scalar) -> Scalar {
    if *coeff == Scalar::ONE {
        value
    } else {
        value * coeff
    }
}

impl ConstraintSystem<Scalar> for ProvingAssignment {
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
        self.aux_assignment.push(f()?);
        self.a_aux_density.push(false);
        self.b_aux_density.push(false);
        Ok(Variable::new_unchecked(Index::Aux(
            self.aux_assignment.len() - 1,
        )))
    }

    fn alloc_input<F, A, AR>(&mut self, _: A, f: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Scalar, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        self.input_assignment.push(f()?);
        self.b_input_density.push(false);
        Ok(Variable::new_unchecked(Index::Input(
            self.input_assignment.len() - 1,
        )))
    }

    fn enforce<A, AR, LA, LB, LC>(&mut self, _: A, a: LA, b: LB, c: LC)
    where
        A: FnOnce() -> AR,
        AR: Into<String>,
        LA: FnOnce(LinearCombination<Scalar>) -> LinearCombination<Scalar>,
        LB: FnOnce(LinearCombination<Scalar>) -> LinearCombination<Scalar>,
        LC: FnOnce(LinearCombination<Scalar>) -> LinearCombination<Scalar>,
    {
        let a = a(LinearCombination::zero());
        let b = b(LinearCombination::zero());
        let c = c(LinearCombination::zero());
        let (inputs, aux) = (&self.input_assignment, &self.aux_assignment);

        let a_value = eval_tracking(&a, None, Some(&mut self.a_aux_density), inputs, aux);
        let b_value = eval_tracking(
            &b,
            Some(&mut self.b_input_density),
            Some(&mut self.b_aux_density),
            inputs,
            aux,
        );
        // C has no query of its own (it is folded into L), so no density to track.
        let c_value = eval_tracking(&c, None, None, inputs, aux);

        self.a.push(a_value);
        self.b.push(b_value);
        self.c.push(c_value);
    }

    fn push_namespace<NR, N>(&mut self, _: N)
    where
        NR: Into<String>,
        N: FnOnce() -> NR,
    {
        // Names only matter for debugging constraint systems, not for proving.
    }

    fn pop_namespace(&mut self) {}

    fn get_root(&mut self) -> &mut Self::Root {
        self
    }

    fn is_extensible() -> bool {
        true
    }

    /// Appends a part synthesized separately (filecoin circuits synthesize challenges in
    /// parallel this way). The part's input 0 was its own temporary constant one and is
    /// dropped; its evaluated constraints are appended as they are.
    fn extend(&mut self, other: &Self) {
        self.a_aux_density.extend(&other.a_aux_density, false);
        self.b_input_density.extend(&other.b_input_density, true);
        self.b_aux_density.extend(&other.b_aux_density, false);
        self.a.extend_from_slice(&other.a);
        self.b.extend_from_slice(&other.b);
        self.c.extend_from_slice(&other.c);
        self.input_assignment
            .extend_from_slice(other.input_assignment.get(1..).unwrap_or(&[]));
        self.aux_assignment.extend_from_slice(&other.aux_assignment);
    }
}

/// Synthesizes one circuit for proving: the constant one as input 0, the circuit itself, then
/// one constraint `input_i * 0 = 0` per public input.
pub fn synthesize_circuit<C: Circuit<Scalar>>(
    circuit: C,
) -> Result<ProvingAssignment, SynthesisError> {
    let mut cs = ProvingAssignment::new();
    synthesize_into(&mut cs, circuit, |cs| cs.input_assignment.len())?;
    Ok(cs)
}

/// The prover's wrapping of a circuit, for any constraint system (the full one here, the
/// recording and witness-only ones in `matrices`): the constant one as input 0, the circuit,
/// then `input_i * 0 = 0` for each of the `inputs(cs)` inputs.
pub(crate) fn synthesize_into<CS, C>(
    cs: &mut CS,
    circuit: C,
    inputs: impl Fn(&CS) -> usize,
) -> Result<(), SynthesisError>
where
    CS: ConstraintSystem<Scalar>,
    C: Circuit<Scalar>,
{
    cs.alloc_input(|| "one", || Ok(Scalar::ONE))?;
    circuit.synthesize(cs)?;
    for i in 0..inputs(cs) {
        cs.enforce(
            || "input constraint",
            |lc| lc + Variable::new_unchecked(Index::Input(i)),
            |lc| lc,
            |lc| lc,
        );
    }
    Ok(())
}

/// Synthesizes many circuits in parallel on the current rayon pool.
pub fn synthesize_circuits<C: Circuit<Scalar> + Send>(
    circuits: Vec<C>,
) -> Result<Vec<ProvingAssignment>, SynthesisError> {
    circuits.into_par_iter().map(synthesize_circuit).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// x * y = z with x public, plus a term with a zero coefficient that must not count.
    struct Mul {
        x: u64,
        y: u64,
    }

    impl Circuit<Scalar> for Mul {
        fn synthesize<CS: ConstraintSystem<Scalar>>(
            self,
            cs: &mut CS,
        ) -> Result<(), SynthesisError> {
            let x = cs.alloc_input(|| "x", || Ok(Scalar::from(self.x)))?;
            let y = cs.alloc(|| "y", || Ok(Scalar::from(self.y)))?;
            let unused = cs.alloc(|| "unused", || Ok(Scalar::from(5)))?;
            let z = cs.alloc(|| "z", || Ok(Scalar::from(self.x * self.y)))?;
            cs.enforce(
                || "x*y=z",
                |lc| lc + x + (Scalar::ZERO, unused),
                |lc| lc + y,
                |lc| lc + z,
            );
            Ok(())
        }
    }

    #[test]
    fn records_evaluations_and_densities() {
        let cs = synthesize_circuit(Mul { x: 3, y: 7 }).unwrap();
        // One circuit constraint plus one per input (the one and x).
        assert_eq!(cs.num_constraints(), 3);
        assert_eq!(cs.a, vec![Scalar::from(3), Scalar::ONE, Scalar::from(3)]);
        assert_eq!(cs.b, vec![Scalar::from(7), Scalar::ZERO, Scalar::ZERO]);
        assert_eq!(cs.c, vec![Scalar::from(21), Scalar::ZERO, Scalar::ZERO]);
        assert_eq!(cs.input_assignment.len(), 2);
        assert_eq!(cs.aux_assignment.len(), 3);
        // The zero-coefficient term does not mark `unused`.
        assert_eq!(cs.a_aux_density.count_ones(), 0);
        assert_eq!(cs.b_aux_density.iter_ones().collect::<Vec<_>>(), vec![0]);
        assert_eq!(cs.b_input_density.count_ones(), 0);
        assert_eq!(cs.first_unsatisfied(), None);
    }

    #[test]
    fn finds_an_unsatisfied_constraint() {
        let mut cs = synthesize_circuit(Mul { x: 3, y: 7 }).unwrap();
        cs.c[0] = Scalar::from(22);
        assert_eq!(cs.first_unsatisfied(), Some(0));
    }

    #[test]
    fn extend_equals_synthesis_in_one_piece() {
        let values: Vec<u64> = (1..40).collect();
        let build = |cs: &mut ProvingAssignment, chunk: &[u64]| {
            for &v in chunk {
                let x = cs.alloc(|| "x", || Ok(Scalar::from(v))).unwrap();
                let p = cs.alloc_input(|| "p", || Ok(Scalar::from(v * v))).unwrap();
                cs.enforce(|| "sq", |lc| lc + x, |lc| lc + x + CS1, |lc| lc + p);
            }
        };
        const CS1: Variable = Variable(Index::Input(0));

        let mut whole = ProvingAssignment::new();
        whole.alloc_input(|| "one", || Ok(Scalar::ONE)).unwrap();
        build(&mut whole, &values);

        let mut merged = ProvingAssignment::new();
        merged.alloc_input(|| "one", || Ok(Scalar::ONE)).unwrap();
        for chunk in values.chunks(7) {
            let mut part = ProvingAssignment::new();
            part.alloc_input(|| "one", || Ok(Scalar::ONE)).unwrap();
            build(&mut part, chunk);
            merged.extend(&part);
        }
        assert_eq!(
            (&merged.a, &merged.b, &merged.c),
            (&whole.a, &whole.b, &whole.c)
        );
        assert_eq!(merged.a_aux_density, whole.a_aux_density);
        assert_eq!(merged.b_aux_density, whole.b_aux_density);
        assert_eq!(merged.b_input_density, whole.b_input_density);
        assert_eq!(merged.input_assignment, whole.input_assignment);
        assert_eq!(merged.aux_assignment, whole.aux_assignment);
    }
}
