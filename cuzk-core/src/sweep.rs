//! A load generator for benchmarks: keeps a fixed number of jobs in flight on an engine and
//! reports the steady-state throughput and where the time went.
//!
//! Used by `cargo xtask bench-phases --engine` (CPU) and the GPU bundle's `bench_engine`; an
//! operator can point it at an engine configured like production to size it.

use std::collections::VecDeque;
use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bellperson_lite::circuits::TestCircuit;
use bellperson_lite::generator::generate_random_parameters;
use bellperson_lite::Parameters;

use crate::config::Config;
use crate::engine::Engine;
use crate::error::EngineError;
use crate::gpu_phases::GpuPhases;
use crate::job::{JobId, JobResult, JobState, JobTimings, Priority, ProofRequest};
use crate::kind::{CircuitProofs, Partition};
use crate::timeline::{render_svg, Timeline};

/// Spans kept per point's timeline: eight per proof on GPU workers, so a point of a few
/// thousand proofs fits.
const TIMELINE_SPANS: usize = 50_000;

/// What to sweep: one circuit shape, every (workers, concurrency) pair.
#[derive(Clone, Debug)]
pub struct SweepPlan {
    /// A test circuit by name: "sha" or "mix" (see `TestCircuit::by_name`).
    pub circuit: String,
    pub log_size: u32,
    /// Partitions per job.
    pub partitions: usize,
    /// Jobs in flight, one point each.
    pub concurrency: Vec<usize>,
    /// Provers: GPU workers per device on the GPU backend, CPU provers otherwise.
    pub workers: Vec<usize>,
    /// Jobs per point beyond the warm-up; at least the largest concurrency (fewer would be
    /// timed on work done mostly during the warm-up, and read as a throughput too high).
    pub timed_jobs: usize,
    /// Record each point's timeline (warm-up included) into [`SweepPoint::timeline`].
    pub timeline: bool,
}

impl SweepPlan {
    /// The plan's circuit (witness from a fixed seed).
    fn circuit(&self) -> Result<TestCircuit, SweepError> {
        TestCircuit::by_name(&self.circuit, self.log_size, 1)
            .map_err(|e| SweepError::Plan(e.to_string()))
    }

    /// Whether the plan can be run: its circuit exists at its size, and it times at least as
    /// many jobs as it keeps in flight (fewer would be timed on proofs made during the
    /// warm-up). Checked before the parameters are generated, which takes long at large sizes.
    pub fn check(&self) -> Result<(), SweepError> {
        self.circuit()?;
        let most = self.concurrency.iter().copied().max().unwrap_or(1);
        if self.timed_jobs < most {
            return Err(SweepError::Plan(format!(
                "{} timed jobs are fewer than the {most} kept in flight: the steady state would \
                 be timed on proofs made during the warm-up; time at least {most}",
                self.timed_jobs
            )));
        }
        Ok(())
    }

    /// Real (verifiable) parameters for the plan's circuit, from a fixed seed; the plan is
    /// [checked](SweepPlan::check) first.
    pub fn parameters(&self) -> Result<Parameters, SweepError> {
        use rand::SeedableRng;
        self.check()?;
        let mut rng = rand::rngs::StdRng::seed_from_u64(u64::from(self.log_size));
        generate_random_parameters(self.circuit()?, &mut rng)
            .map_err(|e| SweepError::Plan(format!("parameter generation failed: {e}")))
    }
}

/// Runs every point of `plan`: one engine per workers value (configured from `base`), all
/// concurrency values on it.
pub async fn run_sweep(
    plan: &SweepPlan,
    base: &Config,
    params: Arc<Parameters>,
) -> Result<Vec<(usize, SweepPoint)>, SweepError> {
    const CIRCUIT_ID: &str = "sweep";
    plan.check()?;
    let circuit = plan.circuit()?;
    let partition = Partition::from_circuit(circuit.clone(), vec![circuit.public_input()]);
    let mut points = Vec::new();
    for &workers in &plan.workers {
        let mut config = base.clone();
        config.gpus.gpu_workers_per_device = workers;
        config.engine.cpu_provers = workers;
        let engine = Engine::start(config)?;
        engine.register_params(CIRCUIT_ID, Arc::clone(&params))?;
        let request = || -> ProofRequest {
            let partitions = vec![partition.clone(); plan.partitions];
            ProofRequest {
                request_id: None,
                circuit_id: CIRCUIT_ID.into(),
                priority: Priority::Normal,
                work: Box::new(CircuitProofs::new("sweep", partitions)),
            }
        };
        for &c in &plan.concurrency {
            if plan.timeline {
                engine.record_timeline(TIMELINE_SPANS);
            }
            let mut point = run_point(&engine, &request, c, c + plan.timed_jobs).await?;
            point.timeline = engine.take_timeline();
            points.push((workers, point));
        }
        engine.shutdown(Duration::from_secs(600)).await;
    }
    Ok(points)
}

