//! The GPU Groth16 prover against the CPU one: for the same circuit, parameters and (r, s), the
//! proof bytes must be equal, and every GPU proof made with real parameters must verify (and
//! fail with a wrong public input). Also: batches, witnesses with no aux variables, all zeros
//! or all ones, several workers sharing one GPU's locks, urgent proofs beside a held compute
//! lock and beside running kernels, an injected kernel fault, and bad inputs. Fresh random circuits and randomness each run (seed printed); with CUZK_SMALL=1
//! (the compute-sanitizer runs) the sizes and counts are cut down, as each test prints.
#![cfg(feature = "cuda")]

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use bellperson_lite::circuits::{MixCircuit, ShaCircuit};
use bellperson_lite::generator::{generate_random_parameters, BenchmarkSrs, CircuitShape};
use bellperson_lite::gpu::{
    device_params, device_params_with, prove_start, G2Placement, GpuTarget, Priority,
    SplitPlacement,
};
use bellperson_lite::prover::{
    batch_randomness, prove_from_assignments, prove_from_assignments_with_timings,
};
use bellperson_lite::synthesis::{synthesize_circuit, ProvingAssignment};
use bellperson_lite::verifier::{prepare_verifying_key, verify_proof};
use bellperson_lite::{Parameters, ProverError, ProvingKey};
use blstrs::Scalar;
use cuzk_gpu_tests::circuits::{
    ConstantCircuit, EmptyBCircuit, InputsOnlyCircuit, NoConstraintsCircuit,
};
use cuzk_gpu_tests::{rng, small};
use ff::Field;
use rand::{Rng, RngCore};
use rand_chacha::ChaCha20Rng;
use supraseal_c2::groth16::{
    self, inject_faults, CircuitInputs, DeviceParams, Evaluations, GpuLocks, Residency, Scalars,
    WitnessRef,
};
use supraseal_c2::CudaError;

const DEVICE: i32 = 0;

fn locks() -> GpuLocks {
    GpuLocks::new(DEVICE, None).expect("GPU locks")
}

fn randomness(rng: &mut ChaCha20Rng, n: usize) -> (Vec<Scalar>, Vec<Scalar>) {
    batch_randomness(n, rng)
}

/// Proves `assignments` on the CPU and on the GPU with the same randomness, on the GPU once
/// with each placement of B's G2 sum (CPU, GPU, auto) and each place of the scalar splits
/// (host, GPU); asserts equal bytes and returns the proofs of the last run (B_G2 and the
/// splits on the GPU).
fn compare<P: ProvingKey + Send + Sync + 'static>(
    what: &str,
    params: &Arc<P>,
    locks: &GpuLocks,
    assignments: Vec<ProvingAssignment>,
    rng: &mut ChaCha20Rng,
) -> Vec<bellperson_lite::Proof> {
    let (r, s) = randomness(rng, assignments.len());
    let (cpu, _) =
        prove_from_assignments_with_timings(assignments.clone(), params.as_ref(), &r, &s)
            .expect("CPU proof");
    let dp = device_params(locks, Arc::clone(params)).expect("device parameters");
    // Small sets on a whole card are resident with H's shifted copies, so every comparison
    // below runs H's MSM over them (the streamed and bounded tests run it over H itself).
    assert_eq!(
        dp.h_copies() > 1,
        dp.is_resident() && !params.h().is_empty(),
        "{what}: {dp:?}"
    );
    // The kernels' pace that B_G2's automatic placement reads: none before the first proof.
    assert_eq!(dp.kernel_pace_ns(), None, "{what}");
    let mut on_gpu = Vec::new();
    for b_g2 in [G2Placement::Cpu, G2Placement::Auto, G2Placement::Gpu] {
        for splits in [SplitPlacement::Host, SplitPlacement::Gpu] {
            let target = GpuTarget::new(&dp).locks(locks).b_g2(b_g2).splits(splits);
            let (gpu, timings) = prove_start(target, assignments.clone(), params, &r, &s)
                .and_then(|p| p.finish())
                .expect("GPU proof");
            assert_eq!(cpu.len(), gpu.len());
            for (i, (c, g)) in cpu.iter().zip(&gpu).enumerate() {
                assert_eq!(
                    c.to_bytes(),
                    g.to_bytes(),
                    "{what}: proof {i} with B_G2 placed {b_g2:?}, split on {splits:?}, differs from the CPU's"
                );
            }
            let on_device = if splits == SplitPlacement::Gpu {
                gpu.len()
            } else {
                0
            };
            assert_eq!(
                timings.witness_split_on_gpu, on_device,
                "{what}: {splits:?}"
            );
            on_gpu = gpu;
        }
    }
    // Recorded by the proofs: positive and finite, and present wherever H had an MSM to run
    // (a domain of one may run no timed kernel at all).
    let pace = dp.kernel_pace_ns();
    assert!(
        pace.is_none_or(|ns| ns.is_finite() && ns > 0.0),
        "{what}: pace {pace:?}"
    );
    if !params.h().is_empty() {
        assert!(pace.is_some(), "{what}: no kernel pace after six proofs");
    }
    on_gpu
}

fn check_verifies(
    params: &Parameters,
    proof: &bellperson_lite::Proof,
    inputs: &[Scalar],
    what: &str,
) {
    let pvk = prepare_verifying_key(&params.vk);
    assert!(
        verify_proof(&pvk, proof, inputs).unwrap(),
        "{what}: GPU proof does not verify"
    );
    let mut wrong = inputs.to_vec();
    if let Some(first) = wrong.first_mut() {
        *first += Scalar::ONE;
        assert!(
            !verify_proof(&pvk, proof, &wrong).unwrap(),
            "{what}: verifies with a wrong input"
        );
    }
}

