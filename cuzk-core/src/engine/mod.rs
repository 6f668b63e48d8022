//! The engine: intake, the job table, and the threads of `crate::synthesis` and
//! `crate::proving`.
//!
//! [`Engine::start`] spawns the synthesis threads and the provers; the public calls are
//! cheap and thread-safe. Waiting calls ([`Engine::await_result`], [`Engine::prove`],
//! [`Engine::shutdown`]) are async (tokio); the proving work itself runs on the engine's own
//! OS threads, never on the caller's runtime.
//!
//! - this module: [`Engine`]: start, intake, cancel, parameters, timeline, shutdown;
//! - `status`: [`Engine::status`] and [`Engine::metrics`].

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use bellperson_lite::Parameters;
use parking_lot::Mutex;
use rand::RngCore;

use crate::active::ActiveCount;
use crate::backend::{Backend, Backends, ProvingBackend};
use crate::budget::MemoryBudget;
use crate::config::Config;
use crate::error::EngineError;
use crate::handoff::HandOffReceiver;
use crate::job::{Job, JobId, JobResult, JobTable, Priority, ProofRequest};
use crate::metrics::Metrics;
use crate::native_witness::NativeWitnesses;
use crate::proving::{finalizer_loop, worker_loop};
use crate::scheduler::{PartitionQueue, PushError};
use crate::shared::{critical_pool, Shared};
use crate::srs::SrsManager;
use crate::synthesis::{synthesis_loop, SynthesizedPartition};
use crate::timeline::{Recorder, Timeline};

mod status;

pub use crate::backend::{DeviceSrsStatus, GpuStatus};
pub use status::{EngineStatus, QueueStatus};

