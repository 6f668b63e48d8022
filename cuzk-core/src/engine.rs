//! The engine: intake, the job table, and the threads of [`crate::workers`].
//!
//! [`Engine::start`] spawns the synthesis threads and the provers; the public calls are
//! cheap and thread-safe. Waiting calls ([`Engine::await_result`], [`Engine::prove`],
//! [`Engine::shutdown`]) are async (tokio); the proving work itself runs on the engine's own
//! OS threads, never on the caller's runtime.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use bellperson_lite::matrices::{ConstraintMatrices, MatrixFileError};
use bellperson_lite::Parameters;
use rand::RngCore;

use crate::budget::MemoryBudget;
use crate::config::Config;
use crate::error::EngineError;
use crate::job::{Job, JobId, JobResult, JobState, JobTable, ProofRequest};
use crate::kind::MatrixPath;
use crate::metrics::{Gauges, Metrics};
use crate::provers::Provers;
use crate::scheduler::{PartitionQueue, PushError, QueuedPartition};
use crate::srs::{SrsManager, SrsStatus};
use crate::timeline::{Lane, Phase, Recorder, Timeline};
use crate::workers::{cpu_prover_loop, synthesis_loop, ActiveCount, SynthesizedPartition};
use crossbeam_channel::Receiver;

/// What the threads share.
pub(crate) struct Shared {
    pub config: Config,
    pub queue: PartitionQueue,
    pub jobs: JobTable,
    pub budget: Arc<MemoryBudget>,
    pub srs: SrsManager,
    pub metrics: Metrics,
    /// False once shutdown has begun: new jobs are refused.
    accepting: AtomicBool,
    /// Random per engine, so that job ids of two runs do not collide.
    job_prefix: String,
    next_job: AtomicU64,
    /// Bytes of a synthesized partition, per circuit id, as last measured: the estimate for
    /// the next one when its kind gives none.
    working_sets: Mutex<HashMap<String, u64>>,
    /// Constraint matrices per circuit id, recorded (or loaded) once; the inner lock makes
    /// the other partitions of a circuit wait for the first one's recording.
    matrices: Mutex<HashMap<String, MatrixSlot>>,
    /// Partitions being synthesized now: the cores they hold are not free for B's G2 sum
    /// (`gpus.b_g2 = "auto"` weighs the CPU with what is left).
    pub synthesizing: ActiveCount,
    /// Synthesis through matrices leaves a, b and c to the provers: the GPUs evaluate them
    /// from their copy of the matrices (`gpus.matrices_on_gpu`, GPU provers only).
    pub products_on_gpu: bool,
    /// The timeline being recorded, if any ([`Engine::record_timeline`]).
    timeline: Mutex<Option<Recorder>>,
}

/// One circuit id's matrices, once recorded.
type MatrixSlot = Arc<Mutex<Option<Arc<ConstraintMatrices>>>>;

impl Shared {
    /// Adds a span of `item` to the timeline being recorded, if any.
    pub fn trace(
        &self,
        lane: Lane,
        phase: Phase,
        item: &QueuedPartition,
        start: Instant,
        end: Instant,
    ) {
        self.with_timeline(|r| r.record(lane, phase, (&item.job.id.0, item.index), start, end));
    }

    /// Runs `f` on the timeline being recorded, if any.
    pub fn with_timeline(&self, f: impl FnOnce(&mut Recorder)) {
        let mut timeline = self.timeline.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(recorder) = timeline.as_mut() {
            f(recorder);
        }
    }

    pub(crate) fn seen_working_set(&self, circuit_id: &str) -> Option<u64> {
        self.working_sets
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(circuit_id)
            .copied()
    }

    /// The matrices of `circuit_id`, recorded from `path` (and saved, or loaded, under
    /// `engine.matrix_cache`) the first time. A failed recording is not remembered: the next
    /// partition tries again.
    pub(crate) fn matrices_for(
        &self,
        circuit_id: &str,
        path: &MatrixPath,
    ) -> Result<Arc<ConstraintMatrices>, MatrixFileError> {
        let slot = Arc::clone(
            self.matrices
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .entry(circuit_id.to_string())
                .or_default(),
        );
        let mut slot = slot.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(m) = slot.as_ref() {
            return Ok(Arc::clone(m));
        }
        let started = Instant::now();
        let folder = &self.config.engine.matrix_cache;
        let recorded = if folder.as_os_str().is_empty() {
            (path.record)(None)?
        } else {
            std::fs::create_dir_all(folder).map_err(|source| MatrixFileError::Io {
                path: folder.clone(),
                source,
            })?;
            let file = folder.join(format!("{circuit_id}.r1cs"));
            (path.record)(Some((&file, circuit_id)))?
        };
        tracing::info!(
            circuit = circuit_id,
            constraints = recorded.num_constraints(),
            ms = started.elapsed().as_millis() as u64,
            "constraint matrices ready"
        );
        let recorded = Arc::new(recorded);
        *slot = Some(Arc::clone(&recorded));
        Ok(recorded)
    }

