//! Multi-scalar multiplication and batch addition over G1 and G2, on the GPU.
//!
//! Safe wrappers over `cuzk/msm.h`. Points (`blstrs::G1Affine`, `G2Affine`) and scalars
//! (`blstrs::Scalar`, Montgomery form) cross as they are; the GPU converts the scalars to
//! canonical form itself, and the result comes back as a `blstrs::G1Projective` /
//! `G2Projective` (blst's Jacobian layouts) with no conversion.

use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar};
use group::Group;

use crate::error::CudaError;
use crate::ffi;

// The casts below rely on blstrs' types (repr(transparent) over blst's repr(C) structs) having
// the layouts of their cuzk_* counterparts.
const _: () = {
    use std::mem::{align_of, size_of};
    assert!(size_of::<Scalar>() == size_of::<ffi::cuzk_fr_t>());
    assert!(align_of::<Scalar>() == align_of::<ffi::cuzk_fr_t>());
    assert!(size_of::<G1Affine>() == size_of::<ffi::cuzk_g1_affine_t>());
    assert!(align_of::<G1Affine>() == align_of::<ffi::cuzk_g1_affine_t>());
    assert!(size_of::<G1Projective>() == size_of::<ffi::cuzk_g1_projective_t>());
    assert!(align_of::<G1Projective>() == align_of::<ffi::cuzk_g1_projective_t>());
    assert!(size_of::<G2Affine>() == size_of::<ffi::cuzk_g2_affine_t>());
    assert!(align_of::<G2Affine>() == align_of::<ffi::cuzk_g2_affine_t>());
    assert!(size_of::<G2Projective>() == size_of::<ffi::cuzk_g2_projective_t>());
    assert!(align_of::<G2Projective>() == align_of::<ffi::cuzk_g2_projective_t>());
};

/// The error for an MSM given more scalars than points.
pub(crate) fn check_lengths(points: usize, scalars: usize) -> Result<(), CudaError> {
    if points < scalars {
        return Err(CudaError::InvalidArgument(format!(
            "MSM of {scalars} scalars over only {points} points"
        )));
    }
    Ok(())
}

/// The window sizes the MSM can be forced to (`MIN_WINDOW` and `MAX_WINDOW` of the C
/// library's `msm/pippenger.cuh`; 22 bits is the widest sort key it takes).
pub const WINDOW_BITS: std::ops::RangeInclusive<u32> = 4..=22;

/// A forced window size as the C library takes it: 0 for the planned window.
pub(crate) fn check_window(window_bits: Option<u32>) -> Result<u32, CudaError> {
    match window_bits {
        None => Ok(0),
        Some(c) if WINDOW_BITS.contains(&c) => Ok(c),
        Some(c) => Err(CudaError::InvalidArgument(format!(
            "MSM window of {c} bits: the windows are {} to {} bits",
            WINDOW_BITS.start(),
            WINDOW_BITS.end()
        ))),
    }
}

/// `sum_i scalars[i] * points[i]`. `points` may be longer than `scalars` (the tail is
/// ignored, as in bellperson); an empty input gives the identity.
pub fn msm_g1(points: &[G1Affine], scalars: &[Scalar]) -> Result<G1Projective, CudaError> {
    let n = scalars.len();
    check_lengths(points.len(), n)?;
    let mut out = G1Projective::identity();
    // SAFETY: `points` and `scalars` are valid for reads of `n` elements with the cuzk_*
    // layouts (asserted above), `out` for one write of cuzk_g1_projective_t; the call copies
    // and keeps no pointer.
    unsafe {
        ffi::check(ffi::cuzk_msm_g1(
            points.as_ptr().cast::<ffi::cuzk_g1_affine_t>(),
            scalars.as_ptr().cast::<ffi::cuzk_fr_t>(),
            n,
            std::ptr::from_mut(&mut out).cast::<ffi::cuzk_g1_projective_t>(),
        ))?;
    }
    Ok(out)
}

