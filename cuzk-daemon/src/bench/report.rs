//! What `cuzk bench` prints and writes: a table per point and the JSON of every figure.

use std::time::Duration;

use cuzk_core::sweep::SweepPoint;
use cuzk_core::{GpuPhases, JobTimings};

use super::BenchArgs;

/// What the engine did.
pub(super) struct Report {
    pub(super) backend: String,
    pub(super) partitions: usize,
    pub(super) first_proof: Duration,
    /// The second proof of the first measurement, timed alone (the first loaded the
    /// parameters and recorded the matrices); `None` with `--skip-alone`.
    pub(super) alone: Option<(SweepPoint, Samples)>,
    pub(super) points: Vec<(SweepPoint, Samples)>,
    pub(super) timeline: Option<cuzk_core::timeline::Timeline>,
    /// Every point was measured (the JSON written after each point says `false` until then).
    pub(super) complete: bool,
}

/// Sampled while a point runs.
#[derive(Clone, Default)]
pub(super) struct Samples {
    /// The most VRAM in use on any GPU (total less free, as the driver reports it), sampled
    /// once a second.
    pub(super) peak_vram_bytes: u64,
    /// The most anonymous resident memory (`RssAnon`: the heap, not the pages of mapped
    /// files), sampled once a second: what the host cannot reclaim.
    pub(super) peak_anon_rss_bytes: u64,
    /// The probe's jobs, in submission order.
    pub(super) probes: Vec<ProbeSample>,
}

/// One probe job: its end-to-end latency (submission to result) and the engine's phases.
#[derive(Clone, Debug, Default)]
pub(super) struct ProbeSample {
    pub(super) latency: Duration,
    pub(super) timings: JobTimings,
}

impl ProbeSample {
    /// Where the latency went, in seconds: the queue (until a synthesis thread took it), the
    /// phases, and "waits", the rest (the RAM budget, the hand-off, a free prover).
    fn phases(&self) -> serde_json::Value {
        let t = &self.timings;
        let phases = t.queue_wait + t.srs_load + t.synthesis + t.prove + t.finalize + t.verify;
        serde_json::json!({
            "total": self.latency.as_secs_f64(),
            "queue": t.queue_wait.as_secs_f64(),
            "synthesis": (t.srs_load + t.synthesis).as_secs_f64(),
            "prove": t.prove.as_secs_f64(),
            "finalize": (t.finalize + t.verify).as_secs_f64(),
            "waits": self.latency.saturating_sub(phases).as_secs_f64(),
        })
    }
}

impl Report {
    pub(super) fn table(&self) -> String {
        let gib = |b: u64| b as f64 / (1u64 << 30) as f64;
        let per_partition = |d: Duration| d.as_secs_f64() / self.partitions.max(1) as f64;
        let mut out = format!(
            "\n{} partition(s) per proof, {}; first proof {:.1} s\n\
             {:>9} {:>9} {:>9} {:>11} {:>11} {:>11} {:>11} {:>9} {:>10} {:>10} {:>9}\n",
            self.partitions,
            self.backend,
            self.first_proof.as_secs_f64(),
            "in flight",
            "s/proof",
            "proofs/h",
            "latency s",
            "synth s/p",
            "prove s/p",
            "final s/p",
            "peak RSS",
            "peak anon",
            "peak VRAM",
            "GPU busy",
        );
        let probe_column = |samples: &Samples| -> String {
            let mut v = samples.probes.clone();
            v.sort_by_key(|p| p.latency);
            match (v.get(v.len() / 2), v.last()) {
                (Some(median), Some(max)) => {
                    let slowest = max.phases();
                    let s = |key: &str| slowest[key].as_f64().unwrap_or_default();
                    format!(
                        "  probe: {} runs, median {:.2} s, max {:.2} s (queue {:.2}, synthesis \
                         {:.2}, prove {:.2}, waits {:.2})",
                        v.len(),
                        median.latency.as_secs_f64(),
                        max.latency.as_secs_f64(),
                        s("queue"),
                        s("synthesis"),
                        s("prove"),
                        s("waits"),
                    )
                }
                _ => String::new(),
            }
        };
        for (p, samples) in &self.points {
            // A proof is a job of all its partitions: s/proof is per job.
            let per_job = p.seconds_per_proof * self.partitions as f64;
            let busy: Vec<String> = p
                .gpu_busy
                .iter()
                .map(|b| format!("{:.0}%", b * 100.0))
                .collect();
            // Unknown figures (no peak RSS from the system, no GPU) read "-", not 0.
            let rss = p
                .peak_rss_bytes
                .map_or("-".to_string(), |b| format!("{:.1}G", gib(b)));
            let anon = match samples.peak_anon_rss_bytes {
                0 => "-".to_string(),
                b => format!("{:.1}G", gib(b)),
            };
            let (vram, busy) = if busy.is_empty() {
                ("-".to_string(), "-".to_string())
            } else {
                (
                    format!("{:.1}G", gib(samples.peak_vram_bytes)),
                    busy.join(" "),
                )
            };
            out += &format!(
                "{:>9} {:>9.2} {:>9.0} {:>11.2} {:>11.2} {:>11.2} {:>11.2} {:>9} {:>10} {:>10} {:>9}{}\n",
                p.concurrency,
                per_job,
                3600.0 / per_job.max(1e-9),
                p.median.total.as_secs_f64(),
                per_partition(p.median.synthesis),
                per_partition(p.median.prove),
                per_partition(p.median.finalize),
                rss,
                anon,
                vram,
                busy,
                probe_column(samples),
            );
            let gpu = p.median.gpu;
            if gpu.kernels() > Duration::ZERO {
                let parts: Vec<String> = GpuPhases::NAMES
                    .iter()
                    .zip(gpu.values())
                    .map(|(name, d)| format!("{name} {:.3}", per_partition(d)))
                    .collect();
                out += &format!(
                    "{:>9} GPU half s/p: {} (kernels {:.3})\n",
                    "",
                    parts.join(", "),
                    per_partition(gpu.kernels()),
                );
            }
        }
        out
    }

