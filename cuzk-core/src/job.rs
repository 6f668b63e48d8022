//! Jobs: what a caller submits, their state while the engine works on them, and what they
//! end as.
//!
//! A job is split into partitions at submission; each partition is scheduled on its own and
//! its proof lands in its slot. The job ends when every slot is filled (COMPLETED), when any
//! partition fails (FAILED: the other partitions are dropped wherever they are), or when it is
//! cancelled. Its end is published on a watch channel, so any number of callers can await it.

use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use bellperson_lite::Proof;
use parking_lot::{Mutex, MutexGuard};
use tokio::sync::watch;

use crate::kind::{Partition, ProofWork};

/// A job's identifier, unique within the engine's lifetime and unlikely to repeat across
/// restarts (it starts with a random prefix).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct JobId(pub String);

impl fmt::Display for JobId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Scheduling priority: a higher one is always taken first; FIFO within one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Priority {
    Low,
    #[default]
    Normal,
    High,
    /// WinningPoSt must finish within an epoch: it jumps every queue.
    Critical,
}

/// A proof job as submitted.
pub struct ProofRequest {
    /// The caller's idempotency key: submitting the same key again returns the same job.
    pub request_id: Option<String>,
    /// Which parameter set proves it (see [`crate::srs`]).
    pub circuit_id: String,
    pub priority: Priority,
    /// What to prove: turned into partitions at submission.
    pub work: Box<dyn ProofWork>,
}

/// Where a job stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JobState {
    Queued,
    Running,
    Completed,
    Failed,
    Cancelled,
}

impl JobState {
    pub fn is_final(self) -> bool {
        matches!(
            self,
            JobState::Completed | JobState::Failed | JobState::Cancelled
        )
    }
}

/// Where a job's time went. Phase times are summed over its partitions (they may overlap in
/// wall time); `queue_wait` runs from submission to the first partition's start, `total` from
/// submission to the end.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct JobTimings {
    pub queue_wait: Duration,
    pub srs_load: Duration,
    pub synthesis: Duration,
    /// Proving: the GPU part, or the whole CPU prover.
    pub prove: Duration,
    /// B in G2 and assembly of GPU proofs.
    pub finalize: Duration,
    pub verify: Duration,
    pub total: Duration,
    /// Where the GPU halves' time went (zero for proofs made on the CPU).
    pub gpu: crate::gpu_phases::GpuPhases,
}

/// How a job ended.
#[derive(Clone, Debug)]
pub struct JobResult {
    pub job_id: JobId,
    pub state: JobState,
    /// One proof per partition, in partition order (empty unless COMPLETED).
    pub proofs: Vec<Proof>,
    /// Why it FAILED or was CANCELLED.
    pub error: Option<String>,
    pub timings: JobTimings,
    /// When it ended.
    pub finished_at: SystemTime,
}

impl JobResult {
    /// The proofs as bytes, 192 per partition, concatenated in partition order.
    pub fn proof_bytes(&self) -> Vec<u8> {
        self.proofs.iter().flat_map(|p| p.to_bytes()).collect()
    }
}

/// A job inside the engine.
pub(crate) struct Job {
    pub id: JobId,
    pub request_id: Option<String>,
    pub kind: String,
    pub circuit_id: String,
    pub priority: Priority,
    pub partitions: Vec<Arc<Partition>>,
    pub submitted: Instant,
    state: AtomicU8,
    progress: Mutex<Progress>,
    done: watch::Sender<Option<JobResult>>,
}

struct Progress {
    proofs: Vec<Option<Proof>>,
    remaining: usize,
    started: Option<Instant>,
    timings: JobTimings,
}

const STATES: [JobState; 5] = [
    JobState::Queued,
    JobState::Running,
    JobState::Completed,
    JobState::Failed,
    JobState::Cancelled,
];

impl Job {
    pub fn new(
        id: JobId,
        request_id: Option<String>,
        kind: String,
        circuit_id: String,
        priority: Priority,
        partitions: Vec<Partition>,
    ) -> Job {
        let n = partitions.len();
        Job {
            id,
            request_id,
            kind,
            circuit_id,
            priority,
            partitions: partitions.into_iter().map(Arc::new).collect(),
            submitted: Instant::now(),
            state: AtomicU8::new(0),
            progress: Mutex::new(Progress {
                proofs: vec![None; n],
                remaining: n,
                started: None,
                timings: JobTimings::default(),
            }),
            done: watch::channel(None).0,
        }
    }