#[test]
fn gpu_proofs_equal_cpu_proofs_with_real_parameters() {
    let mut rng = rng();
    let locks = locks();
    let cases: Vec<(&str, u32)> = if small() {
        vec![("sha", 10), ("mix", 6)]
    } else {
        vec![("sha", 10), ("sha", 12), ("mix", 10), ("mix", 14)]
    };
    eprintln!("cases: {cases:?}");
    for (kind, log) in cases {
        let seed = rng.next_u64();
        let (params, assignment, input) = match kind {
            "sha" => {
                let c = ShaCircuit::new(log, seed);
                let input = c.public_input();
                (
                    generate_random_parameters(c.clone(), &mut rng).unwrap(),
                    synthesize_circuit(c).unwrap(),
                    input,
                )
            }
            _ => {
                let c = MixCircuit::new(log, MixCircuit::DEFAULT_BIT_FRACTION, seed);
                let input = c.public_input();
                (
                    generate_random_parameters(c.clone(), &mut rng).unwrap(),
                    synthesize_circuit(c).unwrap(),
                    input,
                )
            }
        };
        let params = Arc::new(params);
        let what = format!("{kind} 2^{log}");
        let proofs = compare(&what, &params, &locks, vec![assignment], &mut rng);
        check_verifies(&params, &proofs[0], &[input], &what);
    }
}

#[test]
fn gpu_proofs_equal_cpu_proofs_at_benchmark_sizes() {
    let mut rng = rng();
    let locks = locks();
    let cases: Vec<(&str, u32)> = if small() {
        vec![("sha", 11)]
    } else {
        vec![("sha", 16), ("mix", 18), ("sha", 20), ("sha", 22)]
    };
    eprintln!("cases (benchmark SRS, no verifying key): {cases:?}");
    for (kind, log) in cases {
        let seed = rng.next_u64();
        let assignment = match kind {
            "sha" => synthesize_circuit(ShaCircuit::new(log, seed)).unwrap(),
            _ => synthesize_circuit(MixCircuit::new(log, MixCircuit::DEFAULT_BIT_FRACTION, seed))
                .unwrap(),
        };
        let srs = Arc::new(BenchmarkSrs::new(CircuitShape::of(&assignment), &mut rng).unwrap());
        compare(
            &format!("{kind} 2^{log}"),
            &srs,
            &locks,
            vec![assignment],
            &mut rng,
        );
    }
}

#[test]
fn special_witnesses_and_batches() {
    let mut rng = rng();
    let locks = locks();
    let n = if small() { 20 } else { 3000 };
    for value in [false, true] {
        let c = ConstantCircuit { n, value };
        let params = Arc::new(generate_random_parameters(c.clone(), &mut rng).unwrap());
        let what = format!("all {} witness", if value { "one" } else { "zero" });
        let proofs = compare(
            &what,
            &params,
            &locks,
            vec![synthesize_circuit(c).unwrap()],
            &mut rng,
        );
        let v = if value { Scalar::ONE } else { Scalar::ZERO };
        check_verifies(&params, &proofs[0], &[v], &what);
    }

    let values: Vec<Scalar> = (0..if small() { 5 } else { 300 })
        .map(|_| Scalar::random(&mut rng))
        .collect();
    let c = InputsOnlyCircuit {
        values: values.clone(),
    };
    let params = Arc::new(generate_random_parameters(c.clone(), &mut rng).unwrap());
    let proofs = compare(
        "no aux",
        &params,
        &locks,
        vec![synthesize_circuit(c).unwrap()],
        &mut rng,
    );
    check_verifies(&params, &proofs[0], &values, "no aux");

    // A batch of circuits of one shape: SHA-256 of different messages (mix circuits of other
    // seeds have other shapes).
    let circuits: Vec<ShaCircuit> = (0..3)
        .map(|_| ShaCircuit::new(10, rng.next_u64()))
        .collect();
    let params = Arc::new(generate_random_parameters(circuits[0].clone(), &mut rng).unwrap());
    let inputs: Vec<Scalar> = circuits.iter().map(ShaCircuit::public_input).collect();
    let assignments = circuits
        .into_iter()
        .map(|c| synthesize_circuit(c).unwrap())
        .collect();
    let proofs = compare("batch of 3", &params, &locks, assignments, &mut rng);
    for (i, (p, input)) in proofs.iter().zip(&inputs).enumerate() {
        check_verifies(&params, p, &[*input], &format!("batch proof {i}"));
    }
}

