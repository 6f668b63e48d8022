//! The scheduler: partitions waiting for synthesis, highest priority first, FIFO within a
//! priority.
//!
//! Synthesis threads block in [`PartitionQueue::pop`]. A job's partitions enter together, in
//! order, and keep the job's place: a partition redone after a failed self-check goes back
//! with its original sequence number, ahead of later jobs of its priority. Partitions of
//! cancelled or failed jobs stay in the heap and are skipped when popped (cancelling is then
//! O(1)); [`PartitionQueue::waiting_jobs`] counts only live ones.

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::sync::Arc;

use parking_lot::{Condvar, Mutex, MutexGuard};

use crate::job::{Job, Priority};

/// One partition to synthesize.
#[derive(Clone)]
pub(crate) struct QueuedPartition {
    pub job: Arc<Job>,
    pub index: usize,
    /// 0 the first time, 1 when proved again after a failure that may not repeat.
    pub attempt: u32,
    /// Order within a priority: the job's submission order, then the partition's index.
    seq: (u64, usize),
}

impl QueuedPartition {
    fn priority(&self) -> Priority {
        self.job.priority
    }

    /// The span of this partition's work (job, partition index, attempt).
    pub(crate) fn span(&self) -> tracing::Span {
        tracing::info_span!(
            "partition",
            job = %self.job.id,
            index = self.index,
            attempt = self.attempt
        )
    }
}

impl PartialEq for QueuedPartition {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for QueuedPartition {}
impl PartialOrd for QueuedPartition {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for QueuedPartition {
    /// The heap's maximum is taken first: higher priority, then lower sequence.
    fn cmp(&self, other: &Self) -> Ordering {
        self.priority()
            .cmp(&other.priority())
            .then_with(|| other.seq.cmp(&self.seq))
            .then_with(|| other.attempt.cmp(&self.attempt))
    }
}

#[derive(Default)]
struct State {
    heap: BinaryHeap<QueuedPartition>,
    next_seq: u64,
    closed: bool,
}

/// The queue between intake and the synthesis threads.
#[derive(Default)]
pub(crate) struct PartitionQueue {
    state: Mutex<State>,
    ready: Condvar,
}

impl PartitionQueue {
    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock()
    }

    /// Queues every partition of `job`, unless the queue already has `capacity` live jobs
    /// waiting or is closed. Returns the number of jobs ahead of it, or why it was refused.
    pub fn push_job(&self, job: &Arc<Job>, capacity: usize) -> Result<usize, PushError> {
        let mut s = self.state();
        if s.closed {
            return Err(PushError::Closed);
        }
        let waiting = waiting_jobs(&s);
        if waiting >= capacity {
            return Err(PushError::Full);
        }
        let seq = s.next_seq;
        s.next_seq += 1;
        for index in 0..job.partitions.len() {
            s.heap.push(QueuedPartition {
                job: Arc::clone(job),
                index,
                attempt: 0,
                seq: (seq, index),
            });
        }
        drop(s);
        self.ready.notify_all();
        Ok(waiting)
    }

    /// Queues a partition again (its proof failed the self-check), in its original place.
    pub fn push_retry(&self, mut item: QueuedPartition) {
        item.attempt += 1;
        self.push_back(item);
    }

    /// Queues a partition again in its original place, as it was: its prover went away (a
    /// GPU taken out of rotation), nothing was wrong with the partition.
    pub fn push_back(&self, item: QueuedPartition) {
        let mut s = self.state();
        if s.closed {
            return;
        }
        s.heap.push(item);
        drop(s);
        // Every waiter: the one woken by notify_one could be a CRITICAL lane thread that may
        // not take it.
        self.ready.notify_all();
    }

    /// The next live partition; blocks while there is none. `None` once closed.
    #[cfg(test)]
    pub fn pop(&self) -> Option<QueuedPartition> {
        self.pop_at_least(Priority::Low)
    }

    /// The next live partition of at least priority `min` (the CRITICAL lane's threads take
    /// nothing else); blocks while there is none. `None` once closed.
    pub fn pop_at_least(&self, min: Priority) -> Option<QueuedPartition> {
        let mut s = self.state();
        loop {
            if s.closed {
                return None;
            }
            while let Some(top) = s.heap.peek() {
                if top.job.is_final() {
                    s.heap.pop();
                } else if top.priority() >= min {
                    return s.heap.pop();
                } else {
                    break;
                }
            }
            self.ready.wait(&mut s);
        }
    }

    /// Stops the queue: waiting and later `pop`s return `None`, pushes are refused.
    pub fn close(&self) {
        let mut s = self.state();
        s.closed = true;
        s.heap.clear();
        drop(s);
        self.ready.notify_all();
    }

