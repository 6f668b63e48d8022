//! What the engine's threads share ([`Shared`]): the configuration, the queue, the job
//! table, the budgets, and the per-circuit state learnt while running (working-set
//! estimates, recorded constraint matrices, the timeline being recorded).

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Instant;

use bellperson_lite::matrices::{ConstraintMatrices, MatrixFileError};
use parking_lot::Mutex;

use crate::active::ActiveCount;
use crate::budget::MemoryBudget;
use crate::config::Config;
use crate::job::{Job, JobResult, JobState, JobTable, Priority};
use crate::kind::MatrixPath;
use crate::metrics::Metrics;
use crate::native_witness::NativeWitnesses;
use crate::partition_error::{PartitionError, Response};
use crate::scheduler::{PartitionQueue, QueuedPartition};
use crate::srs::SrsManager;
use crate::timeline::{Lane, Phase, Recorder};

/// What the threads share.
pub(crate) struct Shared {
    /// The validated configuration: every thread reads its part (self-check, synthesis path,
    /// CRITICAL lane, thread counts).
    pub config: Config,
    /// Partitions waiting for synthesis, highest priority first; retries and partitions a
    /// retired device put back go in here too.
    pub queue: PartitionQueue,
    /// Every job by id and request id: where proofs are delivered and results awaited.
    pub jobs: JobTable,
    /// Host memory for synthesized partitions: synthesis reserves before it starts, and the
    /// reservation travels with the partition until its proof is finished.
    pub budget: Arc<MemoryBudget>,
    /// Parameter sets by circuit id, loaded on first use and evicted by their own budget.
    pub srs: SrsManager,
    /// Counters and phase histograms for the status and the Prometheus page.
    pub metrics: Metrics,
    /// Which circuit ids' native witnesses were checked and are used.
    pub native_witnesses: NativeWitnesses,
    /// False once shutdown has begun: new jobs are refused.
    pub(crate) accepting: AtomicBool,
    /// Random per engine, so that job ids of two runs do not collide.
    pub(crate) job_prefix: String,
    /// The number in the next job's id (after the prefix): ids are never reused in a run.
    pub(crate) next_job: AtomicU64,
    /// Bytes of a synthesized partition, per circuit id, as last measured: the estimate for
    /// the next one when its kind gives none.
    pub(crate) working_sets: Mutex<HashMap<String, u64>>,
    /// Constraint matrices per circuit id, recorded (or loaded) once; the inner lock makes
    /// the other partitions of a circuit wait for the first one's recording.
    pub(crate) matrices: Mutex<HashMap<String, MatrixSlot>>,
    /// Partitions being synthesized now: the cores they hold are not free for B's G2 sum
    /// (`gpus.b_g2 = "auto"` weighs the CPU with what is left).
    pub synthesizing: ActiveCount,
    /// Synthesis through matrices leaves a, b and c to the provers: the GPUs evaluate them
    /// from their copy of the matrices (`gpus.matrices_on_gpu`, GPU provers only).
    pub products_on_gpu: bool,
    /// Circuit ids whose matrices a GPU cannot hold (its budget streams their parameters):
    /// their partitions compute a, b and c in synthesis, inside their RAM reservation,
    /// instead of leaving them to a GPU worker that would have to go over the budget.
    pub(crate) products_on_cpu: Mutex<HashSet<String>>,
    /// The timeline being recorded, if any ([`Engine::record_timeline`](crate::Engine::record_timeline)).
    pub(crate) timeline: Mutex<Option<Recorder>>,
    /// With the CRITICAL lane, the threads that run CRITICAL partitions' parallel CPU work
    /// (witness, products, the GPU half's scalar splits). On rayon's global pool that work
    /// queued behind other partitions' tasks: under a 32 GiB PoRep load a WinningPoSt's splits
    /// took 0.9-2.6 s instead of milliseconds (H200, 2026-12-03). Its own pool's threads
    /// share the cores with the others instead of waiting for them.
    pub(crate) critical_pool: Option<rayon::ThreadPool>,
    /// Threads recording a circuit's matrices ahead of its partitions' witnesses
    /// ([`Shared::record_matrices_ahead`]); joined at shutdown with the engine's own.
    pub(crate) recorders: Mutex<Vec<JoinHandle<()>>>,
    /// Circuit ids a recorder thread is working on, so that one is started per id.
    pub(crate) recording: Mutex<HashSet<String>>,
}