/// Shapes the CPU prover always handled and the GPU once refused: a circuit of its input
/// constraints alone (a domain of 1: no h points, and an empty B), one with a second input
/// (domain 2, empty B), and constraints whose B is empty (b_g1 and b_g2 empty, h and l not).
/// Every placement of B's G2 sum gives the CPU's bytes, including `Gpu` on device parameters
/// made without b_g2 (an empty sum needs no points).
#[test]
fn domain_one_and_an_empty_b_prove_like_the_cpu() {
    let mut rng = rng();
    let locks = locks();
    let x = Scalar::random(&mut rng);
    let values: Vec<Scalar> = (0..if small() { 5 } else { 100 })
        .map(|_| Scalar::random(&mut rng))
        .collect();
    let cases: Vec<(&str, ProvingAssignment, Parameters, Vec<Scalar>, usize)> = vec![
        {
            let c = NoConstraintsCircuit { inputs: vec![] };
            let p = generate_random_parameters(c.clone(), &mut rng).unwrap();
            (
                "input constraints alone",
                synthesize_circuit(c).unwrap(),
                p,
                vec![],
                0,
            )
        },
        {
            let c = NoConstraintsCircuit { inputs: vec![x] };
            let p = generate_random_parameters(c.clone(), &mut rng).unwrap();
            (
                "input constraints, one input",
                synthesize_circuit(c).unwrap(),
                p,
                vec![x],
                1,
            )
        },
        {
            let c = EmptyBCircuit {
                input: x,
                values: values.clone(),
            };
            let p = generate_random_parameters(c.clone(), &mut rng).unwrap();
            let h = (values.len() + 2).next_power_of_two() - 1;
            ("an empty B", synthesize_circuit(c).unwrap(), p, vec![x], h)
        },
    ];
    for (what, assignment, params, inputs, h_points) in cases {
        assert_eq!(params.h().len(), h_points, "{what}: the shape under test");
        assert!(
            params.b_g1().is_empty() && params.b_g2().is_empty(),
            "{what}"
        );
        let params = Arc::new(params);
        let proofs = compare(what, &params, &locks, vec![assignment.clone()], &mut rng);
        check_verifies(&params, &proofs[0], &inputs, what);
        // Device parameters made for B_G2 on the CPU, then asked for it on the GPU.
        let (r, s) = randomness(&mut rng, 1);
        let (cpu, _) =
            prove_from_assignments_with_timings(vec![assignment.clone()], params.as_ref(), &r, &s)
                .unwrap();
        let dp = device_params_with(
            &locks,
            Arc::clone(&params),
            Residency::Auto,
            G2Placement::Cpu,
        )
        .expect("device parameters without b_g2");
        let target = GpuTarget::new(&dp).locks(&locks).b_g2(G2Placement::Gpu);
        let (gpu, _) = prove_start(target, vec![assignment], &params, &r, &s)
            .and_then(|p| p.finish())
            .unwrap_or_else(|e| panic!("{what}: B_G2 on the GPU without b_g2: {e}"));
        assert_eq!(cpu[0].to_bytes(), gpu[0].to_bytes(), "{what}");
        eprintln!("{what}: h {h_points} points, B empty: equal to the CPU's, verifies");
    }
}

#[test]
fn workers_share_one_gpu() {
    let mut rng = rng();
    let locks = locks();
    let (logs, per_worker, max_workers) = if small() {
        ([10, 10], 2, 2)
    } else {
        ([10, 12], 50, 4)
    };
    eprintln!("sha 2^{logs:?}, {per_worker} proofs per worker, 1..={max_workers} workers");
    // Two parameter sets, both resident; proofs alternate between them. (SHA-256 circuits: the
    // shape does not depend on the message.)
    let sets: Vec<_> = logs
        .iter()
        .map(|&log| {
            let c = ShaCircuit::new(log, 1);
            let params = Arc::new(generate_random_parameters(c, &mut rng).unwrap());
            let dp = Arc::new(device_params(&locks, Arc::clone(&params)).unwrap());
            (log, params, dp)
        })
        .collect();
    let before = locks.info().unwrap();
    for workers in 1..=max_workers {
        let seeds: Vec<u64> = (0..workers).map(|_| rng.next_u64()).collect();
        std::thread::scope(|scope| {
            for (w, seed) in seeds.into_iter().enumerate() {
                let (sets, locks) = (&sets, &locks);
                scope.spawn(move || {
                    let mut rng = <ChaCha20Rng as rand::SeedableRng>::seed_from_u64(seed);
                    for i in 0..per_worker {
                        let (log, params, dp) = &sets[(w + i) % sets.len()];
                        let c = ShaCircuit::new(*log, rng.gen());
                        let input = c.public_input();
                        let (r, s) = randomness(&mut rng, 1);
                        let (proofs, _) = prove_start(
                            GpuTarget::new(dp).locks(locks),
                            vec![synthesize_circuit(c).unwrap()],
                            params,
                            &r,
                            &s,
                        )
                        .and_then(|p| p.finish())
                        .unwrap_or_else(|e| panic!("worker {w} of {workers}, proof {i}: {e}"));
                        let pvk = prepare_verifying_key(&params.vk);
                        assert!(
                            verify_proof(&pvk, &proofs[0], &[input]).unwrap(),
                            "worker {w} of {workers}, proof {i} (2^{log}) does not verify"
                        );
                    }
                });
            }
        });
        let info = locks.info().unwrap();
        assert_eq!(
            info.vram_reserved, before.vram_reserved,
            "VRAM reservations not back to the resident parameters after {workers} workers"
        );
        eprintln!("{workers} workers: {info:?}");
    }
    let after = locks.info().unwrap();
    let expected: u64 = (1..=max_workers as u64).sum::<u64>() * per_worker as u64;
    assert_eq!(after.proofs_done - before.proofs_done, expected);
    assert_eq!(after.proofs_failed, before.proofs_failed);
    assert!(after.compute_busy_ns > before.compute_busy_ns);
}

/// Where the urgent-proof tests prove: `dp` under `locks`, B in G2 on the GPU too.
fn gpu_target<'a>(dp: &'a DeviceParams, locks: &'a GpuLocks, priority: Priority) -> GpuTarget<'a> {
    GpuTarget {
        device_params: dp,
        locks: Some(locks),
        b_g2: G2Placement::Gpu,
        matrices: None,
        priority,
        splits: SplitPlacement::Auto,
    }
}

