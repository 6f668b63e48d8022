//! Constraint matrices on the GPU: proofs whose a, b and c the GPU evaluates from resident or
//! streamed matrices (the host synthesizes only the witness) must be byte-identical to the CPU
//! prover's proofs of the fully synthesized circuit, for every placement of B's G2 sum, for
//! batches, for circuits with inputs between constraints and parts merged with `extend`, and
//! for witnesses of all zeros, all ones, or no aux variable. An unsatisfied witness is
//! reported as such; corrupt matrices, a witness of another shape, evaluations given twice
//! and matrices too large for the VRAM budget (resident, or streamed where even the
//! evaluation does not fit) are typed errors. Fresh random circuits and
//! randomness each run (seed printed); CUZK_SMALL=1 cuts the sizes down.
#![cfg(feature = "cuda")]

use std::sync::Arc;

use bellpepper_core::Circuit;
use bellperson_lite::circuits::{InterleavedCircuit, MixCircuit, ShaCircuit};
use bellperson_lite::generator::{generate_random_parameters, BenchmarkSrs, CircuitShape};
use bellperson_lite::gpu::{
    device_matrices, device_params, device_params_with, matrices_ref, prove_start,
    streamed_device_matrices, G2Placement, GpuTarget, Priority, SplitPlacement, WitnessSample,
};
use bellperson_lite::matrices::{record_matrices, synthesize_witness, ConstraintMatrices};
use bellperson_lite::prover::{batch_randomness, prove_from_assignments};
use bellperson_lite::synthesis::synthesize_circuit;
use bellperson_lite::verifier::{prepare_verifying_key, verify_proof};
use bellperson_lite::{Proof, ProverError, ProvingKey};
use blstrs::Scalar;
use cuzk_gpu_tests::circuits::{
    ConstantCircuit, EmptyBCircuit, InputsOnlyCircuit, NoConstraintsCircuit,
};
use cuzk_gpu_tests::{rng, small};
use ff::Field;
use rand::RngCore;
use rand_chacha::ChaCha20Rng;
use supraseal_c2::groth16::{DeviceMatrices, GpuLocks, MatricesRef, Residency, SparseRowsRef};
use supraseal_c2::CudaError;

const DEVICE: i32 = 0;

fn locks() -> GpuLocks {
    GpuLocks::new(DEVICE, None).expect("GPU locks")
}

/// Streamed matrices' chunk in the tests: a few rows at a time (raised to the longest row), so
/// that every circuit takes many chunks and both buffers are reused.
const TEST_STREAM_CHUNK: usize = 64;

