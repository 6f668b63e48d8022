//! Pre-compiled constraint matrices: synthesis as witness generation plus three sparse
//! matrix-vector products.
//!
//! The R1CS of a circuit shape never changes between proofs, only the witness does. A full
//! synthesis ([`crate::synthesis::synthesize_circuit`]) builds and evaluates every linear
//! combination of every constraint each time; here they are recorded once
//! ([`record_matrices`], [`ConstraintMatrices`]), and a proof needs only the circuit's values
//! ([`synthesize_witness`], which skips `enforce`) and `a = A w`, `b = B w`, `c = C w`
//! ([`ConstraintMatrices::assignment`]). The result is the same [`ProvingAssignment`] as a
//! full synthesis, bit for bit, so the provers and their proofs are unchanged.
//!
//! - `record`: the recording constraint system.
//! - `witness`: the witness-only constraint system.
//! - `file`: the matrices saved next to the parameters and memory-mapped back (versioned,
//!   checksummed, keyed by the caller), so that a restarted daemon does not record again.
//! - `buffer`: the arrays, owned or borrowed from the mapped file.
//! - this module: the matrices (rows of column and coefficient-index pairs, one table of
//!   distinct coefficients), the densities derived from them, and the products.

mod buffer;
mod file;
mod record;
mod witness;

pub use buffer::Buffer;
pub use file::{
    load_matrices, load_or_record_matrices, save_matrices, MatrixFileError, MatrixSource,
};
pub use record::{record_matrices, RecordingCs};
pub use witness::{synthesize_witness, Witness};

use blstrs::Scalar;
use ff::Field;
use rayon::prelude::*;

use crate::density::Density;
use crate::synthesis::ProvingAssignment;

/// Index of the coefficient one in every coefficient table.
pub const COEFF_ONE: u32 = 0;
/// Index of the coefficient minus one in every coefficient table.
pub const COEFF_MINUS_ONE: u32 = 1;

/// One sparse matrix: row `r` holds the terms `row_ends[r - 1] .. row_ends[r]` (from 0 for
/// the first row); a term is a column (inputs first, then aux variables) and an index into the
/// coefficient table. Terms with a zero coefficient are not stored.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SparseRows {
    pub row_ends: Buffer<u64>,
    pub cols: Buffer<u32>,
    pub coeffs: Buffer<u32>,
}

impl SparseRows {
    /// The range of row `r`'s terms in `cols` and `coeffs`.
    pub(crate) fn row(&self, r: usize) -> std::ops::Range<usize> {
        let start = if r == 0 {
            0
        } else {
            self.row_ends[r - 1] as usize
        };
        start..self.row_ends[r] as usize
    }

    /// Number of stored terms.
    pub fn terms(&self) -> usize {
        self.cols.len()
    }
}

/// The constraint matrices of one circuit shape, and the densities they imply.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConstraintMatrices {
    pub num_inputs: usize,
    pub num_aux: usize,
    pub a: SparseRows,
    pub b: SparseRows,
    pub c: SparseRows,
    /// The distinct coefficients; [`COEFF_ONE`] and [`COEFF_MINUS_ONE`] first.
    pub coeff_table: Vec<Scalar>,
    /// As a full synthesis tracks them: aux variables used in A; inputs and aux variables
    /// used in B (with a non-zero coefficient).
    pub a_aux_density: Density,
    pub b_input_density: Density,
    pub b_aux_density: Density,
}

/// Why matrices could not be recorded, or a witness cannot be combined with them.
#[derive(Debug, thiserror::Error)]
pub enum MatrixError {
    #[error("circuit synthesis failed: {0}")]
    Synthesis(#[from] bellpepper_core::SynthesisError),
    #[error("{inputs} inputs and {aux} aux variables: the matrices' 31-bit columns hold fewer")]
    TooManyVariables { inputs: usize, aux: usize },
    #[error("the witness has {actual} {what}, the matrices were recorded with {expected} (another circuit shape?)")]
    WitnessShape {
        what: &'static str,
        expected: usize,
        actual: usize,
    },
}

fn density_of(len: usize, used: impl Iterator<Item = usize>) -> Density {
    let mut d = Density::new();
    for _ in 0..len {
        d.push(false);
    }
    for i in used {
        d.set(i);
    }
    d
}

impl ConstraintMatrices {
    /// Builds the matrices from recorded rows with final columns, and derives the densities.
    pub(crate) fn from_parts(
        num_inputs: usize,
        num_aux: usize,
        a: SparseRows,
        b: SparseRows,
        c: SparseRows,
        coeff_table: Vec<Scalar>,
    ) -> Self {
        let aux_cols = |m: &SparseRows| -> Vec<usize> {
            m.cols
                .iter()
                .filter(|&&c| c as usize >= num_inputs)
                .map(|&c| c as usize - num_inputs)
                .collect()
        };
        let a_aux_density = density_of(num_aux, aux_cols(&a).into_iter());
        let b_aux_density = density_of(num_aux, aux_cols(&b).into_iter());
        let b_input_density = density_of(
            num_inputs,
            b.cols
                .iter()
                .filter(|&&c| (c as usize) < num_inputs)
                .map(|&c| c as usize),
        );
        ConstraintMatrices {
            num_inputs,
            num_aux,
            a,
            b,
            c,
            coeff_table,
            a_aux_density,
            b_input_density,
            b_aux_density,
        }
    }