/// While another proof's kernels hold the compute lock (simulated: the lock held for a few
/// seconds), an urgent proof runs and gives the CPU's bytes, and an ordinary one waits.
#[test]
fn an_urgent_proof_runs_while_the_compute_lock_is_held() {
    const HOLD_MS: u32 = 5000;
    let mut rng = rng();
    let locks = locks();
    // 2^10, the smallest sha circuit, also under CUZK_SMALL.
    let c = ShaCircuit::new(10, rng.gen());
    let input = c.public_input();
    let params = Arc::new(generate_random_parameters(c.clone(), &mut rng).unwrap());
    let dp = device_params(&locks, Arc::clone(&params)).unwrap();
    let assignment = synthesize_circuit(c).unwrap();
    let (r, s) = randomness(&mut rng, 1);
    let cpu = prove_from_assignments(vec![assignment.clone()], params.as_ref(), &r, &s)
        .expect("CPU proof");
    let prove = |priority| {
        let target = gpu_target(&dp, &locks, priority);
        prove_start(target, vec![assignment.clone()], &params, &r, &s)
            .and_then(|p| p.finish())
            .map(|(proofs, timings)| (proofs[0].to_bytes(), timings))
    };
    // Each priority once with the GPU free: the same bytes as the CPU's.
    for priority in [Priority::Normal, Priority::Urgent] {
        let (bytes, _) = prove(priority).unwrap();
        assert_eq!(
            bytes,
            cpu[0].to_bytes(),
            "{priority:?} proof differs from the CPU's"
        );
    }

    let (holding, released) = (AtomicBool::new(false), AtomicBool::new(false));
    std::thread::scope(|scope| {
        scope.spawn(|| {
            holding.store(true, Ordering::SeqCst);
            locks.hold_compute(HOLD_MS).unwrap();
            released.store(true, Ordering::SeqCst);
        });
        while !holding.load(Ordering::SeqCst) {
            std::thread::yield_now();
        }
        std::thread::sleep(Duration::from_millis(200)); // the holder has the lock by now
        let normal = scope.spawn(|| prove(Priority::Normal));
        let (bytes, timings) = prove(Priority::Urgent).unwrap();
        assert!(
            !released.load(Ordering::SeqCst),
            "the urgent proof ended after the compute lock was released: it waited for it \
             ({timings:?})"
        );
        assert_eq!(bytes, cpu[0].to_bytes());
        assert!(
            timings.wait_compute < Duration::from_millis(100),
            "{timings:?}"
        );
        let (bytes, timings) = normal.join().unwrap().unwrap();
        assert!(
            timings.wait_compute > Duration::from_millis(u64::from(HOLD_MS) / 2),
            "the ordinary proof did not wait for the compute lock ({timings:?})"
        );
        assert_eq!(bytes, cpu[0].to_bytes());
    });
    let pvk = prepare_verifying_key(&params.vk);
    assert!(verify_proof(&pvk, &cpu[0], &[input]).unwrap());
    assert_eq!(locks.info().unwrap().proofs_failed, 0);
}

