//! The engine on the GPU: jobs of mixed sizes through 1 to 4 GPU workers sharing the device's
//! locks (every proof is self-checked by the engine and verified again here; no deadlock, a
//! clean shutdown; a, b and c evaluated on the GPU from its copy of the constraint matrices,
//! and with 2 workers on the CPU), an injected kernel fault that the engine retries once, and a GPU that
//! keeps failing taken out of rotation while its work is proved elsewhere (by the other GPUs,
//! or by the CPU when it was the only one).
//! With CUZK_SMALL=1 (compute-sanitizer runs) the circuits and counts are cut down.
#![cfg(feature = "cuda")]

use std::sync::Arc;
use std::time::Duration;

use bellperson_lite::circuits::MixCircuit;
use bellperson_lite::generator::generate_random_parameters;
use bellperson_lite::verifier::{prepare_verifying_key, verify_proof};
use bellperson_lite::Parameters;
use cuzk_core::config::G2Placement;
use cuzk_core::timeline::{Lane, Phase};
use cuzk_core::{CircuitProofs, Config, Engine, JobState, Partition, Priority, ProofRequest};
use cuzk_gpu_tests::circuits::{EmptyBCircuit, NoConstraintsCircuit};
use cuzk_gpu_tests::{rng, small};
use supraseal_c2::groth16::inject_faults;

fn mix(log: u32) -> MixCircuit {
    MixCircuit::new(log, 0.9, 11)
}

fn request(log: u32, partitions: usize) -> ProofRequest {
    let c = mix(log);
    ProofRequest {
        request_id: None,
        circuit_id: format!("mix-{log}"),
        priority: Priority::Normal,
        work: Box::new(CircuitProofs::new(
            "mix",
            (0..partitions)
                .map(|_| Partition::from_circuit(c.clone(), vec![c.public_input()]))
                .collect(),
        )),
    }
}

