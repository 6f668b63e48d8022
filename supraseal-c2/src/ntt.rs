//! NTTs over the scalar field and the H step of Groth16, on the GPU.
//!
//! Safe wrappers over `cuzk/ntt.h`. The domain is bellperson's (and bellperson-lite's
//! `EvaluationDomain`): evaluations at `omega^i` with `omega = ROOT_OF_UNITY^(2^(32 - log n))`,
//! coset shift `g = MULTIPLICATIVE_GENERATOR`; the results are bit-identical to the CPU ones.
//! Scalars cross as they are (blst's Montgomery layout), copied to the GPU and back.

use std::ffi::c_int;

use blstrs::Scalar;

use crate::error::CudaError;
use crate::ffi;

/// The largest transform: 2^28 elements.
pub const MAX_LOG: u32 = 28;

/// Which transform [`ntt`] runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NttKind {
    /// Coefficients to evaluations at `omega^i` (bellperson's `fft`).
    Forward,
    /// Evaluations at `omega^i` to coefficients, `1/n` included (`ifft`).
    Inverse,
    /// Coefficients to evaluations at `g * omega^i` (`coset_fft`).
    CosetForward,
    /// Evaluations at `g * omega^i` to coefficients (`icoset_fft`).
    CosetInverse,
}

impl NttKind {
    fn raw(self) -> c_int {
        (match self {
            Self::Forward => ffi::CUZK_NTT_FORWARD,
            Self::Inverse => ffi::CUZK_NTT_INVERSE,
            Self::CosetForward => ffi::CUZK_NTT_COSET_FORWARD,
            Self::CosetInverse => ffi::CUZK_NTT_COSET_INVERSE,
        }) as c_int
    }
}

// The casts below rely on blstrs::Scalar (repr(transparent) over blst_fr, a repr(C) struct of
// [u64; 4]) having the layout of cuzk_fr_t (a repr(C) struct of [u64; 4]).
const _: () = {
    assert!(std::mem::size_of::<Scalar>() == std::mem::size_of::<ffi::cuzk_fr_t>());
    assert!(std::mem::align_of::<Scalar>() == std::mem::align_of::<ffi::cuzk_fr_t>());
};

/// `log2(len)` for a power-of-two length `2..=2^MAX_LOG`.
fn log_size(len: usize) -> Result<u32, CudaError> {
    if len < 2 || !len.is_power_of_two() || len.trailing_zeros() > MAX_LOG {
        return Err(CudaError::InvalidArgument(format!(
            "NTT length {len} is not a power of two in 2..=2^{MAX_LOG}"
        )));
    }
    Ok(len.trailing_zeros())
}

/// Transforms `data` in place; its length is the domain size, a power of two from 2 to 2^28.
pub fn ntt(data: &mut [Scalar], kind: NttKind) -> Result<(), CudaError> {
    let log_n = log_size(data.len())?;
    // SAFETY: `data` is valid for reads and writes of 2^log_n elements with cuzk_fr_t's layout
    // (checked above); the call copies them to the GPU and back and keeps no pointer.
    unsafe {
        ffi::check(ffi::cuzk_ntt(
            data.as_mut_ptr().cast::<ffi::cuzk_fr_t>(),
            log_n,
            kind.raw(),
        ))
    }
}

/// The coefficients of H, the quotient of Groth16, on the GPU: the evaluations `a`, `b`, `c`
/// (equal lengths, at most `2^log_n`, zero-padded) go to the coset, `(a*b - c) / Z` is taken
/// there and brought back by an inverse coset NTT. Returns all `2^log_n` coefficients; the top
/// one is zero when `a*b = c` on the domain, and bellperson's `compute_h` drops it.
pub fn compute_h(
    a: &[Scalar],
    b: &[Scalar],
    c: &[Scalar],
    log_n: u32,
) -> Result<Vec<Scalar>, CudaError> {
    if !(1..=MAX_LOG).contains(&log_n) {
        return Err(CudaError::InvalidArgument(format!(
            "H domain 2^{log_n} is not in 2^1..=2^{MAX_LOG}"
        )));
    }
    let n = 1usize << log_n;
    let len = a.len();
    if b.len() != len || c.len() != len || len > n {
        return Err(CudaError::InvalidArgument(format!(
            "H inputs of lengths {}, {}, {} for a domain of {n}",
            a.len(),
            b.len(),
            c.len()
        )));
    }
    let mut h = vec![Scalar::from(0u64); n];
    // SAFETY: `a`, `b`, `c` are valid for reads of `len` elements and `h` for writes of
    // 2^log_n, all with cuzk_fr_t's layout; the call copies and keeps no pointer.
    unsafe {
        ffi::check(ffi::cuzk_ntt_h(
            a.as_ptr().cast::<ffi::cuzk_fr_t>(),
            b.as_ptr().cast::<ffi::cuzk_fr_t>(),
            c.as_ptr().cast::<ffi::cuzk_fr_t>(),
            len,
            log_n,
            h.as_mut_ptr().cast::<ffi::cuzk_fr_t>(),
        ))?;
    }
    Ok(h)
}
