//! The two-lock interlock under load (issue 6): 1 to 4 GPU workers sharing one GPU's locks,
//! fed with one synthesized circuit replayed (copies made ahead by producer threads, so that
//! synthesis is not what limits), each proof's GPU half on a worker and its B_G2 and
//! assembly on one of two finalizers, as the engine does. Benchmark parameters, resident.
//!
//! Per worker count: steady-state seconds per proof (proofs after the first `workers`, by the
//! time their GPU half ended), the GPU busy fraction over that window (kernel time of the
//! proofs in it, from CUDA events, over its length; and the compute lock's own counter over
//! the whole run), the compute time per proof, and a timeline picture
//! (`$OUT/interlock_<circuit>_<workers>w.svg`: one lane per worker with its phases, the
//! finalizers, and the GPU).
//!
//! Each worker count runs twice: with a, b and c computed on the host and uploaded, and with
//! the circuit's constraint matrices resident on the GPU, where a, b and c are evaluated from
//! the witness (the replayed copies then carry the witness only).
//!
//! Usage: `bench_interlock [sha|mix] [LOG] [PROOFS] [host|device|both]` (default sha 22 24
//! both).

use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bellperson_lite::circuits::TestCircuit;
use bellperson_lite::generator::{BenchmarkSrs, CircuitShape};
use bellperson_lite::gpu::{
    device_matrices, device_params, prove_start, G2Placement, GpuTarget, Priority,
};
use bellperson_lite::matrices::{record_matrices, synthesize_witness};
use bellperson_lite::prover::PhaseTimings;
use bellperson_lite::synthesis::{synthesize_circuit, ProvingAssignment};
use blstrs::Scalar;
use cuzk_core::timeline::{gpu_half, render_svg, Lane, Phase, Span, Timeline};
use ff::Field;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use supraseal_c2::groth16::{DeviceMatrices, DeviceParams, GpuLocks};

const FINALIZERS: usize = 2;
/// Threads making the copies of the circuit that stand in for fresh syntheses. A copy of a
/// 2^22 assignment is about 0.6 GB of freshly faulted memory (~0.3 s on one thread): two
/// producers were what limited the first runs, not the GPU.
const PRODUCERS: usize = 8;

/// One proof's timeline, in seconds since the point started.
#[derive(Clone, Debug)]
struct Trace {
    worker: usize,
    taken: f64,
    t: PhaseTimings,
    gpu_end: f64,
    finalizer: usize,
    finish_start: f64,
    finish_end: f64,
}

impl Trace {
    fn kernels(&self) -> f64 {
        self.t.gpu_kernels().as_secs_f64()
    }
}

struct Point {
    workers: usize,
    seconds_per_proof: f64,
    busy_window: f64,
    busy_counter: f64,
    kernels_per_proof: f64,
    traces: Vec<Trace>,
}