    /// Forgets the matrices of `circuit_id`.
    pub(crate) fn forget_matrices(&self, circuit_id: &str) {
        self.matrices
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(circuit_id);
    }

    /// Records a partition's measured working set as the estimate for the next ones of its
    /// circuit; a new estimate wakes the reservations waiting on the old one, which ask again.
    pub(crate) fn learn_working_set(&self, circuit_id: &str, bytes: u64) {
        let previous = self
            .working_sets
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(circuit_id.to_string(), bytes);
        if previous != Some(bytes) {
            self.budget.wake();
        }
    }
}

/// A job accepted by [`Engine::submit`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Submitted {
    pub job_id: JobId,
    /// Jobs waiting ahead of it when it was queued (0 for a repeated request id).
    pub queue_position: usize,
}

/// Jobs of one kind.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct QueueStatus {
    pub kind: String,
    /// Jobs not yet started.
    pub pending: usize,
    /// Jobs with partitions in progress.
    pub in_progress: usize,
}

/// A snapshot of the engine.
#[derive(Clone, Debug)]
pub struct EngineStatus {
    pub uptime: Duration,
    pub queues: Vec<QueueStatus>,
    pub srs: Vec<SrsStatus>,
    pub total_completed: u64,
    pub total_failed: u64,
    pub self_check_failures: u64,
    pub synthesis_threads: usize,
    /// Partitions being synthesized at this moment (at most `synthesis_threads`).
    pub synthesizing: usize,
    /// CPU provers running (0 when GPUs are used).
    pub cpu_provers: usize,
    /// GPU workers running, over all devices.
    pub gpu_workers: usize,
    pub gpus: Vec<GpuStatus>,
    pub memory_reserved_bytes: u64,
    pub memory_peak_bytes: u64,
    pub memory_budget_bytes: u64,
}

/// One GPU in use.
#[derive(Clone, Debug, PartialEq)]
pub struct GpuStatus {
    pub ordinal: u32,
    pub name: String,
    pub vram_total_bytes: u64,
    pub vram_free_bytes: u64,
    /// Fraction of the engine's uptime its compute lock was held.
    pub busy_fraction: f64,
    /// Taken out of rotation after repeated GPU faults: it takes no more work.
    pub out_of_rotation: bool,
    /// (job id, kind) of each partition its workers hold now.
    pub in_hand: Vec<(String, String)>,
}

/// How [`Engine::shutdown`] went.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShutdownReport {
    /// Every job ended on its own within the deadline.
    pub drained: bool,
    /// Jobs cancelled at the deadline.
    pub cancelled: usize,
    /// Every engine thread had exited when shutdown returned.
    pub threads_stopped: bool,
}

/// The proving engine; see the crate doc.
pub struct Engine {
    shared: Arc<Shared>,
    threads: Mutex<Vec<JoinHandle<()>>>,
    synthesis_threads: usize,
    provers: Provers,
}

/// Circuit id -> parameter file name: with the `filecoin` feature, the names filecoin-proofs
/// gives its circuits' files ("porep-32g" -> `v28-stacked-proof-of-replication-...params`),
/// then the configuration's `srs.files`, which take precedence.
fn parameter_files(config: &Config) -> Result<BTreeMap<String, String>, EngineError> {
    #[cfg(feature = "filecoin")]
    let mut files = crate::filecoin::parameter_file_names()?;
    #[cfg(not(feature = "filecoin"))]
    let mut files = BTreeMap::new();
    files.extend(config.srs.files.clone());
    Ok(files)
}

