//! GPU NTTs against bellperson-lite's CPU `EvaluationDomain`: all four kinds at every size
//! 2^1..2^24 (2^12 with CUZK_SMALL=1), round trips, one forward transform at 2^27, and the
//! fused H pipeline against `prover::compute_h`. Inputs are fresh random scalars each run.
#![cfg(feature = "cuda")]

use bellperson_lite::domain::EvaluationDomain;
use bellperson_lite::prover::compute_h;
use blstrs::Scalar;
use cuzk_gpu_tests::compare::assert_same;
use cuzk_gpu_tests::{rng, small};
use rand::RngCore;
use rand_chacha::ChaCha20Rng;
use supraseal_c2::ntt::{self, NttKind};

const KINDS: [NttKind; 4] = [
    NttKind::Forward,
    NttKind::Inverse,
    NttKind::CosetForward,
    NttKind::CosetInverse,
];

/// Random scalars below 2^254 (uniform enough for transforms, and fast to draw in bulk).
fn random_scalars(rng: &mut ChaCha20Rng, n: usize) -> Vec<Scalar> {
    (0..n)
        .map(|_| {
            let limbs = [
                rng.next_u64(),
                rng.next_u64(),
                rng.next_u64(),
                rng.next_u64() >> 2,
            ];
            Scalar::from_u64s_le(&limbs).unwrap()
        })
        .collect()
}

fn cpu_transform(domain: &EvaluationDomain, v: &mut [Scalar], kind: NttKind) {
    match kind {
        NttKind::Forward => domain.fft(v),
        NttKind::Inverse => domain.ifft(v),
        NttKind::CosetForward => domain.coset_fft(v),
        NttKind::CosetInverse => domain.icoset_fft(v),
    }
    .unwrap();
}

fn max_log() -> u32 {
    if small() {
        12
    } else {
        24
    }
}

#[test]
fn every_kind_matches_the_cpu() {
    let mut rng = rng();
    for log_n in 1..=max_log() {
        let n = 1usize << log_n;
        let domain = EvaluationDomain::new(n).unwrap();
        let input = random_scalars(&mut rng, n);
        for kind in KINDS {
            let mut gpu = input.clone();
            ntt::ntt(&mut gpu, kind).unwrap();
            let mut cpu = input.clone();
            cpu_transform(&domain, &mut cpu, kind);
            assert_same(&format!("{kind:?} NTT of 2^{log_n}"), &gpu, &cpu, |i| {
                format!("index {i}")
            });
        }
    }
}

#[test]
fn round_trips_restore_the_input() {
    let mut rng = rng();
    for log_n in [1, 2, 7, 11, 12, 13, 20, 21]
        .into_iter()
        .filter(|&l| l <= max_log())
    {
        let input = random_scalars(&mut rng, 1 << log_n);
        for (there, back) in [
            (NttKind::Forward, NttKind::Inverse),
            (NttKind::Inverse, NttKind::Forward),
            (NttKind::CosetForward, NttKind::CosetInverse),
            (NttKind::CosetInverse, NttKind::CosetForward),
        ] {
            let mut v = input.clone();
            ntt::ntt(&mut v, there).unwrap();
            ntt::ntt(&mut v, back).unwrap();
            assert_same(
                &format!("{there:?} then {back:?} at 2^{log_n}"),
                &v,
                &input,
                |i| format!("index {i}"),
            );
        }
    }
}

#[test]
fn largest_benchmarked_size_matches_the_cpu() {
    if small() {
        return;
    }
    let log_n = 27;
    let mut rng = rng();
    let input = random_scalars(&mut rng, 1 << log_n);
    let domain = EvaluationDomain::new(1 << log_n).unwrap();
    let mut gpu = input.clone();
    ntt::ntt(&mut gpu, NttKind::CosetForward).unwrap();
    let mut cpu = input;
    cpu_transform(&domain, &mut cpu, NttKind::CosetForward);
    assert_same("CosetForward NTT of 2^27", &gpu, &cpu, |i| {
        format!("index {i}")
    });
}

#[test]
fn bad_lengths_are_rejected() {
    for len in [0usize, 1, 3, 12] {
        let mut v = vec![Scalar::from(1u64); len];
        assert!(ntt::ntt(&mut v, NttKind::Forward).is_err(), "length {len}");
    }
}

/// The CPU reference with all n coefficients (compute_h drops the top one).
fn cpu_h_full(domain: &EvaluationDomain, a: &[Scalar], b: &[Scalar], c: &[Scalar]) -> Vec<Scalar> {
    let n = domain.size();
    let pad = |v: &[Scalar]| {
        let mut v = v.to_vec();
        v.resize(n, Scalar::from(0u64));
        domain.ifft(&mut v).unwrap();
        domain.coset_fft(&mut v).unwrap();
        v
    };
    let (mut a, b, c) = (pad(a), pad(b), pad(c));
    for i in 0..n {
        a[i] = a[i] * b[i] - c[i];
    }
    domain.divide_by_z_on_coset(&mut a).unwrap();
    domain.icoset_fft(&mut a).unwrap();
    a
}

#[test]
fn h_pipeline_matches_compute_h() {
    let mut rng = rng();
    for log_n in [1u32, 2, 5, 10, 11, 12, 16, 20, 22]
        .into_iter()
        .filter(|&l| l <= max_log().min(22))
    {
        let n = 1usize << log_n;
        // A shorter input exercises the zero padding, as real circuits do.
        for len in [n, n / 2 + 1] {
            let a = random_scalars(&mut rng, len);
            let b = random_scalars(&mut rng, len);
            let c = random_scalars(&mut rng, len);
            let domain = EvaluationDomain::new(n).unwrap();
            let gpu = ntt::compute_h(&a, &b, &c, log_n).unwrap();
            let cpu = compute_h(&domain, a.clone(), b.clone(), c.clone()).unwrap();
            let what = format!("H of 2^{log_n} from {len} evaluations");
            assert_same(&what, &gpu[..n - 1], &cpu, |i| format!("coefficient {i}"));
            let full = cpu_h_full(&domain, &a, &b, &c);
            assert_same(&format!("{what}, all n"), &gpu, &full, |i| {
                format!("coefficient {i}")
            });
        }
    }
}
