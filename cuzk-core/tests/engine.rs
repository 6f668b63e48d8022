//! The engine end to end on the CPU backend: real circuits, real parameters, real proofs.

use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use bellpepper_core::{Circuit, ConstraintSystem, SynthesisError};
use cuzk_core::bellperson_lite::circuits::MixCircuit;
use cuzk_core::bellperson_lite::generator::generate_random_parameters;
use cuzk_core::bellperson_lite::synthesis::synthesize_circuit;
use cuzk_core::bellperson_lite::verifier::{prepare_verifying_key, verify_proof};
use cuzk_core::bellperson_lite::{Parameters, Scalar};
use cuzk_core::kind::assignment_bytes;
use cuzk_core::srs::SrsError;
use cuzk_core::{
    CircuitProofs, Config, Engine, EngineError, JobId, JobState, Partition, Priority, ProofRequest,
};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

/// The circuit of `circuit_id` "mix-<log>" (one seed per size, so one shape per id).
fn mix(log: u32) -> MixCircuit {
    MixCircuit::new(log, 0.5, 7)
}

fn params(log: u32) -> Arc<Parameters> {
    let mut rng = ChaCha20Rng::seed_from_u64(u64::from(log));
    Arc::new(generate_random_parameters(mix(log), &mut rng).unwrap())
}

fn config(synthesis_threads: usize, cpu_provers: usize) -> Config {
    let mut c = Config::default();
    c.engine.synthesis_threads = synthesis_threads;
    c.engine.cpu_provers = cpu_provers;
    c
}

/// An engine with the parameters of mix-6 and mix-8 registered.
fn engine(config: Config) -> (Engine, Vec<(u32, Arc<Parameters>)>) {
    let engine = Engine::start(config).unwrap();
    let sets: Vec<_> = [6, 8].into_iter().map(|log| (log, params(log))).collect();
    for (log, p) in &sets {
        engine
            .register_params(&format!("mix-{log}"), Arc::clone(p))
            .unwrap();
    }
    (engine, sets)
}

fn mix_request(log: u32, partitions: usize, priority: Priority) -> ProofRequest {
    let c = mix(log);
    let parts = (0..partitions)
        .map(|_| Partition::from_circuit(c.clone(), vec![c.public_input()]))
        .collect();
    request(&format!("mix-{log}"), priority, parts)
}

fn request(circuit_id: &str, priority: Priority, partitions: Vec<Partition>) -> ProofRequest {
    ProofRequest {
        request_id: None,
        circuit_id: circuit_id.into(),
        priority,
        work: Box::new(CircuitProofs::new("test", partitions)),
    }
}

/// Holds every synthesis of a [`Gated`] circuit until opened.
#[derive(Default)]
struct Gate {
    open: Mutex<bool>,
    opened: Condvar,
    entered: Mutex<usize>,
    entered_cv: Condvar,
}

impl Gate {
    fn open(&self) {
        *self.open.lock().unwrap() = true;
        self.opened.notify_all();
    }
    /// Counts one entry, then waits until the gate is open.
    fn pass(&self) {
        *self.entered.lock().unwrap() += 1;
        self.entered_cv.notify_all();
        let mut open = self.open.lock().unwrap();
        while !*open {
            open = self.opened.wait(open).unwrap();
        }
    }
    fn wait_entered(&self, n: usize) {
        let mut e = self.entered.lock().unwrap();
        while *e < n {
            e = self.entered_cv.wait(e).unwrap();
        }
    }
}

/// mix-6, but its synthesis waits for the gate.
#[derive(Clone)]
struct Gated(Arc<Gate>);

impl Circuit<Scalar> for Gated {
    fn synthesize<CS: ConstraintSystem<Scalar>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        *self.0.entered.lock().unwrap() += 1;
        self.0.entered_cv.notify_all();
        let mut open = self.0.open.lock().unwrap();
        while !*open {
            open = self.0.opened.wait(open).unwrap();
        }
        drop(open);
        mix(6).synthesize(cs)
    }
}

/// mix-6 with one more variable whose value waits for the gate: only making a witness asks
/// for it, recording the matrices (or generating parameters) does not.
#[derive(Clone)]
struct WitnessGated(Arc<Gate>);

