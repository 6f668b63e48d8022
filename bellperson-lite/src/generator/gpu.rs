//! The generator's fixed-base multiplications on the GPU (feature `cuda`).

use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar};
use supraseal_c2::fixed_base::{fixed_base_mul_g1, fixed_base_mul_g2};

use super::fixed_base::FixedBaseTable;
use super::FixedBaseMultiplier;
use crate::error::ProverError;

/// Products on the current GPU, returned in affine form (converted there). The parameters
/// are the CPU's, bit for bit.
#[derive(Clone, Copy, Debug, Default)]
pub struct GpuFixedBase;

impl FixedBaseMultiplier for GpuFixedBase {
    fn mul_g1(
        &self,
        table: &FixedBaseTable<G1Projective>,
        scalars: &[Scalar],
    ) -> Result<Vec<G1Affine>, ProverError> {
        Ok(fixed_base_mul_g1(table.points(), scalars)?)
    }

    fn mul_g2(
        &self,
        table: &FixedBaseTable<G2Projective>,
        scalars: &[Scalar],
    ) -> Result<Vec<G2Affine>, ProverError> {
        Ok(fixed_base_mul_g2(table.points(), scalars)?)
    }
}
