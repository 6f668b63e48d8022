//! CPU reference arithmetic in Fp, the base field, for the GPU field tests.
//!
//! blstrs keeps its `Fp` private, so the tests work on `blst::blst_fp` (the same layout the GPU
//! takes) through blst's own functions, wrapped safely here.

use blst::blst_fp;
use rand::RngCore;

/// The Montgomery form of a canonical integer below p (little-endian limbs).
pub fn from_canonical(limbs: &[u64; 6]) -> blst_fp {
    let mut r = blst_fp::default();
    // SAFETY: `r` is a writable blst_fp and `limbs` six readable u64s, as the function needs.
    unsafe { blst::blst_fp_from_uint64(&mut r, limbs.as_ptr()) };
    r
}

/// The canonical integer of `a` (little-endian limbs).
pub fn to_canonical(a: &blst_fp) -> [u64; 6] {
    let mut r = [0u64; 6];
    // SAFETY: `r` has room for six u64s and `a` is a readable blst_fp.
    unsafe { blst::blst_uint64_from_fp(r.as_mut_ptr(), a) };
    r
}

pub fn from_u64(x: u64) -> blst_fp {
    from_canonical(&[x, 0, 0, 0, 0, 0])
}

pub fn add(a: &blst_fp, b: &blst_fp) -> blst_fp {
    let mut r = blst_fp::default();
    // SAFETY: blst reads two valid elements and writes one; aliasing is not involved.
    unsafe { blst::blst_fp_add(&mut r, a, b) };
    r
}

pub fn sub(a: &blst_fp, b: &blst_fp) -> blst_fp {
    let mut r = blst_fp::default();
    // SAFETY: as in `add`.
    unsafe { blst::blst_fp_sub(&mut r, a, b) };
    r
}

pub fn mul(a: &blst_fp, b: &blst_fp) -> blst_fp {
    let mut r = blst_fp::default();
    // SAFETY: as in `add`.
    unsafe { blst::blst_fp_mul(&mut r, a, b) };
    r
}

pub fn sqr(a: &blst_fp) -> blst_fp {
    let mut r = blst_fp::default();
    // SAFETY: as in `add`, one input.
    unsafe { blst::blst_fp_sqr(&mut r, a) };
    r
}

pub fn neg(a: &blst_fp) -> blst_fp {
    let mut r = blst_fp::default();
    // SAFETY: as in `sqr`.
    unsafe { blst::blst_fp_cneg(&mut r, a, true) };
    r
}

pub fn inverse(a: &blst_fp) -> blst_fp {
    let mut r = blst_fp::default();
    // SAFETY: as in `sqr` (blst maps zero to zero).
    unsafe { blst::blst_fp_inverse(&mut r, a) };
    r
}

/// A uniformly random element (as a canonical integer: 384 random bits reduced mod p by
/// rejection, then converted).
pub fn random(rng: &mut impl RngCore) -> blst_fp {
    let p_minus_1 = to_canonical(&neg(&from_u64(1)));
    loop {
        let mut limbs = [0u64; 6];
        for l in &mut limbs {
            *l = rng.next_u64();
        }
        // p < 2^381: keep 381 bits, then reject values >= p (about a quarter of them).
        limbs[5] &= (1u64 << 61) - 1;
        if limbs.iter().rev().cmp(p_minus_1.iter().rev()) != std::cmp::Ordering::Greater {
            return from_canonical(&limbs);
        }
    }
}
