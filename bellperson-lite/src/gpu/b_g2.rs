//! B's G2 sum: where it runs per circuit ([`place_b_g2`]), and for the circuits placed on the
//! CPU, the thread that computes it beside the GPU part ([`G2Worker`]).

use std::sync::Arc;
use std::time::{Duration, Instant};

use blstrs::G2Projective;
use supraseal_c2::groth16::DeviceParams;
use supraseal_c2::split::MsmSplit;

use super::witness::HostWitness;
use crate::error::{panic_message, ProverError};
use crate::msm::{msm_g2, msm_g2_split};
use crate::params::ProvingKey;
use crate::placement::{b_g2_on_gpu_estimate, G2Placement, GpuKernels};

/// What the B_G2 thread returns: the sums of the circuits placed on the CPU (`None` for the
/// others), and the time it took.
pub(super) type CpuG2Sums = Result<(Vec<Option<G2Projective>>, Duration), ProverError>;

/// For the B_G2 thread: per circuit whose B_G2 sum runs on the CPU, what it is computed from
/// (`None` for the others).
pub(super) type G2Inputs = Vec<Option<G2Input>>;

/// What a circuit's B_G2 sum on the CPU is computed from.
pub(super) enum G2Input {
    /// The host split of B's G1 query, whose points are B_G2's in the same order: the values
    /// are not read again, and the thread holds only the split (for a bit witness, a bitmap
    /// and a few values), not the witness.
    Split(Arc<MsmSplit>),
    /// The witness, for a circuit the GPU splits: read through B's densities.
    Witness(Arc<HostWitness>),
}

/// Where B_G2's CPU sums are computed: a thread of its own, whose parallel parts use rayon's
/// global pool; or, for a proof started inside another rayon pool (the engine runs CRITICAL
/// proofs on a pool of their own), a task of that pool, so that they do not queue behind the
/// global pool's work.
pub(super) enum G2Worker {
    Thread(std::thread::JoinHandle<CpuG2Sums>),
    InPool(std::sync::mpsc::Receiver<std::thread::Result<CpuG2Sums>>),
}

impl G2Worker {
    pub fn start(work: impl FnOnce() -> CpuG2Sums + Send + 'static) -> Result<Self, ProverError> {
        if rayon::current_thread_index().is_some() {
            let (tx, rx) = std::sync::mpsc::sync_channel(1);
            // The receiver may be gone (the proof failed first); the result is then unused.
            rayon::spawn(move || {
                let _ = tx.send(std::panic::catch_unwind(std::panic::AssertUnwindSafe(work)));
            });
            return Ok(G2Worker::InPool(rx));
        }
        std::thread::Builder::new()
            .name("cuzk-b-g2".into())
            .spawn(work)
            .map(G2Worker::Thread)
            .map_err(|e| ProverError::WorkerPanicked(format!("cannot start the B_G2 thread: {e}")))
    }

    /// Its sums, once computed; a panic is an error naming it.
    pub fn join(self) -> CpuG2Sums {
        let outcome = match self {
            G2Worker::Thread(handle) => handle.join(),
            G2Worker::InPool(rx) => rx
                .recv()
                .unwrap_or_else(|_| Err(Box::new("the B_G2 task ended without a result"))),
        };
        outcome.map_err(|panic| ProverError::WorkerPanicked(panic_message(panic.as_ref())))?
    }
}

/// Per circuit, whether its B_G2 sum runs on the GPU: as `b_g2` says, `Auto` by
/// [`b_g2_on_gpu_estimate`] from the B split's ones and other values over all of rayon's
/// threads, `AutoWithThreads` over the threads it names (on the CPU when the device has no
/// b_g2), beside the kernels' pace the device parameters measured (estimated from the domain
/// before their first proof). `Gpu` without b_g2 on the device is an error.
pub(super) fn place_b_g2(
    b_g2: G2Placement,
    device_params: &DeviceParams,
    b_counts: &[(usize, usize)],
) -> Result<Vec<bool>, ProverError> {
    if b_g2 == G2Placement::Gpu && !device_params.has_b_g2() {
        return Err(ProverError::G2Placement(
            "B's G2 sum was asked to run on the GPU, but the device parameters were made \
             without b_g2 (G2Placement::Cpu)"
                .into(),
        ));
    }
    let domain = device_params.domain();
    let kernels = match device_params.kernel_pace_ns() {
        Some(ns_per_element) => GpuKernels::Measured {
            domain,
            ns_per_element,
        },
        None => GpuKernels::Estimated { domain },
    };
    let auto = |(ones, others): (usize, usize), threads: usize| {
        device_params.has_b_g2() && b_g2_on_gpu_estimate(ones, others, threads, kernels)
    };
    Ok(b_counts
        .iter()
        .map(|&b| match b_g2 {
            G2Placement::Cpu => false,
            G2Placement::Gpu => true,
            G2Placement::Auto => auto(b, rayon::current_num_threads()),
            G2Placement::AutoWithThreads(threads) => auto(b, threads),
        })
        .collect())
}

/// B's G2 sum of every circuit given (`None` for those placed on the GPU), as the CPU
/// prover computes it, and the time it took.
pub(super) fn b_g2_sums<P: ProvingKey + ?Sized>(params: &P, circuits: &G2Inputs) -> CpuG2Sums {
    let start = Instant::now();
    let mut out = Vec::with_capacity(circuits.len());
    for c in circuits {
        out.push(match c {
            None => None,
            Some(G2Input::Split(split)) => Some(msm_g2_split(params.b_g2(), split)?),
            Some(G2Input::Witness(w)) => {
                let (b2_inputs, b2_aux) = params
                    .b_g2()
                    .split_at(w.b_input_density.count_ones().min(params.b_g2().len()));
                Some(
                    msm_g2(b2_inputs, &w.inputs, Some(&w.b_input_density))?
                        + msm_g2(b2_aux, &w.aux, Some(&w.b_aux_density))?,
                )
            }
        });
    }
    Ok((out, start.elapsed()))
}