    pub fn num_constraints(&self) -> usize {
        self.a.row_ends.len()
    }

    /// The proving assignment for `witness`: `A w`, `B w`, `C w` (in parallel) with the
    /// densities and the witness itself, identical to a full synthesis of the same circuit.
    pub fn assignment(&self, witness: Witness) -> Result<ProvingAssignment, MatrixError> {
        let mut assignment = self.witness_assignment(witness)?;
        self.fill_products(&mut assignment)?;
        Ok(assignment)
    }

    /// [`Self::assignment`] without the products: the densities and the witness, with `a`,
    /// `b` and `c` left empty for a prover that evaluates the matrices itself (the GPU, from
    /// the matrices it holds). [`Self::fill_products`] completes it for any other prover; a
    /// prover given it as it is refuses it (no constraints: its domain does not match the
    /// parameters), so it cannot become a wrong proof.
    pub fn witness_assignment(&self, witness: Witness) -> Result<ProvingAssignment, MatrixError> {
        self.check_witness(&witness.inputs, &witness.aux)?;
        Ok(ProvingAssignment {
            a_aux_density: self.a_aux_density.clone(),
            b_input_density: self.b_input_density.clone(),
            b_aux_density: self.b_aux_density.clone(),
            a: Vec::new(),
            b: Vec::new(),
            c: Vec::new(),
            input_assignment: witness.inputs,
            aux_assignment: witness.aux,
        })
    }

    /// Computes `a`, `b` and `c` of an assignment made by [`Self::witness_assignment`] (or
    /// recomputes them), from its witness.
    pub fn fill_products(&self, assignment: &mut ProvingAssignment) -> Result<(), MatrixError> {
        let (inputs, aux) = (&assignment.input_assignment, &assignment.aux_assignment);
        self.check_witness(inputs, aux)?;
        let (a, (b, c)) = rayon::join(
            || self.product(&self.a, inputs, aux),
            || {
                rayon::join(
                    || self.product(&self.b, inputs, aux),
                    || self.product(&self.c, inputs, aux),
                )
            },
        );
        (assignment.a, assignment.b, assignment.c) = (a, b, c);
        Ok(())
    }

    fn check_witness(&self, inputs: &[Scalar], aux: &[Scalar]) -> Result<(), MatrixError> {
        for (what, expected, actual) in [
            ("inputs", self.num_inputs, inputs.len()),
            ("aux variables", self.num_aux, aux.len()),
        ] {
            if expected != actual {
                return Err(MatrixError::WitnessShape {
                    what,
                    expected,
                    actual,
                });
            }
        }
        Ok(())
    }

    /// `m w`, rows in parallel. The terms are added in their recorded order, as a full
    /// synthesis adds them (the sum is the same in any order; the order only matters for
    /// speed). Coefficients one and minus one cost an addition; witness values zero and one
    /// (bits are most of a Filecoin witness) cost nothing and an addition.
    fn product(&self, m: &SparseRows, inputs: &[Scalar], aux: &[Scalar]) -> Vec<Scalar> {
        let rows = m.row_ends.len();
        let mut out = vec![Scalar::ZERO; rows];
        const CHUNK: usize = 1 << 12;
        out.par_chunks_mut(CHUNK)
            .enumerate()
            .for_each(|(chunk, out)| {
                for (i, slot) in out.iter_mut().enumerate() {
                    let mut acc = Scalar::ZERO;
                    for t in m.row(chunk * CHUNK + i) {
                        let col = m.cols[t] as usize;
                        let value = if col < self.num_inputs {
                            &inputs[col]
                        } else {
                            &aux[col - self.num_inputs]
                        };
                        // Plain comparison: `is_zero` is constant-time and much slower.
                        if *value == Scalar::ZERO {
                            continue;
                        }
                        let k = m.coeffs[t];
                        let one = *value == Scalar::ONE;
                        match (k, one) {
                            (COEFF_ONE, _) => acc += value,
                            (COEFF_MINUS_ONE, _) => acc -= value,
                            (_, true) => acc += self.coeff_table[k as usize],
                            _ => acc += *value * self.coeff_table[k as usize],
                        }
                    }
                    *slot = acc;
                }
            });
        out
    }
}

#[cfg(test)]
mod tests;
