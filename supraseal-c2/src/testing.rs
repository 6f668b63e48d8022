//! Test and benchmark hooks into the CUDA library: element-wise field and G1 operations on the
//! GPU, for tests that compare them with blstrs, and the NTT timing loop of the benchmark.
//!
//! Safe wrappers over `cuzk/testing.h`. Values cross in blst's layout (Montgomery form); the
//! canonical-form conversions take and return plain little-endian limbs. Base-field elements
//! are `blst::blst_fp`, since blstrs does not export its `Fp`.

use std::ffi::c_int;

use blst::blst_fp as Fp;
use blstrs::{G1Affine, G1Projective, Scalar};
use group::Group;

use crate::error::CudaError;
use crate::ffi;

// The pointer casts below rely on blstrs' types being repr(transparent) over blst's repr(C)
// structs (and blst_fp being one), which have the layouts of the cuzk_* structs (u64 limbs,
// same field order).
const _: () = {
    use std::mem::{align_of, size_of};
    assert!(size_of::<Scalar>() == size_of::<ffi::cuzk_fr_t>());
    assert!(align_of::<Scalar>() == align_of::<ffi::cuzk_fr_t>());
    assert!(size_of::<Fp>() == size_of::<ffi::cuzk_fp_t>());
    assert!(align_of::<Fp>() == align_of::<ffi::cuzk_fp_t>());
    assert!(size_of::<G1Affine>() == size_of::<ffi::cuzk_g1_affine_t>());
    assert!(align_of::<G1Affine>() == align_of::<ffi::cuzk_g1_affine_t>());
    assert!(size_of::<G1Projective>() == size_of::<ffi::cuzk_g1_projective_t>());
    assert!(align_of::<G1Projective>() == align_of::<ffi::cuzk_g1_projective_t>());
    assert!(size_of::<[u64; 4]>() == size_of::<ffi::cuzk_fr_t>());
    assert!(size_of::<[u64; 6]>() == size_of::<ffi::cuzk_fp_t>());
};

/// An element-wise field operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldOp {
    /// `a + b`
    Add,
    /// `a - b`
    Sub,
    /// `a * b`
    Mul,
    /// `a^2`
    Square,
    /// `-a`
    Neg,
    /// `2a`
    Double,
    /// `a^-1` (zero for zero)
    Inverse,
    /// `a*b - b*(a + b)`, by the GPU's `mul_sub` (both products under one reduction)
    MulSub,
}

impl FieldOp {
    fn raw(self) -> c_int {
        (match self {
            Self::Add => ffi::CUZK_TEST_ADD,
            Self::Sub => ffi::CUZK_TEST_SUB,
            Self::Mul => ffi::CUZK_TEST_MUL,
            Self::Square => ffi::CUZK_TEST_SQR,
            Self::Neg => ffi::CUZK_TEST_NEG,
            Self::Double => ffi::CUZK_TEST_DBL,
            Self::Inverse => ffi::CUZK_TEST_INVERSE,
            Self::MulSub => ffi::CUZK_TEST_MUL_SUB,
        }) as c_int
    }

    /// Whether the operation reads a second operand.
    pub fn is_binary(self) -> bool {
        matches!(self, Self::Add | Self::Sub | Self::Mul | Self::MulSub)
    }
}

fn check_operands<T>(op: FieldOp, a: &[T], b: &[T]) -> Result<(), CudaError> {
    if op.is_binary() && b.len() != a.len() {
        return Err(CudaError::InvalidArgument(format!(
            "{op:?} on operands of lengths {} and {}",
            a.len(),
            b.len()
        )));
    }
    Ok(())
}

/// The shared shape of the element-wise entry points: `a.len()` inputs (and as many second
/// operands, or null), `a.len()` outputs. `call` gets the pointers and the count, and must pass
/// them to an entry point whose element types have the layouts of `I` and `O` (asserted above).
fn elementwise<I, O: Clone>(
    a: &[I],
    b: Option<&[I]>,
    fill: O,
    call: impl FnOnce(*const I, *const I, *mut O, usize) -> ffi::cuzk_error_t,
) -> Result<Vec<O>, CudaError> {
    let mut out = vec![fill; a.len()];
    let b_ptr = b.map_or(std::ptr::null(), <[I]>::as_ptr);
    let error = call(a.as_ptr(), b_ptr, out.as_mut_ptr(), a.len());
    // SAFETY: `error` was just returned by a cuzk entry point and is checked only here.
    unsafe { ffi::check(error) }?;
    Ok(out)
}