/// A job accepted by [`Engine::submit`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Submitted {
    pub job_id: JobId,
    /// Jobs waiting ahead of it when it was queued (0 for a repeated request id).
    pub queue_position: usize,
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
    /// What partitions are proved on (GPUs, the CPU, fakes in tests).
    backends: Backends,
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
        Engine::start_on(config, Vec::new())
    }

    /// [`Engine::start`] on fake devices instead of the GPUs or the CPU prover, for tests of
    /// the fault handling (feature `fake-backend`; see [`crate::fake`]).
    #[cfg(feature = "fake-backend")]
    pub fn start_with_fakes(
        config: Config,
        devices: &[Arc<crate::backend::fake::FakeDevice>],
    ) -> Result<Engine, EngineError> {
        let fakes = devices
            .iter()
            .map(|d| Arc::clone(d) as Arc<dyn ProvingBackend>)
            .collect();
        Engine::start_on(config, fakes)
    }

    fn start_on(
        config: Config,
        fakes: Vec<Arc<dyn ProvingBackend>>,
    ) -> Result<Engine, EngineError> {
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
        let backends = crate::backend::open(&config, fakes)?;
        let products_on_gpu = backends.evaluate_products() && config.gpus.matrices_on_gpu;
        let synthesis_threads = config.synthesis_threads(products_on_gpu);
        let native_witnesses = NativeWitnesses::new(
            config.engine.native_witness,
            config.engine.native_witness_check_every,
        );
        let critical_pool = if config.engine.critical_lane {
            let pool = critical_pool().map_err(|e| EngineError::Spawn {
                what: "CRITICAL pool",
                source: std::io::Error::other(e),
            })?;
            Some(pool)
        } else {
            None
        };
        let shared = Arc::new(Shared {
            budget: MemoryBudget::with_critical_reserve(
                config.memory_budget(),
                config.critical_reserve(),
            ),
            config,
            queue: PartitionQueue::default(),
            jobs: JobTable::default(),
            srs,
            metrics: Metrics::default(),
            native_witnesses,
            accepting: AtomicBool::new(true),
            job_prefix: format!("{:08x}", rand::rngs::OsRng.next_u32()),
            next_job: AtomicU64::new(1),
            working_sets: Mutex::default(),
            matrices: Mutex::default(),
            synthesizing: ActiveCount::default(),
            products_on_gpu,
            products_on_cpu: Mutex::default(),
            timeline: Mutex::default(),
            critical_pool,
            recorders: Mutex::default(),
            recording: Mutex::default(),
        });

        let engine = Engine {
            shared: Arc::clone(&shared),
            threads: Mutex::default(),
            synthesis_threads,
            backends,
        };
        // At most one synthesized partition waits per prover, the highest priority taken
        // first (`handoff`); the CRITICAL lane has its own slots, provers and thread.
        let prover_count = engine.backends.cpu_provers() + engine.backends.gpu_workers();
        let critical_lane = shared.config.engine.critical_lane;
        let lane_provers = if critical_lane {
            engine.backends.iter().count()
        } else {
            0
        };
        let (tx, rx) = crate::handoff::handoff(prover_count, lane_provers);
        let lane_thread = usize::from(critical_lane);
        for i in 0..synthesis_threads + lane_thread {
            let (shared, tx) = (Arc::clone(&shared), tx.clone());
            let (name, takes) = if i < synthesis_threads {
                (format!("cuzk-synth-{i}"), Priority::Low)
            } else {
                ("cuzk-synth-critical".to_string(), Priority::Critical)
            };
            engine.spawn(name, "synthesis", move || {
                synthesis_loop(shared, tx, i, takes)
            })?;
        }
        drop(tx);
        engine.spawn_provers(rx, critical_lane)?;
        Ok(engine)
    }

    /// Each backend's workers, and with `critical_lane` one more per backend taking only
    /// CRITICAL partitions; then the finalizers.
    fn spawn_provers(
        &self,
        rx: HandOffReceiver<SynthesizedPartition>,
        critical_lane: bool,
    ) -> Result<(), EngineError> {
        let lane = usize::from(critical_lane);
        let finalizers = self.shared.config.engine.finalizer_threads;
        let (done_tx, done_rx) = crossbeam_channel::bounded(finalizers);
        for backend in self.backends.iter() {
            let ordinary = backend.prover.workers();
            for w in 0..ordinary + lane {
                let rx = if w < ordinary {
                    rx.clone()
                } else {
                    rx.only_critical()
                };
                let (shared, done_tx) = (Arc::clone(&self.shared), done_tx.clone());
                let backend: Arc<Backend> = Arc::clone(backend);
                let name = format!("cuzk-{}-worker-{w}", backend.prover.name());
                self.spawn(name, "prover", move || {
                    worker_loop(shared, backend, w, rx, done_tx)
                })?;
            }
        }
        for i in 0..finalizers {
            let (shared, done_rx) = (Arc::clone(&self.shared), done_rx.clone());
            self.spawn(format!("cuzk-finalizer-{i}"), "finalizer", move || {
                finalizer_loop(shared, done_rx, i)
            })?;
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
        self.threads.lock().push(handle);
        Ok(())
    }

    /// Makes `params` the parameter set of `circuit_id` (instead of a file). The id must be
    /// a name ([`crate::circuit_id`]).
    pub fn register_params(
        &self,
        circuit_id: &str,
        params: Arc<Parameters>,
    ) -> Result<(), EngineError> {
        Ok(self.shared.srs.register(circuit_id, params)?)
    }

    /// Queues a job. A request id seen before returns that job again while it is queued,
    /// running or completed; after it failed or was cancelled, the id gets a new job (a
    /// retry). An invalid request or a full queue is an error (the latter retryable).
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
        // An invalid id, an unknown one and a missing file are told apart (SrsError).
        shared.srs.check_available(&request.circuit_id)?;
        let kind = request.work.kind().to_string();
        let partitions = request.work.into_partitions()?;
        let n = shared.next_job.fetch_add(1, Ordering::Relaxed);
        let job = Arc::new(Job::new(
            JobId(format!("{}-{n}", shared.job_prefix)),
            request.request_id.clone(),
            kind,
            request.circuit_id,
            request.priority,
            partitions,
        ));
        match shared
            .jobs
            .insert(Arc::clone(&job), request.request_id.as_deref())
        {
            Err(existing) => {
                return Ok(Submitted {
                    job_id: existing.id.clone(),
                    queue_position: 0,
                })
            }
            Ok(Some(earlier)) => tracing::info!(
                request_id = request.request_id.as_deref().unwrap_or_default(),
                earlier = %earlier,
                job = %job.id,
                "a request whose job failed or was cancelled is submitted again: new job"
            ),
            Ok(None) => {}
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
        let job = self.job(job_id)?;
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

    /// The job of `job_id`, or the error that names an unknown id.
    fn job(&self, job_id: &JobId) -> Result<Arc<Job>, EngineError> {
        self.shared
            .jobs
            .get(job_id)
            .ok_or_else(|| EngineError::UnknownJob(job_id.clone()))
    }

    /// How many of a job's partitions have their proof so far (all of them once it
    /// completed): a job's progress, and what a benchmark window counts.
    pub fn partitions_proved(&self, job_id: &JobId) -> Result<usize, EngineError> {
        let job = self.job(job_id)?;
        Ok(job.partitions_proved())
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
        let job = self.job(job_id)?;
        let was_running = job.has_started() && !job.is_final();
        self.shared.cancel(&job, "cancelled");
        Ok(was_running)
    }

    /// Loads a parameter set now: whether it was loaded already, and the load time.
    pub fn preload_srs(&self, circuit_id: &str) -> Result<(bool, Duration), EngineError> {
        Ok(self.shared.srs.preload(circuit_id)?)
    }

    /// Drops a parameter set from memory: whether it was loaded, and its bytes.
    pub fn evict_srs(&self, circuit_id: &str) -> Result<(bool, u64), EngineError> {
        // First: it checks the id, so nothing else is looked up under a bad one.
        let evicted = self.shared.srs.evict(circuit_id)?;
        self.backends.evict(circuit_id);
        self.shared.forget_matrices(circuit_id);
        Ok(evicted)
    }

    /// Makes the next `count` proofs on GPU `ordinal` (or fake device, in tests) fail as a
    /// GPU fault would, to exercise the fault handling (retries, taking a device out of
    /// rotation) in tests; `count` 0 ends the faults. False when the engine does not use that
    /// device.
    pub fn inject_gpu_faults(&self, ordinal: u32, count: u32) -> bool {
        self.backends.inject_faults(ordinal, count)
    }

    /// Per GPU in use, the nanoseconds its compute lock has been held since the engine
    /// started (empty on the CPU backend).
    pub fn gpu_busy_ns(&self) -> Vec<u64> {
        self.backends.gpu_busy_ns()
    }

    /// Starts recording what every engine thread does, at most `capacity` spans (eight per
    /// partition proved on a GPU, three on the CPU); a recording in progress is dropped.
    /// For benchmarks and diagnosis: see [`crate::timeline`].
    pub fn record_timeline(&self, capacity: usize) {
        *self.shared.timeline.lock() = Some(Recorder::new(capacity));
    }

    /// Stops the recording and returns it; `None` when none was started. A phase that ends
    /// after this call is not in it.
    pub fn take_timeline(&self) -> Option<Timeline> {
        let recorder = self.shared.timeline.lock().take();
        recorder.map(Recorder::finish)
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
        let mut threads = std::mem::take(&mut *self.threads.lock());
        threads.append(&mut self.shared.recorders.lock());
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
