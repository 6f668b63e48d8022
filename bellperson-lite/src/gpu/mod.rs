//! The GPU backend (feature `cuda`): the same contract as [`crate::prover`]'s
//! `prove_from_assignments`, with H, L, A and B in G1 on the GPU, and B in G2 either on the
//! GPU too or on the CPU meanwhile (per circuit, see [`G2Placement`]). For the same inputs
//! the proof bytes are the CPU backend's.
//!
//! [`prove_start`] checks the batch, has the scalars split (zero / one / other) on the CPU or,
//! for a witness of mostly full-width values, hands the GPU the witness to split itself
//! ([`SplitPlacement`]), decides where each circuit's B_G2 sum runs, starts the CPU ones on a
//! thread of its own, and runs the GPU part (under the GPU's locks); it returns when the GPU
//! no longer needs the host's buffers, which a thread of their own then frees. The
//! [`GpuPending`] it returns owns everything the B_G2 thread reads (on the heap, shared with
//! that thread), so it can be finished on any thread: [`GpuPending::finish`] joins the thread
//! and assembles the proofs.
//!
//! With the circuit shape's constraint matrices on the device ([`device_matrices`],
//! [`GpuTarget::matrices`]) the assignments carry only the witness
//! ([`ConstraintMatrices::witness_assignment`]): the GPU takes it whole or rebuilds it from the
//! l and a splits it uploads anyway, and evaluates a, b and c itself, so the host neither
//! computes nor uploads those three domain-sized vectors. The proofs are the same bytes.
//!
//! [`ConstraintMatrices::witness_assignment`]: crate::matrices::ConstraintMatrices::witness_assignment
//!
//! Layout:
//! - `device`: what a GPU keeps across proofs (parameter sets, constraint matrices);
//! - `b_g2`: where B's G2 sum runs, and the CPU thread that computes it there;
//! - `witness`: the witness shared with that thread, and its host splits.

use std::sync::Arc;
use std::time::{Duration, Instant};

use blstrs::Scalar;
use rayon::prelude::*;
/// Whether a batch takes the GPU in turn or runs beside the other proofs ([`GpuTarget::priority`]).
pub use supraseal_c2::groth16::Priority;
use supraseal_c2::groth16::{
    self, CircuitInputs, DeviceMatrices, DeviceParams, Evaluations, GpuLocks, PendingGpu, Scalars,
    UploadSignal,
};
use supraseal_c2::CudaError;

use crate::error::ProverError;
use crate::params::ProvingKey;
pub use crate::placement::{
    b_g2_on_gpu_estimate, G2Placement, GpuKernels, SplitPlacement, WitnessSample,
};
use crate::proof::Proof;
use crate::prover::{assemble, check_batch, check_batch_with_constraints, PhaseTimings};
use crate::release::Release;
use crate::synthesis::ProvingAssignment;

mod b_g2;
mod device;
mod witness;

use b_g2::{b_g2_sums, place_b_g2, G2Input, G2Inputs, G2Worker};
pub use device::{
    device_matrices, device_params, device_params_with, matrices_ref, streamed_device_matrices,
};
pub use witness::split_scalars;
use witness::{split_on_host, HostSplits, HostWitness};

/// A batch whose GPU part is done and whose B_G2 sums are being computed.
pub struct GpuPending<P: ProvingKey + Send + Sync + 'static> {
    assembly: PendingAssembly<P>,
    /// The thread freeing what the GPU part no longer needs (see [`Release`]).
    release: Release,
}

/// What the proofs are assembled from once the GPU's sums and B_G2's are in.
struct PendingAssembly<P: ProvingKey + Send + Sync + 'static> {
    params: Arc<P>,
    gpu: PendingGpu,
    b_g2: G2Worker,
    r_s: Vec<Scalar>,
    s_s: Vec<Scalar>,
    timings: PhaseTimings,
    started: Instant,
    /// Per circuit, for the message of an unsatisfied one.
    num_constraints: Vec<usize>,
}