/// One circuit id's matrices, once recorded.
pub(crate) type MatrixSlot = Arc<Mutex<Option<Arc<ConstraintMatrices>>>>;

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
        let mut timeline = self.timeline.lock();
        if let Some(recorder) = timeline.as_mut() {
            f(recorder);
        }
    }

    /// Runs `work` on the CRITICAL pool when the partition is CRITICAL and the lane is on
    /// (its parallel parts then use that pool), else on the calling thread.
    pub(crate) fn on_priority_pool<R: Send>(
        &self,
        priority: Priority,
        work: impl FnOnce() -> R + Send,
    ) -> R {
        on_pool(self.critical_pool.as_ref(), priority, work)
    }

    /// Whether synthesis leaves `circuit_id`'s products to the GPUs.
    pub(crate) fn products_left_to_gpu(&self, circuit_id: &str) -> bool {
        self.products_on_gpu && !self.products_on_cpu.lock().contains(circuit_id)
    }

    /// From now on `circuit_id`'s partitions compute their products in synthesis (see
    /// `products_on_cpu`); true the first time.
    #[cfg(feature = "cuda")]
    pub(crate) fn keep_products_on_cpu(&self, circuit_id: &str) -> bool {
        self.products_on_cpu.lock().insert(circuit_id.to_string())
    }

    pub(crate) fn seen_working_set(&self, circuit_id: &str) -> Option<u64> {
        self.working_sets.lock().get(circuit_id).copied()
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
                .entry(circuit_id.to_string())
                .or_default(),
        );
        let mut slot = slot.lock();
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

    /// Starts recording `circuit_id`'s matrices on a thread of its own, unless they are
    /// recorded or being recorded. Without it the first partition of a new circuit computed
    /// its witness and recorded the matrices in turn, one thread doing minutes of work at
    /// 32 GiB while every partition waited for the matrices; now its witness, like the
    /// others', is made while the matrices are. A failed recording is logged, and the next
    /// [`Shared::matrices_for`] tries again.
    pub(crate) fn record_matrices_ahead(self: &Arc<Self>, circuit_id: &str, path: &MatrixPath) {
        let slot = self.matrices.lock().get(circuit_id).cloned();
        // Locked: being recorded by a partition's thread; Some: recorded.
        if slot.is_some_and(|slot| slot.try_lock().is_none_or(|m| m.is_some())) {
            return;
        }
        let mut recording = self.recording.lock();
        if !recording.insert(circuit_id.to_string()) {
            return;
        }
        drop(recording);
        let (shared, id, path) = (Arc::clone(self), circuit_id.to_string(), path.clone());
        let spawned = std::thread::Builder::new()
            .name("cuzk-record".into())
            .spawn(move || {
                if let Err(e) = shared.matrices_for(&id, &path) {
                    tracing::warn!(
                        circuit = id.as_str(),
                        "recording the matrices ahead failed: {e}"
                    );
                }
                shared.recording.lock().remove(&id);
            });
        match spawned {
            Ok(handle) => self.recorders.lock().push(handle),
            // No thread: the partitions record them themselves, as before.
            Err(_) => {
                self.recording.lock().remove(circuit_id);
            }
        }
    }

    /// Forgets the matrices of `circuit_id`.
    pub(crate) fn forget_matrices(&self, circuit_id: &str) {
        self.matrices.lock().remove(circuit_id);
    }

    /// Records a partition's measured working set as the estimate for the next ones of its
    /// circuit; a new estimate wakes the reservations waiting on the old one, which ask again.
    pub(crate) fn learn_working_set(&self, circuit_id: &str, bytes: u64) {
        let previous = self
            .working_sets
            .lock()
            .insert(circuit_id.to_string(), bytes);
        if previous != Some(bytes) {
            self.budget.wake();
        }
    }
}

/// How a job ends: failed, cancelled, or a partition proved again.
impl Shared {
    /// Fails `job` (unless it has already ended) and records it.
    pub(crate) fn fail(&self, job: &Job, message: String) {
        tracing::warn!("job {} failed: {message}", job.id);
        job.abort(JobState::Failed, message, |result| self.ended(job, result));
    }

    /// Cancels `job` unless it has ended; returns whether this call ended it.
    pub(crate) fn cancel(&self, job: &Job, reason: &str) -> bool {
        job.abort(JobState::Cancelled, reason.to_string(), |result| {
            self.ended(job, result)
        })
        .is_some()
    }

    /// Cancels every job that has not ended; returns how many.
    pub(crate) fn cancel_all(&self, reason: &str) -> usize {
        self.jobs
            .active()
            .iter()
            .filter(|job| self.cancel(job, reason))
            .count()
    }