/// The points as a text table.
pub fn render_table(points: &[(usize, SweepPoint)]) -> String {
    let ms = |d: Duration| format!("{:.1}", d.as_secs_f64() * 1e3);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:>7} {:>5} {:>5} {:>10} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}",
        "workers",
        "c",
        "jobs",
        "s/proof",
        "GPU busy",
        "queue",
        "synth",
        "prove",
        "finalize",
        "verify",
        "total",
        "peak RSS"
    );
    for (workers, p) in points {
        let busy = if p.gpu_busy.is_empty() {
            "-".to_string()
        } else {
            p.gpu_busy
                .iter()
                .map(|b| format!("{:.0}%", b * 100.0))
                .collect::<Vec<_>>()
                .join("/")
        };
        let rss = p
            .peak_rss_bytes
            .map_or("-".into(), |b| format!("{}M", b >> 20));
        let m = &p.median;
        let _ = writeln!(
            out,
            "{:>7} {:>5} {:>5} {:>10.4} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}",
            workers,
            p.concurrency,
            p.jobs,
            p.seconds_per_proof,
            busy,
            ms(m.queue_wait),
            ms(m.synthesis),
            ms(m.prove),
            ms(m.finalize),
            ms(m.verify),
            ms(m.total),
            rss
        );
    }
    out
}

/// Writes the timeline of every point that has one as an SVG picture
/// ([`crate::timeline::render_svg`]): to `path` when there is one such point, else to
/// `<stem>-w<workers>-c<concurrency>.svg` beside it. `what` starts each picture's title
/// (the circuit, say). Returns the files written.
pub fn write_timelines(
    points: &[(usize, SweepPoint)],
    path: &Path,
    what: &str,
) -> std::io::Result<Vec<PathBuf>> {
    let with: Vec<_> = points
        .iter()
        .filter_map(|(w, p)| p.timeline.as_ref().map(|t| (*w, p, t)))
        .collect();
    let mut written = Vec::new();
    for &(workers, point, timeline) in &with {
        let file = if with.len() == 1 {
            path.to_path_buf()
        } else {
            let stem = path.file_stem().unwrap_or_default().to_string_lossy();
            path.with_file_name(format!("{stem}-w{workers}-c{}.svg", point.concurrency))
        };
        let busy: Vec<String> = point
            .gpu_busy
            .iter()
            .map(|b| format!("{:.0}%", b * 100.0))
            .collect();
        let title = format!(
            "{what}: {workers} prover(s) per device, {} jobs in flight, {:.3} s/proof{}",
            point.concurrency,
            point.seconds_per_proof,
            if busy.is_empty() {
                String::new()
            } else {
                format!(", GPU busy {}", busy.join("/"))
            }
        );
        std::fs::write(&file, render_svg(timeline, &title))?;
        written.push(file);
    }
    Ok(written)
}

/// The points as JSON (an array of objects; times in milliseconds).
pub fn to_json(points: &[(usize, SweepPoint)]) -> serde_json::Value {
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    serde_json::Value::Array(
        points
            .iter()
            .map(|(workers, p)| {
                serde_json::json!({
                    "workers": workers,
                    "concurrency": p.concurrency,
                    "jobs": p.jobs,
                    "partitions": p.partitions,
                    "seconds_per_proof": p.seconds_per_proof,
                    "gpu_busy": p.gpu_busy,
                    "median_ms": {
                        "queue_wait": ms(p.median.queue_wait),
                        "srs_load": ms(p.median.srs_load),
                        "synthesis": ms(p.median.synthesis),
                        "prove": ms(p.median.prove),
                        "finalize": ms(p.median.finalize),
                        "verify": ms(p.median.verify),
                        "total": ms(p.median.total),
                    },
                    "peak_rss_bytes": p.peak_rss_bytes,
                })
            })
            .collect(),
    )
}