/// Urgent proofs started while a large ordinary proof's kernels run end before those kernels
/// do: their kernels run beside the running ones (stream priority), with nothing (a lock, a
/// memory-pool dependency on the other proof's stream, a pageable copy) making them wait for
/// its end.
#[test]
fn urgent_proofs_overtake_running_kernels() {
    let mut rng = rng();
    let locks = locks();
    let log = if small() { 16 } else { 22 };
    let big = synthesize_circuit(MixCircuit::new(log, 0.1, rng.next_u64())).unwrap();
    let big_srs = Arc::new(BenchmarkSrs::new(CircuitShape::of(&big), &mut rng).unwrap());
    let big_dp = device_params(&locks, Arc::clone(&big_srs)).unwrap();
    let small_c = ShaCircuit::new(10, rng.gen());
    let small_params = Arc::new(generate_random_parameters(small_c.clone(), &mut rng).unwrap());
    let small_dp = device_params(&locks, Arc::clone(&small_params)).unwrap();
    let small_assignment = synthesize_circuit(small_c).unwrap();
    let (r, s) = randomness(&mut rng, 1);
    let prove_big = || {
        let target = gpu_target(&big_dp, &locks, Priority::Normal);
        prove_start(target, vec![big.clone()], &big_srs, &r, &s)
            .and_then(|p| p.finish())
            .unwrap()
            .1
    };
    let prove_urgent = || {
        let target = gpu_target(&small_dp, &locks, Priority::Urgent);
        prove_start(
            target,
            vec![small_assignment.clone()],
            &small_params,
            &r,
            &s,
        )
        .and_then(|p| p.finish())
        .unwrap()
        .1
    };
    prove_big(); // warm: the pool's memory, the NTT tables
    prove_urgent();
    let alone = std::time::Instant::now();
    prove_urgent();
    let alone = alone.elapsed();
    let done = AtomicBool::new(false);
    let (big_timings, big_end, urgent) = std::thread::scope(|scope| {
        let urgent = scope.spawn(|| {
            let mut runs = Vec::new();
            while !done.load(Ordering::SeqCst) {
                let start = std::time::Instant::now();
                let timings = prove_urgent();
                runs.push((start, std::time::Instant::now(), timings));
                std::thread::sleep(Duration::from_millis(3));
            }
            runs
        });
        let timings = prove_big();
        let end = std::time::Instant::now();
        done.store(true, Ordering::SeqCst);
        (timings, end, urgent.join().unwrap())
    });
    let kernels = big_timings.gpu_kernels();
    // The urgent proofs that started while the big one's kernels ran, well before their end.
    let window_start = big_end - kernels;
    let inside: Vec<Duration> = urgent
        .iter()
        .filter(|(start, _, _)| *start > window_start && *start + kernels / 4 < big_end)
        .map(|(start, end, _)| *end - *start)
        .collect();
    // The urgent runs that overlapped the kernels, in ms from the kernels' start (to see
    // what they waited for when the assertions fail).
    let overlapping: Vec<(i128, i128, String)> = urgent
        .iter()
        .filter(|(start, end, _)| *end > window_start && *start < big_end)
        .map(|(start, end, t)| {
            let ms = |t: &std::time::Instant| {
                if *t >= window_start {
                    (*t - window_start).as_millis() as i128
                } else {
                    -((window_start - *t).as_millis() as i128)
                }
            };
            // Where the urgent proof's time went: CPU preparation, locks and VRAM, copies,
            // then the kernels by phase.
            let phases = format!(
                "prep {:?} setup {:?} wait_memory {:?} upload {:?} queued on the GPU {:?} ntt {:?} \
                 msm_h {:?} l {:?} a {:?} b {:?} b_g2 {:?} results {:?} total {:?}",
                t.prep,
                t.gpu_setup,
                t.wait_memory,
                t.upload,
                t.gpu_queued,
                t.ntt,
                t.msm_h,
                t.msm_l,
                t.msm_a,
                t.msm_b_g1,
                t.msm_b_g2,
                t.gpu_results,
                t.total
            );
            (ms(start), ms(end), phases)
        })
        .collect();
    eprintln!(
        "mix 2^{log}: kernels {kernels:?} (upload {:?}, ntt {:?}, msm_h {:?}); urgent sha 2^10 \
         alone {alone:?}; {} urgent proofs started inside its kernels, latencies {inside:?}; \
         runs beside the kernels (ms from their start): {overlapping:#?}",
        big_timings.upload,
        big_timings.ntt,
        big_timings.msm_h,
        inside.len()
    );
    assert!(
        !inside.is_empty(),
        "no urgent proof started inside the kernels"
    );
    // Overtaking: several urgent proofs both start and end while the big kernels run (one
    // that waited for them ends after them, and holds back the next), and the typical one
    // takes a small part of them. Single ones may take several times their time alone: each
    // of an urgent proof's few dozen kernels waits for a block of the running kernel to
    // retire, and those last up to a few milliseconds (on the H200, 2026-12-04: 31-36 ms
    // against 17.9 alone, one of 112 ms beside 342 ms of kernels; before, every urgent proof
    // ended with the big kernels).
    let ended_inside = urgent
        .iter()
        .filter(|(start, end, _)| *start > window_start && *end < big_end)
        .count();
    assert!(
        ended_inside >= 2,
        "{ended_inside} urgent proofs started and ended inside kernels of {kernels:?}: they waited for them"
    );
    let mut inside = inside;
    inside.sort();
    let median = inside[inside.len() / 2];
    assert!(
        median < kernels / 4,
        "the urgent proofs' median latency {median:?} beside kernels of {kernels:?}: they waited"
    );
}

#[test]
fn an_injected_fault_fails_one_proof_and_the_next_succeeds() {
    let mut rng = rng();
    let locks = locks();
    let c = MixCircuit::new(8, 0.9, rng.next_u64());
    let input = c.public_input();
    let params = Arc::new(generate_random_parameters(c.clone(), &mut rng).unwrap());
    let dp = device_params(&locks, Arc::clone(&params)).unwrap();
    let reserved = locks.info().unwrap().vram_reserved;
    let (r, s) = randomness(&mut rng, 1);

    inject_faults(1);
    let err = prove_start(
        GpuTarget::new(&dp).locks(&locks),
        vec![synthesize_circuit(c.clone()).unwrap()],
        &params,
        &r,
        &s,
    )
    .and_then(|p| p.finish())
    .expect_err("the injected fault must fail the proof");
    assert!(
        matches!(err, ProverError::Gpu(CudaError::Cuda(_))),
        "unexpected error: {err}"
    );
    assert_eq!(
        locks.info().unwrap().vram_reserved,
        reserved,
        "the failed proof kept its VRAM"
    );
    assert_eq!(locks.info().unwrap().proofs_failed, 1);

    let (proofs, _) = prove_start(
        GpuTarget::new(&dp).locks(&locks),
        vec![synthesize_circuit(c).unwrap()],
        &params,
        &r,
        &s,
    )
    .and_then(|p| p.finish())
    .unwrap();
    let pvk = prepare_verifying_key(&params.vk);
    assert!(verify_proof(&pvk, &proofs[0], &[input]).unwrap());
}

