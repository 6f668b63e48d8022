//! Fixed-base scalar multiplication on the GPU (`cuzk/fixed_base.h`): one base point times
//! many scalars, the bulk of parameter generation.
//!
//! The caller builds the base's byte-window table (bellperson-lite's `FixedBaseTable`:
//! `table[w * 256 + d] = base * d * 256^w`) and gets the products back in affine form
//! (`G1Affine` / `G2Affine`, blst's layouts), converted on the GPU.

use blstrs::{G1Affine, G2Affine, Scalar};

use crate::error::CudaError;
use crate::ffi;

/// Entries of a fixed-base table: 32 byte windows of 256 multiples each.
pub const TABLE_LEN: usize = (ffi::CUZK_FIXED_BASE_WINDOWS * ffi::CUZK_FIXED_BASE_DIGITS) as usize;

// The casts below rely on blstrs' types having the layouts of their cuzk_* counterparts.
const _: () = {
    use std::mem::{align_of, size_of};
    assert!(size_of::<Scalar>() == size_of::<ffi::cuzk_fr_t>());
    assert!(size_of::<G1Affine>() == size_of::<ffi::cuzk_g1_affine_t>());
    assert!(align_of::<G1Affine>() == align_of::<ffi::cuzk_g1_affine_t>());
    assert!(size_of::<G2Affine>() == size_of::<ffi::cuzk_g2_affine_t>());
    assert!(align_of::<G2Affine>() == align_of::<ffi::cuzk_g2_affine_t>());
};

fn check_table(len: usize) -> Result<(), CudaError> {
    if len != TABLE_LEN {
        return Err(CudaError::InvalidArgument(format!(
            "a fixed-base table has {TABLE_LEN} points (32 byte windows of 256), got {len}"
        )));
    }
    Ok(())
}

/// `base * s` in affine form for every scalar, where `table` is the byte-window table of
/// `base`.
pub fn fixed_base_mul_g1(
    table: &[G1Affine],
    scalars: &[Scalar],
) -> Result<Vec<G1Affine>, CudaError> {
    check_table(table.len())?;
    let n = scalars.len();
    // Left uninitialised: the library writes every element (or fails, and nothing is read).
    let mut out: Vec<G1Affine> = Vec::with_capacity(n);
    // SAFETY: `table` holds TABLE_LEN points (checked above) and `scalars` n scalars, valid for
    // reads with the cuzk_* layouts (asserted above); `out` has room for n cuzk_g1_affine_t.
    // The call keeps no pointer. On success it has written all n outputs, each a valid
    // blst_p1_affine (plain field elements), so the length may be set.
    unsafe {
        ffi::check(ffi::cuzk_fixed_base_mul_g1(
            table.as_ptr().cast::<ffi::cuzk_g1_affine_t>(),
            scalars.as_ptr().cast::<ffi::cuzk_fr_t>(),
            n,
            out.as_mut_ptr().cast::<ffi::cuzk_g1_affine_t>(),
        ))?;
        out.set_len(n);
    }
    Ok(out)
}

/// [`fixed_base_mul_g1`] over G2.
pub fn fixed_base_mul_g2(
    table: &[G2Affine],
    scalars: &[Scalar],
) -> Result<Vec<G2Affine>, CudaError> {
    check_table(table.len())?;
    let n = scalars.len();
    let mut out: Vec<G2Affine> = Vec::with_capacity(n);
    // SAFETY: as in `fixed_base_mul_g1`, with the G2 layouts.
    unsafe {
        ffi::check(ffi::cuzk_fixed_base_mul_g2(
            table.as_ptr().cast::<ffi::cuzk_g2_affine_t>(),
            scalars.as_ptr().cast::<ffi::cuzk_fr_t>(),
            n,
            out.as_mut_ptr().cast::<ffi::cuzk_g2_affine_t>(),
        ))?;
        out.set_len(n);
    }
    Ok(out)
}
