//! GPU field arithmetic against the CPU: Fr against blstrs, Fp against blst. Every operation
//! runs on all pairs of edge values (0, 1, 2, p-1, p-2, ...) and on fresh random pairs; the
//! canonical-form conversions and the predicates too.
#![cfg(feature = "cuda")]

use blst::blst_fp;
use blstrs::Scalar;
use cuzk_gpu_tests::compare::assert_same;
use cuzk_gpu_tests::{fp, rng};
use ff::{Field, PrimeField};
use rand::RngCore;
use supraseal_c2::testing::{self, FieldOp};

const RANDOM_PAIRS: usize = 1 << 14;
const ARITHMETIC: [FieldOp; 7] = [
    FieldOp::Add,
    FieldOp::Sub,
    FieldOp::Mul,
    FieldOp::Square,
    FieldOp::Neg,
    FieldOp::Double,
    FieldOp::MulSub,
];

/// Every pair of `edges`, then `random` random pairs from `draw`.
fn pairs<T: Copy>(edges: &[T], random: usize, mut draw: impl FnMut() -> T) -> (Vec<T>, Vec<T>) {
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for x in edges {
        for y in edges {
            a.push(*x);
            b.push(*y);
        }
    }
    for _ in 0..random {
        a.push(draw());
        b.push(draw());
    }
    (a, b)
}

fn limbs4(x: &Scalar) -> [u64; 4] {
    let bytes = x.to_bytes_le();
    std::array::from_fn(|i| u64::from_le_bytes(bytes[8 * i..8 * i + 8].try_into().unwrap()))
}

fn fr_edges() -> Vec<Scalar> {
    let two = Scalar::from(2u64);
    vec![
        Scalar::ZERO,
        Scalar::ONE,
        two,
        -Scalar::ONE,
        -two,
        Scalar::from(u64::MAX),
        Scalar::TWO_INV,
        -Scalar::TWO_INV,
        Scalar::ROOT_OF_UNITY,
        Scalar::MULTIPLICATIVE_GENERATOR,
        // 2^255 - 2^64 mod r and friends: many all-ones limbs.
        Scalar::from_u64s_le(&[u64::MAX, u64::MAX, u64::MAX, 0x7000_0000_0000_0000]).unwrap(),
        Scalar::from_u64s_le(&[0, 0, 0, 0x7000_0000_0000_0000]).unwrap(),
    ]
}

fn fr_cpu(op: FieldOp, a: &Scalar, b: &Scalar) -> Scalar {
    match op {
        FieldOp::Add => a + b,
        FieldOp::Sub => a - b,
        FieldOp::Mul => a * b,
        FieldOp::Square => a.square(),
        FieldOp::Neg => -a,
        FieldOp::Double => a.double(),
        FieldOp::Inverse => a.invert().unwrap_or(Scalar::ZERO),
        FieldOp::MulSub => a * b - b * (a + b),
    }
}

#[test]
fn fr_arithmetic_matches_blstrs() {
    let mut rng = rng();
    let (a, b) = pairs(&fr_edges(), RANDOM_PAIRS, || Scalar::random(&mut rng));
    for op in ARITHMETIC {
        let gpu = testing::fr_op(op, &a, &b).unwrap();
        let cpu: Vec<Scalar> = a.iter().zip(&b).map(|(x, y)| fr_cpu(op, x, y)).collect();
        assert_same(&format!("Fr {op:?}"), &gpu, &cpu, |i| {
            format!("a={:?} b={:?}", a[i], b[i])
        });
    }
}

#[test]
fn fr_inverse_matches_blstrs() {
    let mut rng = rng();
    let mut a = fr_edges();
    a.extend((0..1024).map(|_| Scalar::random(&mut rng)));
    let gpu = testing::fr_op(FieldOp::Inverse, &a, &[]).unwrap();
    let cpu: Vec<Scalar> = a.iter().map(|x| fr_cpu(FieldOp::Inverse, x, x)).collect();
    assert_same("Fr inverse", &gpu, &cpu, |i| format!("a={:?}", a[i]));
}

