//! The engine run of `cuzk bench`: a first pair of proofs, then each point with its jobs kept
//! in flight, the optional CRITICAL probe beside it, and the progress line.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use cuzk_core::filecoin::FilecoinJob;
use cuzk_core::sweep::{run_point, SweepPoint};
use cuzk_core::{CircuitProofs, Engine, Priority, ProofRequest};

use super::report::{ProbeSample, Report, Samples};
use super::BenchArgs;

/// Spans kept in the timeline: eight per partition on a GPU.
const TIMELINE_SPANS: usize = 200_000;

/// The wait before the next probe: `every` times a factor drawn from [0.5, 1.5). A fixed
/// period can lock onto the load's own: with 32 GiB PoRep partitions ending every 2.05 s, a
/// probe sent 10 s after the last one ended fell at the same point of a partition's kernels
/// every time, so its 16 latencies were one sample repeated, not a distribution.
fn probe_wait(every: Duration, rng: &mut impl rand::Rng) -> Duration {
    every.mul_f64(rng.gen_range(0.5..1.5))
}

/// Submits the probe about every `every` (see [`probe_wait`]) until `done`, each one awaited
/// before the next: their latencies.
async fn probe_latencies(
    engine: &Engine,
    request: &dyn Fn() -> ProofRequest,
    every: Duration,
    seed: u64,
    done: &AtomicBool,
    completed: &AtomicU64,
) -> Result<Vec<ProbeSample>> {
    let mut rng = <rand::rngs::StdRng as rand::SeedableRng>::seed_from_u64(seed);
    let mut latencies = Vec::new();
    loop {
        let (wait, pause) = (Instant::now(), probe_wait(every, &mut rng));
        loop {
            if done.load(Ordering::Relaxed) {
                return Ok(latencies);
            }
            if wait.elapsed() >= pause {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let submitted = Instant::now();
        let id = engine.submit(request())?.job_id;
        let result = engine
            .await_result(&id, None)
            .await?
            .with_context(|| format!("probe job {id} was forgotten by the engine"))?;
        if result.state != cuzk_core::JobState::Completed {
            bail!(
                "probe job {id} ended {:?}: {}",
                result.state,
                result.error.unwrap_or_default()
            );
        }
        completed.fetch_add(1, Ordering::Relaxed);
        latencies.push(ProbeSample {
            latency: submitted.elapsed(),
            timings: result.timings,
        });
    }
}

pub(super) async fn measure(
    args: &BenchArgs,
    config: cuzk_core::Config,
    job: FilecoinJob,
    probe: Option<FilecoinJob>,
    timed: usize,
    checkpoint: &dyn Fn(&Report) -> Result<()>,
) -> Result<Report> {
    let engine = tokio::task::spawn_blocking(move || Engine::start(config))
        .await
        .context("the engine's start-up task failed")?
        .context("starting the engine")?;
    let status = engine.status();
    let backend = if status.gpus.is_empty() {
        format!("CPU ({} provers)", status.cpu_provers)
    } else {
        let names: Vec<&str> = status.gpus.iter().map(|g| g.name.as_str()).collect();
        format!("{} GPU(s): {}", names.len(), names.join(", "))
    };
    println!(
        "engine: {backend}, {} synthesis threads, RAM budget {:.1} GiB",
        status.synthesis_threads,
        status.memory_budget_bytes as f64 / (1u64 << 30) as f64
    );
    let partitions = job.partitions.len();
    let request = || ProofRequest {
        request_id: None,
        circuit_id: job.circuit_id.clone(),
        priority: Priority::Normal,
        work: Box::new(CircuitProofs::new(job.kind, job.partitions.clone())),
    };
    if args.timeline.is_some() {
        engine.record_timeline(TIMELINE_SPANS);
    }

    // The first proof loads the parameters and records the circuit's matrices.
    let first = Instant::now();
    let jobs = if args.skip_alone { 1 } else { 2 };
    let point = with_progress(
        &engine,
        "first proofs",
        jobs,
        &AtomicU64::new(0),
        run_point(&engine, &request, 1, jobs),
    )
    .await?;
    // Two jobs one at a time (unless --skip-alone): the first loads the parameters and
    // records the matrices, the second is timed alone, so the first's own time is the
    // difference.
    let (first_proof, alone) = if args.skip_alone {
        let first_proof = first.elapsed();
        println!(
            "first proof: {:.1} s (parameters loaded, matrices recorded)",
            first_proof.as_secs_f64()
        );
        (first_proof, None)
    } else {
        let second = point.0.median.total;
        let first_proof = first.elapsed().saturating_sub(second);
        println!(
            "first proof: {:.1} s (parameters loaded, matrices recorded); the second, alone: \
             {:.1} s",
            first_proof.as_secs_f64(),
            second.as_secs_f64()
        );
        (first_proof, Some(point))
    };
    let probe_request = probe.as_ref().map(|probe| {
        move || ProofRequest {
            request_id: None,
            circuit_id: probe.circuit_id.clone(),
            priority: Priority::Critical,
            work: Box::new(CircuitProofs::new(probe.kind, probe.partitions.clone())),
        }
    });
    if let Some(request) = &probe_request {
        // Its parameters loaded and matrices recorded before anything is timed.
        run_point(&engine, request, 1, 2).await?;
    }
    let mut report = Report {
        backend,
        partitions,
        first_proof,
        alone,
        points: Vec::new(),
        timeline: None,
        complete: false,
    };
    // A production-size run takes many minutes and may be stopped (a machine lent for a
    // while, an operator's Ctrl-C): what was measured so far is written as it comes.
    checkpoint(&report)?;
    for &c in &args.in_flight {
        let label = format!("{c} in flight");
        let run = run_point(&engine, &request, c, c + timed);
        let done = AtomicBool::new(false);
        // The probe's jobs end too: the progress line counts only the point's.
        let probes_done = AtomicU64::new(0);
        let measured = async {
            let point = with_progress(&engine, &label, c + timed, &probes_done, run).await;
            done.store(true, Ordering::Relaxed);
            point
        };
        let probing = async {
            match &probe_request {
                Some(request) => {
                    probe_latencies(
                        &engine,
                        request,
                        args.probe_every,
                        args.seed,
                        &done,
                        &probes_done,
                    )
                    .await
                }
                None => Ok(Vec::new()),
            }
        };
        let ((point, mut samples), probes) = {
            let (point, probes) = tokio::join!(measured, probing);
            (point?, probes?)
        };
        samples.probes = probes;
        report.points.push((point, samples));
        checkpoint(&report)?;
    }
    report.timeline = engine.take_timeline();
    report.complete = true;
    engine.shutdown(Duration::from_secs(600)).await;
    Ok(report)
}

/// Runs `point` while sampling, once a second, how many jobs have ended and what the machine
/// holds, and saying so on stderr: a progress line redrawn in place on a terminal, a line every
/// ten seconds otherwise (a log file).
async fn with_progress(
    engine: &Engine,
    label: &str,
    jobs: usize,
    probes_done: &AtomicU64,
    point: impl std::future::Future<Output = Result<SweepPoint, cuzk_core::sweep::SweepError>>,
) -> Result<(SweepPoint, Samples)> {
    use std::io::IsTerminal;
    let terminal = std::io::stderr().is_terminal();
    let start = Instant::now();
    let ended_before = engine.status().total_completed;
    let mut samples = Samples::default();
    tokio::pin!(point);
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    let mut ticks = 0u64;
    loop {
        tokio::select! {
            result = &mut point => {
                if terminal {
                    eprintln!();
                }
                return Ok((result?, samples));
            }
            _ = tick.tick() => {
                let status = engine.status();
                // Anonymous memory is what the host cannot reclaim: RSS also counts the pages
                // of the mapped parameter files, which the kernel drops under pressure.
                let (rss, anon) = memory_bytes();
                samples.peak_anon_rss_bytes = samples.peak_anon_rss_bytes.max(anon);
                for gpu in &status.gpus {
                    samples.peak_vram_bytes = samples
                        .peak_vram_bytes
                        .max(gpu.vram_total_bytes.saturating_sub(gpu.vram_free_bytes));
                }
                ticks += 1;
                if !terminal && !ticks.is_multiple_of(10) {
                    continue;
                }
                let done = status
                    .total_completed
                    .saturating_sub(ended_before)
                    .saturating_sub(probes_done.load(Ordering::Relaxed));
                let width = 30;
                let filled = (done as usize * width / jobs.max(1)).min(width);
                let line = format!(
                    "  {label}: [{}{}] {done}/{jobs} jobs, {:.0} s, RSS {:.1} GiB ({:.1} \
                     anonymous), {} synthesizing",
                    "#".repeat(filled),
                    " ".repeat(width - filled),
                    start.elapsed().as_secs_f64(),
                    rss as f64 / (1u64 << 30) as f64,
                    anon as f64 / (1u64 << 30) as f64,
                    status.synthesizing,
                );
                if terminal {
                    eprint!("\r{line}   ");
                } else {
                    eprintln!("{line}");
                }
            }
        }
    }
}

/// This process's resident memory and the anonymous part of it, in bytes, from one read of
/// `/proc/self/status` (Linux; zeros elsewhere).
fn memory_bytes() -> (u64, u64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
            .map_or(0, |kib| kib * 1024)
    };
    (field("VmRSS:"), field("RssAnon:"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probe_waits_vary_around_the_period() {
        let mut rng = <rand::rngs::StdRng as rand::SeedableRng>::seed_from_u64(7);
        let every = Duration::from_secs(10);
        let waits: Vec<Duration> = (0..200).map(|_| probe_wait(every, &mut rng)).collect();
        assert!(waits.iter().all(|w| *w >= every / 2 && *w < every * 3 / 2));
        // Spread over the range, not one value: both ends are reached.
        assert!(waits.iter().any(|w| *w < Duration::from_secs(6)));
        assert!(waits.iter().any(|w| *w > Duration::from_secs(14)));
    }
}