/// Where and how [`prove_start`] runs a batch's GPU part: made with [`GpuTarget::new`] (the
/// device parameters' own locks, B_G2 placed by [`G2Placement::Auto`], a, b and c from the
/// host, the GPU taken in turn), then changed field by field.
#[derive(Clone, Copy, Debug)]
pub struct GpuTarget<'a> {
    /// The parameter set's vectors on the GPU.
    pub device_params: &'a DeviceParams,
    /// `None`: those `device_params` was made with, or the device's process-wide ones.
    pub locks: Option<&'a GpuLocks>,
    pub b_g2: G2Placement,
    /// The circuit shape's matrices on the same GPU ([`device_matrices`]): then every
    /// assignment must have a, b and c left empty
    /// ([`crate::matrices::ConstraintMatrices::witness_assignment`]), and the GPU evaluates
    /// them from the witness, which saves the host computing and uploading three domain-sized
    /// vectors.
    pub matrices: Option<&'a DeviceMatrices>,
    /// Whether the batch takes the GPU in turn with other proofs, or, for a proof with a
    /// deadline, runs beside them ([`Priority::Urgent`]).
    pub priority: Priority,
    /// Where each circuit's l, a and b_g1 scalars are split.
    pub splits: SplitPlacement,
}

impl<'a> GpuTarget<'a> {
    /// The GPU holding `device_params`, with the defaults above.
    pub fn new(device_params: &'a DeviceParams) -> GpuTarget<'a> {
        GpuTarget {
            device_params,
            locks: None,
            b_g2: G2Placement::Auto,
            matrices: None,
            priority: Priority::Normal,
            splits: SplitPlacement::Auto,
        }
    }

    /// Under `locks` (those of the device `device_params` is on).
    pub fn locks(self, locks: &'a GpuLocks) -> GpuTarget<'a> {
        GpuTarget {
            locks: Some(locks),
            ..self
        }
    }

    /// B_G2's sum placed by `b_g2` (`G2Placement::Gpu` needs device parameters made with
    /// b_g2).
    pub fn b_g2(self, b_g2: G2Placement) -> GpuTarget<'a> {
        GpuTarget { b_g2, ..self }
    }

    /// a, b and c evaluated on the GPU from `matrices` (when `Some`).
    pub fn matrices(self, matrices: Option<&'a DeviceMatrices>) -> GpuTarget<'a> {
        GpuTarget { matrices, ..self }
    }

    /// The batch takes the GPU in turn, or runs beside the other proofs.
    pub fn priority(self, priority: Priority) -> GpuTarget<'a> {
        GpuTarget { priority, ..self }
    }

    /// The scalars split where `splits` says.
    pub fn splits(self, splits: SplitPlacement) -> GpuTarget<'a> {
        GpuTarget { splits, ..self }
    }
}