#[test]
fn fr_canonical_conversions_match_blstrs() {
    let mut rng = rng();
    let mut a = fr_edges();
    a.extend((0..RANDOM_PAIRS).map(|_| Scalar::random(&mut rng)));
    let canonical: Vec<[u64; 4]> = a.iter().map(limbs4).collect();
    let gpu = testing::fr_to_canonical(&a).unwrap();
    assert_same("Fr to canonical", &gpu, &canonical, |i| {
        format!("a={:?}", a[i])
    });
    let back = testing::fr_from_canonical(&canonical).unwrap();
    assert_same("Fr from canonical", &back, &a, |i| {
        format!("limbs={:x?}", canonical[i])
    });
}

#[test]
fn fr_predicates() {
    let mut rng = rng();
    let (mut a, mut b) = pairs(&fr_edges(), RANDOM_PAIRS, || Scalar::random(&mut rng));
    // Equal pairs too, beyond the diagonal of the edge pairs.
    a.extend_from_slice(&b[..1000]);
    b.extend_from_within(..1000);
    let (eq, zero) = testing::fr_cmp(&a, &b).unwrap();
    let cpu_eq: Vec<bool> = a.iter().zip(&b).map(|(x, y)| x == y).collect();
    let cpu_zero: Vec<bool> = a.iter().map(|x| bool::from(x.is_zero())).collect();
    assert_same("Fr ==", &eq, &cpu_eq, |i| {
        format!("a={:?} b={:?}", a[i], b[i])
    });
    assert_same("Fr is_zero", &zero, &cpu_zero, |i| format!("a={:?}", a[i]));
}

fn fp_edges() -> Vec<blst_fp> {
    let one = fp::from_u64(1);
    let two = fp::from_u64(2);
    vec![
        fp::from_u64(0),
        one,
        two,
        fp::neg(&one),
        fp::neg(&two),
        fp::from_u64(u64::MAX),
        fp::inverse(&two),
        fp::from_canonical(&[
            u64::MAX,
            u64::MAX,
            u64::MAX,
            u64::MAX,
            u64::MAX,
            0x0fff_ffff_ffff_ffff,
        ]),
        fp::from_canonical(&[0, 0, 0, 0, 0, 0x1000_0000_0000_0000]),
        // A Montgomery form with all low limbs set (the raw limbs, not a canonical value).
        blst_fp {
            l: [
                u64::MAX,
                u64::MAX,
                u64::MAX,
                u64::MAX,
                u64::MAX,
                0x0fff_ffff_ffff_ffff,
            ],
        },
    ]
}

fn fp_cpu(op: FieldOp, a: &blst_fp, b: &blst_fp) -> blst_fp {
    match op {
        FieldOp::Add => fp::add(a, b),
        FieldOp::Sub => fp::sub(a, b),
        FieldOp::Mul => fp::mul(a, b),
        FieldOp::Square => fp::sqr(a),
        FieldOp::Neg => fp::neg(a),
        FieldOp::Double => fp::add(a, a),
        FieldOp::Inverse => fp::inverse(a),
        FieldOp::MulSub => fp::sub(&fp::mul(a, b), &fp::mul(b, &fp::add(a, b))),
    }
}

#[test]
fn fp_arithmetic_matches_blst() {
    let mut rng = rng();
    let (a, b) = pairs(&fp_edges(), RANDOM_PAIRS, || fp::random(&mut rng));
    for op in ARITHMETIC {
        let gpu = testing::fp_op(op, &a, &b).unwrap();
        let cpu: Vec<blst_fp> = a.iter().zip(&b).map(|(x, y)| fp_cpu(op, x, y)).collect();
        assert_same(&format!("Fp {op:?}"), &gpu, &cpu, |i| {
            format!("a={:x?} b={:x?}", a[i].l, b[i].l)
        });
    }
}

