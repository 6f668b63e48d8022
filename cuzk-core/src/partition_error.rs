//! Why a partition was not proved ([`PartitionError`]), and what the engine does about it
//! ([`Response`]), decided here once for every stage and prover.

use bellpepper_core::SynthesisError;
use bellperson_lite::{ProverError, VerifyError};
use supraseal_c2::CudaError;

use crate::srs::SrsError;

/// Why one partition's proof failed. The engine's stages return it; [`PartitionError::response`]
/// says whether the partition is proved again or its job fails, and the job's error is its
/// message, prefixed with the partition's index.
// The device variants are made by devices only (GPUs, fakes in tests).
#[derive(Debug, thiserror::Error)]
pub(crate) enum PartitionError {
    /// Its parameter set is not available.
    #[error("{0}")]
    Parameters(#[from] SrsError),
    /// Its parameters could not be put on a GPU.
    #[cfg_attr(not(feature = "cuda"), allow(dead_code))]
    #[error("parameters of `{circuit_id}` on GPU {ordinal}: {source}")]
    DeviceParameters {
        circuit_id: String,
        ordinal: i32,
        source: ProverError,
    },
    /// The circuit could not be synthesized (a wrong witness, a gadget's error).
    #[error("synthesis failed: {0}")]
    Synthesis(#[from] SynthesisError),
    /// A stage panicked (`stage`: "synthesis", "the GPU worker", "proving", ...).
    #[error("{stage} panicked: {message}")]
    Panicked {
        stage: &'static str,
        message: String,
    },
    /// The prover failed for a reason of the partition itself (constraints not satisfied,
    /// lengths that do not fit the parameters): proving it again fails the same way.
    #[error("{stage} failed: {source}")]
    Prover {
        stage: &'static str,
        source: ProverError,
    },
    /// A GPU's kernel or driver error: it may not repeat, and counts against the device.
    #[cfg_attr(not(any(feature = "cuda", feature = "fake-backend")), allow(dead_code))]
    #[error("GPU {ordinal}: {source}")]
    DeviceFault { ordinal: i32, source: ProverError },
    /// Another GPU library error that may not repeat (the device short of memory, other
    /// work's share of it): worth another try, not counted against the device.
    #[cfg_attr(not(any(feature = "cuda", feature = "fake-backend")), allow(dead_code))]
    #[error("GPU {ordinal}: {source}")]
    DeviceTransient { ordinal: i32, source: ProverError },
    /// The GPU library refused the proof as asked (e.g. more VRAM than the device's budget can
    /// ever hold): the same request fails the same way.
    #[cfg_attr(not(any(feature = "cuda", feature = "fake-backend")), allow(dead_code))]
    #[error("GPU {ordinal}: {source} (not retried: it would fail the same way)")]
    Refused { ordinal: i32, source: ProverError },
    /// A prover gave another number of proofs than the one asked for.
    #[error("{stage} returned {count} proofs instead of one")]
    ProofCount { stage: &'static str, count: usize },
    /// The proof does not verify against the partition's public inputs.
    #[error("the proof failed its self-check")]
    SelfCheck,
    /// The verifier could not run (inputs of the wrong length for the verifying key).
    #[error("the self-check cannot run: {0}")]
    SelfCheckUnrunnable(VerifyError),
}

/// What the engine does with a partition that failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Response {
    /// Fails the job: trying again would fail the same way.
    FailJob,
    /// Proves the partition once more (perhaps on another device); a second failure fails
    /// the job.
    RetryOnce,
}

impl PartitionError {
    /// A GPU half's error on device `ordinal` as the partition's: kernel and driver errors
    /// count against the device, a proof the library refuses as asked is not retried (e.g.
    /// more VRAM than the device's budget can ever hold: trying again would synthesize every
    /// partition first, then fail the same way), other library errors (memory that other
    /// work holds) are retried, and the rest is the partition's own (constraints not
    /// satisfied, wrong lengths).
    #[cfg_attr(not(any(feature = "cuda", feature = "fake-backend")), allow(dead_code))]
    pub(crate) fn from_gpu(ordinal: i32, e: ProverError) -> PartitionError {
        match e {
            ProverError::Gpu(CudaError::Cuda(_)) => {
                PartitionError::DeviceFault { ordinal, source: e }
            }
            ProverError::Gpu(CudaError::InvalidArgument(_)) => {
                PartitionError::Refused { ordinal, source: e }
            }
            ProverError::Gpu(_) => PartitionError::DeviceTransient { ordinal, source: e },
            source => PartitionError::Prover {
                stage: "the GPU half",
                source,
            },
        }
    }

    /// Whether the failure may not repeat (a GPU fault or shortage, a proof that did not
    /// verify) or would (everything about the partition or its request).
    pub(crate) fn response(&self) -> Response {
        match self {
            PartitionError::DeviceFault { .. }
            | PartitionError::DeviceTransient { .. }
            | PartitionError::SelfCheck => Response::RetryOnce,
            PartitionError::Parameters(_)
            | PartitionError::DeviceParameters { .. }
            | PartitionError::Synthesis(_)
            | PartitionError::Panicked { .. }
            | PartitionError::Prover { .. }
            | PartitionError::Refused { .. }
            | PartitionError::ProofCount { .. }
            | PartitionError::SelfCheckUnrunnable(_) => Response::FailJob,
        }
    }

    /// Whether the failure counts against the GPU that ran it (repeated ones take it out of
    /// rotation).
    pub(crate) fn counts_against_device(&self) -> bool {
        matches!(self, PartitionError::DeviceFault { .. })
    }

    /// The job's error after the partition failed this way twice.
    pub(crate) fn second_time(&self) -> String {
        match self {
            PartitionError::SelfCheck => "the proof failed its self-check twice (a wrong \
                                          witness for these public inputs, or a faulty prover)"
                .to_string(),
            other => format!("{other} (twice)"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_faults_that_may_not_repeat_are_retried() {
        let gpu = || ProverError::WorkerPanicked("stand-in".into());
        let retried = [
            PartitionError::DeviceFault {
                ordinal: 0,
                source: gpu(),
            },
            PartitionError::DeviceTransient {
                ordinal: 0,
                source: gpu(),
            },
            PartitionError::SelfCheck,
        ];
        for e in &retried {
            assert_eq!(e.response(), Response::RetryOnce, "{e}");
        }
        let failed = [
            PartitionError::Synthesis(SynthesisError::Unsatisfiable),
            PartitionError::Panicked {
                stage: "synthesis",
                message: "boom".into(),
            },
            PartitionError::Refused {
                ordinal: 1,
                source: gpu(),
            },
            PartitionError::Prover {
                stage: "proving",
                source: ProverError::Unsatisfied { index: 3, total: 9 },
            },
            PartitionError::ProofCount {
                stage: "proving",
                count: 2,
            },
            PartitionError::SelfCheckUnrunnable(VerifyError::InputCount {
                expected: 2,
                actual: 1,
            }),
        ];
        for e in &failed {
            assert_eq!(e.response(), Response::FailJob, "{e}");
        }
        // Only kernel and driver faults count against the device.
        assert!(retried[0].counts_against_device());
        assert!(!retried[1].counts_against_device() && !failed[2].counts_against_device());
    }

    #[test]
    fn gpu_errors_are_classified_by_their_kind() {
        let cuda = |e: CudaError| PartitionError::from_gpu(3, ProverError::Gpu(e));
        let fault = cuda(CudaError::Cuda("an illegal address".into()));
        assert!(fault.counts_against_device());
        assert_eq!(fault.response(), Response::RetryOnce);
        let short = cuda(CudaError::OutOfMemory("held by other work".into()));
        assert!(!short.counts_against_device());
        assert_eq!(short.response(), Response::RetryOnce);
        let refused = cuda(CudaError::InvalidArgument("over the budget".into()));
        assert_eq!(refused.response(), Response::FailJob);
        let own = PartitionError::from_gpu(3, ProverError::Unsatisfied { index: 0, total: 1 });
        assert!(matches!(own, PartitionError::Prover { .. }));
        assert_eq!(own.response(), Response::FailJob);
    }

    #[test]
    fn messages_name_the_stage_and_the_second_failure() {
        let e = PartitionError::Panicked {
            stage: "synthesis",
            message: "boom".into(),
        };
        assert_eq!(e.to_string(), "synthesis panicked: boom");
        assert!(PartitionError::SelfCheck
            .second_time()
            .contains("self-check twice"));
        let fault = PartitionError::DeviceFault {
            ordinal: 2,
            source: ProverError::WorkerPanicked("x".into()),
        };
        assert!(fault.to_string().starts_with("GPU 2: "));
        assert!(fault.second_time().ends_with("(twice)"));
        let refused = PartitionError::Refused {
            ordinal: 0,
            source: ProverError::WorkerPanicked("x".into()),
        };
        assert!(refused.to_string().contains("not retried"));
    }
}