/// The first half of a GPU proof, on `target`: checks, CPU preparation, B_G2 started, GPU
/// part run. [`GpuPending::finish`] is the second.
pub fn prove_start<P>(
    target: GpuTarget<'_>,
    assignments: Vec<ProvingAssignment>,
    params: &Arc<P>,
    r_s: &[Scalar],
    s_s: &[Scalar],
) -> Result<GpuPending<P>, ProverError>
where
    P: ProvingKey + Send + Sync + 'static,
{
    let GpuTarget {
        device_params,
        locks,
        b_g2,
        matrices,
        priority,
        splits: split_placement,
    } = target;
    let started = Instant::now();
    match matrices {
        None => {
            check_batch(&assignments, params.as_ref(), r_s, s_s)?;
        }
        Some(m) => check_witness_batch(&assignments, m, params.as_ref(), r_s, s_s)?,
    }
    let expected = [
        params.h().len(),
        params.l().len(),
        params.a().len(),
        params.b_g1().len(),
    ];
    if device_params.lens() != expected {
        return Err(ProverError::ParamsMismatch {
            what: "device parameters (made from another parameter set?)",
            expected: expected.iter().sum(),
            actual: device_params.lens().iter().sum(),
        });
    }

    let num_constraints: Vec<usize> = assignments
        .iter()
        .map(|a| matrices.map_or(a.num_constraints(), DeviceMatrices::num_constraints))
        .collect();
    let mut evaluations = Vec::with_capacity(assignments.len());
    let mut witnesses = Vec::with_capacity(assignments.len());
    for a in assignments {
        evaluations.push(ProvingAssignment {
            a: a.a,
            b: a.b,
            c: a.c,
            ..ProvingAssignment::default()
        });
        witnesses.push(Arc::new(HostWitness {
            inputs: a.input_assignment,
            aux: a.aux_assignment,
            a_aux_density: a.a_aux_density,
            b_input_density: a.b_input_density,
            b_aux_density: a.b_aux_density,
        }));
    }
    // Per circuit, the host's splits (`None` for a witness the GPU splits), and B's ones and
    // other values as B_G2's placement weighs them: counted by the host's split, else
    // estimated from the witness's sample.
    let (mut host_splits, b_counts): (Vec<Option<HostSplits>>, Vec<(usize, usize)>) = witnesses
        .par_iter()
        .map(|w| {
            let sample = match split_placement {
                SplitPlacement::Host => None,
                SplitPlacement::Gpu => Some(WitnessSample::of(&w.aux)),
                SplitPlacement::Auto => {
                    Some(WitnessSample::of(&w.aux)).filter(WitnessSample::split_on_gpu)
                }
            };
            Ok(match sample {
                Some(sample) => (None, sample.estimate(params.b_g1().len())),
                None => {
                    let split = split_on_host(w, params.as_ref())?;
                    let b = (split.2.ones_count(), split.2.other_index.len());
                    (Some(split), b)
                }
            })
        })
        .collect::<Result<Vec<_>, ProverError>>()?
        .into_iter()
        .unzip();
    let on_gpu = place_b_g2(b_g2, device_params, &b_counts)?;

    // B in G2 on the CPU (for the circuits not placed on the GPU), on its own thread, while
    // the GPU works. It starts once the uploads are done: beside them it takes the cores and
    // memory bandwidth the staging copies need, and the GPU's kernels still leave it time to
    // finish.
    let g2_inputs: G2Inputs = witnesses
        .iter()
        .zip(&host_splits)
        .zip(&on_gpu)
        .map(|((w, split), &gpu)| {
            (!gpu).then(|| match split {
                Some((_, _, b)) => G2Input::Split(Arc::clone(b)),
                None => G2Input::Witness(Arc::clone(w)),
            })
        })
        .collect();
    let uploaded = Arc::new(UploadSignal::new());
    let b_g2 = {
        let params = Arc::clone(params);
        let uploaded = Arc::clone(&uploaded);
        G2Worker::start(move || {
            uploaded.wait();
            b_g2_sums(params.as_ref(), &g2_inputs)
        })?
    };
    let mut timings = PhaseTimings {
        prep: started.elapsed(),
        ..PhaseTimings::default()
    };

    // Whether every constraint holds is checked on the GPU, before H overwrites a, b and c
    // (reported by GpuPending::finish).
    let run = |host_splits: &[Option<HostSplits>]| {
        let circuits: Vec<CircuitInputs<'_>> = evaluations
            .iter()
            .zip(host_splits.iter().zip(&witnesses))
            .zip(&on_gpu)
            .map(|((e, (split, w)), &b_g2_on_gpu)| CircuitInputs {
                evaluations: match matrices {
                    Some(m) => Evaluations::Device(m),
                    None => Evaluations::Host {
                        a: &e.a,
                        b: &e.b,
                        c: &e.c,
                    },
                },
                scalars: match split {
                    Some((l, a_query, b_g1)) => Scalars::Split {
                        l,
                        a_query,
                        b_g1: b_g1.as_ref(),
                    },
                    None => Scalars::Witness(w.view()),
                },
                b_g2_on_gpu,
            })
            .collect();
        groth16::start(locks, device_params, &circuits, priority, Some(&uploaded))
    };
    let mut result = run(&host_splits);
    if let Err(CudaError::SplitOnHost(_)) = result {
        // The GPU's budget puts these proofs on the bounded plan: split on the host after all.
        // (The refused call has set `uploaded` already, so a B_G2 sum on the CPU may now run
        // beside these splits and the uploads: slower, in this rare case, not wrong.)
        let again = Instant::now();
        let filled: Result<Vec<_>, ProverError> = host_splits
            .par_iter_mut()
            .zip(&witnesses)
            .map(|(split, w)| {
                if split.is_none() {
                    *split = Some(split_on_host(w, params.as_ref())?);
                }
                Ok(())
            })
            .collect();
        if let Err(e) = filled {
            // Let the B_G2 thread end before reporting; its result is not needed.
            uploaded.set();
            let _ = b_g2.join();
            return Err(e);
        }
        timings.prep += again.elapsed();
        result = run(&host_splits);
    }
    let gpu = match result {
        Ok(gpu) => gpu,
        Err(e) => {
            // Let the B_G2 thread end before reporting; its result is not needed.
            let _ = b_g2.join();
            return Err(e.into());
        }
    };
    timings.witness_split_on_gpu = host_splits.iter().filter(|s| s.is_none()).count();
    // The GPU is done with a, b and c, the splits and the witness (the B_G2 thread holds its
    // own references to the B splits and witnesses it reads).
    let release = Release::start((evaluations, host_splits, witnesses));

    Ok(GpuPending {
        assembly: PendingAssembly {
            params: Arc::clone(params),
            gpu,
            b_g2,
            r_s: r_s.to_vec(),
            s_s: s_s.to_vec(),
            timings,
            started,
            num_constraints,
        },
        release,
    })
}