/// The redundant form (below 2p) that G1's bucket sums keep: every operation on both
/// representatives of its operands gives blst's result once brought back, and the zero test
/// accepts both representatives of zero only.
#[test]
fn fp_redundant_form_matches_blst() {
    let mut rng = rng();
    // Each pair four times in a row, so that it meets all four raisings (index bits 0 and 1).
    let (a1, b1) = pairs(&fp_edges(), RANDOM_PAIRS / 4, || fp::random(&mut rng));
    let a: Vec<blst_fp> = a1.iter().flat_map(|x| [*x; 4]).collect();
    let b: Vec<blst_fp> = b1.iter().flat_map(|x| [*x; 4]).collect();
    for op in ARITHMETIC.into_iter().filter(|op| *op != FieldOp::Neg) {
        let gpu = testing::fp_lazy_op(op, &a, &b).unwrap();
        let cpu: Vec<blst_fp> = a.iter().zip(&b).map(|(x, y)| fp_cpu(op, x, y)).collect();
        assert_same(&format!("Fp redundant {op:?}"), &gpu, &cpu, |i| {
            format!(
                "a={:x?} (raised: {}) b={:x?} (raised: {})",
                a[i].l,
                i & 1,
                b[i].l,
                (i >> 1) & 1
            )
        });
    }
    assert!(testing::fp_lazy_op(FieldOp::Neg, &a, &b).is_err());
    let zero = testing::fp_lazy_is_zero(&a).unwrap();
    let cpu_zero: Vec<bool> = a.iter().map(|x| x.l == [0; 6]).collect();
    assert!(
        cpu_zero.iter().filter(|z| **z).count() >= 8,
        "zero is among the edges"
    );
    assert_same("Fp redundant is_zero", &zero, &cpu_zero, |i| {
        format!("a={:x?} (raised: {})", a[i].l, i & 1)
    });
}

#[test]
fn fp_inverse_matches_blst() {
    let mut rng = rng();
    let mut a = fp_edges();
    a.extend((0..1024).map(|_| fp::random(&mut rng)));
    let gpu = testing::fp_op(FieldOp::Inverse, &a, &[]).unwrap();
    let cpu: Vec<blst_fp> = a.iter().map(fp::inverse).collect();
    assert_same("Fp inverse", &gpu, &cpu, |i| format!("a={:x?}", a[i].l));
}

#[test]
fn fp_canonical_conversions_match_blst() {
    let mut rng = rng();
    let mut a = fp_edges();
    a.extend((0..RANDOM_PAIRS).map(|_| fp::random(&mut rng)));
    let canonical: Vec<[u64; 6]> = a.iter().map(fp::to_canonical).collect();
    let gpu = testing::fp_to_canonical(&a).unwrap();
    assert_same("Fp to canonical", &gpu, &canonical, |i| {
        format!("a={:x?}", a[i].l)
    });
    let back = testing::fp_from_canonical(&canonical).unwrap();
    assert_same("Fp from canonical", &back, &a, |i| {
        format!("limbs={:x?}", canonical[i])
    });
}

#[test]
fn fp_predicates() {
    let mut rng = rng();
    let (mut a, mut b) = pairs(&fp_edges(), RANDOM_PAIRS, || fp::random(&mut rng));
    a.extend_from_slice(&b[..1000]);
    b.extend_from_within(..1000);
    // Differences in a single limb must be seen.
    for limb in 0..6 {
        let x = fp::random(&mut rng);
        let mut y = x;
        y.l[limb] ^= 1 << (rng.next_u32() % 64);
        a.push(x);
        b.push(y);
    }
    let (eq, zero) = testing::fp_cmp(&a, &b).unwrap();
    let cpu_eq: Vec<bool> = a.iter().zip(&b).map(|(x, y)| x == y).collect();
    let cpu_zero: Vec<bool> = a.iter().map(|x| x.l == [0; 6]).collect();
    assert_same("Fp ==", &eq, &cpu_eq, |i| {
        format!("a={:x?} b={:x?}", a[i].l, b[i].l)
    });
    assert_same("Fp is_zero", &zero, &cpu_zero, |i| {
        format!("a={:x?}", a[i].l)
    });
}
