//! The engine's fault handling on fake devices (`cuzk_core::fake`, feature `fake-backend`,
//! turned on by this crate's dev-dependencies): they prove on the CPU and fail on demand as a
//! GPU can, so that retries, failed jobs and devices taken out of rotation are tested on a
//! machine without a GPU.

use std::sync::Arc;
use std::time::Duration;

use cuzk_core::bellperson_lite::circuits::MixCircuit;
use cuzk_core::bellperson_lite::generator::generate_random_parameters;
use cuzk_core::bellperson_lite::verifier::{prepare_verifying_key, verify_proof};
use cuzk_core::bellperson_lite::Parameters;
use cuzk_core::fake::{FakeDevice, Fault};
use cuzk_core::{
    CircuitProofs, Config, DeviceSrsStatus, Engine, JobResult, JobState, Partition, Priority,
};
use cuzk_core::{JobId, ProofRequest};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

const LOG: u32 = 7;

fn circuit() -> MixCircuit {
    MixCircuit::new(LOG, 0.5, 11)
}

fn params() -> Arc<Parameters> {
    let mut rng = ChaCha20Rng::seed_from_u64(5);
    Arc::new(generate_random_parameters(circuit(), &mut rng).unwrap())
}

/// An engine on `devices`, with mix-7's parameters registered.
fn engine(devices: &[Arc<FakeDevice>]) -> (Engine, Arc<Parameters>) {
    let mut config = Config::default();
    config.engine.synthesis_threads = 2;
    let engine = Engine::start_with_fakes(config, devices).unwrap();
    let p = params();
    engine.register_params("mix-7", Arc::clone(&p)).unwrap();
    (engine, p)
}

fn request(partitions: usize) -> ProofRequest {
    let c = circuit();
    ProofRequest {
        request_id: None,
        circuit_id: "mix-7".into(),
        priority: Priority::Normal,
        work: Box::new(CircuitProofs::new(
            "test",
            (0..partitions)
                .map(|_| Partition::from_circuit(c.clone(), vec![c.public_input()]))
                .collect(),
        )),
    }
}

async fn prove(engine: &Engine, partitions: usize) -> JobResult {
    let id = engine.submit(request(partitions)).unwrap().job_id;
    result(engine, &id).await
}

async fn result(engine: &Engine, id: &JobId) -> JobResult {
    engine
        .await_result(id, Some(Duration::from_secs(120)))
        .await
        .unwrap()
        .expect("a job did not end within 2 minutes")
}

/// The job completed and each of its proofs verifies.
fn assert_proved(r: &JobResult, p: &Parameters, partitions: usize) {
    assert_eq!(r.state, JobState::Completed, "{:?}", r.error);
    assert_eq!(r.proofs.len(), partitions);
    let pvk = prepare_verifying_key(&p.vk);
    for proof in &r.proofs {
        assert!(verify_proof(&pvk, proof, &[circuit().public_input()]).unwrap());
    }
}