/// Proves `circuits` (one shape) on the CPU from full syntheses, and on the GPU from witness
/// assignments with the matrices on the device (resident, then streamed), once per B_G2
/// placement; asserts equal bytes and returns the CPU proofs.
fn compare<C, P>(
    what: &str,
    circuits: &[C],
    params: &Arc<P>,
    locks: &GpuLocks,
    rng: &mut ChaCha20Rng,
) -> Vec<Proof>
where
    C: Circuit<Scalar> + Clone,
    P: ProvingKey + Send + Sync + 'static,
{
    let full: Vec<_> = circuits
        .iter()
        .map(|c| synthesize_circuit(c.clone()).unwrap())
        .collect();
    let matrices = Arc::new(record_matrices(circuits[0].clone()).unwrap());
    let witnesses: Vec<_> = circuits
        .iter()
        .map(|c| {
            matrices
                .witness_assignment(synthesize_witness(c.clone()).unwrap())
                .unwrap()
        })
        .collect();
    let (r, s) = batch_randomness(circuits.len(), rng);
    let cpu = prove_from_assignments(full, params.as_ref(), &r, &s).expect("CPU proof");
    let dp = device_params(locks, Arc::clone(params)).expect("device parameters");
    let resident = device_matrices(locks, &matrices).expect("device matrices");
    assert!(resident.bytes() > 0 && !resident.is_streamed());
    let streamed = streamed_device_matrices(locks, Arc::clone(&matrices), TEST_STREAM_CHUNK)
        .expect("streamed device matrices");
    assert!(streamed.is_streamed());
    // Streamed matrices hold only the coefficient table on the device.
    assert!(streamed.bytes() <= resident.bytes());
    let placements = [
        (&resident, G2Placement::Cpu, SplitPlacement::Host),
        (&resident, G2Placement::Auto, SplitPlacement::Auto),
        (&resident, G2Placement::Gpu, SplitPlacement::Gpu),
        (&resident, G2Placement::Cpu, SplitPlacement::Gpu),
        (&streamed, G2Placement::Cpu, SplitPlacement::Host),
        (&streamed, G2Placement::Gpu, SplitPlacement::Gpu),
    ];
    for (dm, b_g2, splits) in placements {
        let how = if dm.is_streamed() {
            "streamed"
        } else {
            "resident"
        };
        let target = GpuTarget {
            device_params: &dp,
            locks: Some(locks),
            b_g2,
            matrices: Some(dm),
            priority: Priority::Normal,
            splits,
        };
        let (gpu, timings) = prove_start(target, witnesses.clone(), params, &r, &s)
            .and_then(|p| p.finish())
            .unwrap_or_else(|e| panic!("{what}: GPU proof with {how} device matrices: {e}"));
        assert_eq!(cpu.len(), gpu.len());
        for (i, (c, g)) in cpu.iter().zip(&gpu).enumerate() {
            assert_eq!(
                c.to_bytes(),
                g.to_bytes(),
                "{what}: proof {i} from {how} device matrices (B_G2 {b_g2:?}, split {splits:?}) differs from the CPU's"
            );
        }
        // The GPU splits the witness itself when asked (with "auto", a witness whose sample
        // finds a twentieth of full-width values), except on the bounded plan.
        let expected = match splits {
            _ if timings.chunk_points > 0 => 0,
            SplitPlacement::Gpu => gpu.len(),
            SplitPlacement::Host => 0,
            SplitPlacement::Auto => witnesses
                .iter()
                .filter(|w| WitnessSample::of(&w.aux_assignment).split_on_gpu())
                .count(),
        };
        assert_eq!(
            timings.witness_split_on_gpu, expected,
            "{what}: {how}, {splits:?}"
        );
        eprintln!(
            "{what}: {how} matrices, B_G2 {b_g2:?}: equal to the CPU's ({} circuits, total {:?})",
            gpu.len(),
            timings.total
        );
    }
    cpu
}

fn check_verifies<C: Circuit<Scalar> + Clone>(
    what: &str,
    circuit: &C,
    inputs: &[Scalar],
    rng: &mut ChaCha20Rng,
    locks: &GpuLocks,
) {
    let params = Arc::new(generate_random_parameters(circuit.clone(), rng).unwrap());
    let proofs = compare(what, std::slice::from_ref(circuit), &params, locks, rng);
    let pvk = prepare_verifying_key(&params.vk);
    assert!(
        verify_proof(&pvk, &proofs[0], inputs).unwrap(),
        "{what}: proof does not verify"
    );
    if let Some(first) = inputs.first() {
        let mut wrong = inputs.to_vec();
        wrong[0] = *first + Scalar::ONE;
        assert!(
            !verify_proof(&pvk, &proofs[0], &wrong).unwrap(),
            "{what}: proof verifies with a wrong public input"
        );
    }
}

#[test]
fn proofs_from_device_matrices_equal_cpu_proofs_and_verify() {
    check_circuits_with_device_matrices(&locks());
}

/// The same circuits on the bounded-VRAM plan (bases in chunks of 64 points, the witness
/// freed after a, b and c are made; c_late does not apply when the GPU makes c).
#[test]
fn device_matrices_on_the_bounded_vram_plan() {
    let locks = locks();
    locks.force_chunks(64, true).unwrap();
    check_circuits_with_device_matrices(&locks);
}