fn config(workers: usize) -> Config {
    let mut c = Config::default();
    c.gpus.devices = vec![0];
    c.gpus.gpu_workers_per_device = workers;
    c.engine.synthesis_threads = 4;
    c
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn engine_proves_on_the_gpu_with_one_to_four_workers() {
    let logs: &[u32] = if small() { &[8, 10] } else { &[12, 16] };
    let jobs = if small() { 4 } else { 24 };
    let mut rng = rng();
    let params: Vec<(u32, Arc<Parameters>)> = logs
        .iter()
        .map(|&log| {
            (
                log,
                Arc::new(generate_random_parameters(mix(log), &mut rng).unwrap()),
            )
        })
        .collect();

    for workers in 1..=4 {
        // Both places where a, b and c can be evaluated (`gpus.matrices_on_gpu`).
        let abc_on_gpu = workers != 2;
        let mut config = config(workers);
        config.gpus.matrices_on_gpu = abc_on_gpu;
        let engine = Engine::start(config).unwrap();
        let status = engine.status();
        assert_eq!(status.gpu_workers, workers, "{status:?}");
        assert_eq!(status.cpu_provers, 0);
        assert_eq!(status.gpus.len(), 1);
        for (log, p) in &params {
            engine
                .register_params(&format!("mix-{log}"), Arc::clone(p))
                .unwrap();
        }
        engine.record_timeline(100_000);
        let ids: Vec<_> = (0..jobs)
            .map(|i| {
                let log = logs[i % logs.len()];
                (log, engine.submit(request(log, 1 + i % 3)).unwrap().job_id)
            })
            .collect();
        for (log, id) in &ids {
            let r = engine
                .await_result(id, Some(Duration::from_secs(600)))
                .await
                .unwrap()
                .expect("a job did not end within 10 minutes (deadlock?)");
            assert_eq!(r.state, JobState::Completed, "{:?}", r.error);
            let (_, p) = params.iter().find(|(l, _)| l == log).unwrap();
            let pvk = prepare_verifying_key(&p.vk);
            for proof in &r.proofs {
                assert!(verify_proof(&pvk, proof, &[mix(*log).public_input()]).unwrap());
            }
        }
        // Every partition's GPU half is in the timeline, on this engine's lanes.
        let timeline = engine.take_timeline().expect("recording");
        let partitions: usize = (0..jobs).map(|i| 1 + i % 3).sum();
        for phase in [Phase::Synthesis, Phase::Prep, Phase::Finish] {
            let n = timeline.spans.iter().filter(|s| s.phase == phase).count();
            assert_eq!(n, partitions, "{phase:?} spans");
        }
        for s in &timeline.spans {
            assert!(s.start <= s.end, "{s:?}");
            match s.lane {
                Lane::Synthesis(i) => assert!(i < 4, "{s:?}"),
                Lane::GpuWorker { device, worker } => {
                    assert!(device == 0 && worker < workers, "{s:?}")
                }
                Lane::Finalizer(_) => assert_eq!(s.phase, Phase::Finish),
                Lane::Gpu(device) => assert!(device == 0 && s.phase == Phase::Kernels),
                Lane::CpuProver(_) => panic!("no CPU prover here: {s:?}"),
            }
        }
        let status = engine.status();
        assert_eq!(status.self_check_failures, 0);
        assert!(status.gpus[0].busy_fraction > 0.0, "{status:?}");
        println!(
            "{workers} worker(s), a/b/c on the {}: {jobs} jobs, GPU busy {:.1}% of the engine's uptime, {}",
            if abc_on_gpu { "GPU" } else { "CPU" },
            100.0 * status.gpus[0].busy_fraction,
            status.gpus[0].name
        );
        let report = engine.shutdown(Duration::from_secs(60)).await;
        assert!(report.drained && report.threads_stopped, "{report:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_injected_kernel_fault_is_retried() {
    let log = if small() { 8 } else { 12 };
    let p = Arc::new(generate_random_parameters(mix(log), &mut rng()).unwrap());
    let engine = Engine::start(config(2)).unwrap();
    engine.register_params(&format!("mix-{log}"), p).unwrap();
    // Warm up, so that the fault hits a proof and not the parameters' upload.
    let r = engine.prove(request(log, 1)).await.unwrap();
    assert_eq!(r.state, JobState::Completed, "{:?}", r.error);

    inject_faults(1);
    let r = engine.prove(request(log, 2)).await.unwrap();
    assert_eq!(r.state, JobState::Completed, "{:?}", r.error);
    assert_eq!(r.proofs.len(), 2);

    // Two faults on one partition: its job fails with the GPU's message; the next one works.
    inject_faults(2);
    let r = engine.prove(request(log, 1)).await.unwrap();
    assert_eq!(r.state, JobState::Failed);
    assert!(
        r.error.as_deref().unwrap_or("").contains("twice"),
        "{:?}",
        r.error
    );
    let r = engine.prove(request(log, 1)).await.unwrap();
    assert_eq!(r.state, JobState::Completed, "{:?}", r.error);
    engine.shutdown(Duration::from_secs(60)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gpu_that_keeps_failing_is_taken_out_of_rotation() {
    let log = if small() { 8 } else { 12 };
    let jobs = if small() { 3 } else { 8 };
    let p = Arc::new(generate_random_parameters(mix(log), &mut rng()).unwrap());
    let pvk = prepare_verifying_key(&p.vk);
    let mut c = config(2);
    c.gpus.devices = Vec::new(); // every visible GPU
    let engine = Engine::start(c).unwrap();
    engine.register_params(&format!("mix-{log}"), p).unwrap();
    let r = engine.prove(request(log, 1)).await.unwrap();
    assert_eq!(r.state, JobState::Completed, "{:?}", r.error);
    let gpus = engine.status().gpus.len();
    assert!(!engine.inject_gpu_faults(1000, 1), "no GPU 1000");

    // GPU 0 fails every proof from now on.
    assert!(engine.inject_gpu_faults(0, u32::MAX));
    let ids: Vec<_> = (0..jobs)
        .map(|i| engine.submit(request(log, 1 + i % 3)).unwrap().job_id)
        .collect();
    let mut completed = 0;
    for id in &ids {
        let r = engine
            .await_result(id, Some(Duration::from_secs(600)))
            .await
            .unwrap()
            .expect("a job did not end within 10 minutes");
        if gpus > 1 {
            // Its work goes to the other GPUs, and no job is lost.
            assert_eq!(r.state, JobState::Completed, "{:?}", r.error);
        } else {
            // The only GPU stays in rotation; its faults fail the jobs after one retry.
            assert_eq!(r.state, JobState::Failed);
            assert!(
                r.error.as_deref().unwrap_or("").contains("twice"),
                "{:?}",
                r.error
            );
        }
        if r.state == JobState::Completed {
            completed += 1;
            for proof in &r.proofs {
                assert!(verify_proof(&pvk, proof, &[mix(log).public_input()]).unwrap());
            }
        }
    }
    let status = engine.status();
    let first = status.gpus.iter().find(|g| g.ordinal == 0).unwrap();
    assert_eq!(first.out_of_rotation, gpus > 1, "{status:?}");
    assert!(first.in_hand.is_empty(), "{status:?}");
    assert!(
        status
            .gpus
            .iter()
            .filter(|g| g.ordinal != 0)
            .all(|g| !g.out_of_rotation),
        "{status:?}"
    );
    let gauge = format!(
        "cuzk_gpu_out_of_rotation{{device=\"0\"}} {}",
        u8::from(gpus > 1)
    );
    let metrics = engine.metrics();
    assert!(
        metrics.lines().any(|l| l == gauge),
        "no `{gauge}` in:\n{metrics}"
    );
    println!(
        "{gpus} GPU(s), GPU 0 failing: {completed} of {jobs} jobs completed, GPU 0 {}",
        if first.out_of_rotation {
            "out of rotation"
        } else {
            "in rotation"
        }
    );
    if gpus == 1 {
        // Once the faults stop, the same GPU proves again.
        engine.inject_gpu_faults(0, 0);
        let r = engine.prove(request(log, 1)).await.unwrap();
        assert_eq!(r.state, JobState::Completed, "{:?}", r.error);
    }
    let report = engine.shutdown(Duration::from_secs(120)).await;
    assert!(report.drained && report.threads_stopped, "{report:?}");
}

/// A circuit of its input constraints alone (a domain of 1) and one with an empty B go
/// through the GPU workers, with B's G2 sum placed on the GPU and a, b, c from the matrices
/// on the device, with neither an error nor a fallback to the CPU.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn domain_one_and_an_empty_b_are_proved_on_the_gpu() {
    use bellpepper_core::Circuit;
    use blstrs::Scalar;
    use ff::Field;
    let mut rng = rng();
    let x = Scalar::random(&mut rng);
    let values: Vec<Scalar> = (0..50).map(|_| Scalar::random(&mut rng)).collect();
    let mut c = config(2);
    c.gpus.b_g2 = G2Placement::Gpu;
    let engine = Engine::start(c).unwrap();
    engine.record_timeline(10_000);
    fn job<C: Circuit<Scalar> + Clone + Send + Sync + 'static>(
        id: &str,
        c: C,
        inputs: Vec<Scalar>,
    ) -> ProofRequest {
        ProofRequest {
            request_id: None,
            circuit_id: id.into(),
            priority: Priority::Normal,
            work: Box::new(CircuitProofs::new(
                "edge",
                vec![Partition::from_circuit(c.clone(), inputs.clone()); 2],
            )),
        }
    }
    let none = NoConstraintsCircuit { inputs: vec![] };
    let empty_b = EmptyBCircuit { input: x, values };
    let p_none = Arc::new(generate_random_parameters(none.clone(), &mut rng).unwrap());
    let p_empty_b = Arc::new(generate_random_parameters(empty_b.clone(), &mut rng).unwrap());
    engine
        .register_params("domain-one", Arc::clone(&p_none))
        .unwrap();
    engine
        .register_params("empty-b", Arc::clone(&p_empty_b))
        .unwrap();
    for (request, params, inputs) in [
        (job("domain-one", none, vec![]), &p_none, vec![]),
        (job("empty-b", empty_b, vec![x]), &p_empty_b, vec![x]),
    ] {
        let id = request.circuit_id.clone();
        let r = engine.prove(request).await.unwrap();
        assert_eq!(r.state, JobState::Completed, "{id}: {:?}", r.error);
        let pvk = prepare_verifying_key(&params.vk);
        for proof in &r.proofs {
            assert!(verify_proof(&pvk, proof, &inputs).unwrap(), "{id}");
        }
    }
    let timeline = engine.take_timeline().expect("recording");
    let kernels = timeline
        .spans
        .iter()
        .filter(|s| matches!(s.lane, Lane::Gpu(_)) && s.phase == Phase::Kernels)
        .count();
    assert_eq!(kernels, 4, "every partition ran its kernels on the GPU");
    assert!(
        !timeline
            .spans
            .iter()
            .any(|s| matches!(s.lane, Lane::CpuProver(_))),
        "no partition fell back to a CPU prover"
    );
    assert_eq!(engine.status().self_check_failures, 0);
    engine.shutdown(Duration::from_secs(60)).await;
}
