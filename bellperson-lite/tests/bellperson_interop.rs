//! Our prover against bellperson 0.27: same parameters and randomness give the same proof
//! bytes, each verifies the other's proofs, and bad inputs are typed errors.

use bellpepper_core::{Circuit, ConstraintSystem, SynthesisError};
use bellperson::groth16 as bp;
use bellperson_lite::circuits::{InterleavedCircuit, MixCircuit, ShaCircuit};
use bellperson_lite::generator::generate_random_parameters;
use bellperson_lite::params::{read_parameters, write_parameters};
use bellperson_lite::prover::{create_proof, create_proof_batch, create_random_proof_batch};
use bellperson_lite::verifier::{prepare_verifying_key, verify_proof};
use bellperson_lite::{Bls12, Parameters, Proof, ProverError, Scalar};
use ff::Field;
use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

/// Our parameters as bellperson's, through the file format.
fn to_bellperson(params: &Parameters) -> bp::Parameters<Bls12> {
    let mut bytes = Vec::new();
    write_parameters(params, &mut bytes).unwrap();
    bp::Parameters::read(&bytes[..], true).unwrap()
}

/// bellperson's parameters as ours, through the file format.
fn from_bellperson(params: &bp::Parameters<Bls12>) -> Parameters {
    let mut bytes = Vec::new();
    params.write(&mut bytes).unwrap();
    read_parameters(&bytes[..], true).unwrap()
}

fn bp_bytes(proof: &bp::Proof<Bls12>) -> Vec<u8> {
    let mut bytes = Vec::new();
    proof.write(&mut bytes).unwrap();
    bytes
}

fn bp_proof(proof: &Proof) -> bp::Proof<Bls12> {
    bp::Proof::read(&proof.to_bytes()[..]).unwrap()
}

/// Checks byte equality and cross-verification for one circuit and one parameter set.
fn check_against_bellperson<C>(
    circuit: C,
    input: Scalar,
    ours: &Parameters,
    theirs: &bp::Parameters<Bls12>,
    seed: u64,
) where
    C: Circuit<Scalar> + Clone + Send,
{
    let mut rng = rng(seed);
    let (r, s) = (Scalar::random(&mut rng), Scalar::random(&mut rng));
    let our_proof = create_proof(circuit.clone(), ours, r, s).unwrap();
    let their_proof = bp::create_proof(circuit, theirs, r, s).unwrap();
    assert_eq!(
        our_proof.to_bytes().to_vec(),
        bp_bytes(&their_proof),
        "proof bytes differ"
    );

    let our_pvk = prepare_verifying_key(&ours.vk);
    let their_pvk = bp::prepare_verifying_key(&theirs.vk);
    assert!(verify_proof(&our_pvk, &our_proof, &[input]).unwrap());
    assert!(bp::verify_proof(&their_pvk, &bp_proof(&our_proof), &[input]).unwrap());
    let their_as_ours = Proof::from_bytes(&bp_bytes(&their_proof)).unwrap();
    assert!(verify_proof(&our_pvk, &their_as_ours, &[input]).unwrap());

    let wrong = input + Scalar::ONE;
    assert!(!verify_proof(&our_pvk, &our_proof, &[wrong]).unwrap());
    assert!(!bp::verify_proof(&their_pvk, &bp_proof(&our_proof), &[wrong]).unwrap());
}

#[test]
fn mix_circuit_with_bellperson_parameters() {
    for (log_size, fraction, seed) in [(6, 0.9, 1), (9, 0.5, 2), (10, 0.0, 3), (8, 1.0, 4)] {
        let circuit = MixCircuit::new(log_size, fraction, seed);
        let theirs =
            bp::generate_random_parameters::<Bls12, _, _>(circuit.clone(), &mut rng(seed)).unwrap();
        let ours = from_bellperson(&theirs);
        check_against_bellperson(
            circuit.clone(),
            circuit.public_input(),
            &ours,
            &theirs,
            seed,
        );
    }
}

#[test]
fn sha_circuit_with_our_parameters() {
    let circuit = ShaCircuit::new(15, 7);
    let ours = generate_random_parameters(circuit.clone(), &mut rng(7)).unwrap();
    let theirs = to_bellperson(&ours);
    check_against_bellperson(circuit.clone(), circuit.public_input(), &ours, &theirs, 8);
}

#[test]
fn random_batch_draws_randomness_like_bellperson() {
    let circuits: Vec<MixCircuit> = (0..3).map(|_| MixCircuit::new(7, 1.0, 5)).collect();
    let theirs =
        bp::generate_random_parameters::<Bls12, _, _>(circuits[0].clone(), &mut rng(5)).unwrap();
    let ours = from_bellperson(&theirs);
    let our_proofs = create_random_proof_batch(circuits.clone(), &ours, &mut rng(6)).unwrap();
    let their_proofs = bp::create_random_proof_batch(circuits, &theirs, &mut rng(6)).unwrap();
    assert_eq!(our_proofs.len(), 3);
    for (o, t) in our_proofs.iter().zip(&their_proofs) {
        assert_eq!(o.to_bytes().to_vec(), bp_bytes(t));
    }
}

#[test]
fn extended_circuit_matches_bellperson() {
    // Parts synthesized in separate constraint systems and merged, as filecoin's PoRep
    // circuit does, with public inputs inside the parts.
    let circuit = InterleavedCircuit {
        values: (1..=11).collect(),
    };
    let theirs =
        bp::generate_random_parameters::<Bls12, _, _>(circuit.clone(), &mut rng(9)).unwrap();
    let ours = from_bellperson(&theirs);
    let mut rng = rng(10);
    let (r, s) = (Scalar::random(&mut rng), Scalar::random(&mut rng));
    let our_proof = create_proof(circuit.clone(), &ours, r, s).unwrap();
    let their_proof = bp::create_proof(circuit.clone(), &theirs, r, s).unwrap();
    assert_eq!(our_proof.to_bytes().to_vec(), bp_bytes(&their_proof));
    let pvk = prepare_verifying_key(&ours.vk);
    assert!(verify_proof(&pvk, &our_proof, &circuit.public_inputs()).unwrap());
}

