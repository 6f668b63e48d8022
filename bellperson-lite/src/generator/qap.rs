//! The circuit's QAP evaluated at the setup's `tau`, from its recorded constraint matrices.
//!
//! Parameters need, for every variable `k`, `u_k(tau) = sum_j A[j][k] L_j(tau)` (`v_k` from
//! B, `w_k` from C): sums by column. A circuit is recorded by row, one constraint after
//! another ([`crate::matrices::record_matrices`], in parallel where the circuit is
//! extensible, as FallbackPoSt is). Here each matrix's terms are split by column range
//! ("buckets") in parallel over row ranges, and each bucket is then summed into its own slice
//! of the output, again in parallel: no locks, and at most one matrix's terms held a second
//! time, at 12 bytes each. Field addition is exact, so the order of the terms within a
//! column does not change a sum.

use blstrs::Scalar;
use ff::Field;
use rayon::prelude::*;

use crate::matrices::{SparseRows, COEFF_MINUS_ONE, COEFF_ONE};

/// Columns per bucket: few enough that a bucket's slice of the output stays in cache, many
/// enough that a 2^27-row matrix has a few thousand buckets, not millions.
pub(super) const BUCKET_COLUMNS: usize = 1 << 16;

/// One term on its way to its column's sum: the column within its bucket, the row (every row
/// index is below the domain's size, at most 2^32 for BLS12-381), the coefficient's index.
#[derive(Clone, Copy)]
struct Term {
    col: u32,
    row: u32,
    coeff: u32,
}

/// `out[k] = sum over the terms (row, k, coeff) of m of lagrange[row] * table[coeff]`, for
/// `num_cols` columns. `lagrange` has an entry for every row; `bucket_columns` is
/// [`BUCKET_COLUMNS`] except in tests, which make buckets small to have many.
pub(super) fn evaluate_columns(
    m: &SparseRows,
    table: &[Scalar],
    lagrange: &[Scalar],
    num_cols: usize,
    bucket_columns: usize,
) -> Vec<Scalar> {
    let rows = m.row_ends.len();
    debug_assert!(lagrange.len() >= rows);
    let bucket_columns = bucket_columns.max(1);
    let buckets = num_cols.div_ceil(bucket_columns).max(1);
    let rows_per_range = rows.div_ceil(rayon::current_num_threads() * 4).max(1);
    let term = |t: usize, r: usize| lagrange[r] * table[m.coeffs[t] as usize];
    // Column 0, the constant one, is in a large share of all constraints (every `1 - x`):
    // summed per row range here rather than by the one thread of bucket 0.
    let split: Vec<(Scalar, Vec<Vec<Term>>)> = (0..rows)
        .step_by(rows_per_range)
        .collect::<Vec<_>>()
        .into_par_iter()
        .map(|start| {
            let range = start..(start + rows_per_range).min(rows);
            // Counted first so that each bucket's vector is allocated once, at its size.
            let mut counts = vec![0usize; buckets];
            for r in range.clone() {
                for t in m.row(r) {
                    let col = m.cols[t] as usize;
                    if col != 0 {
                        counts[col / bucket_columns] += 1;
                    }
                }
            }
            let mut out: Vec<Vec<Term>> = counts.iter().map(|&n| Vec::with_capacity(n)).collect();
            let mut one = Scalar::ZERO;
            for r in range {
                for t in m.row(r) {
                    let col = m.cols[t] as usize;
                    if col == 0 {
                        one += term(t, r);
                    } else {
                        out[col / bucket_columns].push(Term {
                            col: (col % bucket_columns) as u32,
                            row: r as u32,
                            coeff: m.coeffs[t],
                        });
                    }
                }
            }
            (one, out)
        })
        .collect();
    let mut values = vec![Scalar::ZERO; num_cols];
    values
        .par_chunks_mut(bucket_columns)
        .enumerate()
        .for_each(|(bucket, out)| {
            for (_, range) in &split {
                for t in &range[bucket] {
                    let l = lagrange[t.row as usize];
                    let slot = &mut out[t.col as usize];
                    match t.coeff {
                        COEFF_ONE => *slot += l,
                        COEFF_MINUS_ONE => *slot -= l,
                        k => *slot += l * table[k as usize],
                    }
                }
            }
        });
    if let Some(first) = values.first_mut() {
        *first = split.iter().map(|(one, _)| one).sum();
    }
    values
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::circuits::{InterleavedCircuit, MixCircuit};
    use crate::matrices::record_matrices;
    use rand::SeedableRng;

    /// Sums column by column over every row, the plain way (also the generator tests'
    /// reference).
    pub(in crate::generator) fn plain(
        m: &SparseRows,
        table: &[Scalar],
        lagrange: &[Scalar],
        num_cols: usize,
    ) -> Vec<Scalar> {
        let mut out = vec![Scalar::ZERO; num_cols];
        for (r, l) in lagrange.iter().enumerate().take(m.row_ends.len()) {
            for t in m.row(r) {
                out[m.cols[t] as usize] += *l * table[m.coeffs[t] as usize];
            }
        }
        out
    }

    /// Any bucket width gives the plain sums: one column per bucket, a width that leaves the
    /// last bucket partial, one bucket for everything.
    #[test]
    fn bucketed_sums_are_the_plain_sums() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9);
        for matrices in [
            record_matrices(MixCircuit::new(8, 0.7, 3)).unwrap(),
            record_matrices(InterleavedCircuit {
                values: vec![3, 1, 4, 1, 5],
            })
            .unwrap(),
        ] {
            let num_cols = matrices.num_inputs + matrices.num_aux;
            let lagrange: Vec<Scalar> = (0..matrices.num_constraints())
                .map(|_| Scalar::random(&mut rng))
                .collect();
            for m in [&matrices.a, &matrices.b, &matrices.c] {
                let expected = plain(m, &matrices.coeff_table, &lagrange, num_cols);
                assert!(expected.iter().any(|s| !bool::from(s.is_zero())));
                for width in [1, 7, BUCKET_COLUMNS] {
                    let got =
                        evaluate_columns(m, &matrices.coeff_table, &lagrange, num_cols, width);
                    assert_eq!(got, expected, "bucket width {width}");
                }
            }
        }
    }

    /// Terms with each kind of coefficient (one, minus one, any other), on column 0 and on
    /// every other, in random rows: the recorded circuits above merge their `- x` terms, so
    /// they never exercise minus one.
    #[test]
    fn every_coefficient_kind_sums_as_the_plain_way() {
        use rand::Rng;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(10);
        let (rows, num_cols) = (300, 40);
        let table = vec![Scalar::ONE, -Scalar::ONE, Scalar::from(5u64)];
        let (mut row_ends, mut cols, mut coeffs) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..rows {
            for _ in 0..rng.gen_range(0..6) {
                cols.push(rng.gen_range(0..num_cols as u32));
                coeffs.push(rng.gen_range(0..table.len() as u32));
            }
            row_ends.push(cols.len() as u64);
        }
        assert!(coeffs.contains(&COEFF_MINUS_ONE) && cols.contains(&0));
        let m = SparseRows {
            row_ends: row_ends.into(),
            cols: cols.into(),
            coeffs: coeffs.into(),
        };
        let lagrange: Vec<Scalar> = (0..rows).map(|_| Scalar::random(&mut rng)).collect();
        let expected = plain(&m, &table, &lagrange, num_cols);
        for width in [1, 7, BUCKET_COLUMNS] {
            let got = evaluate_columns(&m, &table, &lagrange, num_cols, width);
            assert_eq!(got, expected, "bucket width {width}");
        }
    }
}
