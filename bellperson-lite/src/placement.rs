//! Where B's G2 sum of a GPU proof runs, and the cost estimate that decides it per circuit
//! ([`G2Placement::Auto`]); where its scalars are split into zeros, ones and the rest
//! ([`SplitPlacement`], decided per circuit from a [`WitnessSample`]). Plain arithmetic, so it
//! is built and tested without a GPU; the GPU backend (`gpu`, feature `cuda`) applies it.

use blstrs::Scalar;
use ff::Field;

/// Where B's G2 sum runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum G2Placement {
    /// Per circuit, by [`b_g2_on_gpu_estimate`]: on the GPU when the CPU would take longer
    /// than the GPU's kernels and its own sum there (so that the proof would wait for it).
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
/// value (mix 2^22 and 2^24 with 1% and 25% other values), times 16 cores. The H100 machine's
/// 16 cores measured the same (2026-12-06: 65 and 218 ms for sha 2^22 and 2^24).
const CPU_G2_NS_PER_ONE: f64 = 1_600.0;
const CPU_G2_NS_PER_OTHER: f64 = 40_000.0;
/// The GPU's cost of B's G2 sum: its batch addition per one, its Pippenger share per other
/// value, and the reduction's fixed part. Fitted to the H100's figures with B_G2 on the GPU
/// (2026-12-06, docs/benchmarks.md): sha 2^22, 2^24 and 2^26 (0.5, 2.1 and 8.4 million ones)
/// 2.5, 4.2 and 13.3 ms; the other values' share from mix 2^24 on the H200 (2026-12-04: 7.5
/// million ones and 0.17 million others, 30.9 ms).
const GPU_G2_NS_PER_ONE: f64 = 1.5;
const GPU_G2_NS_PER_OTHER: f64 = 50.0;
const GPU_G2_FIXED_NS: f64 = 1.5e6;
/// The GPU's kernels per domain element, B's G2 sum left out, until a proof on the parameter
/// set has measured them ([`GpuKernels::Measured`]): the H100's with H's shifted copies
/// (2026-12-06: sha 2^22 40.9 ms, 2^24 144.7 ms, 8.6 to 9.8 ns an element).
const GPU_KERNELS_NS_PER_DOMAIN_ELEMENT: f64 = 10.0;

/// The GPU kernels that B's G2 sum on the CPU runs beside.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum GpuKernels {
    /// Not measured yet on this card and parameter set: estimated from the domain's size.
    Estimated { domain: usize },
    /// As the proofs on this card and parameter set measured them: nanoseconds per domain
    /// element.
    Measured { domain: usize, ns_per_element: f64 },
}

impl GpuKernels {
    /// Their expected time, in nanoseconds.
    pub fn ns(self) -> f64 {
        match self {
            GpuKernels::Estimated { domain } => domain as f64 * GPU_KERNELS_NS_PER_DOMAIN_ELEMENT,
            GpuKernels::Measured {
                domain,
                ns_per_element,
            } => domain as f64 * ns_per_element,
        }
    }
}

/// Whether B's G2 sum of one circuit should run on the GPU: `ones` scalars equal to one and
/// `others` neither zero nor one, over `threads` CPU cores, beside `kernels`.
///
/// On the CPU the sum starts when the uploads are done and runs beside the GPU's kernels: the
/// proof waits for whichever ends last. On the GPU it adds its own kernels to theirs. So the
/// GPU is the better place when the CPU's sum would outlast the kernels and the GPU's sum
/// together. For Filecoin's bit-heavy witnesses that is a close call that the card decides
/// (on an H100 with 16 cores at sha 2^24: 210 ms on the CPU against 145 + 5 on the GPU);
/// for witnesses with many full-width values the CPU costs seconds.
pub fn b_g2_on_gpu_estimate(
    ones: usize,
    others: usize,
    threads: usize,
    kernels: GpuKernels,
) -> bool {
    let cpu_ns = (ones as f64 * CPU_G2_NS_PER_ONE + others as f64 * CPU_G2_NS_PER_OTHER)
        / threads.max(1) as f64;
    let gpu_ns =
        GPU_G2_FIXED_NS + ones as f64 * GPU_G2_NS_PER_ONE + others as f64 * GPU_G2_NS_PER_OTHER;
    cpu_ns > kernels.ns() + gpu_ns
}

/// Where a GPU proof's l, a and b_g1 scalars are split into zeros, ones (summed by batch
/// addition) and the rest (a Pippenger MSM).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SplitPlacement {
    /// Per circuit, by a [`WitnessSample`] of its aux values: on the GPU when at least a
    /// twentieth of them are full-width, else on the host.
    #[default]
    Auto,
    /// On the host, each split uploaded: a witness of bits uploads little more than three
    /// bitmaps.
    Host,
    /// On the GPU, from the witness uploaded once, unless the GPU's VRAM budget would put the
    /// proof on the bounded plan (which reads host splits); then on the host.
    Gpu,
}