impl Engine {
    /// Validates `config`, loads its `srs.preload` sets and starts the threads.
    pub fn start(config: Config) -> Result<Engine, EngineError> {
        config.validate()?;
        let srs = SrsManager::new(
            config.param_cache(),
            parameter_files(&config)?,
            config.srs_budget(),
            config.srs.check_points,
        );
        for id in &config.srs.preload {
            srs.preload(id)?;
        }
        let synthesis_threads = config.synthesis_threads();
        let provers = Provers::choose(&config)?;
        let products_on_gpu = provers.gpu_workers() > 0 && config.gpus.matrices_on_gpu;
        let shared = Arc::new(Shared {
            budget: MemoryBudget::new(config.memory_budget()),
            config,
            queue: PartitionQueue::default(),
            jobs: JobTable::default(),
            srs,
            metrics: Metrics::default(),
            accepting: AtomicBool::new(true),
            job_prefix: format!("{:08x}", rand::rngs::OsRng.next_u32()),
            next_job: AtomicU64::new(1),
            working_sets: Mutex::default(),
            matrices: Mutex::default(),
            synthesizing: ActiveCount::default(),
            products_on_gpu,
            timeline: Mutex::default(),
        });

        let engine = Engine {
            shared: Arc::clone(&shared),
            threads: Mutex::default(),
            synthesis_threads,
            provers,
        };
        // At most one synthesized partition waits per prover.
        let prover_count = engine.provers.cpu_provers() + engine.provers.gpu_workers();
        let (tx, rx) = crossbeam_channel::bounded(prover_count);
        for i in 0..synthesis_threads {
            let (shared, tx) = (Arc::clone(&shared), tx.clone());
            engine.spawn(format!("cuzk-synth-{i}"), "synthesis", move || {
                synthesis_loop(shared, tx, i)
            })?;
        }
        drop(tx);
        engine.spawn_provers(rx)?;
        Ok(engine)
    }

    fn spawn_provers(&self, rx: Receiver<SynthesizedPartition>) -> Result<(), EngineError> {
        match &self.provers {
            Provers::Cpu(n) => {
                for i in 0..*n {
                    let (shared, rx) = (Arc::clone(&self.shared), rx.clone());
                    self.spawn(format!("cuzk-cpu-prover-{i}"), "prover", move || {
                        cpu_prover_loop(shared, rx, i)
                    })?;
                }
            }
            #[cfg(feature = "cuda")]
            Provers::Gpu {
                devices,
                workers_per_device,
            } => {
                use crate::gpu_workers::{finalizer_loop, gpu_worker_loop};
                let finalizers = self.shared.config.engine.finalizer_threads;
                let (done_tx, done_rx) = crossbeam_channel::bounded(finalizers);
                for device in devices {
                    for w in 0..*workers_per_device {
                        let (shared, rx, done_tx) =
                            (Arc::clone(&self.shared), rx.clone(), done_tx.clone());
                        let device = Arc::clone(device);
                        let name = format!("cuzk-gpu{}-worker-{w}", device.info.ordinal);
                        self.spawn(name, "GPU worker", move || {
                            gpu_worker_loop(shared, device, w, rx, done_tx)
                        })?;
                    }
                }
                for i in 0..finalizers {
                    let (shared, done_rx) = (Arc::clone(&self.shared), done_rx.clone());
                    self.spawn(format!("cuzk-finalizer-{i}"), "finalizer", move || {
                        finalizer_loop(shared, done_rx, i)
                    })?;
                }
            }
        }
        Ok(())
    }

    fn spawn(
        &self,
        name: String,
        what: &'static str,
        f: impl FnOnce() + Send + 'static,
    ) -> Result<(), EngineError> {
        let handle = std::thread::Builder::new()
            .name(name)
            .spawn(f)
            .map_err(|source| {
                self.stop_threads();
                EngineError::Spawn { what, source }
            })?;
        self.threads
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(handle);
        Ok(())
    }

    /// Makes `params` the parameter set of `circuit_id` (instead of a file).
    pub fn register_params(&self, circuit_id: &str, params: Arc<Parameters>) {
        self.shared.srs.register(circuit_id, params);
    }

