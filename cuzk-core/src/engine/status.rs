//! What the engine reports about itself: [`Engine::status`] (queues, parameters, GPUs,
//! memory) and [`Engine::metrics`] (the Prometheus exposition).

use std::collections::BTreeMap;
use std::time::Duration;

use crate::job::JobState;
use crate::metrics::{Gauges, GpuParamsGauge};
use crate::srs::SrsStatus;

use super::Engine;
use crate::backend::GpuStatus;

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
#[derive(Clone, Debug, Default)]
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
    /// Circuit ids with a native witness generator, and whether it is used.
    pub native_witness: Vec<crate::native_witness::NativeWitnessStatus>,
}

impl Engine {
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
            cpu_provers: self.backends.cpu_provers(),
            gpu_workers: self.backends.gpu_workers(),
            gpus: self.backends.gpu_status(s.metrics.uptime()),
            memory_reserved_bytes: s.budget.used(),
            memory_peak_bytes: s.budget.peak(),
            memory_budget_bytes: s.budget.total(),
            native_witness: s.native_witnesses.status(),
        }
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
            gpu_workers: self.backends.gpu_workers(),
            gpu_busy: self.backends.gpu_busy(s.metrics.uptime()),
            gpus_out_of_rotation: self.backends.gpus_out_of_rotation(),
            gpu_parameters: self
                .backends
                .gpu_parameters()
                .into_iter()
                .flat_map(|(device, sets)| {
                    sets.into_iter().map(move |set| GpuParamsGauge {
                        device,
                        circuit_id: set.circuit_id,
                        h_copies: set.h_copies,
                        bytes: set.device_bytes,
                    })
                })
                .collect(),
            memory_reserved_bytes: s.budget.used(),
            memory_budget_bytes: s.budget.total(),
        })
    }
}