fn check_circuits_with_device_matrices(locks: &GpuLocks) {
    let mut rng = rng();
    let locks = locks.clone();
    let log = if small() { 10 } else { 14 };
    let seed = rng.next_u64();
    check_verifies(
        &format!("sha 2^{log}"),
        &ShaCircuit::new(log, seed),
        &[ShaCircuit::new(log, seed).public_input()],
        &mut rng,
        &locks,
    );
    let mix = MixCircuit::new(log, 0.5, rng.next_u64());
    check_verifies(
        &format!("mix 2^{log}"),
        &mix,
        &[mix.public_input()],
        &mut rng,
        &locks,
    );
    let values: Vec<u64> = (0..9).map(|_| rng.next_u64() >> 40).collect();
    let interleaved = InterleavedCircuit { values };
    check_verifies(
        "interleaved inputs, extend",
        &interleaved,
        &interleaved.public_inputs(),
        &mut rng,
        &locks,
    );
    for value in [false, true] {
        check_verifies(
            &format!("all {}", u8::from(value)),
            &ConstantCircuit { n: 300, value },
            &[Scalar::from(u64::from(value))],
            &mut rng,
            &locks,
        );
    }
    let values: Vec<Scalar> = (0..5).map(|_| Scalar::random(&mut rng)).collect();
    check_verifies(
        "inputs only (no aux variable)",
        &InputsOnlyCircuit {
            values: values.clone(),
        },
        &values,
        &mut rng,
        &locks,
    );
    // A domain of 1 (input constraints alone: no h points, B empty), and an empty B.
    check_verifies(
        "input constraints alone",
        &NoConstraintsCircuit { inputs: vec![] },
        &[],
        &mut rng,
        &locks,
    );
    let x = Scalar::random(&mut rng);
    check_verifies(
        "an empty B",
        &EmptyBCircuit {
            input: x,
            values: values.clone(),
        },
        &[x],
        &mut rng,
        &locks,
    );
}

#[test]
fn batches_and_benchmark_sizes() {
    let mut rng = rng();
    let locks = locks();
    // A batch of three witnesses of one shape, sharing the matrices (sha: the seed is the
    // preimage; mix draws its structure from the seed, so it cannot batch).
    let log = if small() { 10 } else { 12 };
    let batch: Vec<_> = (0..3)
        .map(|_| ShaCircuit::new(log, rng.next_u64()))
        .collect();
    let params = Arc::new(generate_random_parameters(batch[0].clone(), &mut rng).unwrap());
    compare("sha batch of 3", &batch, &params, &locks, &mut rng);

    let cases: Vec<(&str, u32)> = if small() {
        vec![("sha", 11)]
    } else {
        vec![("sha", 16), ("mix", 18), ("sha", 20)]
    };
    for (kind, log) in cases {
        let seed = rng.next_u64();
        let what = format!("{kind} 2^{log}");
        if kind == "sha" {
            let c = ShaCircuit::new(log, seed);
            let shape = CircuitShape::of(&synthesize_circuit(c.clone()).unwrap());
            let srs = Arc::new(BenchmarkSrs::new(shape, &mut rng).unwrap());
            compare(&what, &[c], &srs, &locks, &mut rng);
        } else {
            let c = MixCircuit::new(log, MixCircuit::DEFAULT_BIT_FRACTION, seed);
            let shape = CircuitShape::of(&synthesize_circuit(c.clone()).unwrap());
            let srs = Arc::new(BenchmarkSrs::new(shape, &mut rng).unwrap());
            compare(&what, &[c], &srs, &locks, &mut rng);
        }
    }
}

#[test]
fn an_unsatisfied_witness_is_reported() {
    let mut rng = rng();
    let locks = locks();
    let c = MixCircuit::new(10, 0.5, rng.next_u64());
    let params = Arc::new(generate_random_parameters(c.clone(), &mut rng).unwrap());
    let matrices = record_matrices(c.clone()).unwrap();
    let mut witness = matrices
        .witness_assignment(synthesize_witness(c).unwrap())
        .unwrap();
    // A field-element value (y = 1 / (prev + k)): one more breaks its own constraint. A bit
    // would not always do (0 -> 1 still satisfies y * y = y, and the next variable may be a
    // bit that does not read it): a seed that picked one made the witness still valid.
    let at = witness
        .aux_assignment
        .iter()
        .position(|v| *v != Scalar::ZERO && *v != Scalar::ONE)
        .expect("a mix circuit with half its values bits has field elements");
    witness.aux_assignment[at] += Scalar::ONE;
    let dp = device_params(&locks, Arc::clone(&params)).unwrap();
    let dm = device_matrices(&locks, &matrices).unwrap();
    let target = GpuTarget {
        device_params: &dp,
        locks: Some(&locks),
        b_g2: G2Placement::Cpu,
        matrices: Some(&dm),
        priority: Priority::Normal,
        splits: SplitPlacement::Auto,
    };
    let (r, s) = batch_randomness(1, &mut rng);
    let result = prove_start(target, vec![witness], &params, &r, &s).and_then(|p| p.finish());
    match result {
        Err(ProverError::Unsatisfied { total, .. }) => {
            assert_eq!(total, matrices.num_constraints())
        }
        other => panic!("expected Unsatisfied, got {:?}", other.map(|_| ())),
    }
}