/// Claims a wrong product: synthesis succeeds but the constraint does not hold.
#[derive(Clone)]
struct Unsatisfied;

impl Circuit<Scalar> for Unsatisfied {
    fn synthesize<CS: ConstraintSystem<Scalar>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        let x = cs.alloc(|| "x", || Ok(Scalar::from(3)))?;
        let y = cs.alloc_input(|| "y", || Ok(Scalar::from(10)))?;
        cs.enforce(|| "x*x=y", |lc| lc + x, |lc| lc + x, |lc| lc + y);
        Ok(())
    }
}

#[test]
fn unsatisfied_circuit_is_an_error_not_a_proof() {
    let params = generate_random_parameters(Unsatisfied, &mut rng(11)).unwrap();
    match create_proof(Unsatisfied, &params, Scalar::ONE, Scalar::ONE) {
        Err(ProverError::Unsatisfied { index: 0, total: 3 }) => {}
        other => panic!("expected Unsatisfied, got {other:?}"),
    }
}

#[test]
fn parameters_of_another_circuit_are_rejected() {
    let small = MixCircuit::new(6, 0.9, 1);
    let params = generate_random_parameters(small, &mut rng(12)).unwrap();
    let err = create_proof(
        MixCircuit::new(7, 0.9, 1),
        &params,
        Scalar::ONE,
        Scalar::ONE,
    )
    .unwrap_err();
    assert!(matches!(err, ProverError::ParamsMismatch { .. }), "{err}");
    let err = create_proof(
        InterleavedCircuit { values: vec![1, 2] },
        &params,
        Scalar::ONE,
        Scalar::ONE,
    )
    .unwrap_err();
    assert!(matches!(err, ProverError::ParamsMismatch { .. }), "{err}");
}

#[test]
fn randomness_count_must_match_circuit_count() {
    let circuit = MixCircuit::new(5, 0.9, 1);
    let params = generate_random_parameters(circuit.clone(), &mut rng(13)).unwrap();
    let err = create_proof_batch(
        vec![circuit.clone(), circuit],
        &params,
        &[Scalar::ONE],
        &[Scalar::ONE],
    )
    .unwrap_err();
    assert!(
        matches!(
            err,
            ProverError::LengthMismatch {
                what: "r values",
                expected: 2,
                actual: 1
            }
        ),
        "{err}"
    );
}

#[test]
fn circuits_of_different_shapes_cannot_share_a_batch() {
    // Mix circuits with different seeds place bits and inverses differently.
    let (a, b) = (MixCircuit::new(6, 0.5, 1), MixCircuit::new(6, 0.5, 2));
    let params = generate_random_parameters(a.clone(), &mut rng(14)).unwrap();
    let one = [Scalar::ONE, Scalar::ONE];
    let err = create_proof_batch(vec![a, b], &params, &one, &one).unwrap_err();
    assert!(
        matches!(err, ProverError::ShapeMismatch { index: 1, .. }),
        "{err}"
    );
}

/// Many public inputs, each squared into a private value (WindowPoSt partitions have 25,840;
/// the verifier sums them in one multi-scalar multiplication).
#[derive(Clone)]
struct ManyInputs(Vec<Scalar>);

impl Circuit<Scalar> for ManyInputs {
    fn synthesize<CS: ConstraintSystem<Scalar>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        for (i, x) in self.0.iter().enumerate() {
            let input = cs.alloc_input(|| format!("x{i}"), || Ok(*x))?;
            let square = cs.alloc(|| format!("x{i}^2"), || Ok(x.square()))?;
            cs.enforce(
                || format!("x{i}*x{i}"),
                |lc| lc + input,
                |lc| lc + input,
                |lc| lc + square,
            );
        }
        Ok(())
    }
}

#[test]
fn many_public_inputs_verify_like_bellperson() {
    let mut rng = rng(13);
    let inputs: Vec<Scalar> = (0..700).map(|_| Scalar::random(&mut rng)).collect();
    let circuit = ManyInputs(inputs.clone());
    let theirs = bp::generate_random_parameters::<Bls12, _, _>(circuit.clone(), &mut rng).unwrap();
    let ours = from_bellperson(&theirs);
    let (r, s) = (Scalar::random(&mut rng), Scalar::random(&mut rng));
    let proof = create_proof(circuit, &ours, r, s).unwrap();
    let pvk = prepare_verifying_key(&ours.vk);
    let their_pvk = bp::prepare_verifying_key(&theirs.vk);
    assert!(verify_proof(&pvk, &proof, &inputs).unwrap());
    assert!(bp::verify_proof(&their_pvk, &bp_proof(&proof), &inputs).unwrap());
    for changed in [0, 350, 699] {
        let mut wrong = inputs.clone();
        wrong[changed] += Scalar::ONE;
        assert!(
            !verify_proof(&pvk, &proof, &wrong).unwrap(),
            "input {changed}"
        );
        assert!(!bp::verify_proof(&their_pvk, &bp_proof(&proof), &wrong).unwrap());
    }
    assert!(matches!(
        verify_proof(&pvk, &proof, &inputs[1..]),
        Err(bellperson_lite::VerifyError::InputCount {
            expected: 700,
            actual: 699
        })
    ));
}