fn run_point(
    workers: usize,
    proofs: usize,
    assignment: &ProvingAssignment,
    srs: &Arc<BenchmarkSrs>,
    dp: &DeviceParams,
    matrices: Option<&DeviceMatrices>,
    locks: &GpuLocks,
) -> Result<Point, String> {
    let target = GpuTarget::new(dp)
        .locks(locks)
        .b_g2(G2Placement::Auto)
        .matrices(matrices)
        .priority(Priority::Normal);
    let (input_tx, input_rx) = crossbeam_channel::bounded::<ProvingAssignment>(workers + 1);
    let (done_tx, done_rx) = crossbeam_channel::bounded(FINALIZERS);
    let made = AtomicUsize::new(0);
    let traces = Mutex::new(Vec::new());
    let failure = Mutex::new(None::<String>);
    let busy_before = locks.info().map_err(|e| e.to_string())?.compute_busy_ns;
    let start = Instant::now();
    let since = |t: Instant| t.duration_since(start).as_secs_f64();
    std::thread::scope(|scope| {
        for _ in 0..PRODUCERS {
            let input_tx = input_tx.clone();
            let made = &made;
            scope.spawn(move || {
                while made.fetch_add(1, Ordering::Relaxed) < proofs {
                    if input_tx.send(assignment.clone()).is_err() {
                        return;
                    }
                }
            });
        }
        drop(input_tx);
        for worker in 0..workers {
            let (input_rx, done_tx) = (input_rx.clone(), done_tx.clone());
            let failure = &failure;
            scope.spawn(move || {
                let mut rng = ChaCha20Rng::seed_from_u64(worker as u64);
                for a in input_rx {
                    let taken = Instant::now();
                    let (r, s) = ([Scalar::random(&mut rng)], [Scalar::random(&mut rng)]);
                    match prove_start(target, vec![a], srs, &r, &s) {
                        Ok(pending) => {
                            let gpu_end = Instant::now();
                            if done_tx.send((worker, taken, gpu_end, pending)).is_err() {
                                return;
                            }
                        }
                        Err(e) => {
                            *failure.lock().unwrap() = Some(e.to_string());
                            return;
                        }
                    }
                }
            });
        }
        drop(done_tx);
        for finalizer in 0..FINALIZERS {
            let done_rx = done_rx.clone();
            let (traces, failure) = (&traces, &failure);
            scope.spawn(move || {
                for (worker, taken, gpu_end, pending) in done_rx {
                    let finish_start = Instant::now();
                    match pending.finish() {
                        Ok((_, t)) => traces.lock().unwrap().push(Trace {
                            worker,
                            taken: since(taken),
                            t,
                            gpu_end: since(gpu_end),
                            finalizer,
                            finish_start: since(finish_start),
                            finish_end: since(Instant::now()),
                        }),
                        Err(e) => *failure.lock().unwrap() = Some(e.to_string()),
                    }
                }
            });
        }
    });
    let wall = start.elapsed();
    if let Some(e) = failure.into_inner().unwrap() {
        return Err(e);
    }
    let busy_after = locks.info().map_err(|e| e.to_string())?.compute_busy_ns;
    let mut traces = traces.into_inner().unwrap();
    traces.sort_by(|a, b| a.gpu_end.total_cmp(&b.gpu_end));
    if traces.len() <= workers {
        return Err(format!("only {} proofs", traces.len()));
    }
    // Steady state: from the GPU end of proof `workers` to the last one's.
    let from = traces[workers - 1].gpu_end;
    let to = traces.last().map_or(from, |t| t.gpu_end);
    let window = &traces[workers..];
    let kernels: f64 = window.iter().map(Trace::kernels).sum();
    let mut per_proof: Vec<f64> = traces.iter().map(Trace::kernels).collect();
    per_proof.sort_by(f64::total_cmp);
    Ok(Point {
        workers,
        seconds_per_proof: (to - from) / window.len() as f64,
        busy_window: kernels / (to - from),
        busy_counter: (busy_after - busy_before) as f64 / wall.as_nanos() as f64,
        kernels_per_proof: per_proof[per_proof.len() / 2],
        traces,
    })
}