/// The job failed with an error containing each of `words`.
fn assert_failed(r: &JobResult, words: &[&str]) {
    assert_eq!(r.state, JobState::Failed, "{r:?}");
    let error = r.error.as_deref().unwrap_or("");
    for w in words {
        assert!(error.contains(w), "`{w}` not in the error: {error}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn faults_that_may_not_repeat_are_retried_once() {
    let device = FakeDevice::new(0, 1);
    let (engine, p) = engine(&[Arc::clone(&device)]);

    // Once: proved again, and the job completes.
    for fault in [Fault::DeviceFault, Fault::Transient, Fault::WrongProof] {
        device.fail_next(fault, 1);
        assert_proved(&prove(&engine, 1).await, &p, 1);
    }
    // Twice in a row: the job fails, naming the partition and the repeated fault.
    device.fail_next(Fault::DeviceFault, 2);
    assert_failed(
        &prove(&engine, 1).await,
        &["partition 0", "GPU 0", "injected fault", "(twice)"],
    );
    device.fail_next(Fault::WrongProof, 2);
    assert_failed(&prove(&engine, 1).await, &["self-check twice"]);

    // The only device stays in rotation and proves once the faults stop.
    assert_proved(&prove(&engine, 2).await, &p, 2);
    let status = engine.status();
    assert!(!status.gpus[0].out_of_rotation, "{status:?}");
    let metrics = engine.metrics();
    assert!(
        metrics
            .lines()
            .any(|l| l.starts_with("cuzk_self_check_failures_total") && !l.ends_with(" 0")),
        "the self-check failures are counted:\n{metrics}"
    );
    let report = engine.shutdown(Duration::from_secs(30)).await;
    assert!(report.drained && report.threads_stopped, "{report:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn faults_that_would_repeat_fail_the_job_at_once() {
    let device = FakeDevice::new(0, 1);
    let (engine, p) = engine(&[Arc::clone(&device)]);
    let cases: [(Fault, &[&str]); 3] = [
        (Fault::Refused, &["not retried"]),
        (Fault::Panic, &["panicked", "injected panic"]),
        (
            Fault::FinishError,
            &["finishing the proof", "injected finish error"],
        ),
    ];
    for (fault, words) in cases {
        let before = device.started();
        device.fail_next(fault, 1);
        let r = prove(&engine, 1).await;
        assert_failed(&r, words);
        assert!(!r.error.unwrap().contains("twice"), "{fault:?} was retried");
        // Not tried again: a finish error's start half is the only one that ran.
        let started = device.started() - before;
        assert_eq!(started, u64::from(fault == Fault::FinishError), "{fault:?}");
        // The engine is unharmed: the next job completes.
        assert_proved(&prove(&engine, 1).await, &p, 1);
    }
    engine.shutdown(Duration::from_secs(30)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_device_that_keeps_failing_is_taken_out_of_rotation() {
    let devices = [FakeDevice::new(0, 2), FakeDevice::new(1, 1)];
    let (engine, p) = engine(&devices);
    assert!(!engine.inject_gpu_faults(7, 1), "no device 7");
    // Device 0 fails every proof from now on, through the engine's own call.
    assert!(engine.inject_gpu_faults(0, u32::MAX));
    let ids: Vec<_> = (0..6)
        .map(|i| engine.submit(request(1 + i % 3)).unwrap().job_id)
        .collect();
    for (i, id) in ids.iter().enumerate() {
        // Its work goes to device 1, and no job is lost or fails.
        assert_proved(&result(&engine, id).await, &p, 1 + i % 3);
    }
    assert_eq!(devices[0].started(), 0);
    assert_eq!(
        devices[1].started(),
        12,
        "every partition proved once, on device 1"
    );

    let status = engine.status();
    let out: Vec<_> = status.gpus.iter().map(|g| g.out_of_rotation).collect();
    assert_eq!(out, [true, false], "{status:?}");
    let metrics = engine.metrics();
    for (device, gauge) in [(0, 1), (1, 0)] {
        let line = format!("cuzk_gpu_out_of_rotation{{device=\"{device}\"}} {gauge}");
        assert!(
            metrics.lines().any(|l| l == line),
            "no `{line}` in:\n{metrics}"
        );
    }

    // Device 1 is now the last in rotation: its faults count against the partitions.
    devices[1].fail_next(Fault::DeviceFault, u32::MAX);
    assert_failed(&prove(&engine, 1).await, &["GPU 1", "(twice)"]);
    assert!(!engine.status().gpus[1].out_of_rotation);
    devices[1].heal();
    assert_proved(&prove(&engine, 1).await, &p, 1);
    let report = engine.shutdown(Duration::from_secs(30)).await;
    assert!(report.drained && report.threads_stopped, "{report:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn transient_faults_do_not_take_a_device_out_of_rotation() {
    let devices = [FakeDevice::new(0, 1), FakeDevice::new(1, 1)];
    let (engine, p) = engine(&devices);
    // Slow enough that both devices take work while the jobs are in flight.
    devices[1].set_start_time(Duration::from_millis(50));
    devices[0].fail_next(Fault::Transient, 3);
    let ids: Vec<_> = (0..8)
        .map(|_| engine.submit(request(1)).unwrap().job_id)
        .collect();
    for id in &ids {
        // A partition whose two tries both met a transient fault fails; none is lost.
        let r = result(&engine, id).await;
        assert!(
            matches!(r.state, JobState::Completed | JobState::Failed),
            "{r:?}"
        );
    }
    assert_eq!(devices[0].faults_left(), 0, "device 0 took work");
    let status = engine.status();
    assert!(status.gpus.iter().all(|g| !g.out_of_rotation), "{status:?}");
    assert_proved(&prove(&engine, 3).await, &p, 3);
    engine.shutdown(Duration::from_secs(30)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_device_lists_the_parameter_sets_it_holds_until_they_are_evicted() {
    let device = FakeDevice::new(0, 1);
    let (engine, p) = engine(&[Arc::clone(&device)]);
    let held_now = || engine.status().gpus[0].parameters.clone();
    assert!(held_now().is_empty(), "nothing proved yet");

    assert_proved(&prove(&engine, 1).await, &p, 1);
    // The fake proves with the host's set in place: resident, no copies of H, no VRAM.
    let held = DeviceSrsStatus {
        circuit_id: "mix-7".into(),
        resident: true,
        h_copies: 1,
        device_bytes: 0,
    };
    assert_eq!(held_now(), [held]);
    let metrics = engine.metrics();
    for line in [
        "cuzk_gpu_h_copies{device=\"0\",circuit=\"mix-7\"} 1",
        "cuzk_gpu_params_bytes{device=\"0\",circuit=\"mix-7\"} 0",
    ] {
        assert!(
            metrics.lines().any(|l| l == line),
            "missing `{line}` in:\n{metrics}"
        );
    }

    engine.evict_srs("mix-7").unwrap();
    assert!(held_now().is_empty(), "evicted");
    assert!(!engine.metrics().contains("circuit=\"mix-7\""));
    engine.shutdown(Duration::from_secs(30)).await;
}
