//! Fixed-base multiplication on the GPU (parameter generation) against the CPU: each product
//! (affine, converted on the GPU; zero scalars give infinity) against the CPU table's, for every scalar kind and sizes up to past one GPU chunk (2^20);
//! a malformed table refused; and whole parameter sets generated with the GPU's
//! multiplications, byte for byte those of the CPU's for the same secrets. Fresh random
//! inputs each run (seed printed).
#![cfg(feature = "cuda")]

use bellperson_lite::circuits::MixCircuit;
use bellperson_lite::generator::{
    generate_parameters, CpuFixedBase, FixedBaseTable, GpuFixedBase, SetupSecrets,
};
use bellperson_lite::params::write_parameters;
use blstrs::{G1Projective, G2Projective, Scalar};
use cuzk_gpu_tests::scalars::{scalars, ScalarKind};
use cuzk_gpu_tests::{rng, small};
use ff::Field;
use group::{Curve, Group};
use rayon::prelude::*;
use supraseal_c2::fixed_base::{fixed_base_mul_g1, fixed_base_mul_g2, TABLE_LEN};
use supraseal_c2::CudaError;

/// Sizes: empty, one, a few thousand, and (G1, not with CUZK_SMALL) past the 2^20 chunk.
fn sizes(large: bool) -> Vec<usize> {
    let mut sizes = vec![0, 1, 3, 4099];
    if large && !small() {
        sizes.push((1 << 20) + 3);
    }
    sizes
}

#[test]
fn g1_products_match_the_cpu() {
    let mut rng = rng();
    let table = FixedBaseTable::new(G1Projective::random(&mut rng));
    for n in sizes(true) {
        for kind in ScalarKind::ALL {
            let mut s = scalars(&mut rng, kind, n);
            if n > 2 {
                // Values with one byte set, and the last byte only: window boundaries.
                s[0] = Scalar::from(255u64 << 56);
                s[1] = Scalar::from(2).pow_vartime([254]);
            }
            let gpu = fixed_base_mul_g1(table.points(), &s).expect("GPU fixed-base G1");
            assert_eq!(gpu.len(), n);
            let wrong = gpu
                .par_iter()
                .zip(&s)
                .position_first(|(p, s)| *p != table.mul(s).to_affine());
            assert_eq!(
                wrong, None,
                "G1, n = {n}, {kind:?} scalars: first wrong product"
            );
        }
    }
}

#[test]
fn g2_products_match_the_cpu() {
    let mut rng = rng();
    let table = FixedBaseTable::new(G2Projective::random(&mut rng));
    for n in sizes(false) {
        for kind in ScalarKind::ALL {
            let s = scalars(&mut rng, kind, n);
            let gpu = fixed_base_mul_g2(table.points(), &s).expect("GPU fixed-base G2");
            assert_eq!(gpu.len(), n);
            for (i, (p, s)) in gpu.iter().zip(&s).enumerate() {
                let expected = table.mul(s).to_affine();
                assert_eq!(*p, expected, "G2, n = {n}, {kind:?} scalars, product {i}");
            }
        }
    }
}

#[test]
fn a_table_of_the_wrong_length_is_refused() {
    let table = FixedBaseTable::new(G1Projective::generator());
    let s = [Scalar::ONE];
    for len in [0, 1, TABLE_LEN - 1] {
        match fixed_base_mul_g1(&table.points()[..len], &s) {
            Err(CudaError::InvalidArgument(message)) => {
                assert!(message.contains("8192"), "{message}")
            }
            other => panic!("a table of {len} points: {other:?}"),
        }
    }
    let table = FixedBaseTable::new(G2Projective::generator());
    assert!(matches!(
        fixed_base_mul_g2(&table.points()[1..], &s),
        Err(CudaError::InvalidArgument(_))
    ));
}

#[test]
fn parameters_generated_with_the_gpu_are_the_cpus() {
    let mut rng = rng();
    let log = if small() { 8 } else { 16 };
    let circuit = MixCircuit::new(log, 0.7, 4);
    let secrets = SetupSecrets::random(&mut rng);
    let bytes = |multiplier: &dyn bellperson_lite::generator::FixedBaseMultiplier| {
        let params = generate_parameters(circuit.clone(), &secrets, multiplier).expect("generate");
        let mut out = Vec::new();
        write_parameters(&params, &mut out).expect("serialize");
        out
    };
    let on_gpu = bytes(&GpuFixedBase);
    let on_cpu = bytes(&CpuFixedBase);
    assert_eq!(on_gpu.len(), on_cpu.len());
    assert!(
        on_gpu == on_cpu,
        "the GPU's parameters differ from the CPU's"
    );
}