fn refused(what: &str, result: Result<DeviceMatrices, CudaError>, needle: &str) {
    match result {
        Err(e) => {
            let text = e.to_string();
            assert!(text.contains(needle), "{what}: `{text}` lacks `{needle}`");
            eprintln!("{what}: refused: {text}");
        }
        Ok(_) => panic!("{what}: accepted"),
    }
}

#[test]
fn bad_matrices_and_mismatched_witnesses_are_typed_errors() {
    let mut rng = rng();
    let locks = locks();
    let c = MixCircuit::new(8, 0.5, rng.next_u64());
    let m = record_matrices(c.clone()).unwrap();
    let good = matrices_ref(&m);
    let reserved_before = locks.info().unwrap().vram_reserved;

    let mut cols = m.a.cols.to_vec();
    cols[3] = u32::try_from(m.num_inputs + m.num_aux).unwrap();
    let bad = MatricesRef {
        a: SparseRowsRef {
            cols: &cols,
            ..good.a
        },
        ..good
    };
    refused(
        "column out of range",
        DeviceMatrices::new(Some(&locks), DEVICE, &bad),
        "names column",
    );

    let mut coeffs = m.b.coeffs.to_vec();
    coeffs[0] = u32::try_from(m.coeff_table.len()).unwrap();
    let bad = MatricesRef {
        b: SparseRowsRef {
            coeffs: &coeffs,
            ..good.b
        },
        ..good
    };
    refused(
        "coefficient out of range",
        DeviceMatrices::new(Some(&locks), DEVICE, &bad),
        "names coefficient",
    );

    let mut ends = m.c.row_ends.to_vec();
    let last = ends.len() - 1;
    ends[last] += 1;
    let bad = MatricesRef {
        c: SparseRowsRef {
            row_ends: &ends,
            ..good.c
        },
        ..good
    };
    refused(
        "row ends past the terms",
        DeviceMatrices::new(Some(&locks), DEVICE, &bad),
        "terms",
    );

    let short = &m.b.row_ends[..m.b.row_ends.len() - 1];
    let bad = MatricesRef {
        b: SparseRowsRef {
            row_ends: short,
            ..good.b
        },
        ..good
    };
    refused(
        "fewer rows in B",
        DeviceMatrices::new(Some(&locks), DEVICE, &bad),
        "rows",
    );

    // Every refusal gave its VRAM reservation back.
    assert_eq!(locks.info().unwrap().vram_reserved, reserved_before);

    // A budget the matrices would leave less than a quarter of: refused, not waited for.
    let tiny = GpuLocks::new(DEVICE, Some(1 << 10)).unwrap();
    refused(
        "a budget too small",
        DeviceMatrices::new(Some(&tiny), DEVICE, &good),
        "less than a quarter",
    );
    // Streamed, where the evaluation would not fit: refused, and the same index checks.
    let owned = Arc::new(m.clone());
    refused(
        "streamed, a budget too small for the evaluation",
        streamed_device_matrices(&tiny, Arc::clone(&owned), 0).map_err(|e| match e {
            ProverError::Gpu(e) => e,
            other => panic!("not a GPU error: {other}"),
        }),
        "three quarters",
    );
    let mut bad_owned = m.clone();
    let mut cols = m.c.cols.to_vec();
    cols[0] = u32::try_from(m.num_inputs + m.num_aux).unwrap();
    bad_owned.c.cols = cols.into();
    refused(
        "streamed, column out of range",
        streamed_device_matrices(&locks, Arc::new(bad_owned), 0).map_err(|e| match e {
            ProverError::Gpu(e) => e,
            other => panic!("not a GPU error: {other}"),
        }),
        "names column",
    );
    assert_eq!(locks.info().unwrap().vram_reserved, reserved_before);

    // A witness of another shape, and evaluations given although the GPU computes them.
    let params = Arc::new(generate_random_parameters(c.clone(), &mut rng).unwrap());
    let dp = device_params(&locks, Arc::clone(&params)).unwrap();
    let dm = DeviceMatrices::new(Some(&locks), DEVICE, &good).unwrap();
    let target = GpuTarget {
        device_params: &dp,
        locks: Some(&locks),
        b_g2: G2Placement::Cpu,
        matrices: Some(&dm),
        priority: Priority::Normal,
        splits: SplitPlacement::Auto,
    };
    let (r, s) = batch_randomness(1, &mut rng);
    let other = record_matrices(MixCircuit::new(9, 0.5, 1))
        .unwrap()
        .witness_assignment(synthesize_witness(MixCircuit::new(9, 0.5, 1)).unwrap())
        .unwrap();
    let err = prove_start(target, vec![other], &params, &r, &s).err();
    assert!(
        matches!(err, Some(ProverError::ParamsMismatch { .. })),
        "{err:?}"
    );
    let full = synthesize_circuit(c).unwrap();
    let err = prove_start(target, vec![full], &params, &r, &s).err();
    assert!(
        matches!(err, Some(ProverError::ShapeMismatch { .. })),
        "{err:?}"
    );
}

