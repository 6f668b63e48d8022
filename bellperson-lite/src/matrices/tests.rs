use bellpepper_core::{Circuit, ConstraintSystem, SynthesisError};
use blstrs::Scalar;
use ff::Field;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

use super::*;
use crate::circuits::{InterleavedCircuit, MixCircuit, ShaCircuit};
use crate::generator::generate_random_parameters;
use crate::prover::prove_from_assignments;
use crate::synthesis::synthesize_circuit;

/// Full synthesis and witness + products must give the same assignment, field for field.
fn check_same<C: Circuit<Scalar> + Clone>(what: &str, circuit: C) -> ConstraintMatrices {
    let full = synthesize_circuit(circuit.clone()).unwrap();
    let matrices = record_matrices(circuit.clone()).unwrap();
    let fast = matrices
        .assignment(synthesize_witness(circuit).unwrap())
        .unwrap();
    assert_eq!(fast.a, full.a, "{what}: a");
    assert_eq!(fast.b, full.b, "{what}: b");
    assert_eq!(fast.c, full.c, "{what}: c");
    assert_eq!(
        fast.a_aux_density, full.a_aux_density,
        "{what}: A aux density"
    );
    assert_eq!(
        fast.b_input_density, full.b_input_density,
        "{what}: B input density"
    );
    assert_eq!(
        fast.b_aux_density, full.b_aux_density,
        "{what}: B aux density"
    );
    assert_eq!(fast, full, "{what}");
    matrices
}

#[test]
fn same_assignment_as_full_synthesis() {
    for log in [10, 12, 16] {
        check_same(&format!("sha 2^{log}"), ShaCircuit::new(log, 3));
    }
    for (log, fraction) in [(4, 0.9), (10, 0.0), (10, 0.5), (12, 0.9), (12, 1.0)] {
        check_same(
            &format!("mix 2^{log} {fraction}"),
            MixCircuit::new(log, fraction, 11),
        );
    }
    let m = check_same(
        "interleaved inputs and extend",
        InterleavedCircuit {
            values: vec![2, 3, 4, 5, 6],
        },
    );
    assert_eq!(m.num_inputs, 6, "one plus five squares");
}

#[test]
fn matrices_serve_every_witness_of_the_shape() {
    // Recorded once, used for circuits of the same shape with other values.
    let matrices = record_matrices(ShaCircuit::new(12, 0)).unwrap();
    for seed in 1..4 {
        let c = ShaCircuit::new(12, seed);
        let fast = matrices
            .assignment(synthesize_witness(c.clone()).unwrap())
            .unwrap();
        assert_eq!(fast, synthesize_circuit(c).unwrap(), "seed {seed}");
    }
}

#[test]
fn proofs_are_the_same_bytes() {
    let mut rng = ChaCha20Rng::seed_from_u64(5);
    let c = ShaCircuit::new(10, 8);
    let params = generate_random_parameters(c.clone(), &mut rng).unwrap();
    let (r, s) = ([Scalar::random(&mut rng)], [Scalar::random(&mut rng)]);
    let full = prove_from_assignments(
        vec![synthesize_circuit(c.clone()).unwrap()],
        &params,
        &r,
        &s,
    )
    .unwrap();
    let fast_assignment = record_matrices(c.clone())
        .unwrap()
        .assignment(synthesize_witness(c).unwrap())
        .unwrap();
    let fast = prove_from_assignments(vec![fast_assignment], &params, &r, &s).unwrap();
    assert_eq!(full[0].to_bytes(), fast[0].to_bytes());
}

#[test]
fn a_witness_of_another_shape_is_rejected() {
    let matrices = record_matrices(MixCircuit::new(6, 0.5, 1)).unwrap();
    let other = synthesize_witness(ShaCircuit::new(10, 1)).unwrap();
    let err = matrices.assignment(other).unwrap_err();
    assert!(matches!(err, MatrixError::WitnessShape { .. }), "{err}");
    assert!(err.to_string().contains("another circuit shape"));
}

#[test]
fn recording_needs_no_values() {
    // A circuit whose values are missing (as when generating parameters) records fine, and
    // its witness is the missing-value error.
    #[derive(Clone)]
    struct Blank;
    impl Circuit<Scalar> for Blank {
        fn synthesize<CS: ConstraintSystem<Scalar>>(
            self,
            cs: &mut CS,
        ) -> Result<(), SynthesisError> {
            let x = cs.alloc(|| "x", || Err(SynthesisError::AssignmentMissing))?;
            cs.enforce(|| "x*x=x", |lc| lc + x, |lc| lc + x, |lc| lc + x);
            Ok(())
        }
    }
    let m = record_matrices(Blank).unwrap();
    assert_eq!((m.num_inputs, m.num_aux, m.num_constraints()), (1, 1, 2));
    assert!(matches!(
        synthesize_witness(Blank),
        Err(SynthesisError::AssignmentMissing)
    ));
}

#[test]
fn a_witness_assignment_is_completed_by_fill_products_and_refused_without() {
    let mut rng = ChaCha20Rng::seed_from_u64(6);
    let c = MixCircuit::new(8, 0.5, 3);
    let params = generate_random_parameters(c.clone(), &mut rng).unwrap();
    let matrices = record_matrices(c.clone()).unwrap();
    let mut partial = matrices
        .witness_assignment(synthesize_witness(c.clone()).unwrap())
        .unwrap();
    assert_eq!(partial.num_constraints(), 0, "a, b and c are left empty");
    let (r, s) = ([Scalar::random(&mut rng)], [Scalar::random(&mut rng)]);
    // As it is, a prover refuses it rather than prove without the constraints.
    let refused = prove_from_assignments(vec![partial.clone()], &params, &r, &s);
    assert!(
        matches!(refused, Err(crate::ProverError::ParamsMismatch { .. })),
        "{refused:?}"
    );
    matrices.fill_products(&mut partial).unwrap();
    assert_eq!(partial, synthesize_circuit(c).unwrap());
    assert!(prove_from_assignments(vec![partial], &params, &r, &s).is_ok());
    // fill_products checks the witness's shape too.
    let mut other = record_matrices(ShaCircuit::new(10, 1))
        .unwrap()
        .witness_assignment(synthesize_witness(ShaCircuit::new(10, 1)).unwrap())
        .unwrap();
    assert!(matches!(
        matrices.fill_products(&mut other),
        Err(MatrixError::WitnessShape { .. })
    ));
}