    /// Queues a job. A request id seen before returns that job again; an invalid request or
    /// a full queue is an error (the latter retryable).
    pub fn submit(&self, request: ProofRequest) -> Result<Submitted, EngineError> {
        let shared = &self.shared;
        if !shared.accepting.load(Ordering::Acquire) {
            return Err(EngineError::ShuttingDown);
        }
        if let Some(job) = request
            .request_id
            .as_deref()
            .and_then(|rid| shared.jobs.by_request(rid))
        {
            return Ok(Submitted {
                job_id: job.id.clone(),
                queue_position: 0,
            });
        }
        if request.circuit_id.is_empty() {
            return Err(EngineError::InvalidRequest(
                "the circuit id is empty".into(),
            ));
        }
        if !shared.srs.is_known(&request.circuit_id) {
            return Err(EngineError::InvalidRequest(format!(
                "no parameters for circuit id `{}` (none registered, no file {})",
                request.circuit_id,
                shared.srs.path_of(&request.circuit_id).display()
            )));
        }
        let kind = request.work.kind().to_string();
        let partitions = request
            .work
            .into_partitions()
            .map_err(EngineError::InvalidRequest)?;
        let n = shared.next_job.fetch_add(1, Ordering::Relaxed);
        let job = Arc::new(Job::new(
            JobId(format!("{}-{n}", shared.job_prefix)),
            request.request_id.clone(),
            kind,
            request.circuit_id,
            request.priority,
            partitions,
        ));
        if let Err(existing) = shared
            .jobs
            .insert(Arc::clone(&job), request.request_id.as_deref())
        {
            return Ok(Submitted {
                job_id: existing.id.clone(),
                queue_position: 0,
            });
        }
        match shared
            .queue
            .push_job(&job, shared.config.engine.queue_capacity)
        {
            Ok(queue_position) => Ok(Submitted {
                job_id: job.id.clone(),
                queue_position,
            }),
            Err(refused) => {
                shared.jobs.remove(&job.id, request.request_id.as_deref());
                Err(match refused {
                    PushError::Full => EngineError::QueueFull {
                        capacity: shared.config.engine.queue_capacity,
                    },
                    PushError::Closed => EngineError::ShuttingDown,
                })
            }
        }
    }

    /// Waits until the job ends, or for `timeout` (`None`: no limit). `Ok(None)` is a timeout.
    pub async fn await_result(
        &self,
        job_id: &JobId,
        timeout: Option<Duration>,
    ) -> Result<Option<JobResult>, EngineError> {
        let job = self
            .shared
            .jobs
            .get(job_id)
            .ok_or_else(|| EngineError::UnknownJob(job_id.clone()))?;
        let mut done = job.subscribe();
        drop(job);
        let wait = async move {
            // The sender lives in the job, which the receiver's channel keeps alive.
            done.wait_for(Option::is_some)
                .await
                .ok()
                .and_then(|r| r.clone())
        };
        match timeout {
            None => Ok(wait.await),
            Some(t) => Ok(tokio::time::timeout(t, wait).await.ok().flatten()),
        }
    }

    /// [`Engine::submit`] then [`Engine::await_result`] without a timeout.
    pub async fn prove(&self, request: ProofRequest) -> Result<JobResult, EngineError> {
        let submitted = self.submit(request)?;
        self.await_result(&submitted.job_id, None)
            .await?
            .ok_or(EngineError::UnknownJob(submitted.job_id))
    }

    /// Cancels a job that has not ended. Returns whether any of its partitions had started;
    /// cancelling an ended job changes nothing and returns false.
    pub fn cancel(&self, job_id: &JobId) -> Result<bool, EngineError> {
        let job = self
            .shared
            .jobs
            .get(job_id)
            .ok_or_else(|| EngineError::UnknownJob(job_id.clone()))?;
        let was_running = job.has_started() && !job.is_final();
        self.shared.cancel(&job, "cancelled");
        Ok(was_running)
    }

    /// Loads a parameter set now: whether it was loaded already, and the load time.
    pub fn preload_srs(&self, circuit_id: &str) -> Result<(bool, Duration), EngineError> {
        Ok(self.shared.srs.preload(circuit_id)?)
    }

    /// Drops a parameter set from memory: whether it was loaded, and its bytes.
    pub fn evict_srs(&self, circuit_id: &str) -> (bool, u64) {
        self.provers.evict(circuit_id);
        self.shared.forget_matrices(circuit_id);
        self.shared.srs.evict(circuit_id)
    }

    /// A snapshot of queues, parameters, counters and memory.
    pub fn status(&self) -> EngineStatus {
        let s = &self.shared;
        let mut queues: BTreeMap<String, QueueStatus> = BTreeMap::new();
        for job in s.jobs.active() {
            let q = queues
                .entry(job.kind.clone())
                .or_insert_with(|| QueueStatus {
                    kind: job.kind.clone(),
                    ..QueueStatus::default()
                });
            match job.state() {
                JobState::Queued => q.pending += 1,
                JobState::Running => q.in_progress += 1,
                _ => {}
            }
        }
        EngineStatus {
            uptime: s.metrics.uptime(),
            queues: queues.into_values().collect(),
            srs: s.srs.status(),
            total_completed: s.metrics.total_completed(),
            total_failed: s.metrics.total_failed(),
            self_check_failures: s.metrics.self_check_failures(),
            synthesis_threads: self.synthesis_threads,
            synthesizing: s.synthesizing.get(),
            cpu_provers: self.provers.cpu_provers(),
            gpu_workers: self.provers.gpu_workers(),
            gpus: self.provers.gpu_status(s.metrics.uptime()),
            memory_reserved_bytes: s.budget.used(),
            memory_peak_bytes: s.budget.peak(),
            memory_budget_bytes: s.budget.total(),
        }
    }