/// [`msm_g1`] over G2.
pub fn msm_g2(points: &[G2Affine], scalars: &[Scalar]) -> Result<G2Projective, CudaError> {
    let n = scalars.len();
    check_lengths(points.len(), n)?;
    let mut out = G2Projective::identity();
    // SAFETY: `points` and `scalars` are valid for reads of `n` elements with the cuzk_*
    // layouts (asserted above), `out` for one write of cuzk_g2_projective_t; the call copies
    // and keeps no pointer.
    unsafe {
        ffi::check(ffi::cuzk_msm_g2(
            points.as_ptr().cast::<ffi::cuzk_g2_affine_t>(),
            scalars.as_ptr().cast::<ffi::cuzk_fr_t>(),
            n,
            std::ptr::from_mut(&mut out).cast::<ffi::cuzk_g2_projective_t>(),
        ))?;
    }
    Ok(out)
}

/// Packs bitmaps into one buffer of `count` rows of `ceil(n/64)` words each; missing words
/// are zero and bits at or beyond `n` are ignored by the GPU.
fn pack_bitmaps(n: usize, bitmaps: &[&[u64]]) -> (Vec<u64>, usize) {
    let wpb = n.div_ceil(64).max(1);
    let mut words = vec![0u64; wpb * bitmaps.len()];
    for (row, bitmap) in words.chunks_mut(wpb).zip(bitmaps) {
        let len = bitmap.len().min(wpb);
        row[..len].copy_from_slice(&bitmap[..len]);
    }
    (words, wpb)
}

/// For each bitmap, the sum of the points whose bit is set: bit `i` (bit `i % 64` of word
/// `i / 64`, as `bellperson_lite::density::Density::words()`) selects `points[i]`. A bitmap
/// shorter than the points reads as zeros past its end; bits past the points are ignored.
/// The points are streamed through the GPU once per 4 bitmaps.
pub fn batch_add_g1(
    points: &[G1Affine],
    bitmaps: &[&[u64]],
) -> Result<Vec<G1Projective>, CudaError> {
    let n = points.len();
    let (words, wpb) = pack_bitmaps(n, bitmaps);
    let mut out = vec![G1Projective::identity(); bitmaps.len()];
    // SAFETY: `points` is valid for reads of `n` cuzk_g1_affine_t, `words` for `wpb * count`
    // words, `out` for `count` writes of cuzk_g1_projective_t (layouts asserted above); the
    // call copies and keeps no pointer.
    unsafe {
        ffi::check(ffi::cuzk_batch_add_g1(
            points.as_ptr().cast::<ffi::cuzk_g1_affine_t>(),
            n,
            words.as_ptr(),
            wpb,
            bitmaps.len(),
            out.as_mut_ptr().cast::<ffi::cuzk_g1_projective_t>(),
        ))?;
    }
    Ok(out)
}

/// [`batch_add_g1`] over G2 (one pass over the points per bitmap).
pub fn batch_add_g2(
    points: &[G2Affine],
    bitmaps: &[&[u64]],
) -> Result<Vec<G2Projective>, CudaError> {
    let n = points.len();
    let (words, wpb) = pack_bitmaps(n, bitmaps);
    let mut out = vec![G2Projective::identity(); bitmaps.len()];
    // SAFETY: `points` is valid for reads of `n` cuzk_g2_affine_t, `words` for `wpb * count`
    // words, `out` for `count` writes of cuzk_g2_projective_t (layouts asserted above); the
    // call copies and keeps no pointer.
    unsafe {
        ffi::check(ffi::cuzk_batch_add_g2(
            points.as_ptr().cast::<ffi::cuzk_g2_affine_t>(),
            n,
            words.as_ptr(),
            wpb,
            bitmaps.len(),
            out.as_mut_ptr().cast::<ffi::cuzk_g2_projective_t>(),
        ))?;
    }
    Ok(out)
}

/// Timings of a benchmark run, in milliseconds (median over the runs, CUDA events).
#[derive(Clone, Copy, Debug)]
pub struct MsmBench {
    /// Inputs already on the device.
    pub device_ms: f32,
    /// Including the host-to-device copy of the inputs (pinned memory).
    pub with_h2d_ms: f32,
    /// MSM stages (zero for the batch addition): signed digits and their sorts, bucket sums,
    /// bucket reduction with window combination; medians of separately profiled runs.
    pub sort_ms: f32,
    /// See `sort_ms`.
    pub bucket_ms: f32,
    /// See `sort_ms`.
    pub reduce_ms: f32,
    /// The MSM's window size c (zero for the batch addition).
    pub window_bits: u32,
    /// The MSM's number of windows: `n * windows` mixed additions go into buckets.
    pub windows: u32,
}

