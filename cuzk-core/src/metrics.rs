//! Counters and histograms, rendered as Prometheus text.
//!
//! Names follow the wire protocol's list (`cuzk_proofs_completed_total`, ...). Gauges that
//! describe the engine's present state (queue depth, running jobs, workers) are passed in at
//! render time rather than mirrored here, so they cannot go stale.

use parking_lot::{Mutex, MutexGuard};
use std::collections::BTreeMap;
use std::fmt::Write;
use std::time::{Duration, Instant};

/// Upper bounds of the duration buckets, in seconds (proofs run from milliseconds for small
/// circuits to minutes for a PoRep on the CPU).
const BUCKETS: [f64; 14] = [
    0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 900.0,
];

#[derive(Clone, Debug, Default)]
struct Histogram {
    counts: [u64; BUCKETS.len()],
    count: u64,
    sum: f64,
}

impl Histogram {
    fn observe(&mut self, d: Duration) {
        let s = d.as_secs_f64();
        for (bound, count) in BUCKETS.iter().zip(&mut self.counts) {
            if s <= *bound {
                *count += 1;
            }
        }
        self.count += 1;
        self.sum += s;
    }

    fn render(&self, out: &mut String, name: &str, labels: &str) {
        for (bound, count) in BUCKETS.iter().zip(&self.counts) {
            let _ = writeln!(out, "{name}_bucket{{{labels},le=\"{bound}\"}} {count}");
        }
        let _ = writeln!(out, "{name}_bucket{{{labels},le=\"+Inf\"}} {}", self.count);
        let _ = writeln!(out, "{name}_sum{{{labels}}} {}", self.sum);
        let _ = writeln!(out, "{name}_count{{{labels}}} {}", self.count);
    }
}

#[derive(Default)]
struct Values {
    completed: BTreeMap<String, u64>,
    failed: BTreeMap<String, u64>,
    cancelled: BTreeMap<String, u64>,
    self_check_failures: u64,
    /// Partitions by what their native witness did (`native_witness`): used, failed,
    /// checked_equal, checked_different.
    native_witness: BTreeMap<&'static str, u64>,
    durations: BTreeMap<String, Histogram>,
    phases: BTreeMap<&'static str, Histogram>,
}

/// The engine's state at render time.
#[derive(Clone, Debug, Default)]
pub struct Gauges {
    pub queue_depth: usize,
    pub running_jobs: usize,
    pub gpu_workers: usize,
    /// Per GPU ordinal: the fraction of wall time its compute lock was held.
    pub gpu_busy: Vec<(u32, f64)>,
    /// The GPU ordinals taken out of rotation after repeated faults.
    pub gpus_out_of_rotation: Vec<u32>,
    /// The parameter sets the GPUs hold, one entry per GPU and set.
    pub gpu_parameters: Vec<GpuParamsGauge>,
    pub memory_reserved_bytes: u64,
    pub memory_budget_bytes: u64,
}

/// One parameter set on one GPU, as the metrics show it (plain values, so that this module
/// needs none of the engine's).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GpuParamsGauge {
    /// The GPU's ordinal.
    pub device: u32,
    pub circuit_id: String,
    /// Shifted copies of H's bases kept for H's MSM (1: none).
    pub h_copies: u32,
    /// VRAM the set holds (0 when streamed per proof).
    pub bytes: u64,
}

/// See the module doc.
pub struct Metrics {
    started: Instant,
    values: Mutex<Values>,
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics {
            started: Instant::now(),
            values: Mutex::default(),
        }
    }
}