impl Circuit<Scalar> for WitnessGated {
    fn synthesize<CS: ConstraintSystem<Scalar>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        let gate = self.0;
        let gated = cs.alloc(
            || "gated",
            || {
                gate.pass();
                Ok(Scalar::from(1u64))
            },
        )?;
        // Used, so that its parameters are not the identity.
        cs.enforce(
            || "gated * 1 = gated",
            |lc| lc + gated,
            |lc| lc + CS::one(),
            |lc| lc + gated,
        );
        mix(6).synthesize(cs)
    }
}

fn gated_request(gate: &Arc<Gate>) -> ProofRequest {
    let p = Partition::from_circuit(Gated(Arc::clone(gate)), vec![mix(6).public_input()]);
    request("mix-6", Priority::Normal, vec![p])
}

/// A circuit whose synthesis fails, or panics.
#[derive(Clone)]
struct Broken {
    panic: bool,
}

impl Circuit<Scalar> for Broken {
    fn synthesize<CS: ConstraintSystem<Scalar>>(self, _: &mut CS) -> Result<(), SynthesisError> {
        if self.panic {
            panic!("this circuit panics on purpose");
        }
        Err(SynthesisError::AssignmentMissing)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fifty_jobs_of_mixed_priorities_and_sizes() {
    // One synthesis thread and one prover, so that the queue really fills.
    let (engine, sets) = engine(config(1, 1));
    let sizes = [6u32, 8];
    let mut normal = Vec::new();
    let mut others = Vec::new();
    for i in 0..45 {
        let log = sizes[i % 2];
        let priority = [Priority::Normal, Priority::Low, Priority::High][i % 3];
        let parts = 1 + i % 2;
        let id = engine
            .submit(mix_request(log, parts, priority))
            .unwrap()
            .job_id;
        if priority == Priority::Normal {
            normal.push((id, log, parts));
        } else {
            others.push((id, log, parts));
        }
    }
    let mut critical = Vec::new();
    for i in 0..5 {
        let log = sizes[i % 2];
        critical.push((
            engine
                .submit(mix_request(log, 1, Priority::Critical))
                .unwrap()
                .job_id,
            log,
            1,
        ));
    }

    let mut ends = Vec::new();
    for (group, jobs) in [
        ("normal", &normal),
        ("critical", &critical),
        ("other", &others),
    ] {
        for (id, log, parts) in jobs.iter() {
            let r = engine
                .await_result(id, Some(Duration::from_secs(300)))
                .await
                .unwrap()
                .expect("job did not end in time");
            assert_eq!(r.state, JobState::Completed, "{:?}", r.error);
            assert_eq!(r.proofs.len(), *parts);
            assert_eq!(r.proof_bytes().len(), 192 * parts);
            let (_, p) = sets.iter().find(|(l, _)| l == log).unwrap();
            let pvk = prepare_verifying_key(&p.vk);
            for proof in &r.proofs {
                assert!(verify_proof(&pvk, proof, &[mix(*log).public_input()]).unwrap());
            }
            ends.push((group, r.finished_at));
        }
    }
    // The critical jobs, submitted last, overtook the normal jobs still waiting: only the
    // few in flight when they arrived (one synthesizing, one in the channel, one proving)
    // may end before the last critical one.
    let last_critical = ends
        .iter()
        .filter(|(g, _)| *g == "critical")
        .map(|(_, t)| *t)
        .max()
        .unwrap();
    let normal_before = ends
        .iter()
        .filter(|(g, t)| *g == "normal" && *t < last_critical)
        .count();
    assert!(
        normal_before <= 3,
        "{normal_before} normal jobs ended before the last critical one"
    );

    let status = engine.status();
    assert_eq!(status.total_completed, 50);
    assert_eq!(status.total_failed, 0);
    let metrics = engine.metrics();
    assert!(
        metrics.contains("cuzk_proofs_completed_total{kind=\"test\"} 50"),
        "{metrics}"
    );
    assert!(metrics.contains("cuzk_queue_depth 0"), "{metrics}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancel_queued_and_running_jobs_and_await_with_timeout() {
    let (engine, _) = engine(config(1, 1));
    let gate = Arc::new(Gate::default());
    let running = engine.submit(gated_request(&gate)).unwrap().job_id;
    gate.wait_entered(1);
    let queued = engine
        .submit(mix_request(6, 1, Priority::Normal))
        .unwrap()
        .job_id;

    // The running job cannot end while its synthesis is held.
    let timed_out = engine
        .await_result(&running, Some(Duration::from_millis(50)))
        .await
        .unwrap();
    assert!(timed_out.is_none());

    assert!(!engine.cancel(&queued).unwrap(), "it had not started");
    assert!(engine.cancel(&running).unwrap(), "it was running");
    assert!(!engine.cancel(&running).unwrap(), "already ended");
    for id in [&queued, &running] {
        let r = engine.await_result(id, None).await.unwrap().unwrap();
        assert_eq!(r.state, JobState::Cancelled);
        assert!(r.proofs.is_empty());
    }
    let unknown = cuzk_core::JobId("no-such-job".into());
    assert!(matches!(
        engine.cancel(&unknown),
        Err(EngineError::UnknownJob(_))
    ));
    assert!(matches!(
        engine.await_result(&unknown, None).await,
        Err(EngineError::UnknownJob(_))
    ));

    // The engine goes on: the held synthesis ends and its result is dropped.
    gate.open();
    let r = engine
        .prove(mix_request(6, 1, Priority::Normal))
        .await
        .unwrap();
    assert_eq!(r.state, JobState::Completed);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tiny_memory_budget_makes_partitions_wait() {
    let one = assignment_bytes(&synthesize_circuit(mix(8)).unwrap());
    // Room for one partition and a half: never two at once.
    let budget = one * 3 / 2;
    let mut c = config(2, 2);
    c.memory.total_budget = cuzk_core::config::ByteSize::Bytes(budget);
    let (engine, _) = engine(c);
    let ids: Vec<_> = (0..8)
        .map(|_| {
            engine
                .submit(mix_request(8, 2, Priority::Normal))
                .unwrap()
                .job_id
        })
        .collect();
    for id in &ids {
        let r = engine.await_result(id, None).await.unwrap().unwrap();
        assert_eq!(r.state, JobState::Completed, "{:?}", r.error);
    }
    let status = engine.status();
    assert_eq!(status.memory_budget_bytes, budget);
    assert!(
        status.memory_peak_bytes <= budget,
        "peak {} over {budget}",
        status.memory_peak_bytes
    );
    assert!(
        status.memory_peak_bytes >= one,
        "a partition must have been reserved"
    );
    assert_eq!(status.memory_reserved_bytes, 0, "everything released");
}

/// The CRITICAL lane: with the only ordinary synthesis thread held by a NORMAL partition that
/// also holds the whole RAM budget, and another NORMAL job queued, a CRITICAL job still
/// completes (its own thread, the critical reserve) while the others wait. Without the lane
/// it cannot even start.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_critical_job_overtakes_work_holding_every_thread_and_the_budget() {
    let budget = 64 << 20;
    for lane in [true, false] {
        let mut c = config(1, 1);
        c.engine.critical_lane = lane;
        c.memory.total_budget = cuzk_core::config::ByteSize::Bytes(budget);
        let (engine, _) = engine(c);
        let gate = Arc::new(Gate::default());
        let holder = {
            let p = Partition::from_circuit(Gated(Arc::clone(&gate)), vec![mix(6).public_input()])
                .with_working_set(budget);
            engine
                .submit(request("mix-6", Priority::Normal, vec![p]))
                .unwrap()
                .job_id
        };
        // The holder's synthesis and the recording of mix-6's matrices (its own thread) are
        // both held by the gate.
        gate.wait_entered(2);
        let queued = engine
            .submit(mix_request(6, 1, Priority::Normal))
            .unwrap()
            .job_id;
        // Another circuit: a mix-6 partition would wait for mix-6's matrices, whose recording
        // the gate holds too.
        let critical = engine
            .submit(mix_request(8, 1, Priority::Critical))
            .unwrap()
            .job_id;

        let waited = if lane {
            None
        } else {
            Some(Duration::from_millis(300))
        };
        let result = engine.await_result(&critical, waited).await.unwrap();
        if lane {
            let r = result.expect("awaited without a deadline");
            assert_eq!(r.state, JobState::Completed, "{:?}", r.error);
            let status = engine.status();
            assert!(
                status.memory_peak_bytes > budget,
                "the critical partition took the reserve: peak {}",
                status.memory_peak_bytes
            );
            for other in [&holder, &queued] {
                let still = engine
                    .await_result(other, Some(Duration::ZERO))
                    .await
                    .unwrap();
                assert!(still.is_none(), "the normal jobs wait behind the gate");
            }
        } else {
            assert!(
                result.is_none(),
                "without the lane nothing frees a thread for it"
            );
        }
        gate.open();
        for id in [&holder, &queued, &critical] {
            let r = engine.await_result(id, None).await.unwrap().unwrap();
            assert_eq!(r.state, JobState::Completed, "{:?}", r.error);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failing_and_panicking_synthesis_fail_only_their_job() {
    let (engine, _) = engine(config(1, 1));
    for (panic, expected) in [(false, "synthesis failed"), (true, "synthesis panicked")] {
        let p = Partition::from_circuit(Broken { panic }, vec![]);
        let r = engine
            .prove(request("mix-6", Priority::Normal, vec![p]))
            .await
            .unwrap();
        assert_eq!(r.state, JobState::Failed);
        let message = r.error.unwrap();
        assert!(message.contains(expected), "{message}");
    }
    let r = engine
        .prove(mix_request(6, 1, Priority::Normal))
        .await
        .unwrap();
    assert_eq!(r.state, JobState::Completed);
    assert_eq!(engine.status().total_failed, 2);
}

/// Node software retries a failed task with the same request id (Curio: `porep-<miner>-
/// <sector>`): the retry of a FAILED or CANCELLED job is a new job, which completes; a
/// COMPLETED job keeps answering its id.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_or_cancelled_job_does_not_hold_its_request_id() {
    let (engine, _) = engine(config(1, 1));
    let with_id = |rid: &str, mut r: ProofRequest| {
        r.request_id = Some(rid.into());
        r
    };
    let ended = |id: JobId| {
        let engine = &engine;
        async move { engine.await_result(&id, None).await.unwrap().unwrap() }
    };
    let broken = Partition::from_circuit(Broken { panic: false }, vec![]);
    let failed = engine
        .prove(with_id(
            "porep-1000-7",
            request("mix-6", Priority::Normal, vec![broken]),
        ))
        .await
        .unwrap();
    assert_eq!(failed.state, JobState::Failed);

    let retry = engine
        .submit(with_id("porep-1000-7", mix_request(6, 1, Priority::Normal)))
        .unwrap();
    assert_ne!(retry.job_id, failed.job_id, "a new job for the retry");
    let done = ended(retry.job_id.clone()).await;
    assert_eq!(done.state, JobState::Completed, "{:?}", done.error);
    let again = engine
        .submit(with_id("porep-1000-7", mix_request(6, 1, Priority::Normal)))
        .unwrap();
    assert_eq!(again.job_id, retry.job_id, "a completed job answers its id");
    // The failed job is still there under its own id.
    assert_eq!(ended(failed.job_id.clone()).await.state, JobState::Failed);

    // Cancelled, then submitted again.
    let gate = Arc::new(Gate::default());
    let held = engine.submit(gated_request(&gate)).unwrap().job_id;
    gate.wait_entered(1);
    let queued = engine
        .submit(with_id("snap-1000-7", mix_request(6, 1, Priority::Normal)))
        .unwrap()
        .job_id;
    engine.cancel(&queued).unwrap();
    let retry = engine
        .submit(with_id("snap-1000-7", mix_request(6, 1, Priority::Normal)))
        .unwrap()
        .job_id;
    assert_ne!(retry, queued);
    gate.open();
    for id in [held, retry] {
        let r = ended(id).await;
        assert_eq!(r.state, JobState::Completed, "{:?}", r.error);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_proof_that_fails_its_self_check_is_redone_once_then_fails() {
    let (engine, _) = engine(config(1, 1));
    // Wrong public input: every proof of it fails verification.
    let c = mix(6);
    let p = Partition::from_circuit(c.clone(), vec![c.public_input() + Scalar::from(1u64)]);
    let r = engine
        .prove(request("mix-6", Priority::Normal, vec![p]))
        .await
        .unwrap();
    assert_eq!(r.state, JobState::Failed);
    assert!(r.error.unwrap().contains("self-check twice"));
    assert_eq!(engine.status().self_check_failures, 2);

    // Without the self-check the same job "completes" (the caller chose not to check).
    let mut unchecked = config(1, 1);
    unchecked.engine.self_check = false;
    let (engine, _) = self::engine(unchecked);
    let p = Partition::from_circuit(c.clone(), vec![c.public_input() + Scalar::from(1u64)]);
    let r = engine
        .prove(request("mix-6", Priority::Normal, vec![p]))
        .await
        .unwrap();
    assert_eq!(r.state, JobState::Completed);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn intake_rejects_bad_requests_and_repeats_request_ids() {
    let mut c = config(1, 1);
    c.engine.queue_capacity = 2;
    let (engine, _) = engine(c);
    let err = engine
        .submit(mix_request(7, 1, Priority::Normal))
        .unwrap_err();
    assert!(
        matches!(err, EngineError::Srs(SrsError::Unknown { .. })),
        "{err}"
    );
    assert!(err.to_string().contains("mix-7"), "{err}");
    let mut path = mix_request(6, 1, Priority::Normal);
    path.circuit_id = "../mix-6".into();
    let err = engine.submit(path).unwrap_err();
    assert!(
        matches!(err, EngineError::Srs(SrsError::InvalidId(_))),
        "{err}"
    );
    let err = engine
        .submit(request("mix-6", Priority::Normal, vec![]))
        .unwrap_err();
    assert!(err.to_string().contains("at least one partition"), "{err}");

    // Hold the synthesis thread, then fill the queue.
    let gate = Arc::new(Gate::default());
    let held = engine.submit(gated_request(&gate)).unwrap().job_id;
    gate.wait_entered(1);
    let mut with_id = mix_request(6, 1, Priority::Normal);
    with_id.request_id = Some("req-1".into());
    let first = engine.submit(with_id).unwrap();
    let mut again = mix_request(6, 1, Priority::Normal);
    again.request_id = Some("req-1".into());
    assert_eq!(
        engine.submit(again).unwrap().job_id,
        first.job_id,
        "same request id, same job"
    );
    let second = engine.submit(mix_request(6, 1, Priority::Normal)).unwrap();
    assert_eq!(second.queue_position, 1);
    let err = engine
        .submit(mix_request(6, 1, Priority::Normal))
        .unwrap_err();
    assert!(
        matches!(err, EngineError::QueueFull { capacity: 2 }),
        "{err}"
    );

    gate.open();
    for id in [&held, &first.job_id, &second.job_id] {
        let r = engine.await_result(id, None).await.unwrap().unwrap();
        assert_eq!(r.state, JobState::Completed);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_drains_or_cancels_within_the_deadline() {
    let (engine, _) = engine(config(1, 1));
    let ids: Vec<_> = (0..6)
        .map(|_| {
            engine
                .submit(mix_request(6, 1, Priority::Normal))
                .unwrap()
                .job_id
        })
        .collect();
    let report = engine.shutdown(Duration::from_secs(120)).await;
    assert!(
        report.drained && report.cancelled == 0 && report.threads_stopped,
        "{report:?}"
    );
    for id in &ids {
        let r = engine.await_result(id, None).await.unwrap().unwrap();
        assert_eq!(r.state, JobState::Completed);
    }
    assert!(matches!(
        engine.submit(mix_request(6, 1, Priority::Normal)),
        Err(EngineError::ShuttingDown)
    ));

    // A job that cannot end in time is cancelled at the deadline; shutdown does not wait
    // for the thread stuck in it.
    let (engine, _) = self::engine(config(1, 1));
    let gate = Arc::new(Gate::default());
    let stuck = engine.submit(gated_request(&gate)).unwrap().job_id;
    gate.wait_entered(1);
    let queued = engine
        .submit(mix_request(6, 1, Priority::Normal))
        .unwrap()
        .job_id;
    let started = std::time::Instant::now();
    let report = engine.shutdown(Duration::from_millis(200)).await;
    assert!(started.elapsed() < Duration::from_secs(10), "shutdown hung");
    assert!(!report.drained);
    assert_eq!(report.cancelled, 2);
    assert!(
        !report.threads_stopped,
        "the synthesis thread is still held"
    );
    for id in [&stuck, &queued] {
        let r = engine.await_result(id, None).await.unwrap().unwrap();
        assert_eq!(r.state, JobState::Cancelled);
    }
    gate.open();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_to_four_provers_under_load_all_finish() {
    for provers in 1..=4 {
        let (engine, _) = engine(config(2, provers));
        let ids: Vec<_> = (0..12)
            .map(|i| {
                let log = if i % 3 == 0 { 8 } else { 6 };
                engine
                    .submit(mix_request(log, 1 + i % 2, Priority::Normal))
                    .unwrap()
                    .job_id
            })
            .collect();
        for id in &ids {
            let r = engine
                .await_result(id, Some(Duration::from_secs(300)))
                .await
                .unwrap()
                .expect("a job did not end in time (deadlock?)");
            assert_eq!(r.state, JobState::Completed, "{:?}", r.error);
        }
        assert_eq!(engine.status().cpu_provers, provers);
        let report = engine.shutdown(Duration::from_secs(60)).await;
        assert!(report.drained && report.threads_stopped, "{report:?}");
    }
}

/// The matrices of a new circuit are recorded on a thread of their own: with the only
/// synthesis thread held inside the first partition's witness, they are still made (and
/// saved, which makes it visible).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn matrices_are_recorded_while_the_first_witness_is_made() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = config(1, 1);
    c.engine.matrix_cache = dir.path().to_path_buf();
    let engine = Engine::start(c).unwrap();
    let open = Arc::new(Gate::default());
    open.open();
    let mut rng = ChaCha20Rng::seed_from_u64(5);
    let params = Arc::new(generate_random_parameters(WitnessGated(open), &mut rng).unwrap());
    engine
        .register_params("gated-6", Arc::clone(&params))
        .unwrap();

    let gate = Arc::new(Gate::default());
    let input = mix(6).public_input();
    let p = Partition::from_circuit(WitnessGated(Arc::clone(&gate)), vec![input]);
    let id = engine
        .submit(request("gated-6", Priority::Normal, vec![p]))
        .unwrap()
        .job_id;
    gate.wait_entered(1);
    let file = dir.path().join("gated-6.r1cs");
    let deadline = std::time::Instant::now() + Duration::from_secs(120);
    while !file.is_file() {
        assert!(
            std::time::Instant::now() < deadline,
            "the matrices were not recorded while the witness was held"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    gate.open();
    let r = engine.await_result(&id, None).await.unwrap().unwrap();
    assert_eq!(r.state, JobState::Completed, "{:?}", r.error);
    let pvk = prepare_verifying_key(&params.vk);
    assert!(verify_proof(&pvk, &r.proofs[0], &[input]).unwrap());
    let report = engine.shutdown(Duration::from_secs(10)).await;
    assert!(report.threads_stopped, "{report:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn matrices_are_recorded_once_saved_and_reloaded() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = config(2, 1);
    c.engine.matrix_cache = dir.path().to_path_buf();
    let file = dir.path().join("mix-8.r1cs");
    for round in 0..2 {
        let (engine, _) = engine(c.clone());
        let r = engine
            .prove(mix_request(8, 3, Priority::Normal))
            .await
            .unwrap();
        assert_eq!(r.state, JobState::Completed, "round {round}: {:?}", r.error);
        assert!(file.is_file(), "round {round}: no matrix file");
    }
    // A damaged file is recorded again, and the proofs still verify (self-check).
    let len = std::fs::metadata(&file).unwrap().len();
    let mut bytes = std::fs::read(&file).unwrap();
    bytes.truncate(bytes.len() / 2);
    std::fs::write(&file, bytes).unwrap();
    let (engine, _) = self::engine(c.clone());
    let r = engine
        .prove(mix_request(8, 1, Priority::Normal))
        .await
        .unwrap();
    assert_eq!(r.state, JobState::Completed, "{:?}", r.error);
    assert_eq!(
        std::fs::metadata(&file).unwrap().len(),
        len,
        "rewritten in full"
    );

    // Full synthesis on demand, and per partition.
    let mut full = config(1, 1);
    full.engine.synthesis = cuzk_core::config::SynthesisPath::Full;
    let (engine, _) = self::engine(full);
    let r = engine
        .prove(mix_request(6, 2, Priority::Normal))
        .await
        .unwrap();
    assert_eq!(r.state, JobState::Completed, "{:?}", r.error);
    let (engine, _) = self::engine(config(1, 1));
    let p = Partition::from_circuit(mix(6), vec![mix(6).public_input()]).full_synthesis_only();
    let r = engine
        .prove(request("mix-6", Priority::Normal, vec![p]))
        .await
        .unwrap();
    assert_eq!(r.state, JobState::Completed, "{:?}", r.error);
}