#[test]
fn bad_inputs_are_typed_errors() {
    let mut rng = rng();
    let locks = locks();
    let small_c = MixCircuit::new(6, 0.9, 1);
    let big_c = MixCircuit::new(8, 0.9, 2);
    let small_p = Arc::new(generate_random_parameters(small_c.clone(), &mut rng).unwrap());
    let big_p = Arc::new(generate_random_parameters(big_c, &mut rng).unwrap());
    let big_dp = device_params(&locks, Arc::clone(&big_p)).unwrap();
    let (r, s) = randomness(&mut rng, 1);

    // Device parameters of another parameter set.
    let err = prove_start(
        GpuTarget::new(&big_dp).locks(&locks),
        vec![synthesize_circuit(small_c.clone()).unwrap()],
        &small_p,
        &r,
        &s,
    )
    .and_then(|p| p.finish())
    .expect_err("mismatched device parameters");
    assert!(matches!(err, ProverError::ParamsMismatch { .. }), "{err}");

    // An unsatisfied circuit (found by the GPU's check before H) gives no proof, also when it
    // is the second of a batch; the error names its first failing constraint.
    let mut a = synthesize_circuit(small_c.clone()).unwrap();
    a.aux_assignment[0] += Scalar::ONE;
    a.c[2] += Scalar::ONE;
    let total = a.num_constraints();
    let small_dp = device_params(&locks, Arc::clone(&small_p)).unwrap();
    let good = synthesize_circuit(small_c.clone()).unwrap();
    let (r2, s2) = randomness(&mut rng, 2);
    let err = prove_start(
        GpuTarget::new(&small_dp).locks(&locks),
        vec![good, a],
        &small_p,
        &r2,
        &s2,
    )
    .and_then(|p| p.finish())
    .expect_err("unsatisfied");
    assert!(
        matches!(err, ProverError::Unsatisfied { index: 2, total: t } if t == total),
        "{err}"
    );

    // A VRAM budget too small for any proof: a typed error at once, not a wait forever.
    let tiny = GpuLocks::new(DEVICE, Some(4096)).unwrap();
    let dp = device_params(&tiny, Arc::clone(&small_p)).unwrap();
    assert!(
        !dp.is_resident(),
        "parameters cannot be resident in a 4 KiB budget"
    );
    let err = prove_start(
        GpuTarget::new(&dp).locks(&tiny),
        vec![synthesize_circuit(small_c).unwrap()],
        &small_p,
        &r,
        &s,
    )
    .and_then(|p| p.finish())
    .expect_err("budget too small");
    assert!(
        matches!(err, ProverError::Gpu(CudaError::InvalidArgument(_))),
        "{err}"
    );

    // An unknown device.
    assert!(matches!(
        GpuLocks::new(999, None),
        Err(CudaError::InvalidArgument(_))
    ));
}

/// A witness given to the GPU to split: densities that select more or fewer values than the
/// parameters' vectors have points, or bitmaps too short for the values, are typed errors
/// before any work; the same witness with its own densities proves like the CPU, in a batch
/// with a circuit split on the host.
#[test]
fn a_witness_split_on_the_gpu_is_checked_and_proves_like_the_cpu() {
    let mut rng = rng();
    let locks = locks();
    let c = MixCircuit::new(if small() { 6 } else { 10 }, 0.5, rng.next_u64());
    let params = Arc::new(generate_random_parameters(c.clone(), &mut rng).unwrap());
    let dp = device_params(&locks, Arc::clone(&params)).unwrap();
    // The resident parameters' bytes: what stays reserved between proofs.
    let resident = locks.info().unwrap().vram_reserved;
    let w = synthesize_circuit(c).unwrap();
    let start = |witness: WitnessRef<'_>| {
        let inputs = CircuitInputs {
            evaluations: Evaluations::Host {
                a: &w.a,
                b: &w.b,
                c: &w.c,
            },
            scalars: Scalars::Witness(witness),
            b_g2_on_gpu: false,
        };
        groth16::start(Some(&locks), &dp, &[inputs], Priority::Normal, None)
            .and_then(|p| p.finish())
    };
    let own = WitnessRef {
        inputs: &w.input_assignment,
        aux: &w.aux_assignment,
        a_aux_density: w.a_aux_density.words(),
        b_input_density: w.b_input_density.words(),
        b_aux_density: w.b_aux_density.words(),
    };
    let batch = start(own).expect("the witness's own densities");
    assert_eq!(batch.unsatisfied, vec![None]);

    // One value more or fewer selected, for A and for B.
    let mut a_flipped = w.a_aux_density.words().to_vec();
    a_flipped[0] ^= 1;
    let mut b_flipped = w.b_aux_density.words().to_vec();
    b_flipped[0] ^= 1;
    let short: Vec<u64> = Vec::new();
    for (what, witness, needle) in [
        (
            "A's density",
            WitnessRef {
                a_aux_density: &a_flipped,
                ..own
            },
            "A's density selects",
        ),
        (
            "B's density",
            WitnessRef {
                b_aux_density: &b_flipped,
                ..own
            },
            "B's densities select",
        ),
        (
            "a short bitmap",
            WitnessRef {
                b_aux_density: &short,
                ..own
            },
            "words for",
        ),
        (
            "one aux value fewer",
            WitnessRef {
                aux: &w.aux_assignment[1..],
                ..own
            },
            "aux values",
        ),
    ] {
        match start(witness) {
            Err(CudaError::InvalidArgument(m)) => assert!(m.contains(needle), "{what}: {m}"),
            other => panic!(
                "{what}: expected InvalidArgument, got {:?}",
                other.map(|_| ())
            ),
        }
    }
    assert_eq!(
        locks.info().unwrap().vram_reserved,
        resident,
        "a refused witness kept VRAM reserved"
    );

    // Through the prover: a batch of two gives the CPU's bytes, split on the host and on the
    // GPU.
    compare(
        "a half-bit witness",
        &params,
        &locks,
        vec![w.clone(), w],
        &mut rng,
    );
}

