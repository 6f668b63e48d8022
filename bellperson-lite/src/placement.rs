//! Where B's G2 sum of a GPU proof runs, and the cost estimate that decides it per circuit
//! ([`G2Placement::Auto`]). Plain arithmetic, so it is built and tested without a GPU; the
//! GPU backend (`gpu`, feature `cuda`) applies it.

/// Where B's G2 sum runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum G2Placement {
    /// Per circuit, by [`b_g2_on_gpu_estimate`]: on the GPU when the CPU would take longer
    /// than the GPU's G1 part (so that the proof would wait for it).
    #[default]
    Auto,
    /// As `Auto`, with the estimate told how many CPU threads B's G2 sum would get: fewer
    /// than the machine has when other work (synthesis of the next proofs) holds cores, which
    /// makes the CPU slower and the GPU the better place.
    AutoWithThreads(usize),
    /// Always on the CPU, beside the GPU part (b_g2 is then not put on the GPU at all).
    Cpu,
    /// Always on the GPU, inside the compute lock.
    Gpu,
}

/// A placement name that is none of "auto", "cpu" and "gpu".
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("B_G2 placement `{0}`: auto, cpu or gpu")]
pub struct UnknownPlacement(pub String);

impl std::str::FromStr for G2Placement {
    type Err = UnknownPlacement;

    /// "auto", "cpu" or "gpu", as a configuration file or a command line gives it
    /// (`AutoWithThreads` is decided per proof, not configured).
    fn from_str(s: &str) -> Result<Self, UnknownPlacement> {
        match s {
            "auto" => Ok(G2Placement::Auto),
            "cpu" => Ok(G2Placement::Cpu),
            "gpu" => Ok(G2Placement::Gpu),
            other => Err(UnknownPlacement(other.to_string())),
        }
    }
}

/// The CPU's cost of B's G2 sum per scalar, in nanoseconds of one core: a bulk affine addition
/// per one, a Pippenger share per other value. Fitted to the H200 machine's 16 cores
/// (`bench_groth16 --b-g2 cpu`, 2026-11-29, docs/benchmarks.md): about 100 ns per one (sha
/// 2^22: 0.5 million ones in 48 ms; 2^24: 2 million in 205 ms) and 2 to 3.4 us per other
/// value (mix 2^22 and 2^24 with 1% and 25% other values), times 16 cores.
const CPU_G2_NS_PER_ONE: f64 = 1_600.0;
const CPU_G2_NS_PER_OTHER: f64 = 40_000.0;
/// The GPU's G1 part per domain element (H200: sha 2^24 about 400 ms, mix 2^24 365 ms).
const GPU_G1_NS_PER_DOMAIN_ELEMENT: f64 = 24.0;

/// Whether B's G2 sum of one circuit should run on the GPU: true when the CPU's estimate
/// (`ones` scalars equal to one, `others` neither zero nor one, over `threads` cores) exceeds
/// the GPU's G1 part for a domain of `domain` elements, i.e. when on the CPU the proof would
/// wait for it. On the GPU it costs a fraction of that: 9 to 87 ms at 2^22 and 14 to 215 ms
/// at 2^24 on the H200, against 48 ms to 8.4 s on 16 cores.
pub fn b_g2_on_gpu_estimate(ones: usize, others: usize, threads: usize, domain: usize) -> bool {
    let cpu_ns = (ones as f64 * CPU_G2_NS_PER_ONE + others as f64 * CPU_G2_NS_PER_OTHER)
        / threads.max(1) as f64;
    cpu_ns > domain as f64 * GPU_G1_NS_PER_DOMAIN_ELEMENT
}

#[cfg(test)]
mod tests {
    use super::{b_g2_on_gpu_estimate, G2Placement, UnknownPlacement};

    #[test]
    fn placements_parse_by_their_configured_names() {
        assert_eq!("auto".parse(), Ok(G2Placement::Auto));
        assert_eq!("cpu".parse(), Ok(G2Placement::Cpu));
        assert_eq!("gpu".parse(), Ok(G2Placement::Gpu));
        let err = "GPU".parse::<G2Placement>().unwrap_err();
        assert_eq!(err, UnknownPlacement("GPU".into()));
        assert!(err.to_string().contains("auto, cpu or gpu"), "{err}");
    }

    #[test]
    fn the_estimate_moves_b_g2_to_the_gpu_only_for_many_non_boolean_values() {
        let n = 1usize << 24;
        // The B scalars of the test circuits (counted at 2^20): sha has ones for an eighth of
        // the domain and no other value; mix (10% non-boolean witness values) ones for 45%
        // and others for 1%; mix50 a quarter of each. Only sha stays on the CPU (as measured:
        // there it is hidden behind the kernels; for the others the proof would wait).
        assert!(!b_g2_on_gpu_estimate(n / 8, 0, 16, n));
        assert!(b_g2_on_gpu_estimate(n * 45 / 100, n / 100, 16, n));
        assert!(b_g2_on_gpu_estimate(n / 4, n / 4, 16, n));
        // Nothing to add stays on the CPU; more cores make the CPU cheaper.
        assert!(!b_g2_on_gpu_estimate(0, 0, 16, n));
        assert!(b_g2_on_gpu_estimate(0, n / 10, 1, n));
        assert!(!b_g2_on_gpu_estimate(0, n / 10, 1 << 20, n));
        // Zero threads counts as one rather than dividing by zero.
        assert!(b_g2_on_gpu_estimate(0, n / 10, 0, n));
    }
}