/// One proof of `c` with its matrices on the GPU of `locks` (parameters streamed, B_G2 on the
/// CPU); the VRAM the matrices took.
fn prove_with_device_matrices(
    locks: &GpuLocks,
    params: &Arc<bellperson_lite::Parameters>,
    matrices: &ConstraintMatrices,
    c: &ShaCircuit,
    seed: u64,
) -> Result<usize, ProverError> {
    let mut rng = <ChaCha20Rng as rand::SeedableRng>::seed_from_u64(seed);
    let dp = device_params_with(
        locks,
        Arc::clone(params),
        Residency::Streamed,
        G2Placement::Cpu,
    )?;
    let dm = device_matrices(locks, matrices)?;
    let target = GpuTarget {
        device_params: &dp,
        locks: Some(locks),
        b_g2: G2Placement::Cpu,
        matrices: Some(&dm),
        priority: Priority::Normal,
        splits: SplitPlacement::Auto,
    };
    let witness = matrices.witness_assignment(synthesize_witness(c.clone())?)?;
    let (r, s) = batch_randomness(1, &mut rng);
    prove_start(target, vec![witness], params, &r, &s).and_then(|p| p.finish())?;
    Ok(dm.bytes())
}

/// A proof whose working set does not fit beside the bytes held on its GPU (resident
/// matrices here) could never start: it fails at once with a typed error naming the budget,
/// instead of waiting forever for memory no one will release.
#[test]
fn a_proof_that_cannot_fit_beside_resident_matrices_fails_instead_of_waiting() {
    let mut rng = rng();
    let c = ShaCircuit::new(if small() { 10 } else { 12 }, rng.next_u64());
    let params = Arc::new(generate_random_parameters(c.clone(), &mut rng).unwrap());
    let matrices = Arc::new(record_matrices(c.clone()).unwrap());
    // One proof's peak (its working set and the matrices), measured on roomy locks.
    let roomy = locks();
    let matrix_bytes = prove_with_device_matrices(&roomy, &params, &matrices, &c, 1)
        .expect("a proof on roomy locks");
    let peak = roomy.info().unwrap().vram_peak;
    assert!(peak > matrix_bytes);
    // Room for the matrices, and beside them less than the pool margin alone that either
    // plan of a proof (whole or bounded) reserves.
    let card = GpuLocks::new(DEVICE, Some(matrix_bytes + (32 << 20))).unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    // A thread of its own, so that a proof that waits forever fails the test instead.
    std::thread::spawn(move || {
        let _ = tx.send(prove_with_device_matrices(&card, &params, &matrices, &c, 2));
    });
    match rx.recv_timeout(std::time::Duration::from_secs(120)) {
        Ok(Err(ProverError::Gpu(CudaError::InvalidArgument(message)))) => {
            assert!(message.contains("leaves beside the resident"), "{message}");
            eprintln!("refused: {message}");
        }
        Ok(other) => panic!("expected an error naming the budget, got {other:?}"),
        Err(_) => panic!("the proof waited for memory that could never be released"),
    }
}