/// `op(a[i], b[i])` on the GPU for every `i` (`b` is ignored by the unary operations).
pub fn fr_op(op: FieldOp, a: &[Scalar], b: &[Scalar]) -> Result<Vec<Scalar>, CudaError> {
    check_operands(op, a, b)?;
    elementwise(
        a,
        op.is_binary().then_some(b),
        Scalar::from(0u64),
        |a, b, out, n| {
            // SAFETY: `a` (and `b` when not null) hold `n` elements and `out` has room for as
            // many, all with cuzk_fr_t's layout; the call copies and keeps no pointer.
            unsafe { ffi::cuzk_test_fr_op(op.raw(), a.cast(), b.cast(), out.cast(), n) }
        },
    )
}

/// An Fp entry point of `cuzk_test_fp_op`'s signature (plain or redundant form).
type FpOpEntry = unsafe extern "C" fn(
    c_int,
    *const ffi::cuzk_fp_t,
    *const ffi::cuzk_fp_t,
    *mut ffi::cuzk_fp_t,
    usize,
) -> ffi::cuzk_error_t;

/// `op(a[i], b[i])` for every `i` by `entry`.
fn fp_elementwise(entry: FpOpEntry, op: FieldOp, a: &[Fp], b: &[Fp]) -> Result<Vec<Fp>, CudaError> {
    check_operands(op, a, b)?;
    elementwise(
        a,
        op.is_binary().then_some(b),
        Fp::default(),
        |a, b, out, n| {
            // SAFETY: as in `fr_op`, with cuzk_fp_t's layout; `entry` is one of the Fp
            // operation entry points, which copy and keep no pointer.
            unsafe { entry(op.raw(), a.cast(), b.cast(), out.cast(), n) }
        },
    )
}

/// `op(a[i], b[i])` on the GPU for every `i` (`b` is ignored by the unary operations).
pub fn fp_op(op: FieldOp, a: &[Fp], b: &[Fp]) -> Result<Vec<Fp>, CudaError> {
    fp_elementwise(ffi::cuzk_test_fp_op, op, a, b)
}

/// `op(a[i], b[i])` by the GPU's operations on Fp's redundant form (values below 2p, kept by
/// G1's bucket sums), brought back to the canonical form: odd `i` take `a[i] + p` as their
/// first operand, and `i` with bit 1 set `b[i] + p` as their second, so that both
/// representatives of each value are exercised. Neg and Inverse have no redundant form.
pub fn fp_lazy_op(op: FieldOp, a: &[Fp], b: &[Fp]) -> Result<Vec<Fp>, CudaError> {
    if matches!(op, FieldOp::Neg | FieldOp::Inverse) {
        return Err(CudaError::InvalidArgument(format!(
            "{op:?} has no redundant form"
        )));
    }
    fp_elementwise(ffi::cuzk_test_fp_lazy_op, op, a, b)
}

/// The redundant form's zero test on the GPU, on `a[i] + p` for odd `i` and `a[i]` for even.
pub fn fp_lazy_is_zero(a: &[Fp]) -> Result<Vec<bool>, CudaError> {
    let mut zero = vec![0u8; a.len()];
    // SAFETY: `a` holds `a.len()` elements of cuzk_fp_t's layout and `zero` as many bytes; the
    // call copies and keeps no pointer.
    unsafe {
        ffi::check(ffi::cuzk_test_fp_lazy_is_zero(
            a.as_ptr().cast(),
            zero.as_mut_ptr(),
            a.len(),
        ))?;
    }
    Ok(zero.iter().map(|&x| x != 0).collect())
}

const TO_CANONICAL: c_int = ffi::CUZK_TEST_TO_CANONICAL as c_int;
const FROM_CANONICAL: c_int = ffi::CUZK_TEST_FROM_CANONICAL as c_int;

/// The canonical integers of `a` (little-endian u64 limbs), converted on the GPU.
pub fn fr_to_canonical(a: &[Scalar]) -> Result<Vec<[u64; 4]>, CudaError> {
    elementwise(a, None, [0u64; 4], |a, b, out, n| {
        // SAFETY: `a` holds `n` elements and `out` room for as many, both of cuzk_fr_t's size
        // (a [u64; 4] is the struct's only field); `b` is null; nothing is kept.
        unsafe { ffi::cuzk_test_fr_op(TO_CANONICAL, a.cast(), b.cast(), out.cast(), n) }
    })
}

/// Field elements from canonical integers (each below the modulus), converted on the GPU.
pub fn fr_from_canonical(a: &[[u64; 4]]) -> Result<Vec<Scalar>, CudaError> {
    elementwise(a, None, Scalar::from(0u64), |a, b, out, n| {
        // SAFETY: as in `fr_to_canonical`.
        unsafe { ffi::cuzk_test_fr_op(FROM_CANONICAL, a.cast(), b.cast(), out.cast(), n) }
    })
}

