//! Where the GPU halves of a job's partitions spent their time ([`GpuPhases`], a part of
//! [`crate::JobTimings`]): the engine's summed view of the prover's per-proof timings.

use std::time::Duration;

/// The parts of a partition's GPU half, from the C library's own timings (kernels timed with
/// CUDA events), summed over a job's partitions: what bounds a GPU proof, phase by phase.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct GpuPhases {
    /// Checks and the scalar splits on the CPU, before the memory lock.
    pub prep: Duration,
    /// Waiting for the memory lock and a VRAM reservation.
    pub wait_memory: Duration,
    /// The host-to-device copies.
    pub upload: Duration,
    /// Waiting for the compute lock.
    pub wait_compute: Duration,
    /// a, b and c evaluated on the GPU from the witness and the resident matrices.
    pub abc: Duration,
    /// The H pipeline's NTTs and pointwise work.
    pub ntt: Duration,
    pub msm_h: Duration,
    pub msm_l: Duration,
    pub msm_a: Duration,
    pub msm_b_g1: Duration,
    /// B's G2 sum on the GPU (its CPU placement is in the job's `finalize`).
    pub msm_b_g2: Duration,
}

impl GpuPhases {
    /// The names of [`GpuPhases::values`], in order.
    pub const NAMES: [&'static str; 11] = [
        "prep",
        "wait_memory",
        "upload",
        "wait_compute",
        "abc",
        "ntt",
        "msm_h",
        "msm_l",
        "msm_a",
        "msm_b_g1",
        "msm_b_g2",
    ];

    /// One GPU half's parts, from the prover's phase timings.
    pub fn of(t: &bellperson_lite::prover::PhaseTimings) -> GpuPhases {
        GpuPhases {
            prep: t.prep,
            wait_memory: t.wait_memory,
            upload: t.upload.saturating_sub(t.wait_memory + t.wait_compute),
            wait_compute: t.wait_compute,
            abc: t.abc,
            ntt: t.ntt,
            msm_h: t.msm_h,
            msm_l: t.msm_l,
            msm_a: t.msm_a,
            msm_b_g1: t.msm_b_g1,
            msm_b_g2: t.msm_b_g2_gpu,
        }
    }

    /// The parts in the order of [`GpuPhases::NAMES`].
    pub fn values(&self) -> [Duration; 11] {
        [
            self.prep,
            self.wait_memory,
            self.upload,
            self.wait_compute,
            self.abc,
            self.ntt,
            self.msm_h,
            self.msm_l,
            self.msm_a,
            self.msm_b_g1,
            self.msm_b_g2,
        ]
    }

    /// The inverse of [`GpuPhases::values`].
    pub fn from_values(v: [Duration; 11]) -> GpuPhases {
        let [prep, wait_memory, upload, wait_compute, abc, ntt, msm_h, msm_l, msm_a, msm_b_g1, msm_b_g2] =
            v;
        GpuPhases {
            prep,
            wait_memory,
            upload,
            wait_compute,
            abc,
            ntt,
            msm_h,
            msm_l,
            msm_a,
            msm_b_g1,
            msm_b_g2,
        }
    }

    /// The kernels alone.
    pub fn kernels(&self) -> Duration {
        self.abc + self.ntt + self.msm_h + self.msm_l + self.msm_a + self.msm_b_g1 + self.msm_b_g2
    }

    /// Adds `other` part by part.
    pub fn add(&mut self, other: &GpuPhases) {
        let (a, b) = (self.values(), other.values());
        *self = GpuPhases::from_values(std::array::from_fn(|i| a[i] + b[i]));
    }
}