impl MsmBench {
    fn from_ffi(out: &ffi::cuzk_msm_bench_t) -> MsmBench {
        MsmBench {
            device_ms: out.device_ms,
            with_h2d_ms: out.with_h2d_ms,
            sort_ms: out.sort_ms,
            bucket_ms: out.bucket_ms,
            reduce_ms: out.reduce_ms,
            window_bits: out.window_bits,
            windows: out.windows,
        }
    }
}

fn empty_bench() -> ffi::cuzk_msm_bench_t {
    ffi::cuzk_msm_bench_t {
        device_ms: 0.0,
        with_h2d_ms: 0.0,
        sort_ms: 0.0,
        bucket_ms: 0.0,
        reduce_ms: 0.0,
        window_bits: 0,
        windows: 0,
    }
}

/// Times [`msm_g1`]'s GPU part on these inputs: `warmup` runs, then the median of `iters`.
/// `window_bits` forces windows of that many bits (4 to 22) instead of the planned ones, so
/// that one run can compare windows.
pub fn bench_msm_g1(
    points: &[G1Affine],
    scalars: &[Scalar],
    window_bits: Option<u32>,
    warmup: u32,
    iters: u32,
) -> Result<MsmBench, CudaError> {
    let n = scalars.len();
    check_lengths(points.len(), n)?;
    let window_bits = check_window(window_bits)?;
    let mut out = empty_bench();
    // SAFETY: as in `msm_g1`; the buffers are pinned and unpinned within the call, which
    // keeps no pointer; `out` is a valid cuzk_msm_bench_t.
    unsafe {
        ffi::check(ffi::cuzk_msm_g1_bench(
            points.as_ptr().cast::<ffi::cuzk_g1_affine_t>(),
            scalars.as_ptr().cast::<ffi::cuzk_fr_t>(),
            n,
            window_bits,
            warmup,
            iters,
            &mut out,
        ))?;
    }
    Ok(MsmBench::from_ffi(&out))
}

/// Times [`msm_g2`]'s GPU part on these inputs, as [`bench_msm_g1`].
pub fn bench_msm_g2(
    points: &[G2Affine],
    scalars: &[Scalar],
    window_bits: Option<u32>,
    warmup: u32,
    iters: u32,
) -> Result<MsmBench, CudaError> {
    let n = scalars.len();
    check_lengths(points.len(), n)?;
    let window_bits = check_window(window_bits)?;
    let mut out = empty_bench();
    // SAFETY: as in `msm_g2`; the buffers are pinned and unpinned within the call, which
    // keeps no pointer; `out` is a valid cuzk_msm_bench_t.
    unsafe {
        ffi::check(ffi::cuzk_msm_g2_bench(
            points.as_ptr().cast::<ffi::cuzk_g2_affine_t>(),
            scalars.as_ptr().cast::<ffi::cuzk_fr_t>(),
            n,
            window_bits,
            warmup,
            iters,
            &mut out,
        ))?;
    }
    Ok(MsmBench::from_ffi(&out))
}

/// Times [`batch_add_g1`]'s GPU part on these inputs.
pub fn bench_batch_add_g1(
    points: &[G1Affine],
    bitmaps: &[&[u64]],
    warmup: u32,
    iters: u32,
) -> Result<MsmBench, CudaError> {
    let n = points.len();
    let (words, wpb) = pack_bitmaps(n, bitmaps);
    let mut out = empty_bench();
    // SAFETY: as in `batch_add_g1`; `out` is a valid cuzk_msm_bench_t.
    unsafe {
        ffi::check(ffi::cuzk_batch_add_g1_bench(
            points.as_ptr().cast::<ffi::cuzk_g1_affine_t>(),
            n,
            words.as_ptr(),
            wpb,
            bitmaps.len(),
            warmup,
            iters,
            &mut out,
        ))?;
    }
    Ok(MsmBench::from_ffi(&out))
}

#[cfg(test)]
mod tests {
    use super::pack_bitmaps;

    #[test]
    fn bitmaps_are_padded_and_cut_to_the_points() {
        let (w, wpb) = pack_bitmaps(130, &[&[1], &[1, 2, 3, 4]]);
        assert_eq!(wpb, 3);
        assert_eq!(w, vec![1, 0, 0, 1, 2, 3]);
        let (w, wpb) = pack_bitmaps(0, &[&[]]);
        assert_eq!((w, wpb), (vec![0], 1));
    }
}