    /// Makes the next `count` proofs on GPU `ordinal` fail as a GPU fault would, to exercise
    /// the fault handling (retries, taking a device out of rotation) in tests. False when the
    /// engine does not use that GPU.
    #[cfg(feature = "cuda")]
    pub fn inject_gpu_faults(&self, ordinal: u32, count: u32) -> bool {
        self.provers.inject_gpu_faults(ordinal, count)
    }

    /// Per GPU in use, the nanoseconds its compute lock has been held since the engine
    /// started (empty on the CPU backend).
    pub fn gpu_busy_ns(&self) -> Vec<u64> {
        self.provers.gpu_busy_ns()
    }

    /// Starts recording what every engine thread does, at most `capacity` spans (eight per
    /// partition proved on a GPU, two on a CPU prover); a recording in progress is dropped.
    /// For benchmarks and diagnosis: see [`crate::timeline`].
    pub fn record_timeline(&self, capacity: usize) {
        *self
            .shared
            .timeline
            .lock()
            .unwrap_or_else(|e| e.into_inner()) = Some(Recorder::new(capacity));
    }

    /// Stops the recording and returns it; `None` when none was started. A phase that ends
    /// after this call is not in it.
    pub fn take_timeline(&self) -> Option<Timeline> {
        let recorder = self
            .shared
            .timeline
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        recorder.map(Recorder::finish)
    }

    /// The Prometheus text exposition.
    pub fn metrics(&self) -> String {
        let s = &self.shared;
        let active = s.jobs.active();
        s.metrics.render(&Gauges {
            queue_depth: s.queue.waiting_jobs(),
            running_jobs: active
                .iter()
                .filter(|j| j.state() == JobState::Running)
                .count(),
            gpu_workers: self.provers.gpu_workers(),
            gpu_busy: self.provers.gpu_busy(s.metrics.uptime()),
            gpus_out_of_rotation: self.provers.gpus_out_of_rotation(),
            memory_reserved_bytes: s.budget.used(),
            memory_budget_bytes: s.budget.total(),
        })
    }

    /// Stops intake, lets jobs in flight end until `deadline`, cancels what is left, then
    /// stops the threads. A thread in the middle of a synthesis or a proof cannot be
    /// interrupted: it is waited for until the deadline (at least a second), then left to
    /// exit on its own when that call returns (see [`ShutdownReport::threads_stopped`]).
    pub async fn shutdown(&self, deadline: Duration) -> ShutdownReport {
        let started = Instant::now();
        self.shared.accepting.store(false, Ordering::Release);
        let active = self.shared.jobs.active();
        let receivers: Vec<_> = active.iter().map(|j| j.subscribe()).collect();
        let all_done = async move {
            for mut r in receivers {
                let _ = r.wait_for(Option::is_some).await;
            }
        };
        let drained = tokio::time::timeout(deadline, all_done).await.is_ok();
        let cancelled = self.shared.cancel_all("the engine shut down");
        self.stop_threads();
        let threads = std::mem::take(&mut *self.threads.lock().unwrap_or_else(|e| e.into_inner()));
        let (joined_tx, joined_rx) = tokio::sync::oneshot::channel();
        // A plain thread joins them: a blocking task would hold the caller's runtime open.
        let joiner = std::thread::Builder::new()
            .name("cuzk-shutdown".into())
            .spawn(move || {
                for t in threads {
                    let _ = t.join();
                }
                let _ = joined_tx.send(());
            });
        let grace = deadline
            .saturating_sub(started.elapsed())
            .max(Duration::from_secs(1));
        let threads_stopped =
            joiner.is_ok() && matches!(tokio::time::timeout(grace, joined_rx).await, Ok(Ok(())));
        ShutdownReport {
            drained,
            cancelled,
            threads_stopped,
        }
    }

    fn stop_threads(&self) {
        self.shared.accepting.store(false, Ordering::Release);
        self.shared.queue.close();
        self.shared.budget.close();
    }
}

impl Drop for Engine {
    /// Cancels what is left and stops the threads without waiting for them (use
    /// [`Engine::shutdown`] to drain first).
    fn drop(&mut self) {
        self.stop_threads();
        self.shared.cancel_all("the engine was dropped");
    }
}