/// A split placement name that is none of "auto", "host" and "gpu".
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("scalar split placement `{0}`: auto, host or gpu")]
pub struct UnknownSplitPlacement(pub String);

impl std::str::FromStr for SplitPlacement {
    type Err = UnknownSplitPlacement;

    /// "auto", "host" or "gpu", as a configuration file gives it.
    fn from_str(s: &str) -> Result<Self, UnknownSplitPlacement> {
        match s {
            "auto" => Ok(SplitPlacement::Auto),
            "host" => Ok(SplitPlacement::Host),
            "gpu" => Ok(SplitPlacement::Gpu),
            other => Err(UnknownSplitPlacement(other.to_string())),
        }
    }
}

/// What a sample of a witness's aux values holds: how many are zero, one, or neither.
///
/// It decides where the witness is split ([`SplitPlacement::Auto`]). Split on the host, each
/// of the three MSMs uploads a bitmap and 36 bytes (a 32-bit point index and the value) per
/// full-width value, and the host reads the witness three times and writes each full-width
/// value three times; split on the GPU, the witness (32 bytes a value) is uploaded once and
/// the host does nothing. With A's and B's densities covering most values the uploads are
/// equal near 32 / (3 * 36) = 30% full-width values, but the host's work costs more than the
/// difference well below that: on the H200 (2026-12-04, `bench_groth16 --splits host,gpu`,
/// 2^24 constraints) a witness with 10% full-width values proved in 507 ms split on the GPU
/// against 618 ms split on the host (113 ms of host splits), while one of bits gained
/// nothing. A twentieth is the line: Filecoin's PoRep and SnapDeals witnesses (1.2-1.3%
/// full-width) stay on the host, where their splits are bitmaps made beside the GPU's work
/// and the GPU need not reserve room for every scalar; WindowPoSt's (99%) go to the GPU.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WitnessSample {
    pub zeros: usize,
    pub ones: usize,
    pub others: usize,
}

impl WitnessSample {
    /// At most this many values are read, evenly spaced (a few milliseconds of cache misses
    /// for any witness).
    pub const VALUES: usize = 1 << 14;

    /// The sample of `aux`: every value of a short witness, else [`WitnessSample::VALUES`]
    /// of them evenly spaced.
    pub fn of(aux: &[Scalar]) -> WitnessSample {
        Self::every(aux, aux.len().div_ceil(Self::VALUES).max(1))
    }

    /// Every value of `aux` counted (for reports: `cuzk bench --witness-only`).
    pub fn all(aux: &[Scalar]) -> WitnessSample {
        Self::every(aux, 1)
    }

    fn every(aux: &[Scalar], step: usize) -> WitnessSample {
        let mut sample = WitnessSample::default();
        for v in aux.iter().step_by(step) {
            if *v == Scalar::ZERO {
                sample.zeros += 1;
            } else if *v == Scalar::ONE {
                sample.ones += 1;
            } else {
                sample.others += 1;
            }
        }
        sample
    }

    /// Whether the GPU should split this witness: at least a twentieth of full-width values.
    pub fn split_on_gpu(&self) -> bool {
        let total = self.zeros + self.ones + self.others;
        total > 0 && 20 * self.others >= total
    }

    /// The ones and full-width values expected among `values` of the same witness.
    pub fn estimate(&self, values: usize) -> (usize, usize) {
        let total = (self.zeros + self.ones + self.others).max(1) as f64;
        let share = |n: usize| (values as f64 * n as f64 / total).round() as usize;
        (share(self.ones), share(self.others))
    }
}

#[cfg(test)]
mod tests {
    use super::{
        b_g2_on_gpu_estimate, Field, G2Placement, GpuKernels, Scalar, SplitPlacement,
        UnknownPlacement, UnknownSplitPlacement, WitnessSample,
    };

    #[test]
    fn split_placements_parse_by_their_configured_names() {
        assert_eq!("auto".parse(), Ok(SplitPlacement::Auto));
        assert_eq!("host".parse(), Ok(SplitPlacement::Host));
        assert_eq!("gpu".parse(), Ok(SplitPlacement::Gpu));
        let err = "cpu".parse::<SplitPlacement>().unwrap_err();
        assert_eq!(err, UnknownSplitPlacement("cpu".into()));
        assert!(err.to_string().contains("auto, host or gpu"), "{err}");
    }

