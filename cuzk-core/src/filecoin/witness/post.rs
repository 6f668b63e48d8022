//! The witness of storage-proofs-post's FallbackPoSt circuit (WindowPoSt partitions and
//! WinningPoSt): per sector, `comm_r_last`, `comm_c` and `comm_r` (also a public input), the
//! Poseidon hash that ties them, then each challenge's inclusion path in `tree_r_last`. The
//! circuit synthesizes groups of sectors in parallel and appends them in order; so does this,
//! one sector at a time.

use bellperson_lite::matrices::Witness;
use blstrs::Scalar;
use ff::Field;
use generic_array::typenum::U2;

use super::append_in_parallel;
use super::merkle::{inclusion_path, MerkleWitnessError, PathLevel};
use super::poseidon::{poseidon_hash, PoseidonWitnessError};

/// What the circuit reads of one sector.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PoStSector {
    pub comm_r: Scalar,
    pub comm_c: Scalar,
    pub comm_r_last: Scalar,
    /// Each challenged leaf and its path in `tree_r_last`, from the leaf up.
    pub challenges: Vec<(Scalar, Vec<PathLevel>)>,
}

/// Why a FallbackPoSt witness could not be computed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PoStWitnessError {
    #[error("sector {sector}: Poseidon(comm_c, comm_r_last) is not its comm_r")]
    CommR { sector: usize },
    #[error("sector {sector}, challenge {challenge}: the path does not lead to comm_r_last")]
    Root { sector: usize, challenge: usize },
    #[error("sector {sector}, challenge {challenge}: {source}")]
    Path {
        sector: usize,
        challenge: usize,
        source: MerkleWitnessError,
    },
    #[error("sector {sector} has {values} aux values, the first {first}: the sectors of a partition have one shape")]
    Shape {
        sector: usize,
        values: usize,
        first: usize,
    },
    #[error(transparent)]
    Poseidon(#[from] PoseidonWitnessError),
}

/// The circuit's witness for `sectors` (inputs from the constant one on). A sector whose
/// commitments or paths do not check out is an error: the circuit would not be satisfied.
///
/// Every sector of a partition has the same shape (challenge count, path arities), so the
/// sectors are computed in parallel, each straight into its place.
pub fn fallback_post(sectors: &[PoStSector]) -> Result<Witness, PoStWitnessError> {
    let mut witness = Witness {
        inputs: vec![Scalar::ONE],
        aux: Vec::new(),
    };
    append_in_parallel(
        &mut witness,
        sectors,
        sector_witness_into,
        |sector, values, first| PoStWitnessError::Shape {
            sector,
            values,
            first,
        },
    )?;
    Ok(witness)
}

/// Appends one sector's inputs and aux values to `w`.
fn sector_witness_into(
    index: usize,
    sector: &PoStSector,
    w: &mut Witness,
) -> Result<(), PoStWitnessError> {
    w.aux
        .extend([sector.comm_r_last, sector.comm_c, sector.comm_r]);
    w.inputs.push(sector.comm_r);
    let hash = poseidon_hash::<U2>(&[sector.comm_c, sector.comm_r_last], &mut w.aux)?;
    if hash != sector.comm_r {
        return Err(PoStWitnessError::CommR { sector: index });
    }
    for (challenge, (leaf, path)) in sector.challenges.iter().enumerate() {
        let root = inclusion_path(*leaf, path, &mut w.inputs, &mut w.aux).map_err(|source| {
            PoStWitnessError::Path {
                sector: index,
                challenge,
                source,
            }
        })?;
        if root != sector.comm_r_last {
            return Err(PoStWitnessError::Root {
                sector: index,
                challenge,
            });
        }
    }
    Ok(())
}