/// The point's timeline (cuzk-core's renderer): a lane per worker (prep, wait for memory,
/// upload, wait for compute, kernels), a lane per finalizer (B_G2 and assembly), and the
/// GPU's kernels.
fn svg(title: &str, p: &Point) -> String {
    let secs = |t: f64| Duration::from_secs_f64(t.max(0.0));
    let mut spans = Vec::new();
    for (n, t) in p.traces.iter().enumerate() {
        let job = format!("proof {n}");
        let worker = Lane::GpuWorker {
            device: 0,
            worker: t.worker,
        };
        let half = (secs(t.taken), secs(t.gpu_end));
        spans.extend(gpu_half((worker, Lane::Gpu(0)), (&job, 0), half, &t.t));
        spans.push(Span {
            lane: Lane::Finalizer(t.finalizer),
            phase: Phase::Finish,
            job,
            partition: 0,
            start: secs(t.finish_start),
            end: secs(t.finish_end),
        });
    }
    let duration = spans.iter().map(|s| s.end).max().unwrap_or_default();
    render_svg(
        &Timeline {
            spans,
            dropped: 0,
            duration,
        },
        title,
    )
}

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let kind = args.next().unwrap_or_else(|| "sha".into());
    let log: u32 = args.next().and_then(|a| a.parse().ok()).unwrap_or(22);
    let proofs: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(24);
    let modes: &[&str] = match args.next().as_deref() {
        None | Some("both") => &["host", "device"],
        Some("host") => &["host"],
        Some("device") => &["device"],
        Some(other) => {
            eprintln!("evaluations `{other}`: host, device or both");
            return ExitCode::FAILURE;
        }
    };
    let t = Instant::now();
    let circuit = match TestCircuit::by_name(&kind, log, 1) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    let assignment = synthesize_circuit(circuit.clone()).expect("synthesis");
    println!(
        "{kind} 2^{log}: synthesized once in {:.1} s, replayed {proofs} times per point",
        t.elapsed().as_secs_f64()
    );
    let locks = match GpuLocks::new(0, None) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("no GPU: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut rng = ChaCha20Rng::seed_from_u64(7);
    let srs = Arc::new(BenchmarkSrs::new(CircuitShape::of(&assignment), &mut rng).expect("SRS"));
    let dp = device_params(&locks, Arc::clone(&srs)).expect("device parameters");
    let out = std::env::var_os("OUT").map(std::path::PathBuf::from);
    let mut rows = Vec::new();
    for &mode in modes {
        // With matrices on the device, the replayed copies carry the witness only.
        let (input, on_device) = if mode == "device" {
            let t = Instant::now();
            let matrices = record_matrices(circuit.clone()).expect("recording the matrices");
            let witness = matrices
                .witness_assignment(synthesize_witness(circuit.clone()).expect("witness"))
                .expect("witness assignment");
            let dm = device_matrices(&locks, &matrices).expect("matrices on the GPU");
            println!(
                "matrices recorded and put on the GPU in {:.1} s ({:.0} MB of VRAM)",
                t.elapsed().as_secs_f64(),
                dm.bytes() as f64 / 1e6
            );
            (witness, Some(dm))
        } else {
            (assignment.clone(), None)
        };
        for workers in 1..=4 {
            match run_point(
                workers,
                proofs,
                &input,
                &srs,
                &dp,
                on_device.as_ref(),
                &locks,
            ) {
                Ok(p) => {
                    if let Some(dir) = &out {
                        let title = format!(
                            "{kind} 2^{log}, a/b/c on the {mode}, {workers} GPU worker(s), {FINALIZERS} finalizers: {:.1} ms/proof, GPU busy {:.1}%",
                            p.seconds_per_proof * 1e3,
                            p.busy_window * 100.0
                        );
                        let path = dir.join(format!("interlock_{kind}{log}_{mode}_{workers}w.svg"));
                        if let Err(e) = std::fs::write(&path, svg(&title, &p)) {
                            eprintln!("cannot write {}: {e}", path.display());
                        }
                    }
                    rows.push((mode, p));
                }
                Err(e) => {
                    eprintln!("{mode}, {workers} workers: {e}");
                    return ExitCode::FAILURE;
                }
            }
        }
    }
    println!("\n{kind} 2^{log}: steady state after {proofs} replayed proofs per point");
    println!("a,b,c   workers  ms/proof  kernels/proof  ratio  GPU busy (window)  GPU busy (lock counter, whole run)");
    for (mode, p) in &rows {
        println!(
            "{mode:<7} {:>7} {:>9.1} {:>14.1} {:>6.3} {:>17.1}% {:>20.1}%",
            p.workers,
            p.seconds_per_proof * 1e3,
            p.kernels_per_proof * 1e3,
            p.seconds_per_proof / p.kernels_per_proof,
            p.busy_window * 100.0,
            p.busy_counter * 100.0
        );
    }
    ExitCode::SUCCESS
}