#[test]
fn streamed_parameters_give_the_same_proofs() {
    let mut rng = rng();
    let log = if small() { 6 } else { 12 };
    let c = MixCircuit::new(log, 0.9, rng.next_u64());
    let params = Arc::new(generate_random_parameters(c.clone(), &mut rng).unwrap());
    let assignment = synthesize_circuit(c).unwrap();
    let (r, s) = randomness(&mut rng, 1);
    let cpu = prove_from_assignments(vec![assignment.clone()], params.as_ref(), &r, &s).unwrap();
    let locks = locks();
    let dp = device_params_with(
        &locks,
        Arc::clone(&params),
        Residency::Streamed,
        G2Placement::Auto,
    )
    .unwrap();
    assert!(!dp.is_resident() && dp.has_b_g2());
    // B_G2 on the CPU, then on the GPU from the streamed b_g2.
    for b_g2 in [G2Placement::Cpu, G2Placement::Gpu] {
        let (gpu, _) = prove_start(
            GpuTarget::new(&dp).locks(&locks).b_g2(b_g2),
            vec![assignment.clone()],
            &params,
            &r,
            &s,
        )
        .and_then(|p| p.finish())
        .unwrap();
        assert_eq!(cpu[0].to_bytes(), gpu[0].to_bytes(), "B_G2 {b_g2:?}");
    }
    // Parameters made for B_G2 on the CPU have no b_g2 on the device: asking for the GPU is
    // refused before anything runs.
    let cpu_only = device_params_with(
        &locks,
        Arc::clone(&params),
        Residency::Auto,
        G2Placement::Cpu,
    )
    .unwrap();
    assert!(!cpu_only.has_b_g2());
    let err = prove_start(
        GpuTarget::new(&cpu_only)
            .locks(&locks)
            .b_g2(G2Placement::Gpu),
        vec![assignment],
        &params,
        &r,
        &s,
    )
    .err()
    .expect("B_G2 on a GPU without b_g2 must fail");
    assert!(matches!(err, ProverError::G2Placement(_)), "{err}");
}

/// A simulated small card: a VRAM budget with room for one proof and a half (parameters
/// streamed, so they take none of it). Four workers then must wait for memory in turn: every
/// proof succeeds and verifies, the peak reservation never exceeds the budget, and all of it
/// is back at the end.
#[test]
fn four_workers_on_a_small_card_wait_for_memory() {
    let mut rng = rng();
    let (log, per_worker) = if small() { (10, 2) } else { (14, 6) };
    let c = ShaCircuit::new(log, 1);
    let params = Arc::new(generate_random_parameters(c, &mut rng).unwrap());
    let prove = |locks: &GpuLocks, dp: &DeviceParams, seed: u64| {
        let mut rng = <ChaCha20Rng as rand::SeedableRng>::seed_from_u64(seed);
        let c = ShaCircuit::new(log, rng.gen());
        let input = c.public_input();
        let (r, s) = randomness(&mut rng, 1);
        let (proofs, _) = prove_start(
            GpuTarget::new(dp).locks(locks),
            vec![synthesize_circuit(c).unwrap()],
            &params,
            &r,
            &s,
        )
        .and_then(|p| p.finish())?;
        let pvk = prepare_verifying_key(&params.vk);
        assert!(verify_proof(&pvk, &proofs[0], &[input]).unwrap());
        Ok::<_, ProverError>(())
    };
    // One proof's working set, measured on roomy locks.
    let roomy = locks();
    let dp = device_params_with(
        &roomy,
        Arc::clone(&params),
        Residency::Streamed,
        G2Placement::Auto,
    )
    .unwrap();
    prove(&roomy, &dp, 1).unwrap();
    let one = roomy.info().unwrap().vram_peak;
    assert!(one > 0);

    let budget = one * 3 / 2;
    let small_card = GpuLocks::new(DEVICE, Some(budget)).unwrap();
    let dp = device_params_with(
        &small_card,
        Arc::clone(&params),
        Residency::Streamed,
        G2Placement::Auto,
    )
    .unwrap();
    assert!(!dp.is_resident());
    let seeds: Vec<u64> = (0..4).map(|_| rng.next_u64()).collect();
    std::thread::scope(|scope| {
        for (w, seed) in seeds.into_iter().enumerate() {
            let (small_card, dp, prove) = (&small_card, &dp, &prove);
            scope.spawn(move || {
                for i in 0..per_worker {
                    prove(small_card, dp, seed + i as u64)
                        .unwrap_or_else(|e| panic!("worker {w}, proof {i}: {e}"));
                }
            });
        }
    });
    let info = small_card.info().unwrap();
    eprintln!("small card of {budget} bytes (one proof: {one}): {info:?}");
    assert!(info.vram_peak <= budget, "{info:?}");
    assert_eq!(info.vram_reserved, 0, "{info:?}");
    assert_eq!(info.proofs_done, 4 * per_worker as u64);
    assert_eq!(info.proofs_failed, 0);
}