    #[test]
    fn samples_count_zeros_ones_and_full_width_values() {
        // Short: every value is read.
        let mut aux = vec![Scalar::ZERO; 10];
        aux[1] = Scalar::ONE;
        aux[2] = Scalar::from(7u64);
        aux[3] = -Scalar::ONE;
        let s = WitnessSample::of(&aux);
        assert_eq!((s.zeros, s.ones, s.others), (7, 1, 2));
        assert_eq!(WitnessSample::all(&aux), s);
        assert!(s.split_on_gpu(), "2 of 10");
        assert_eq!(s.estimate(1000), (100, 200));
        assert!(!WitnessSample::of(&[]).split_on_gpu());
        // The line: one full-width value in 20 goes to the GPU, one in 21 does not.
        for (len, on_gpu) in [(20, true), (21, false)] {
            let mut aux = vec![Scalar::ONE; len];
            aux[0] = Scalar::from(7u64);
            assert_eq!(WitnessSample::of(&aux).split_on_gpu(), on_gpu, "1 of {len}");
        }

        // Long: a bounded sample, in the witness's proportions (a full-width value every
        // third, ones every seventh of the rest).
        let n = 3 * WitnessSample::VALUES + 17;
        let aux: Vec<Scalar> = (0..n as u64)
            .map(|i| match (i % 3, i % 7) {
                (0, _) => Scalar::from(i + 2),
                (_, 0) => Scalar::ONE,
                _ => Scalar::ZERO,
            })
            .collect();
        let s = WitnessSample::of(&aux);
        let all = WitnessSample::all(&aux);
        assert_eq!(all.zeros + all.ones + all.others, n);
        assert_eq!(all.others, n.div_ceil(3));
        let total = s.zeros + s.ones + s.others;
        assert!(
            total <= WitnessSample::VALUES && total > WitnessSample::VALUES / 2,
            "{s:?}"
        );
        let third = s.others as f64 / total as f64;
        assert!((third - 1.0 / 3.0).abs() < 0.02, "{s:?}");
        assert!(s.split_on_gpu(), "a third of full-width values: {s:?}");

        // Bits with one full-width value in 77 (1.3%, as Filecoin's PoRep): the host; with
        // one in 10 (as the `mix` test circuit): the GPU.
        let witness = |every: u64| -> Vec<Scalar> {
            (0..n as u64)
                .map(|i| match (i % every, i % 2) {
                    (0, _) => Scalar::from(i + 2),
                    (_, 0) => Scalar::ONE,
                    _ => Scalar::ZERO,
                })
                .collect()
        };
        assert!(!WitnessSample::of(&witness(77)).split_on_gpu());
        assert!(WitnessSample::of(&witness(10)).split_on_gpu());
    }

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
    fn the_estimate_weighs_the_cpu_sum_against_the_kernels_and_the_gpu_sum() {
        let n = 1usize << 24;
        let estimated = GpuKernels::Estimated { domain: n };
        let measured = |ns_per_element: f64| GpuKernels::Measured {
            domain: n,
            ns_per_element,
        };
        // The B scalars of the test circuits (counted at 2^20): sha has ones for an eighth of
        // the domain and no other value; mix (10% non-boolean witness values) ones for 45%
        // and others for 1%; mix50 a quarter of each.
        let sha = (n / 8, 0);
        let mix = (n * 45 / 100, n / 100);
        let mix50 = (n / 4, n / 4);
        // mix and mix50 go to the GPU whatever the kernels' pace (seconds on 16 cores).
        for (ones, others) in [mix, mix50] {
            assert!(b_g2_on_gpu_estimate(ones, others, 16, estimated));
            assert!(b_g2_on_gpu_estimate(ones, others, 16, measured(30.0)));
        }
        // sha is the close call: 210 ms on 16 cores goes to the GPU beside 168 ms of kernels
        // and 5 ms of its own (10 ns an element, the first proof's estimate); it stays on the
        // CPU beside 218 ms (13 ns, a slower card as measured), or with 32 cores (105 ms).
        assert!(b_g2_on_gpu_estimate(sha.0, sha.1, 16, estimated));
        assert!(!b_g2_on_gpu_estimate(sha.0, sha.1, 16, measured(13.0)));
        assert!(!b_g2_on_gpu_estimate(sha.0, sha.1, 32, estimated));
        // Fewer cores (synthesis holding the others) move it to the GPU.
        assert!(b_g2_on_gpu_estimate(sha.0, sha.1, 4, measured(13.0)));
        // Nothing to add stays on the CPU; more cores make the CPU cheaper.
        assert!(!b_g2_on_gpu_estimate(0, 0, 16, estimated));
        assert!(b_g2_on_gpu_estimate(0, n / 10, 1, estimated));
        assert!(!b_g2_on_gpu_estimate(0, n / 10, 1 << 20, estimated));
        // Zero threads counts as one rather than dividing by zero.
        assert!(b_g2_on_gpu_estimate(0, n / 10, 0, estimated));
        // The kernels' time: the estimate's 10 ns an element, or the measured pace.
        assert_eq!(estimated.ns(), n as f64 * 10.0);
        assert_eq!(measured(7.5).ns(), n as f64 * 7.5);
    }
}