impl<P: ProvingKey + Send + Sync + 'static> GpuPending<P> {
    /// The second half: waits for B_G2 and assembles the proofs, in circuit order, and for
    /// the proof's large host buffers to be freed ([`Release`]) before it returns.
    pub fn finish(self) -> Result<(Vec<Proof>, PhaseTimings), ProverError> {
        let (proofs, timings, release) = self.finish_before_release()?;
        release.wait();
        Ok((proofs, timings))
    }

    /// As [`GpuPending::finish`], but the proofs come as soon as they are assembled, while
    /// the thread freeing the proof's host buffers (the witness, a, b and c, the splits) may
    /// still run: unmapping them takes about as long as the GPU's kernels (sha 2^24, H100:
    /// about 120 ms after 148 ms of kernels; 2^26 about 460 ms), so a caller that delivers
    /// the proofs first, then waits on the [`Release`] before giving back the RAM they held,
    /// takes it off the proof's latency. On an error the buffers are freed before it returns.
    pub fn finish_before_release(self) -> Result<(Vec<Proof>, PhaseTimings, Release), ProverError> {
        let GpuPending { assembly, release } = self;
        match assembly.assemble() {
            Ok((proofs, timings)) => Ok((proofs, timings, release)),
            Err(e) => {
                release.wait();
                Err(e)
            }
        }
    }
}