    /// What becomes of a partition that failed, decided by its error
    /// ([`PartitionError::response`]) for every stage and prover: proved once more (in its
    /// original place in the queue) when the failure may not repeat and it is the partition's
    /// first, else its job fails with the error, naming the partition.
    pub(crate) fn partition_failed(&self, item: QueuedPartition, error: PartitionError) {
        match (error.response(), item.attempt) {
            (Response::RetryOnce, 0) => {
                tracing::warn!(
                    "job {} partition {}: {error}; proving it again",
                    item.job.id,
                    item.index
                );
                self.queue.push_retry(item);
            }
            (Response::RetryOnce, _) => {
                let message = format!("partition {}: {}", item.index, error.second_time());
                self.fail(&item.job, message);
            }
            (Response::FailJob, _) => {
                self.fail(&item.job, format!("partition {}: {error}", item.index));
            }
        }
    }

    /// Book-keeping for a job that has just ended, and its log line; called before the job's
    /// waiters see the result, so that a caller reading the status or the metrics after its
    /// job ended finds the job counted.
    pub(crate) fn ended(&self, job: &Job, result: &JobResult) {
        let ms = |d: std::time::Duration| d.as_millis() as u64;
        let t = &result.timings;
        tracing::info!(
            job = %job.id,
            kind = %job.kind,
            circuit = %job.circuit_id,
            partitions = job.partitions.len(),
            state = ?result.state,
            queue_wait_ms = ms(t.queue_wait),
            srs_load_ms = ms(t.srs_load),
            synthesis_ms = ms(t.synthesis),
            prove_ms = ms(t.prove),
            finalize_ms = ms(t.finalize),
            verify_ms = ms(t.verify),
            total_ms = ms(t.total),
            error = result.error.as_deref().unwrap_or(""),
            "job ended"
        );
        match result.state {
            JobState::Completed => self.metrics.completed(&job.kind, result.timings.total),
            JobState::Failed => self.metrics.failed(&job.kind),
            JobState::Cancelled => self.metrics.cancelled(&job.kind),
            JobState::Queued | JobState::Running => {}
        }
        self.jobs.record_end(&job.id, job.request_id.clone());
    }
}

/// [`Shared::on_priority_pool`] given the pool.
fn on_pool<R: Send>(
    critical_pool: Option<&rayon::ThreadPool>,
    priority: Priority,
    work: impl FnOnce() -> R + Send,
) -> R {
    match critical_pool {
        Some(pool) if priority == Priority::Critical => pool.install(work),
        _ => work(),
    }
}

/// The CRITICAL lane's thread pool (`Shared::critical_pool`): one thread per core, idle
/// unless CRITICAL work runs.
pub(crate) fn critical_pool() -> Result<rayon::ThreadPool, rayon::ThreadPoolBuildError> {
    rayon::ThreadPoolBuilder::new()
        .thread_name(|i| format!("cuzk-critical-{i}"))
        .build()
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use rayon::prelude::*;

    use super::{critical_pool, on_pool};
    use crate::job::Priority;

    /// CRITICAL parallel work finishes while every thread of rayon's global pool is held by
    /// other work; other priorities' work runs on the calling thread's pool as before.
    #[test]
    fn critical_work_does_not_queue_behind_the_global_pool() {
        let pool = critical_pool().unwrap();
        let threads = rayon::current_num_threads();
        let (release, released) = crossbeam_channel::bounded::<()>(threads);
        let (started, busy) = crossbeam_channel::bounded::<()>(threads);
        // Holds every global thread until released (or 30 s, so a failure cannot hang).
        let blockers = std::thread::spawn(move || {
            (0..threads).into_par_iter().for_each(|_| {
                started.send(()).unwrap();
                let _ = released.recv_timeout(Duration::from_secs(30));
            })
        });
        for _ in 0..threads {
            busy.recv().unwrap();
        }
        let sum = on_pool(Some(&pool), Priority::Critical, || {
            let name = std::thread::current().name().map(str::to_string);
            ((0..1000u64).into_par_iter().sum::<u64>(), name)
        });
        // Answered while every blocker still holds its thread: it did not wait for them.
        assert!(!blockers.is_finished());
        assert_eq!(sum.0, 499_500);
        assert!(sum.1.unwrap().starts_with("cuzk-critical-"));
        let ordinary = on_pool(Some(&pool), Priority::High, || {
            std::thread::current().name().map(str::to_string)
        });
        assert_eq!(ordinary, std::thread::current().name().map(str::to_string));
        for _ in 0..threads {
            release.send(()).unwrap();
        }
        blockers.join().unwrap();
    }
}
