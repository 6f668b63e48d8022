//! How fast a GPU proves with one parameter set: the kernels' time per domain element, as
//! the proofs finished so far measured it. Plain Rust (an atomic), so it is tested without a
//! GPU; the device parameters keep one (`groth16::DeviceParams::kernel_pace`).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// The kernels' time per domain element: the first proof's figure, then each new figure
/// weighing half, so that one slow proof (a cold start, a neighbour on the GPU) moves the
/// pace without setting it. Shared between threads: proofs record, placements read.
#[derive(Debug, Default)]
pub struct KernelPace {
    /// Nanoseconds per element as an f64's bits; 0 (the bits of 0.0) before the first record.
    ns_bits: AtomicU64,
}

impl KernelPace {
    /// The pace so far in nanoseconds per element (a fraction: a `Duration` would round it to
    /// whole ones), `None` before any proof recorded one.
    pub fn ns_per_element(&self) -> Option<f64> {
        let ns = f64::from_bits(self.ns_bits.load(Ordering::Relaxed));
        (ns > 0.0).then_some(ns)
    }

    /// Records `kernels` spent over `elements` domain elements (a batch's circuits together).
    /// A proof with no kernel time or no elements records nothing.
    pub fn record(&self, kernels: Duration, elements: usize) {
        if elements == 0 || kernels.is_zero() {
            return;
        }
        let ns = kernels.as_secs_f64() * 1e9 / elements as f64;
        let update = |old: u64| {
            let old = f64::from_bits(old);
            Some(if old > 0.0 { (old + ns) / 2.0 } else { ns }.to_bits())
        };
        // The closure always returns Some, so the update cannot fail.
        let _ = self
            .ns_bits
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, update);
    }
}

#[cfg(test)]
mod tests {
    use super::{Duration, KernelPace};

    fn ns(pace: &KernelPace) -> f64 {
        pace.ns_per_element().expect("a pace")
    }

    #[test]
    fn the_first_proof_sets_the_pace_and_later_ones_weigh_half() {
        let pace = KernelPace::default();
        assert_eq!(pace.ns_per_element(), None);
        // Nothing to learn from: no time, or no elements.
        pace.record(Duration::ZERO, 1 << 20);
        pace.record(Duration::from_millis(10), 0);
        assert_eq!(pace.ns_per_element(), None);
        // 40 ms over 2^22 elements: about 9.54 ns each.
        pace.record(Duration::from_millis(40), 1 << 22);
        assert!(
            (ns(&pace) - 40e6 / f64::from(1 << 22)).abs() < 1e-3,
            "{}",
            ns(&pace)
        );
        // A proof twice as slow moves it halfway, not all the way.
        pace.record(Duration::from_millis(80), 1 << 22);
        assert!(
            (ns(&pace) - 60e6 / f64::from(1 << 22)).abs() < 1e-3,
            "{}",
            ns(&pace)
        );
        // Records from several threads all land: four halvings of the distance back.
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| pace.record(Duration::from_millis(40), 1 << 22));
            }
        });
        let (fast, slow) = (40e6 / f64::from(1 << 22), 60e6 / f64::from(1 << 22));
        let expected = fast + (slow - fast) / 16.0;
        assert!(
            (ns(&pace) - expected).abs() < 1e-3,
            "{} {expected}",
            ns(&pace)
        );
    }
}