/// The canonical integers of `a` (little-endian u64 limbs), converted on the GPU.
pub fn fp_to_canonical(a: &[Fp]) -> Result<Vec<[u64; 6]>, CudaError> {
    elementwise(a, None, [0u64; 6], |a, b, out, n| {
        // SAFETY: as in `fr_to_canonical`, with cuzk_fp_t ([u64; 6]).
        unsafe { ffi::cuzk_test_fp_op(TO_CANONICAL, a.cast(), b.cast(), out.cast(), n) }
    })
}

/// Field elements from canonical integers (each below the modulus), converted on the GPU.
pub fn fp_from_canonical(a: &[[u64; 6]]) -> Result<Vec<Fp>, CudaError> {
    elementwise(a, None, Fp::default(), |a, b, out, n| {
        // SAFETY: as in `fr_to_canonical`, with cuzk_fp_t ([u64; 6]).
        unsafe { ffi::cuzk_test_fp_op(FROM_CANONICAL, a.cast(), b.cast(), out.cast(), n) }
    })
}

/// The GPU's predicates: `(a[i] == b[i], a[i] == 0)` for every `i`.
pub type Comparisons = (Vec<bool>, Vec<bool>);

fn cmp_lengths(a: usize, b: usize) -> Result<(), CudaError> {
    if a != b {
        return Err(CudaError::InvalidArgument(format!(
            "comparison of arrays of lengths {a} and {b}"
        )));
    }
    Ok(())
}

/// Equality and zero tests on the GPU.
pub fn fr_cmp(a: &[Scalar], b: &[Scalar]) -> Result<Comparisons, CudaError> {
    cmp_lengths(a.len(), b.len())?;
    let (mut eq, mut zero) = (vec![0u8; a.len()], vec![0u8; a.len()]);
    // SAFETY: `a`, `b` hold `a.len()` elements of cuzk_fr_t's layout, `eq` and `zero` as many
    // bytes; the call copies and keeps no pointer.
    unsafe {
        ffi::check(ffi::cuzk_test_fr_cmp(
            a.as_ptr().cast(),
            b.as_ptr().cast(),
            eq.as_mut_ptr(),
            zero.as_mut_ptr(),
            a.len(),
        ))?;
    }
    Ok((
        eq.iter().map(|&x| x != 0).collect(),
        zero.iter().map(|&x| x != 0).collect(),
    ))
}

/// Equality and zero tests on the GPU.
pub fn fp_cmp(a: &[Fp], b: &[Fp]) -> Result<Comparisons, CudaError> {
    cmp_lengths(a.len(), b.len())?;
    let (mut eq, mut zero) = (vec![0u8; a.len()], vec![0u8; a.len()]);
    // SAFETY: as in `fr_cmp`, with cuzk_fp_t's layout.
    unsafe {
        ffi::check(ffi::cuzk_test_fp_cmp(
            a.as_ptr().cast(),
            b.as_ptr().cast(),
            eq.as_mut_ptr(),
            zero.as_mut_ptr(),
            a.len(),
        ))?;
    }
    Ok((
        eq.iter().map(|&x| x != 0).collect(),
        zero.iter().map(|&x| x != 0).collect(),
    ))
}

/// Runs one G1 operation; null pointers for the operands it does not read.
fn g1_op(
    op: u32,
    n: usize,
    a: Option<&[G1Projective]>,
    b: Option<&[G1Projective]>,
    b_affine: Option<&[G1Affine]>,
) -> Result<Vec<G1Projective>, CudaError> {
    let lens = [
        a.map(<[_]>::len),
        b.map(<[_]>::len),
        b_affine.map(<[_]>::len),
    ];
    if lens.iter().flatten().any(|&len| len != n) {
        return Err(CudaError::InvalidArgument(format!(
            "G1 operands of lengths {lens:?}"
        )));
    }
    let mut out = vec![G1Projective::identity(); n];
    // SAFETY: every operand passed is `n` elements of its cuzk_* layout (asserted above), the
    // others are null and not read for this operation; `out` has room for `n` projective
    // points. The call copies and keeps no pointer.
    unsafe {
        ffi::check(ffi::cuzk_test_g1_op(
            op as c_int,
            a.map_or(std::ptr::null(), |s| s.as_ptr().cast()),
            b.map_or(std::ptr::null(), |s| s.as_ptr().cast()),
            b_affine.map_or(std::ptr::null(), |s| s.as_ptr().cast()),
            out.as_mut_ptr().cast(),
            n,
        ))?;
    }
    Ok(out)
}

/// The G1 MSM with windows of `window_bits` bits (see [`crate::msm::WINDOW_BITS`]) instead of
/// the planned ones, so that a test can reach the wide windows at small sizes.
pub fn msm_g1_with_window(
    points: &[G1Affine],
    scalars: &[Scalar],
    window_bits: u32,
) -> Result<G1Projective, CudaError> {
    msm_g1_shifted(points, scalars, window_bits, 1)
}