    /// Live jobs with at least one partition waiting.
    pub fn waiting_jobs(&self) -> usize {
        waiting_jobs(&self.state())
    }
}

fn waiting_jobs(s: &State) -> usize {
    let mut jobs: Vec<*const Job> = s
        .heap
        .iter()
        .filter(|i| !i.job.is_final())
        .map(|i| Arc::as_ptr(&i.job))
        .collect();
    jobs.sort_unstable();
    jobs.dedup();
    jobs.len()
}

/// Why a job was not queued.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum PushError {
    Full,
    Closed,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job::JobId;
    use crate::kind::Partition;
    use bellperson_lite::circuits::MixCircuit;

    fn job(name: &str, priority: Priority, partitions: usize) -> Arc<Job> {
        let parts = (0..partitions)
            .map(|_| Partition::from_circuit(MixCircuit::new(4, 0.5, 1), vec![]))
            .collect();
        Arc::new(Job::new(
            JobId(name.into()),
            None,
            "test".into(),
            "c".into(),
            priority,
            parts,
        ))
    }

    #[test]
    fn priority_then_fifo_then_partition_order() {
        let q = PartitionQueue::default();
        q.push_job(&job("n1", Priority::Normal, 2), 10).unwrap();
        q.push_job(&job("l1", Priority::Low, 1), 10).unwrap();
        q.push_job(&job("n2", Priority::Normal, 1), 10).unwrap();
        q.push_job(&job("c1", Priority::Critical, 1), 10).unwrap();
        q.push_job(&job("h1", Priority::High, 1), 10).unwrap();
        let order: Vec<String> = (0..6)
            .map(|_| {
                let p = q.pop().unwrap();
                format!("{}.{}", p.job.id, p.index)
            })
            .collect();
        assert_eq!(order, ["c1.0", "h1.0", "n1.0", "n1.1", "n2.0", "l1.0"]);
    }

    #[test]
    fn the_critical_lane_takes_only_critical_partitions() {
        let q = Arc::new(PartitionQueue::default());
        q.push_job(&job("n1", Priority::Normal, 1), 10).unwrap();
        let lane = {
            let q = Arc::clone(&q);
            std::thread::spawn(move || {
                q.pop_at_least(Priority::Critical)
                    .map(|p| p.job.id.0.clone())
            })
        };
        std::thread::sleep(std::time::Duration::from_millis(50));
        assert!(
            !lane.is_finished(),
            "a normal partition must not be taken by the lane"
        );
        q.push_job(&job("h1", Priority::High, 1), 10).unwrap();
        let cancelled = job("c0", Priority::Critical, 1);
        cancelled.abort(crate::job::JobState::Cancelled, "cancelled".into(), |_| {});
        q.push_job(&cancelled, 10).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(50));
        assert!(
            !lane.is_finished(),
            "nor a high one, nor a cancelled critical one"
        );
        q.push_job(&job("c1", Priority::Critical, 1), 10).unwrap();
        assert_eq!(lane.join().unwrap().as_deref(), Some("c1"));
        // The others are still there for the ordinary threads, in order.
        assert_eq!(q.pop().unwrap().job.id.0, "h1");
        assert_eq!(q.pop().unwrap().job.id.0, "n1");
        q.close();
        assert!(q.pop_at_least(Priority::Critical).is_none());
    }

    #[test]
    fn full_queue_refuses_and_ended_jobs_are_skipped() {
        let q = PartitionQueue::default();
        let a = job("a", Priority::Normal, 3);
        assert_eq!(q.push_job(&a, 2), Ok(0));
        assert_eq!(q.push_job(&job("b", Priority::Normal, 1), 2), Ok(1));
        assert_eq!(
            q.push_job(&job("c", Priority::Normal, 1), 2),
            Err(PushError::Full)
        );
        a.abort(crate::job::JobState::Cancelled, "cancelled".into(), |_| {});
        assert_eq!(q.waiting_jobs(), 1);
        assert_eq!(q.pop().unwrap().job.id.0, "b");
        q.close();
        assert!(q.pop().is_none());
        assert_eq!(
            q.push_job(&job("d", Priority::Normal, 1), 2),
            Err(PushError::Closed)
        );
    }

    #[test]
    fn a_retry_keeps_its_place() {
        let q = PartitionQueue::default();
        q.push_job(&job("first", Priority::Normal, 1), 10).unwrap();
        q.push_job(&job("second", Priority::Normal, 1), 10).unwrap();
        let first = q.pop().unwrap();
        q.push_retry(first);
        let again = q.pop().unwrap();
        assert_eq!((again.job.id.0.as_str(), again.attempt), ("first", 1));
    }

    #[test]
    fn a_partition_put_back_keeps_its_place_and_its_attempts() {
        let q = PartitionQueue::default();
        q.push_job(&job("first", Priority::Normal, 1), 10).unwrap();
        q.push_job(&job("second", Priority::Normal, 1), 10).unwrap();
        let first = q.pop().unwrap();
        q.push_back(first);
        let again = q.pop().unwrap();
        assert_eq!((again.job.id.0.as_str(), again.attempt), ("first", 0));
        q.push_retry(again);
        let retried = q.pop().unwrap();
        q.push_back(retried);
        let back = q.pop().unwrap();
        assert_eq!((back.job.id.0.as_str(), back.attempt), ("first", 1));
    }
}