    pub(super) fn json(&self, args: &BenchArgs) -> serde_json::Value {
        serde_json::json!({
            "kind": args.kind,
            "sector_size": args.sector_size,
            "backend": self.backend,
            "partitions": self.partitions,
            "first_proof_seconds": self.first_proof.as_secs_f64(),
            // The two jobs run one at a time after start-up: its figures are the second's.
            "second_proof_alone": self.alone.as_ref().map(|p| self.point_json(p)),
            "points": self.points.iter().map(|p| self.point_json(p)).collect::<Vec<_>>(),
            "complete": self.complete,
        })
    }

    fn point_json(&self, (p, samples): &(SweepPoint, Samples)) -> serde_json::Value {
        serde_json::json!({
                "in_flight": p.concurrency,
                "jobs": p.jobs,
                "seconds_per_proof": p.seconds_per_proof * self.partitions as f64,
                "seconds_per_partition": p.seconds_per_proof,
                "median_latency_seconds": p.median.total.as_secs_f64(),
                "median_per_partition_seconds": {
                    "synthesis": p.median.synthesis.as_secs_f64() / self.partitions.max(1) as f64,
                    "prove": p.median.prove.as_secs_f64() / self.partitions.max(1) as f64,
                    "finalize": p.median.finalize.as_secs_f64() / self.partitions.max(1) as f64,
                    "verify": p.median.verify.as_secs_f64() / self.partitions.max(1) as f64,
                },
                // The GPU half of a partition, part by part (each part's median over the
                // timed jobs, per partition); all zero on the CPU.
                "median_gpu_per_partition_seconds": GpuPhases::NAMES
                    .iter()
                    .zip(p.median.gpu.values())
                    .map(|(name, d)| {
                        (name.to_string(), serde_json::json!(d.as_secs_f64() / self.partitions.max(1) as f64))
                    })
                    .collect::<serde_json::Map<_, _>>(),
                "median_queue_wait_seconds": p.median.queue_wait.as_secs_f64(),
                "peak_rss_bytes": p.peak_rss_bytes,
                "peak_vram_bytes": samples.peak_vram_bytes,
                "peak_anon_rss_bytes": samples.peak_anon_rss_bytes,
                "gpu_busy": p.gpu_busy,
                "probe_latency_seconds": samples
                    .probes
                    .iter()
                    .map(|p| p.latency.as_secs_f64())
                    .collect::<Vec<_>>(),
                "probe_phases_seconds": samples
                    .probes
                    .iter()
                    .map(ProbeSample::phases)
                    .collect::<Vec<_>>(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(concurrency: usize, per_partition: f64) -> SweepPoint {
        SweepPoint {
            concurrency,
            jobs: 2 * concurrency,
            partitions: 10,
            seconds_per_proof: per_partition,
            gpu_busy: vec![0.5],
            median: JobTimings {
                synthesis: Duration::from_secs(400),
                prove: Duration::from_secs(20),
                total: Duration::from_secs(60),
                gpu: GpuPhases {
                    msm_h: Duration::from_secs(10),
                    ntt: Duration::from_secs(5),
                    wait_compute: Duration::from_secs(1),
                    ..GpuPhases::default()
                },
                ..JobTimings::default()
            },
            peak_rss_bytes: Some(8 << 30),
            timeline: None,
        }
    }

    /// A proof is a job of all its partitions: per-job figures are the per-partition wall
    /// time times the partitions, phases are per partition, the probe is reported per point.
    #[test]
    fn figures_are_per_job_and_per_partition() {
        let probed = Samples {
            peak_vram_bytes: 3 << 30,
            peak_anon_rss_bytes: 5 << 30,
            probes: vec![
                ProbeSample {
                    latency: Duration::from_millis(300),
                    ..ProbeSample::default()
                },
                ProbeSample {
                    latency: Duration::from_secs(2),
                    timings: JobTimings {
                        queue_wait: Duration::from_millis(500),
                        synthesis: Duration::from_millis(100),
                        prove: Duration::from_millis(250),
                        ..JobTimings::default()
                    },
                },
            ],
        };
        let mut report = Report {
            backend: "test".into(),
            partitions: 10,
            first_proof: Duration::from_secs(100),
            alone: Some((point(1, 6.0), Samples::default())),
            points: vec![(point(2, 4.5), probed)],
            timeline: None,
            complete: true,
        };
        let args = BenchArgs {
            kind: "porep".into(),
            sector_size: "32GiB".into(),
            input: None,
            miner_id: 1,
            sector_number: 1,
            config: None,
            param_cache: None,
            generate_params: false,
            in_flight: vec![2],
            jobs: None,
            skip_alone: false,
            json: None,
            timeline: None,
            seed: 0,
            probe: None,
            probe_every: Duration::from_secs(5),
            vram_budget: None,
            witness_only: false,
            at_once: 0,
            full: false,
        };
        let json = report.json(&args);
        assert_eq!(json["complete"], true);
        report.complete = false;
        assert_eq!(
            report.json(&args)["complete"],
            false,
            "a run stopped part way"
        );
        report.complete = true;
        let p = &json["points"][0];
        assert_eq!(p["seconds_per_proof"], 45.0);
        assert_eq!(p["seconds_per_partition"], 4.5);
        assert_eq!(p["median_per_partition_seconds"]["synthesis"], 40.0);
        assert_eq!(p["probe_latency_seconds"].as_array().unwrap().len(), 2);
        let slow = &p["probe_phases_seconds"][1];
        let close = |key: &str, want: f64| (slow[key].as_f64().unwrap() - want).abs() < 1e-9;
        assert!(close("queue", 0.5) && close("prove", 0.25), "{slow}");
        assert!(close("waits", 1.15), "the rest of the 2 s: {slow}");
        assert_eq!(json["second_proof_alone"]["seconds_per_proof"], 60.0);
        let table = report.table();
        let row = table
            .lines()
            .find(|l| l.trim_start().starts_with('2'))
            .unwrap();
        assert!(row.contains("45.00") && row.contains("80"), "{row}");
        assert!(
            row.contains("8.0G") && row.contains("5.0G") && row.contains("3.0G"),
            "{row}"
        );
        assert_eq!(p["peak_anon_rss_bytes"], 5u64 << 30);
        assert!(
            row.contains("probe: 2 runs")
                && row.contains("max 2.00 s (queue 0.50, synthesis 0.10, prove 0.25, waits 1.15)"),
            "{row}"
        );
        // The GPU half per partition, in the JSON and on a line below the row.
        let gpu = &p["median_gpu_per_partition_seconds"];
        assert_eq!(
            (gpu["msm_h"].as_f64(), gpu["ntt"].as_f64()),
            (Some(1.0), Some(0.5))
        );
        assert_eq!(gpu.as_object().unwrap().len(), GpuPhases::NAMES.len());
        assert!(
            table.contains("wait_compute 0.100, abc 0.000, ntt 0.500, msm_h 1.000")
                && table.contains("(kernels 1.500)"),
            "{table}"
        );
        // --skip-alone: no second proof, and the JSON says so.
        report.alone = None;
        assert!(report.json(&args)["second_proof_alone"].is_null());
    }
}
