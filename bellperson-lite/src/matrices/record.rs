//! The recording constraint system: runs a circuit once without its values and keeps the
//! A, B and C linear combinations of every constraint as sparse rows.
//!
//! Variables are recorded as they come (an input or an aux index), since a circuit may
//! allocate inputs between constraints: the final column of an aux variable (after every
//! input) is only known at the end, when [`RecordingCs::finish`] renumbers them.

use std::collections::HashMap;

use bellpepper_core::{
    Circuit, ConstraintSystem, Index, LinearCombination, SynthesisError, Variable,
};
use blstrs::Scalar;
use ff::Field;

use super::{ConstraintMatrices, MatrixError, SparseRows, COEFF_MINUS_ONE, COEFF_ONE};
use crate::synthesis::synthesize_into;

/// The top bit of a recorded column marks an aux variable (its index in the low 31 bits).
const AUX: u32 = 1 << 31;

/// One matrix while recording: rows of (tagged column, coefficient index).
#[derive(Default)]
struct Rows {
    row_ends: Vec<u64>,
    cols: Vec<u32>,
    coeffs: Vec<u32>,
}

/// A constraint system that records the constraint matrices and nothing else.
pub struct RecordingCs {
    num_inputs: usize,
    num_aux: usize,
    a: Rows,
    b: Rows,
    c: Rows,
    /// Distinct coefficients; index 0 is one and 1 is minus one.
    table: Vec<Scalar>,
    index_of: HashMap<[u8; 32], u32>,
}

impl RecordingCs {
    fn coeff_index(&mut self, coeff: &Scalar) -> u32 {
        let key = coeff.to_bytes_le();
        if let Some(&i) = self.index_of.get(&key) {
            return i;
        }
        let i = self.table.len() as u32;
        self.table.push(*coeff);
        self.index_of.insert(key, i);
        i
    }

    fn push_row(&mut self, which: usize, lc: &LinearCombination<Scalar>) {
        let mut terms: Vec<(u32, u32)> = Vec::new();
        for (&index, coeff) in lc.iter_inputs() {
            if *coeff != Scalar::ZERO {
                terms.push((index as u32, self.coeff_index(coeff)));
            }
        }
        for (&index, coeff) in lc.iter_aux() {
            if *coeff != Scalar::ZERO {
                terms.push((index as u32 | AUX, self.coeff_index(coeff)));
            }
        }
        let rows = match which {
            0 => &mut self.a,
            1 => &mut self.b,
            _ => &mut self.c,
        };
        for (col, coeff) in terms {
            rows.cols.push(col);
            rows.coeffs.push(coeff);
        }
        rows.row_ends.push(rows.cols.len() as u64);
    }

    /// The matrices with final column numbers (inputs first, then aux) and the densities.
    pub fn finish(self) -> Result<ConstraintMatrices, MatrixError> {
        // Columns are u32 with the aux flag in the top bit while recording (every index in a
        // term is below its count, so checking the counts covers them).
        if self.num_inputs >= AUX as usize || self.num_aux >= AUX as usize {
            return Err(MatrixError::TooManyVariables {
                inputs: self.num_inputs,
                aux: self.num_aux,
            });
        }
        let num_inputs = self.num_inputs;
        let finalize = |rows: Rows| SparseRows {
            row_ends: rows.row_ends.into(),
            cols: rows
                .cols
                .into_iter()
                .map(|c| {
                    if c & AUX != 0 {
                        (num_inputs + (c & !AUX) as usize) as u32
                    } else {
                        c
                    }
                })
                .collect::<Vec<u32>>()
                .into(),
            coeffs: rows.coeffs.into(),
        };
        Ok(ConstraintMatrices::from_parts(
            self.num_inputs,
            self.num_aux,
            finalize(self.a),
            finalize(self.b),
            finalize(self.c),
            self.table,
        ))
    }
}

impl ConstraintSystem<Scalar> for RecordingCs {
    type Root = Self;

    fn new() -> Self {
        let mut cs = RecordingCs {
            num_inputs: 0,
            num_aux: 0,
            a: Rows::default(),
            b: Rows::default(),
            c: Rows::default(),
            table: Vec::new(),
            index_of: HashMap::new(),
        };
        let one = cs.coeff_index(&Scalar::ONE);
        let minus_one = cs.coeff_index(&-Scalar::ONE);
        debug_assert_eq!((one, minus_one), (COEFF_ONE, COEFF_MINUS_ONE));
        cs
    }

    fn alloc<F, A, AR>(&mut self, _: A, _: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Scalar, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        self.num_aux += 1;
        Ok(Variable::new_unchecked(Index::Aux(self.num_aux - 1)))
    }

    fn alloc_input<F, A, AR>(&mut self, _: A, _: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Scalar, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        self.num_inputs += 1;
        Ok(Variable::new_unchecked(Index::Input(self.num_inputs - 1)))
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
        self.push_row(0, &a);
        self.push_row(1, &b);
        self.push_row(2, &c);
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

    /// Appends a part recorded separately, as `ProvingAssignment::extend` appends its values:
    /// the part's input 0 (its temporary constant one) becomes this system's input 0, its
    /// other inputs and its aux variables follow this system's.
    fn extend(&mut self, other: &Self) {
        let (input_base, aux_base) = (self.num_inputs, self.num_aux);
        for (mine, theirs) in [
            (&mut self.a, &other.a),
            (&mut self.b, &other.b),
            (&mut self.c, &other.c),
        ] {
            let start = mine.cols.len() as u64;
            for (&col, &coeff) in theirs.cols.iter().zip(&theirs.coeffs) {
                let col = if col & AUX != 0 {
                    AUX | (aux_base as u32 + (col & !AUX))
                } else if col == 0 {
                    0
                } else {
                    (input_base + col as usize - 1) as u32
                };
                // Coefficient indexes are the other system's: translated below.
                mine.cols.push(col);
                mine.coeffs.push(coeff);
            }
            mine.row_ends
                .extend(theirs.row_ends.iter().map(|e| e + start));
        }
        // Translate the appended coefficient indexes into this system's table.
        let translate: Vec<u32> = other
            .table
            .iter()
            .map(|coeff| self.coeff_index(coeff))
            .collect();
        for (mine, theirs) in [
            (&mut self.a, &other.a),
            (&mut self.b, &other.b),
            (&mut self.c, &other.c),
        ] {
            let appended = theirs.coeffs.len();
            let from = mine.coeffs.len() - appended;
            for c in &mut mine.coeffs[from..] {
                *c = translate[*c as usize];
            }
        }
        self.num_inputs += other.num_inputs.saturating_sub(1);
        self.num_aux += other.num_aux;
    }
}

/// Records the matrices of `circuit` as the prover synthesizes it: the constant one as input
/// 0, the circuit, then one constraint `input_i * 0 = 0` per input (see
/// `synthesis::synthesize_circuit`). The circuit's values are not needed.
pub fn record_matrices<C: Circuit<Scalar>>(circuit: C) -> Result<ConstraintMatrices, MatrixError> {
    let mut cs = RecordingCs::new();
    synthesize_into(&mut cs, circuit, |cs| cs.num_inputs)?;
    cs.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn more_variables_than_columns_is_an_error() {
        let mut cs = RecordingCs::new();
        cs.num_aux = AUX as usize;
        let err = cs.finish().unwrap_err();
        assert!(
            matches!(err, MatrixError::TooManyVariables { aux, .. } if aux == AUX as usize),
            "{err}"
        );
    }
}
