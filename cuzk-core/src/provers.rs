//! Which provers the engine runs: GPU workers (feature `cuda`, a GPU present and not
//! `gpus.cpu_only`) or CPU provers, and what the engine asks of them (counts, GPU status,
//! busy time, dropping a parameter set's device copies).

use std::time::Duration;

#[cfg(feature = "cuda")]
use std::sync::Arc;

use crate::config::Config;
use crate::error::EngineError;
#[cfg(feature = "cuda")]
use crate::gpu_device::GpuDevice;

/// One GPU in use.
#[derive(Clone, Debug, PartialEq)]
pub struct GpuStatus {
    pub ordinal: u32,
    pub name: String,
    pub vram_total_bytes: u64,
    pub vram_free_bytes: u64,
    /// Fraction of the engine's uptime its compute lock was held.
    pub busy_fraction: f64,
    /// Taken out of rotation after repeated GPU faults: it takes no more work.
    pub out_of_rotation: bool,
    /// (job id, kind) of each partition its workers hold now.
    pub in_hand: Vec<(String, String)>,
}

/// The provers the engine runs: GPU workers when a GPU is used, else CPU provers.
pub(crate) enum Provers {
    Cpu(usize),
    #[cfg(feature = "cuda")]
    Gpu {
        devices: Vec<Arc<GpuDevice>>,
        workers_per_device: usize,
    },
}

impl Provers {
    pub(crate) fn choose(config: &Config) -> Result<Provers, EngineError> {
        #[cfg(feature = "cuda")]
        {
            let devices = crate::gpu_device::open_devices(config)?;
            if !devices.is_empty() {
                return Ok(Provers::Gpu {
                    devices,
                    workers_per_device: config.gpus.gpu_workers_per_device,
                });
            }
            if !config.gpus.cpu_only {
                tracing::warn!("no GPU found: proving on the CPU");
            }
        }
        Ok(Provers::Cpu(config.engine.cpu_provers))
    }

    pub(crate) fn cpu_provers(&self) -> usize {
        match self {
            Provers::Cpu(n) => *n,
            #[cfg(feature = "cuda")]
            Provers::Gpu { .. } => 0,
        }
    }

    /// The CRITICAL lane's provers (`engine.critical_lane`): one per GPU, or one CPU prover.
    pub(crate) fn critical_lane_provers(&self) -> usize {
        match self {
            Provers::Cpu(_) => 1,
            #[cfg(feature = "cuda")]
            Provers::Gpu { devices, .. } => devices.len(),
        }
    }

    pub(crate) fn gpu_workers(&self) -> usize {
        match self {
            Provers::Cpu(_) => 0,
            #[cfg(feature = "cuda")]
            Provers::Gpu {
                devices,
                workers_per_device,
            } => devices.len() * workers_per_device,
        }
    }

    pub(crate) fn gpu_status(&self, uptime: Duration) -> Vec<GpuStatus> {
        match self {
            Provers::Cpu(_) => {
                let _ = uptime;
                Vec::new()
            }
            #[cfg(feature = "cuda")]
            Provers::Gpu { devices, .. } => devices
                .iter()
                .map(|d| {
                    let now = supraseal_c2::device::device_info(d.info.ordinal).ok();
                    let activity = d.activity();
                    GpuStatus {
                        ordinal: d.info.ordinal as u32,
                        name: d.info.name.clone(),
                        vram_total_bytes: d.info.total_bytes as u64,
                        vram_free_bytes: now.map_or(0, |i| i.free_bytes as u64),
                        busy_fraction: d.busy_fraction(uptime.as_nanos() as u64),
                        out_of_rotation: activity.retired,
                        in_hand: activity.in_hand,
                    }
                })
                .collect(),
        }
    }

    /// Per GPU: its ordinal and the fraction of `uptime` its compute lock was held (no driver
    /// call, unlike [`Provers::gpu_status`]: cheap enough for every metrics scrape).
    pub(crate) fn gpu_busy(&self, uptime: Duration) -> Vec<(u32, f64)> {
        match self {
            Provers::Cpu(_) => {
                let _ = uptime;
                Vec::new()
            }
            #[cfg(feature = "cuda")]
            Provers::Gpu { devices, .. } => devices
                .iter()
                .map(|d| {
                    (
                        d.info.ordinal as u32,
                        d.busy_fraction(uptime.as_nanos() as u64),
                    )
                })
                .collect(),
        }
    }

    /// The ordinals of the GPUs taken out of rotation.
    pub(crate) fn gpus_out_of_rotation(&self) -> Vec<u32> {
        match self {
            Provers::Cpu(_) => Vec::new(),
            #[cfg(feature = "cuda")]
            Provers::Gpu { devices, .. } => devices
                .iter()
                .filter(|d| d.is_retired())
                .map(|d| d.info.ordinal as u32)
                .collect(),
        }
    }

    pub(crate) fn gpu_busy_ns(&self) -> Vec<u64> {
        match self {
            Provers::Cpu(_) => Vec::new(),
            #[cfg(feature = "cuda")]
            Provers::Gpu { devices, .. } => devices.iter().map(|d| d.busy_ns()).collect(),
        }
    }

    #[cfg(feature = "cuda")]
    pub(crate) fn inject_gpu_faults(&self, ordinal: u32, count: u32) -> bool {
        match self {
            Provers::Cpu(_) => false,
            Provers::Gpu { devices, .. } => devices
                .iter()
                .find(|d| d.info.ordinal as u32 == ordinal)
                .map(|d| d.inject_faults(count))
                .is_some(),
        }
    }

    /// Drops the device copies of a parameter set.
    pub(crate) fn evict(&self, circuit_id: &str) {
        match self {
            Provers::Cpu(_) => {
                let _ = circuit_id;
            }
            #[cfg(feature = "cuda")]
            Provers::Gpu { devices, .. } => devices.iter().for_each(|d| d.evict(circuit_id)),
        }
    }
}