impl Metrics {
    fn values(&self) -> MutexGuard<'_, Values> {
        self.values.lock()
    }

    pub fn uptime(&self) -> Duration {
        self.started.elapsed()
    }

    /// A job of `kind` completed after `total`.
    pub fn completed(&self, kind: &str, total: Duration) {
        let mut v = self.values();
        *v.completed.entry(kind.to_string()).or_default() += 1;
        v.durations
            .entry(kind.to_string())
            .or_default()
            .observe(total);
    }

    pub fn failed(&self, kind: &str) {
        *self.values().failed.entry(kind.to_string()).or_default() += 1;
    }

    pub fn cancelled(&self, kind: &str) {
        *self.values().cancelled.entry(kind.to_string()).or_default() += 1;
    }

    /// A proof that did not verify before it was returned.
    pub fn self_check_failed(&self) {
        self.values().self_check_failures += 1;
    }

    /// A partition's native witness was `outcome` (see `native_witness`).
    pub fn native_witness(&self, outcome: &'static str) {
        *self.values().native_witness.entry(outcome).or_default() += 1;
    }

    /// One partition spent `d` in `phase`.
    pub fn phase(&self, phase: &'static str, d: Duration) {
        self.values().phases.entry(phase).or_default().observe(d);
    }

    pub fn total_completed(&self) -> u64 {
        self.values().completed.values().sum()
    }

    pub fn total_failed(&self) -> u64 {
        self.values().failed.values().sum()
    }

    pub fn self_check_failures(&self) -> u64 {
        self.values().self_check_failures
    }

    /// The Prometheus text exposition.
    pub fn render(&self, g: &Gauges) -> String {
        let v = self.values();
        let mut out = String::new();
        let counter = |out: &mut String, name: &str, help: &str, map: &BTreeMap<String, u64>| {
            let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} counter");
            for (kind, n) in map {
                let _ = writeln!(out, "{name}{{kind=\"{}\"}} {n}", escape(kind));
            }
        };
        counter(
            &mut out,
            "cuzk_proofs_completed_total",
            "Jobs completed, per proof kind.",
            &v.completed,
        );
        counter(
            &mut out,
            "cuzk_proofs_failed_total",
            "Jobs failed, per proof kind.",
            &v.failed,
        );
        counter(
            &mut out,
            "cuzk_proofs_cancelled_total",
            "Jobs cancelled, per proof kind.",
            &v.cancelled,
        );
        let gauge = |out: &mut String, name: &str, help: &str, value: String| {
            let _ = writeln!(
                out,
                "# HELP {name} {help}\n# TYPE {name} gauge\n{name} {value}"
            );
        };
        let _ = writeln!(
            out,
            "# HELP cuzk_self_check_failures_total Proofs that failed verification before being returned.\n# TYPE cuzk_self_check_failures_total counter\ncuzk_self_check_failures_total {}",
            v.self_check_failures
        );
        let _ = writeln!(
            out,
            "# HELP cuzk_native_witness_total Partitions by what their native witness did (used, failed, checked_equal, checked_different).\n# TYPE cuzk_native_witness_total counter"
        );
        for (outcome, n) in &v.native_witness {
            let _ = writeln!(
                out,
                "cuzk_native_witness_total{{outcome=\"{outcome}\"}} {n}"
            );
        }
        gauge(
            &mut out,
            "cuzk_queue_depth",
            "Jobs waiting for synthesis.",
            g.queue_depth.to_string(),
        );
        gauge(
            &mut out,
            "cuzk_running_jobs",
            "Jobs with partitions in progress.",
            g.running_jobs.to_string(),
        );
        gauge(
            &mut out,
            "cuzk_gpu_workers",
            "GPU workers running.",
            g.gpu_workers.to_string(),
        );
        gauge(
            &mut out,
            "cuzk_uptime_seconds",
            "Seconds since the engine started.",
            self.uptime().as_secs().to_string(),
        );
        gauge(
            &mut out,
            "cuzk_memory_reserved_bytes",
            "Host memory reserved by partitions in flight.",
            g.memory_reserved_bytes.to_string(),
        );
        gauge(
            &mut out,
            "cuzk_memory_budget_bytes",
            "Host memory budget for partitions in flight.",
            g.memory_budget_bytes.to_string(),
        );
        let _ = writeln!(out, "# HELP cuzk_gpu_busy_fraction Fraction of wall time a GPU's compute lock was held.\n# TYPE cuzk_gpu_busy_fraction gauge");
        for (device, busy) in &g.gpu_busy {
            let _ = writeln!(out, "cuzk_gpu_busy_fraction{{device=\"{device}\"}} {busy}");
        }
        let _ = writeln!(out, "# HELP cuzk_gpu_out_of_rotation 1 for a GPU taken out of rotation after repeated faults (restart to use it again).\n# TYPE cuzk_gpu_out_of_rotation gauge");
        for (device, _) in &g.gpu_busy {
            let out_of_rotation = u8::from(g.gpus_out_of_rotation.contains(device));
            let _ = writeln!(
                out,
                "cuzk_gpu_out_of_rotation{{device=\"{device}\"}} {out_of_rotation}"
            );
        }
        per_parameter_set(
            &mut out,
            &g.gpu_parameters,
            "cuzk_gpu_h_copies",
            "Shifted copies of H's bases a GPU keeps for a parameter set (above 1: H's MSM runs over them).",
            |p| u64::from(p.h_copies),
        );
        per_parameter_set(
            &mut out,
            &g.gpu_parameters,
            "cuzk_gpu_params_bytes",
            "VRAM a parameter set holds on a GPU (0 when streamed per proof).",
            |p| p.bytes,
        );
        let _ = writeln!(out, "# HELP cuzk_proof_duration_seconds Submission to end of completed jobs, per proof kind.\n# TYPE cuzk_proof_duration_seconds histogram");
        for (kind, h) in &v.durations {
            h.render(
                &mut out,
                "cuzk_proof_duration_seconds",
                &format!("kind=\"{}\"", escape(kind)),
            );
        }
        let _ = writeln!(out, "# HELP cuzk_phase_duration_seconds Time per partition in each phase.\n# TYPE cuzk_phase_duration_seconds histogram");
        for (phase, h) in &v.phases {
            h.render(
                &mut out,
                "cuzk_phase_duration_seconds",
                &format!("phase=\"{phase}\""),
            );
        }
        out
    }
}

