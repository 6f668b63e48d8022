//! The engine's typed errors.

use crate::config::ConfigError;
use crate::job::JobId;
use crate::kind::RequestError;
use crate::srs::SrsError;

/// Why the engine refused a call.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The queue holds `capacity` jobs already: retry later.
    #[error("the queue is full ({capacity} jobs waiting); retry later")]
    QueueFull { capacity: usize },
    /// The engine is shutting down and takes no new work.
    #[error("the engine is shutting down and accepts no new jobs")]
    ShuttingDown,
    #[error("unknown job {0}")]
    UnknownJob(JobId),
    /// A request that can never succeed (it names the problem).
    #[error("invalid request: {0}")]
    InvalidRequest(#[from] RequestError),
    #[error(transparent)]
    Srs(#[from] SrsError),
    /// A thread the engine needs could not be started.
    #[error("cannot start the engine's {what} thread: {source}")]
    Spawn {
        what: &'static str,
        source: std::io::Error,
    },
    /// A Filecoin request refused, or Filecoin's parameter names not computable.
    #[cfg(feature = "filecoin")]
    #[error(transparent)]
    Filecoin(#[from] crate::filecoin::FilecoinError),
    /// A GPU the engine was to use could not be opened (`None`: the devices could not be
    /// counted).
    #[error("no GPU could be used: {}{source}", ordinal.map(|d| format!("GPU {d}: ")).unwrap_or_default())]
    Gpu {
        ordinal: Option<i32>,
        source: supraseal_c2::CudaError,
    },
    /// `gpus.devices` lists a device this machine does not have.
    #[error("gpus.devices lists device {listed}, but this machine has {count} GPU(s)")]
    NoSuchGpu { listed: u32, count: usize },
}