impl<P: ProvingKey + Send + Sync + 'static> PendingAssembly<P> {
    /// Waits for the GPU's sums and B_G2's, and assembles the proofs in circuit order.
    fn assemble(self) -> Result<(Vec<Proof>, PhaseTimings), ProverError> {
        let PendingAssembly {
            params,
            gpu,
            b_g2,
            r_s,
            s_s,
            mut timings,
            started,
            num_constraints,
        } = self;
        let batch = gpu.finish()?;
        if let Some((index, total)) = batch
            .unsatisfied
            .iter()
            .zip(&num_constraints)
            .find_map(|(first, total)| first.map(|i| (i, *total)))
        {
            let _ = b_g2.join();
            return Err(ProverError::Unsatisfied {
                index: usize::try_from(index).unwrap_or(usize::MAX),
                total,
            });
        }
        let (sums, gpu) = (batch.sums, batch.timings);
        let (cpu_g2_sums, cpu_g2_time) = b_g2.join()?;
        let ms = |v: f32| Duration::from_secs_f64(f64::from(v) / 1e3);
        timings.upload = ms(gpu.wait_memory_ms + gpu.upload_ms + gpu.wait_compute_ms);
        timings.wait_memory = ms(gpu.wait_memory_ms);
        timings.wait_compute = ms(gpu.wait_compute_ms);
        timings.abc = ms(gpu.abc_ms);
        timings.ntt = ms(gpu.ntt_ms);
        timings.msm_h = ms(gpu.msm_h_ms);
        timings.msm_l = ms(gpu.msm_l_ms);
        timings.msm_a = ms(gpu.msm_a_ms);
        timings.msm_b_g1 = ms(gpu.msm_b_g1_ms);
        // B_G2's time: the CPU thread's and the GPU kernels' (each is zero when no circuit
        // of the batch ran there).
        timings.msm_b_g2_gpu = ms(gpu.msm_b_g2_ms);
        timings.gpu_setup = ms(gpu.setup_ms);
        timings.gpu_queued = ms(gpu.queued_ms);
        timings.gpu_results = ms(gpu.results_ms);
        timings.msm_b_g2 = cpu_g2_time + timings.msm_b_g2_gpu;
        timings.chunk_points = gpu.chunk_points;
        let assembly = Instant::now();
        let proofs = sums
            .iter()
            .zip(cpu_g2_sums)
            .zip(r_s.iter().zip(&s_s))
            .map(|((g, cpu_b_g2), (r, s))| {
                let b_g2 = g.b_g2.or(cpu_b_g2).ok_or_else(|| {
                    ProverError::G2Placement("a circuit's B_G2 sum was computed nowhere".into())
                })?;
                Ok(assemble(
                    params.as_ref(),
                    *r,
                    *s,
                    g.a,
                    g.b_g1,
                    b_g2,
                    g.h,
                    g.l,
                ))
            })
            .collect::<Result<Vec<Proof>, ProverError>>()?;
        timings.assembly = assembly.elapsed();
        timings.total = started.elapsed();
        Ok((proofs, timings))
    }
}

/// [`check_batch`] for assignments whose a, b and c the GPU evaluates from `matrices`: they
/// must have none, and the witness shape the matrices' (the domain then follows from the
/// matrices' constraint count).
fn check_witness_batch<P: ProvingKey + ?Sized>(
    assignments: &[ProvingAssignment],
    matrices: &DeviceMatrices,
    params: &P,
    r_s: &[Scalar],
    s_s: &[Scalar],
) -> Result<(), ProverError> {
    for (index, a) in assignments.iter().enumerate() {
        if !(a.a.is_empty() && a.b.is_empty() && a.c.is_empty()) {
            return Err(ProverError::ShapeMismatch {
                index,
                what: "a, b and c (given, although the GPU evaluates the matrices)",
            });
        }
        for (what, expected, actual) in [
            (
                "inputs (device matrices)",
                matrices.num_inputs(),
                a.input_assignment.len(),
            ),
            (
                "aux variables (device matrices)",
                matrices.num_aux(),
                a.aux_assignment.len(),
            ),
        ] {
            if expected != actual {
                return Err(ProverError::ParamsMismatch {
                    what,
                    expected,
                    actual,
                });
            }
        }
    }
    check_batch_with_constraints(assignments, matrices.num_constraints(), params, r_s, s_s)?;
    Ok(())
}