/// One measured point of a sweep.
#[derive(Clone, Debug)]
pub struct SweepPoint {
    /// Jobs kept in flight.
    pub concurrency: usize,
    /// Jobs run (the first `concurrency` are the warm-up and not timed).
    pub jobs: usize,
    /// Proofs (partitions) per job.
    pub partitions: usize,
    /// Wall seconds per proof in the steady state.
    pub seconds_per_proof: f64,
    /// Per GPU, the fraction of the steady-state wall time its compute lock was held.
    pub gpu_busy: Vec<f64>,
    /// Medians over the timed jobs.
    pub median: JobTimings,
    /// The process's peak resident memory during the point, when the system reports it.
    pub peak_rss_bytes: Option<u64>,
    /// What every engine thread did during the point, when the plan asked for it.
    pub timeline: Option<Timeline>,
}

/// Runs `jobs` jobs made by `request`, `concurrency` at a time, on `engine`. Every job must
/// complete; the first `concurrency` are a warm-up.
pub async fn run_point(
    engine: &Engine,
    request: &dyn Fn() -> ProofRequest,
    concurrency: usize,
    jobs: usize,
) -> Result<SweepPoint, SweepError> {
    let concurrency = concurrency.max(1);
    let jobs = jobs.max(concurrency + 1);
    reset_peak_rss();
    let mut in_flight: VecDeque<JobId> = VecDeque::new();
    let mut submitted = 0;
    let mut results: Vec<JobResult> = Vec::new();
    // When the timed window opened, the GPUs' busy counters then, and the partitions of the
    // timed jobs already proved by then.
    let mut steady: Option<(Instant, Vec<u64>, usize)> = None;
    let mut partitions = 0;
    while results.len() < jobs {
        while in_flight.len() < concurrency && submitted < jobs {
            in_flight.push_back(engine.submit(request())?.job_id);
            submitted += 1;
        }
        let id = in_flight.pop_front().expect("jobs in flight");
        let result = engine
            .await_result(&id, None)
            .await?
            .ok_or_else(|| SweepError::Lost(id.clone()))?;
        if result.state != JobState::Completed {
            return Err(SweepError::JobFailed {
                job: id,
                state: result.state,
                message: result.error.unwrap_or_default(),
            });
        }
        partitions = result.proofs.len();
        results.push(result);
        if results.len() == concurrency {
            let (opened, busy) = (Instant::now(), engine.gpu_busy_ns());
            // The window's work is what is proved inside it. The jobs in flight now (and any
            // already done: results are awaited in submission order, and a later job can end
            // first) have partitions proved before it opened; counted as the window's, they
            // made a point read about 10% faster than it ran (32 GiB PoRep, 3 in flight).
            // Counted after `opened`, so what ends in between is left out: the figure errs
            // slow, not fast.
            let mut proved_before = 0;
            for id in &in_flight {
                proved_before += engine.partitions_proved(id)?;
            }
            steady = Some((opened, busy, proved_before));
        }
    }
    let (start, busy_start, proved_before) = steady.expect("more jobs than the warm-up");
    let wall = start.elapsed();
    let timed = &results[concurrency..];
    let proofs = (timed.len() * partitions)
        .saturating_sub(proved_before)
        .max(1);
    let gpu_busy = engine
        .gpu_busy_ns()
        .iter()
        .zip(&busy_start)
        .map(|(now, then)| (now - then) as f64 / wall.as_nanos().max(1) as f64)
        .collect();
    Ok(SweepPoint {
        concurrency,
        jobs,
        partitions,
        seconds_per_proof: wall.as_secs_f64() / proofs as f64,
        gpu_busy,
        median: median_timings(timed),
        peak_rss_bytes: peak_rss(),
        timeline: None,
    })
}