/// The G1 MSM with windows of `window_bits` bits over `copies` shifted copies of the bases
/// (2^(c j) P for j < copies, made on the GPU; 1: none), each run of `copies` windows sharing
/// one set of buckets.
pub fn msm_g1_shifted(
    points: &[G1Affine],
    scalars: &[Scalar],
    window_bits: u32,
    copies: u32,
) -> Result<G1Projective, CudaError> {
    let n = scalars.len();
    crate::msm::check_lengths(points.len(), n)?;
    let window_bits = crate::msm::check_window(Some(window_bits))?;
    let mut out = G1Projective::identity();
    // SAFETY: `points` and `scalars` are valid for reads of `n` elements in the cuzk_*
    // layouts (blstrs' types are blst's, as msm.rs asserts); `out` is one projective point.
    // The call copies and keeps no pointer.
    unsafe {
        ffi::check(ffi::cuzk_test_msm_g1_window(
            points.as_ptr().cast(),
            scalars.as_ptr().cast(),
            n,
            window_bits,
            copies,
            (&mut out as *mut G1Projective).cast(),
        ))?;
    }
    Ok(out)
}

/// `a[i] + b[i]`, both as XYZZ accumulators on the GPU.
pub fn g1_add(a: &[G1Projective], b: &[G1Projective]) -> Result<Vec<G1Projective>, CudaError> {
    g1_op(ffi::CUZK_TEST_G1_ADD, a.len(), Some(a), Some(b), None)
}

/// `a[i] + b[i]` by mixed addition of an affine point into an XYZZ accumulator.
pub fn g1_add_affine(a: &[G1Projective], b: &[G1Affine]) -> Result<Vec<G1Projective>, CudaError> {
    g1_op(
        ffi::CUZK_TEST_G1_ADD_AFFINE,
        a.len(),
        Some(a),
        None,
        Some(b),
    )
}

/// `a[i] + b[i]` by the bucket sums' mixed addition in Fp's redundant form (`a[i]`'s XYZZ
/// coordinates raised by p for odd `i`), back in the canonical form.
pub fn g1_lazy_add_affine(
    a: &[G1Projective],
    b: &[G1Affine],
) -> Result<Vec<G1Projective>, CudaError> {
    g1_op(
        ffi::CUZK_TEST_G1_LAZY_ADD_AFFINE,
        a.len(),
        Some(a),
        None,
        Some(b),
    )
}

/// `2 a[i]` in XYZZ.
pub fn g1_double(a: &[G1Projective]) -> Result<Vec<G1Projective>, CudaError> {
    g1_op(ffi::CUZK_TEST_G1_DBL, a.len(), Some(a), None, None)
}

/// `2 b[i]` from affine points.
pub fn g1_double_affine(b: &[G1Affine]) -> Result<Vec<G1Projective>, CudaError> {
    g1_op(ffi::CUZK_TEST_G1_DBL_AFFINE, b.len(), None, None, Some(b))
}

/// `a[i]` through XYZZ and back to Jacobian (the conversions alone).
pub fn g1_roundtrip(a: &[G1Projective]) -> Result<Vec<G1Projective>, CudaError> {
    g1_op(ffi::CUZK_TEST_G1_ROUNDTRIP, a.len(), Some(a), None, None)
}

/// Median NTT timings from [`bench_ntt`], in milliseconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NttBench {
    /// One forward NTT of data already on the device.
    pub ntt_ms: f32,
    /// The host-to-device copy from pinned memory, then the NTT.
    pub ntt_with_h2d_ms: f32,
    /// The H pipeline on device buffers, if asked for.
    pub h_ms: Option<f32>,
}

/// Times the NTT of 2^log_n random elements on the GPU: `warmup` untimed runs, then the
/// median of `iters` runs timed with CUDA events.
pub fn bench_ntt(log_n: u32, warmup: u32, iters: u32, with_h: bool) -> Result<NttBench, CudaError> {
    let mut out = ffi::cuzk_ntt_bench_t {
        ntt_ms: 0.0,
        ntt_with_h2d_ms: 0.0,
        h_ms: 0.0,
    };
    // SAFETY: `out` is a valid, writable cuzk_ntt_bench_t; the call keeps no pointer.
    unsafe {
        ffi::check(ffi::cuzk_bench_ntt(
            log_n,
            warmup,
            iters,
            c_int::from(with_h),
            &mut out,
        ))?;
    }
    Ok(NttBench {
        ntt_ms: out.ntt_ms,
        ntt_with_h2d_ms: out.ntt_with_h2d_ms,
        h_ms: with_h.then_some(out.h_ms),
    })
}
