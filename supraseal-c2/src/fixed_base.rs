//! Fixed-base scalar multiplication on the GPU (`cuzk/fixed_base.h`): one base point times
//! many scalars, the bulk of parameter generation.
//!
//! The caller builds the base's byte-window table (bellperson-lite's `FixedBaseTable`:
//! `table[w * 256 + d] = base * d * 256^w`) and gets the products back in Jacobian form
//! (`G1Projective` / `G2Projective`, blst's layouts), to normalise on the CPU in batches.

use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar};
use group::Group;

use crate::error::CudaError;
use crate::ffi;

/// Entries of a fixed-base table: 32 byte windows of 256 multiples each.
pub const TABLE_LEN: usize = (ffi::CUZK_FIXED_BASE_WINDOWS * ffi::CUZK_FIXED_BASE_DIGITS) as usize;

// The casts below rely on blstrs' types having the layouts of their cuzk_* counterparts
// (asserted once for all wrappers in `crate::msm`); these are the ones used here.
const _: () = {
    use std::mem::size_of;
    assert!(size_of::<Scalar>() == size_of::<ffi::cuzk_fr_t>());
    assert!(size_of::<G1Affine>() == size_of::<ffi::cuzk_g1_affine_t>());
    assert!(size_of::<G1Projective>() == size_of::<ffi::cuzk_g1_projective_t>());
    assert!(size_of::<G2Affine>() == size_of::<ffi::cuzk_g2_affine_t>());
    assert!(size_of::<G2Projective>() == size_of::<ffi::cuzk_g2_projective_t>());
};

fn check_table(len: usize) -> Result<(), CudaError> {
    if len != TABLE_LEN {
        return Err(CudaError::InvalidArgument(format!(
            "a fixed-base table has {TABLE_LEN} points (32 byte windows of 256), got {len}"
        )));
    }
    Ok(())
}

/// `base * s` for every scalar, where `table` is the byte-window table of `base`.
pub fn fixed_base_mul_g1(
    table: &[G1Affine],
    scalars: &[Scalar],
) -> Result<Vec<G1Projective>, CudaError> {
    check_table(table.len())?;
    let mut out = vec![G1Projective::identity(); scalars.len()];
    // SAFETY: `table` holds TABLE_LEN points (checked above) and `scalars` n scalars, valid
    // for reads with the cuzk_* layouts (asserted above); `out` is valid for n writes of
    // cuzk_g1_projective_t. The call copies what it reads and keeps no pointer.
    unsafe {
        ffi::check(ffi::cuzk_fixed_base_mul_g1(
            table.as_ptr().cast::<ffi::cuzk_g1_affine_t>(),
            scalars.as_ptr().cast::<ffi::cuzk_fr_t>(),
            scalars.len(),
            out.as_mut_ptr().cast::<ffi::cuzk_g1_projective_t>(),
        ))?;
    }
    Ok(out)
}

/// [`fixed_base_mul_g1`] over G2.
pub fn fixed_base_mul_g2(
    table: &[G2Affine],
    scalars: &[Scalar],
) -> Result<Vec<G2Projective>, CudaError> {
    check_table(table.len())?;
    let mut out = vec![G2Projective::identity(); scalars.len()];
    // SAFETY: as in `fixed_base_mul_g1`, with the G2 layouts.
    unsafe {
        ffi::check(ffi::cuzk_fixed_base_mul_g2(
            table.as_ptr().cast::<ffi::cuzk_g2_affine_t>(),
            scalars.as_ptr().cast::<ffi::cuzk_fr_t>(),
            scalars.len(),
            out.as_mut_ptr().cast::<ffi::cuzk_g2_projective_t>(),
        ))?;
    }
    Ok(out)
}