/// Why a sweep point could not be measured.
#[derive(Debug, thiserror::Error)]
pub enum SweepError {
    #[error(transparent)]
    Engine(#[from] EngineError),
    #[error("job {job} ended {state:?}: {message}")]
    JobFailed {
        job: JobId,
        state: JobState,
        message: String,
    },
    #[error("job {0} was forgotten by the engine")]
    Lost(JobId),
    #[error("sweep plan: {0}")]
    Plan(String),
}

/// The middle value (the upper of the two middle ones for an even count; zero for none).
fn median_of(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v.get(v.len() / 2).copied().unwrap_or_default()
}

fn median_timings(results: &[JobResult]) -> JobTimings {
    let median =
        |f: fn(&JobTimings) -> Duration| median_of(results.iter().map(|r| f(&r.timings)).collect());
    JobTimings {
        queue_wait: median(|t| t.queue_wait),
        srs_load: median(|t| t.srs_load),
        synthesis: median(|t| t.synthesis),
        prove: median(|t| t.prove),
        finalize: median(|t| t.finalize),
        verify: median(|t| t.verify),
        total: median(|t| t.total),
        // Each part's own median (the parts of one job need not be the medians' job).
        gpu: GpuPhases::from_values(std::array::from_fn(|i| {
            median_of(results.iter().map(|r| r.timings.gpu.values()[i]).collect())
        })),
    }
}

/// Resets the kernel's peak-RSS mark of this process (Linux; ignored elsewhere).
fn reset_peak_rss() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

/// The peak resident memory of this process (`VmHWM`), in bytes.
fn peak_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timeline::{Lane, Phase};

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_small_sweep_measures_every_point() {
        let plan = SweepPlan {
            circuit: "mix".into(),
            log_size: 6,
            partitions: 2,
            concurrency: vec![1, 3],
            workers: vec![1, 2],
            timed_jobs: 3,
            timeline: true,
        };
        let mut base = Config::default();
        base.engine.synthesis_threads = 2;
        let params = Arc::new(plan.parameters().unwrap());
        let points = run_sweep(&plan, &base, params).await.unwrap();
        let shape: Vec<(usize, usize, usize)> = points
            .iter()
            .map(|(w, p)| (*w, p.concurrency, p.jobs))
            .collect();
        assert_eq!(shape, [(1, 1, 4), (1, 3, 6), (2, 1, 4), (2, 3, 6)]);
        for (w, p) in &points {
            assert_eq!(p.partitions, 2);
            assert!(p.seconds_per_proof > 0.0);
            assert!(p.median.synthesis > Duration::ZERO && p.median.prove > Duration::ZERO);
            assert!(p.gpu_busy.is_empty(), "CPU backend");
            // Every proof of the point was synthesized and proved on the engine's lanes.
            let timeline = p.timeline.as_ref().expect("a timeline was asked for");
            let count = |phase| timeline.spans.iter().filter(|s| s.phase == phase).count();
            assert_eq!(count(Phase::Synthesis), p.jobs * p.partitions);
            assert_eq!(count(Phase::Prove), p.jobs * p.partitions);
            for s in &timeline.spans {
                assert!(s.start <= s.end && s.end <= timeline.duration, "{s:?}");
                match s.lane {
                    Lane::Synthesis(i) => assert!(i < 2, "{s:?}"),
                    Lane::CpuProver(i) => assert!(i < *w, "{s:?}"),
                    other => panic!("a CPU engine has no lane {other:?}"),
                }
            }
        }
        let table = render_table(&points);
        assert_eq!(table.lines().count(), 5, "{table}");
        let json = to_json(&points);
        assert_eq!(json.as_array().unwrap().len(), 4);
        assert_eq!(json[3]["workers"], 2);
        let dir = tempfile::tempdir().unwrap();
        let files = write_timelines(&points, &dir.path().join("t.svg"), "mix 2^6").unwrap();
        let names: Vec<_> = files
            .iter()
            .map(|f| f.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            names,
            ["t-w1-c1.svg", "t-w1-c3.svg", "t-w2-c1.svg", "t-w2-c3.svg"]
        );
        let svg = std::fs::read_to_string(&files[3]).unwrap();
        assert!(svg.contains("CPU prover 1") && svg.contains("mix 2^6: 2 prover(s)"));
    }

    #[test]
    fn a_circuit_too_small_is_a_plan_error() {
        let plan = SweepPlan {
            circuit: "sha".into(),
            log_size: 3,
            partitions: 1,
            concurrency: vec![1],
            workers: vec![1],
            timed_jobs: 1,
            timeline: false,
        };
        assert!(matches!(plan.parameters(), Err(SweepError::Plan(_))));
    }

    #[tokio::test]
    async fn fewer_timed_jobs_than_in_flight_is_a_plan_error() {
        let plan = SweepPlan {
            circuit: "mix".into(),
            log_size: 6,
            partitions: 1,
            concurrency: vec![2, 16],
            workers: vec![1],
            timed_jobs: 12,
            timeline: false,
        };
        // Refused before the parameters are generated, and by the sweep itself (whatever
        // parameters it is given).
        match plan.parameters() {
            Err(SweepError::Plan(message)) => assert!(message.contains("at least 16"), "{message}"),
            other => panic!("expected a plan error, got {:?}", other.map(|_| ())),
        }
        let runnable = SweepPlan {
            timed_jobs: 16,
            ..plan.clone()
        };
        let params = Arc::new(runnable.parameters().unwrap());
        match run_sweep(&plan, &Config::default(), params).await {
            Err(SweepError::Plan(message)) => assert!(message.contains("at least 16"), "{message}"),
            other => panic!("expected a plan error, got {:?}", other.map(|p| p.len())),
        }
    }
}