    pub fn state(&self) -> JobState {
        STATES[usize::from(self.state.load(Ordering::Acquire))]
    }

    /// Whether work on it should stop (it has ended one way or another).
    pub fn is_final(&self) -> bool {
        self.state().is_final()
    }

    fn progress(&self) -> MutexGuard<'_, Progress> {
        // A panic while holding this lock leaves plain counters behind: still usable.
        self.progress.lock()
    }

    /// A partition starts: the job is RUNNING (unless it has ended).
    pub fn mark_running(&self) {
        let mut p = self.progress();
        if p.started.is_none() {
            p.started = Some(Instant::now());
            p.timings.queue_wait = self.submitted.elapsed();
        }
        let _ = self.state.compare_exchange(
            state_index(JobState::Queued),
            state_index(JobState::Running),
            Ordering::AcqRel,
            Ordering::Acquire,
        );
    }

    /// How many partitions have their proof (all of them once the job completed).
    pub fn partitions_proved(&self) -> usize {
        let p = self.progress();
        p.proofs.len() - p.remaining
    }

    /// Whether any partition has started.
    pub fn has_started(&self) -> bool {
        self.progress().started.is_some()
    }

    /// Adds a partition's phase times.
    pub fn add_timings(&self, f: impl FnOnce(&mut JobTimings)) {
        f(&mut self.progress().timings);
    }

    /// Stores a partition's proof; when it was the last one, ends the job: `on_end` sees the
    /// result before the job's waiters do (so that counters they read next include it), and
    /// the result is returned.
    pub fn deliver(
        &self,
        index: usize,
        proof: Proof,
        on_end: impl FnOnce(&JobResult),
    ) -> Option<JobResult> {
        let mut p = self.progress();
        if self.is_final() || p.proofs[index].is_some() {
            return None;
        }
        p.proofs[index] = Some(proof);
        p.remaining -= 1;
        if p.remaining > 0 {
            return None;
        }
        let proofs = p.proofs.iter().flatten().copied().collect();
        drop(p);
        self.end(JobState::Completed, proofs, None, on_end)
    }

    /// Ends the job as FAILED or CANCELLED, unless it has already ended. When this call ended
    /// it, `on_end` sees the result before the job's waiters do, and it is returned.
    pub fn abort(
        &self,
        state: JobState,
        message: String,
        on_end: impl FnOnce(&JobResult),
    ) -> Option<JobResult> {
        debug_assert!(matches!(state, JobState::Failed | JobState::Cancelled));
        self.end(state, Vec::new(), Some(message), on_end)
    }

    fn end(
        &self,
        state: JobState,
        proofs: Vec<Proof>,
        error: Option<String>,
        on_end: impl FnOnce(&JobResult),
    ) -> Option<JobResult> {
        let mut p = self.progress();
        let mut current = self.state.load(Ordering::Acquire);
        loop {
            if STATES[usize::from(current)].is_final() {
                return None;
            }
            match self.state.compare_exchange(
                current,
                state_index(state),
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => break,
                Err(actual) => current = actual,
            }
        }
        p.timings.total = self.submitted.elapsed();
        if p.started.is_none() {
            p.timings.queue_wait = p.timings.total;
        }
        let result = JobResult {
            job_id: self.id.clone(),
            state,
            proofs,
            error,
            timings: p.timings,
            finished_at: SystemTime::now(),
        };
        p.proofs.clear();
        drop(p);
        on_end(&result);
        self.done.send_replace(Some(result.clone()));
        Some(result)
    }

    /// A receiver that sees the job's result once it has ended.
    pub fn subscribe(&self) -> watch::Receiver<Option<JobResult>> {
        self.done.subscribe()
    }
}

fn state_index(state: JobState) -> u8 {
    STATES.iter().position(|s| *s == state).unwrap_or(0) as u8
}

/// Ended jobs kept for late callers of `await_result` (and for request-id idempotency); the
/// oldest beyond this are forgotten, so a long-running daemon does not grow without bound.
pub(crate) const KEEP_ENDED: usize = 10_000;