/// A gauge with one line per GPU and parameter set, labelled by device and circuit.
fn per_parameter_set(
    out: &mut String,
    sets: &[GpuParamsGauge],
    name: &str,
    help: &str,
    value: impl Fn(&GpuParamsGauge) -> u64,
) {
    let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} gauge");
    for p in sets {
        let _ = writeln!(
            out,
            "{name}{{device=\"{}\",circuit=\"{}\"}} {}",
            p.device,
            escape(&p.circuit_id),
            value(p)
        );
    }
}

/// A label value with `\`, `"` and newlines escaped, as the text format requires.
fn escape(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_counters_gauges_and_histograms() {
        let m = Metrics::default();
        m.completed("porep", Duration::from_millis(300));
        m.completed("porep", Duration::from_secs(20));
        m.failed("wpost\"x");
        m.phase("synthesis", Duration::from_millis(70));
        let text = m.render(&Gauges {
            queue_depth: 3,
            gpu_busy: vec![(0, 0.5), (1, 0.25)],
            gpus_out_of_rotation: vec![1],
            gpu_parameters: vec![GpuParamsGauge {
                device: 1,
                circuit_id: "porep\"32g".into(),
                h_copies: 6,
                bytes: 38 << 30,
            }],
            ..Gauges::default()
        });
        for line in [
            "cuzk_proofs_completed_total{kind=\"porep\"} 2",
            "cuzk_proofs_failed_total{kind=\"wpost\\\"x\"} 1",
            "cuzk_queue_depth 3",
            "cuzk_running_jobs 0",
            "cuzk_gpu_workers 0",
            "cuzk_gpu_busy_fraction{device=\"0\"} 0.5",
            "cuzk_gpu_out_of_rotation{device=\"0\"} 0",
            "cuzk_gpu_out_of_rotation{device=\"1\"} 1",
            "# TYPE cuzk_gpu_h_copies gauge",
            "cuzk_gpu_h_copies{device=\"1\",circuit=\"porep\\\"32g\"} 6",
            "# TYPE cuzk_gpu_params_bytes gauge",
            "cuzk_gpu_params_bytes{device=\"1\",circuit=\"porep\\\"32g\"} 40802189312",
            "cuzk_proof_duration_seconds_bucket{kind=\"porep\",le=\"0.5\"} 1",
            "cuzk_proof_duration_seconds_bucket{kind=\"porep\",le=\"30\"} 2",
            "cuzk_proof_duration_seconds_count{kind=\"porep\"} 2",
            "cuzk_phase_duration_seconds_bucket{phase=\"synthesis\",le=\"0.1\"} 1",
        ] {
            assert!(
                text.lines().any(|l| l == line),
                "missing `{line}` in:\n{text}"
            );
        }
        assert!(text.contains("cuzk_uptime_seconds "));
        assert_eq!((m.total_completed(), m.total_failed()), (2, 1));
    }
}