/// The bounded-VRAM plan (the parameters' bases in chunks, b and c freed after H, and with
/// c_late only two of a, b and c at once) gives the CPU's proof bytes: chunk sizes that cut
/// every vector into many chunks with a short last one, streamed and resident parameters,
/// B_G2 on the CPU and on the GPU (whose G2 bases then stream in the same chunks).
#[test]
fn the_bounded_vram_plan_gives_the_same_proofs() {
    let mut rng = rng();
    let log = if small() { 8 } else { 12 };
    let c = MixCircuit::new(log, 0.7, rng.next_u64());
    let params = Arc::new(generate_random_parameters(c.clone(), &mut rng).unwrap());
    let assignment = synthesize_circuit(c).unwrap();
    let (r, s) = randomness(&mut rng, 1);
    let cpu = prove_from_assignments(vec![assignment.clone()], params.as_ref(), &r, &s).unwrap();
    let chunks: &[usize] = if small() {
        &[64, 100]
    } else {
        &[64, 320, 1 << 11]
    };
    for residency in [Residency::Streamed, Residency::Auto] {
        let locks = locks();
        let dp =
            device_params_with(&locks, Arc::clone(&params), residency, G2Placement::Auto).unwrap();
        assert_eq!(dp.is_resident(), residency == Residency::Auto);
        // Resident, H's shifted copies are there too; the chunks read H itself.
        assert_eq!(dp.h_copies() > 1, residency == Residency::Auto, "{dp:?}");
        for &chunk in chunks {
            for c_late in [false, true] {
                locks.force_chunks(chunk, c_late).unwrap();
                for b_g2 in [G2Placement::Cpu, G2Placement::Gpu] {
                    let what =
                        format!("{residency:?}, chunk {chunk}, c_late {c_late}, B_G2 {b_g2:?}");
                    // Asked to split on the GPU, which cannot on the bounded plan: the
                    // host splits instead.
                    let (gpu, timings) = prove_start(
                        GpuTarget::new(&dp)
                            .locks(&locks)
                            .b_g2(b_g2)
                            .splits(SplitPlacement::Gpu),
                        vec![assignment.clone()],
                        &params,
                        &r,
                        &s,
                    )
                    .and_then(|p| p.finish())
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
                    assert_eq!(cpu[0].to_bytes(), gpu[0].to_bytes(), "{what}");
                    assert_eq!(timings.witness_split_on_gpu, 0, "{what}");
                    assert_eq!(
                        timings.chunk_points,
                        chunk.div_ceil(64) as u64 * 64,
                        "{what}"
                    );
                }
            }
        }
        // Back to the automatic choice: the whole working set fits, no chunks; the witness
        // (30% full-width values) is split on the GPU.
        locks.force_chunks(0, false).unwrap();
        let (gpu, timings) = prove_start(
            GpuTarget::new(&dp).locks(&locks).b_g2(G2Placement::Gpu),
            vec![assignment.clone()],
            &params,
            &r,
            &s,
        )
        .and_then(|p| p.finish())
        .unwrap();
        assert_eq!(cpu[0].to_bytes(), gpu[0].to_bytes());
        assert_eq!(timings.chunk_points, 0);
        assert_eq!(timings.witness_split_on_gpu, 1, "{timings:?}");
        if !dp.is_resident() {
            assert_eq!(
                locks.info().unwrap().vram_reserved,
                0,
                "every reservation given back"
            );
        }
    }
}

/// A budget one byte short of a proof's whole working set: the proof takes the bounded plan
/// by itself, keeps its reservation inside the budget and still gives the CPU's bytes. An
/// unsatisfied circuit is still caught on that plan with c_late, whose check reads c in
/// chunks.
#[test]
fn a_budget_short_of_the_whole_working_set_takes_the_bounded_plan() {
    let mut rng = rng();
    let log = if small() { 10 } else { 14 };
    let c = MixCircuit::new(log, 0.9, rng.next_u64());
    let params = Arc::new(generate_random_parameters(c.clone(), &mut rng).unwrap());
    let assignment = synthesize_circuit(c).unwrap();
    let (r, s) = randomness(&mut rng, 1);
    let cpu = prove_from_assignments(vec![assignment.clone()], params.as_ref(), &r, &s).unwrap();
    let prove = |locks: &GpuLocks, assignment: ProvingAssignment| {
        let dp = device_params_with(
            locks,
            Arc::clone(&params),
            Residency::Streamed,
            G2Placement::Auto,
        )
        .unwrap();
        // Host splits: with splits on the GPU a short budget first gives those up (their
        // room is counted for every scalar), and the proof would not need the bounded plan.
        prove_start(
            GpuTarget::new(&dp)
                .locks(locks)
                .b_g2(G2Placement::Gpu)
                .splits(SplitPlacement::Host),
            vec![assignment],
            &params,
            &r,
            &s,
        )
        .and_then(|p| p.finish())
    };
    let roomy = locks();
    let (_, timings) = prove(&roomy, assignment.clone()).unwrap();
    assert_eq!(timings.chunk_points, 0, "roomy locks take the whole plan");
    let whole = roomy.info().unwrap().vram_peak;

    let short = GpuLocks::new(DEVICE, Some(whole - 1)).unwrap();
    let (gpu, timings) = prove(&short, assignment.clone()).unwrap();
    assert!(timings.chunk_points > 0, "{timings:?}");
    assert_eq!(cpu[0].to_bytes(), gpu[0].to_bytes());
    let info = short.info().unwrap();
    assert!(info.vram_peak < whole, "{info:?}");
    assert_eq!(info.vram_reserved, 0, "{info:?}");

    // A broken constraint, found with c read a chunk at a time.
    short.force_chunks(64, true).unwrap();
    let mut broken = assignment;
    let last = broken.c.len() - 1;
    broken.c[last] += Scalar::ONE;
    let err = prove(&short, broken).expect_err("an unsatisfied circuit must fail");
    assert!(
        matches!(err, ProverError::Unsatisfied { index, .. } if index == last),
        "{err}"
    );
}