/// Every job the engine knows, by id and by the caller's request id.
#[derive(Default)]
pub(crate) struct JobTable {
    inner: Mutex<Tables>,
}

#[derive(Default)]
struct Tables {
    jobs: HashMap<JobId, Arc<Job>>,
    by_request: HashMap<String, JobId>,
    /// Ended jobs, oldest first, with their request ids.
    ended: VecDeque<(JobId, Option<String>)>,
}

impl Tables {
    /// See [`JobTable::by_request`].
    fn answering(&self, request_id: &str) -> Option<&Arc<Job>> {
        self.by_request
            .get(request_id)
            .and_then(|id| self.jobs.get(id))
            .filter(|job| !matches!(job.state(), JobState::Failed | JobState::Cancelled))
    }
}

impl JobTable {
    fn tables(&self) -> MutexGuard<'_, Tables> {
        self.inner.lock()
    }

    pub fn get(&self, id: &JobId) -> Option<Arc<Job>> {
        self.tables().jobs.get(id).cloned()
    }

    /// The job that answers this request id: one queued, running or completed. A job that
    /// FAILED or was CANCELLED does not: node software retries a failed task with the same
    /// id (Curio forms ids from the miner and sector), and the retry must get a new job.
    pub fn by_request(&self, request_id: &str) -> Option<Arc<Job>> {
        let t = self.tables();
        t.answering(request_id).cloned()
    }

    /// Inserts `job` unless `request_id` already has a job that answers it (returned
    /// instead). `Ok(Some(id))`: the id's earlier job `id`, failed or cancelled, is replaced
    /// by this one (it stays readable by its own job id).
    pub fn insert(
        &self,
        job: Arc<Job>,
        request_id: Option<&str>,
    ) -> Result<Option<JobId>, Arc<Job>> {
        let mut t = self.tables();
        let mut replaced = None;
        if let Some(rid) = request_id {
            if let Some(existing) = t.answering(rid) {
                return Err(Arc::clone(existing));
            }
            replaced = t.by_request.insert(rid.to_string(), job.id.clone());
        }
        t.jobs.insert(job.id.clone(), job);
        Ok(replaced)
    }

    /// Forgets a job that was never queued.
    pub fn remove(&self, id: &JobId, request_id: Option<&str>) {
        let mut t = self.tables();
        t.jobs.remove(id);
        if let Some(rid) = request_id {
            if t.by_request.get(rid) == Some(id) {
                t.by_request.remove(rid);
            }
        }
    }

    /// Notes that a job has ended; forgets the oldest ended jobs beyond [`KEEP_ENDED`].
    pub fn record_end(&self, id: &JobId, request_id: Option<String>) {
        let mut t = self.tables();
        t.ended.push_back((id.clone(), request_id));
        while t.ended.len() > KEEP_ENDED {
            let Some((old, rid)) = t.ended.pop_front() else {
                break;
            };
            t.jobs.remove(&old);
            // The id may have a newer job (a retry after this one failed): keep that one.
            if let Some(rid) = rid {
                if t.by_request.get(&rid) == Some(&old) {
                    t.by_request.remove(&rid);
                }
            }
        }
    }

    /// Jobs not yet ended.
    pub fn active(&self) -> Vec<Arc<Job>> {
        self.tables()
            .jobs
            .values()
            .filter(|j| !j.is_final())
            .cloned()
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bellperson_lite::circuits::MixCircuit;
    use bellperson_lite::{G1Affine, G2Affine};

    fn job(partitions: usize) -> Job {
        let parts = (0..partitions)
            .map(|_| Partition::from_circuit(MixCircuit::new(4, 0.5, 1), vec![]))
            .collect();
        Job::new(
            JobId("j".into()),
            None,
            "test".into(),
            "c".into(),
            Priority::Normal,
            parts,
        )
    }

    fn job_with_id(id: &str, rid: &str) -> Arc<Job> {
        let parts = vec![Partition::from_circuit(MixCircuit::new(4, 0.5, 1), vec![])];
        Arc::new(Job::new(
            JobId(id.into()),
            Some(rid.into()),
            "test".into(),
            "c".into(),
            Priority::Normal,
            parts,
        ))
    }

    #[test]
    fn a_request_id_is_answered_by_its_job_until_that_job_fails_or_is_cancelled() {
        let table = JobTable::default();
        let first = job_with_id("1", "porep-1000-7");
        assert_eq!(
            table.insert(Arc::clone(&first), Some("porep-1000-7")).ok(),
            Some(None)
        );
        // Queued: the same id gets the same job.
        let again = job_with_id("2", "porep-1000-7");
        assert_eq!(
            table.insert(again, Some("porep-1000-7")).unwrap_err().id,
            first.id
        );
        assert_eq!(table.by_request("porep-1000-7").unwrap().id, first.id);

        for end in [JobState::Failed, JobState::Cancelled] {
            let current = table.by_request("porep-1000-7").unwrap();
            current.abort(end, "ended".into(), |_| {});
            table.record_end(&current.id, current.request_id.clone());
            assert!(table.by_request("porep-1000-7").is_none(), "{end:?}");
            let retry = job_with_id(&format!("retry-{end:?}"), "porep-1000-7");
            let replaced = table.insert(Arc::clone(&retry), Some("porep-1000-7"));
            assert_eq!(replaced.ok(), Some(Some(current.id.clone())), "{end:?}");
            assert_eq!(table.by_request("porep-1000-7").unwrap().id, retry.id);
            assert!(
                table.get(&current.id).is_some(),
                "the ended job stays readable"
            );
        }

        // A completed job keeps answering its id.
        let done = job_with_id("done", "snap-1000-7");
        assert!(table.insert(Arc::clone(&done), Some("snap-1000-7")).is_ok());
        let proof = Proof {
            a: G1Affine::default(),
            b: G2Affine::default(),
            c: G1Affine::default(),
        };
        assert!(done.deliver(0, proof, |_| {}).is_some());
        table.record_end(&done.id, done.request_id.clone());
        let later = job_with_id("later", "snap-1000-7");
        assert_eq!(
            table.insert(later, Some("snap-1000-7")).unwrap_err().id,
            done.id
        );
    }

    #[test]
    fn forgetting_an_old_job_keeps_its_request_ids_newer_job() {
        let table = JobTable::default();
        let old = job_with_id("old", "wdpost-1");
        assert!(table.insert(Arc::clone(&old), Some("wdpost-1")).is_ok());
        old.abort(JobState::Failed, "failed".into(), |_| {});
        table.record_end(&old.id, old.request_id.clone());
        let retry = job_with_id("retry", "wdpost-1");
        assert!(table.insert(Arc::clone(&retry), Some("wdpost-1")).is_ok());
        // Push the failed job out of the table of ended jobs.
        for i in 0..KEEP_ENDED {
            table.record_end(&JobId(format!("other-{i}")), None);
        }
        assert!(table.get(&old.id).is_none(), "forgotten");
        assert_eq!(table.by_request("wdpost-1").unwrap().id, retry.id);
    }

    #[test]
    fn the_end_hook_runs_before_waiters_see_the_result_and_only_once() {
        // Any points do: the job only stores them.
        let proof = Proof {
            a: G1Affine::default(),
            b: G2Affine::default(),
            c: G1Affine::default(),
        };
        let j = job(2);
        let seen = j.subscribe();
        let mut calls = 0;
        assert!(j.deliver(0, proof, |_| calls += 1).is_none(), "one of two");
        let ended = j.deliver(1, proof, |r| {
            calls += 1;
            assert_eq!(r.state, JobState::Completed);
            assert!(
                seen.borrow().is_none(),
                "waiters saw the result before the hook ran"
            );
        });
        assert_eq!(ended.map(|r| r.proofs.len()), Some(2));
        assert_eq!(calls, 1);
        assert!(seen.borrow().is_some());
        // An ended job ends once: neither a late proof nor an abort calls the hook again.
        assert!(j.deliver(1, proof, |_| calls += 1).is_none());
        assert!(j
            .abort(JobState::Cancelled, "late".into(), |_| calls += 1)
            .is_none());
        assert_eq!(calls, 1);

        let j = job(1);
        let seen = j.subscribe();
        let aborted = j.abort(JobState::Failed, "bad".into(), |r| {
            assert_eq!(r.error.as_deref(), Some("bad"));
            assert!(
                seen.borrow().is_none(),
                "waiters saw the result before the hook ran"
            );
        });
        assert_eq!(aborted.map(|r| r.state), Some(JobState::Failed));
    }
}
