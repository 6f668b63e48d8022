//! Native witnesses, trusted per circuit id only once checked against the gadgets.
//!
//! A kind may give its partitions a native witness generator (`Partition::with_native_witness`,
//! e.g. `filecoin::witness` for PoSt): the same values the circuit's gadgets allocate,
//! computed many times faster. The first partition of a circuit id computes both and
//! compares them, value for value; while it does, the id's other partitions use the gadgets.
//! If they are equal, the id's partitions use the native generator from then on (and compute
//! both again every `engine.native_witness_check_every` partitions, if set); if they differ,
//! or the generator fails, the id keeps to the gadgets for the engine's lifetime and the
//! status says why. A witness is never the last line of defence: every proof is still
//! verified before it leaves (`engine.self_check`).

use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};

use bellpepper_core::SynthesisError;
use bellperson_lite::matrices::Witness;
use parking_lot::{Mutex, MutexGuard};

use crate::kind::MatrixPath;
use crate::metrics::Metrics;
use crate::panics::panic_message;

/// Where a circuit id stands with its native witness.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NativeWitnessState {
    /// Its first partition is computing both witnesses.
    Checking,
    /// Equal to the gadgets' in every check so far: used.
    Trusted {
        /// Partitions whose two witnesses were compared.
        checks: u64,
        /// Partitions that used the native witness.
        uses: u64,
    },
    /// Different from the gadgets', or failing: not used.
    Refused { reason: String },
}

/// A circuit id's state, for the engine's status.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NativeWitnessStatus {
    pub circuit_id: String,
    pub state: NativeWitnessState,
}

/// What one partition does.
enum Plan {
    Gadgets,
    Native,
    Both,
}

/// The per-circuit-id states and the checking policy.
pub(crate) struct NativeWitnesses {
    /// `engine.native_witness`: false keeps every circuit on its gadgets.
    enabled: bool,
    /// `engine.native_witness_check_every`: 0 checks only the first partition.
    check_every: u64,
    states: Mutex<BTreeMap<String, NativeWitnessState>>,
}

impl NativeWitnesses {
    pub(crate) fn new(enabled: bool, check_every: u64) -> Self {
        NativeWitnesses {
            enabled,
            check_every,
            states: Mutex::default(),
        }
    }

    fn states(&self) -> MutexGuard<'_, BTreeMap<String, NativeWitnessState>> {
        self.states.lock()
    }

    pub(crate) fn status(&self) -> Vec<NativeWitnessStatus> {
        self.states()
            .iter()
            .map(|(id, state)| NativeWitnessStatus {
                circuit_id: id.clone(),
                state: state.clone(),
            })
            .collect()
    }

    /// The witness of a partition of `circuit_id` on the matrix path.
    pub(crate) fn witness(
        &self,
        circuit_id: &str,
        path: &MatrixPath,
        metrics: &Metrics,
    ) -> Result<Witness, SynthesisError> {
        let Some(generator) = path.native.as_ref().filter(|_| self.enabled) else {
            return (path.witness)();
        };
        // A generator that panics fails like one that returns an error: the partition
        // falls back to the gadgets (and a check refuses the id) instead of failing its job.
        let native = || {
            catch_unwind(AssertUnwindSafe(|| generator()))
                .unwrap_or_else(|panic| Err(format!("panicked: {}", panic_message(&panic)).into()))
        };
        let plan = {
            let mut states = self.states();
            match states.get_mut(circuit_id) {
                None => {
                    states.insert(circuit_id.to_string(), NativeWitnessState::Checking);
                    Plan::Both
                }
                Some(NativeWitnessState::Checking | NativeWitnessState::Refused { .. }) => {
                    Plan::Gadgets
                }
                Some(NativeWitnessState::Trusted { uses, .. }) => {
                    *uses += 1;
                    if self.check_every > 0 && *uses % self.check_every == 0 {
                        Plan::Both
                    } else {
                        Plan::Native
                    }
                }
            }
        };
        match plan {
            Plan::Gadgets => (path.witness)(),
            Plan::Native => match native() {
                Ok(witness) => {
                    metrics.native_witness("used");
                    Ok(witness)
                }
                Err(e) => {
                    // Trusted, then failing on this partition's input: its gadgets decide.
                    tracing::warn!(
                        circuit = circuit_id,
                        "native witness failed ({e}); this partition uses the gadgets"
                    );
                    metrics.native_witness("failed");
                    (path.witness)()
                }
            },
            Plan::Both => {
                // Should the gadgets fail or panic, nothing was compared: the next partition
                // checks again instead of the id staying "checking" for good.
                let unchecked = UncheckedOnDrop {
                    witnesses: self,
                    circuit_id,
                };
                let gadgets = (path.witness)()?;
                let verdict = match native() {
                    Ok(w) => difference(&w, &gadgets),
                    Err(e) => Some(format!("the generator failed: {e}")),
                };
                std::mem::forget(unchecked);
                let mut states = self.states();
                let state = states
                    .entry(circuit_id.to_string())
                    .or_insert(NativeWitnessState::Checking);
                match verdict {
                    None => {
                        metrics.native_witness("checked_equal");
                        *state = match state {
                            NativeWitnessState::Trusted { checks, uses } => {
                                NativeWitnessState::Trusted {
                                    checks: *checks + 1,
                                    uses: *uses,
                                }
                            }
                            _ => NativeWitnessState::Trusted { checks: 1, uses: 0 },
                        };
                    }
                    Some(reason) => {
                        metrics.native_witness("checked_different");
                        tracing::error!(
                            circuit = circuit_id,
                            "native witness differs from the gadgets' ({reason}); this circuit \
                             id keeps to the gadgets"
                        );
                        *state = NativeWitnessState::Refused { reason };
                    }
                }
                Ok(gadgets)
            }
        }
    }
}

/// Forgets a circuit id's first check if dropped before the comparison ended (an error or a
/// panic in the gadgets' witness).
struct UncheckedOnDrop<'a> {
    witnesses: &'a NativeWitnesses,
    circuit_id: &'a str,
}

impl Drop for UncheckedOnDrop<'_> {
    fn drop(&mut self) {
        let mut states = self.witnesses.states();
        if states.get(self.circuit_id) == Some(&NativeWitnessState::Checking) {
            states.remove(self.circuit_id);
        }
    }
}

/// Where two witnesses first differ, if they do.
fn difference(native: &Witness, gadgets: &Witness) -> Option<String> {
    for (what, a, b) in [
        ("inputs", &native.inputs, &gadgets.inputs),
        ("aux values", &native.aux, &gadgets.aux),
    ] {
        if a.len() != b.len() {
            return Some(format!("{} {what}, the gadgets have {}", a.len(), b.len()));
        }
        if let Some(i) = a.iter().zip(b).position(|(x, y)| x != y) {
            return Some(format!("{what} differ first at index {i} of {}", a.len()));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kind::Partition;
    use bellperson_lite::circuits::InterleavedCircuit;
    use bellperson_lite::matrices::synthesize_witness;
    use bellperson_lite::Scalar;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    fn circuit() -> InterleavedCircuit {
        InterleavedCircuit {
            values: vec![2, 3, 4, 5],
        }
    }

    /// A partition whose native witness is the gadgets' with `tamper` applied (or an error
    /// where it returns false), counting its calls.
    fn partition(
        calls: &Arc<AtomicUsize>,
        tamper: impl Fn(&mut Witness) -> bool + Send + Sync + 'static,
    ) -> Partition {
        let calls = Arc::clone(calls);
        Partition::from_circuit(circuit(), vec![]).with_native_witness(move || {
            calls.fetch_add(1, Ordering::Relaxed);
            let mut w = synthesize_witness(circuit())?;
            if tamper(&mut w) {
                Ok(w)
            } else {
                Err(SynthesisError::AssignmentMissing)
            }
        })
    }

    fn state(n: &NativeWitnesses) -> NativeWitnessState {
        n.status().remove(0).state
    }

    #[test]
    fn an_equal_witness_is_used_after_its_check() {
        let calls = Arc::new(AtomicUsize::new(0));
        let p = partition(&calls, |_| true);
        let path = p.matrix_path().unwrap();
        let (n, metrics) = (NativeWitnesses::new(true, 0), Metrics::default());
        let gadgets = synthesize_witness(circuit()).unwrap();
        for _ in 0..3 {
            assert_eq!(n.witness("c", path, &metrics).unwrap(), gadgets);
        }
        assert_eq!(
            calls.load(Ordering::Relaxed),
            3,
            "checked once, then used twice"
        );
        assert_eq!(
            state(&n),
            NativeWitnessState::Trusted { checks: 1, uses: 2 }
        );
        let text = metrics.render(&Default::default());
        assert!(text.contains("cuzk_native_witness_total{outcome=\"checked_equal\"} 1"));
        assert!(text.contains("cuzk_native_witness_total{outcome=\"used\"} 2"));
    }

    #[test]
    fn a_different_witness_is_refused_for_good() {
        let calls = Arc::new(AtomicUsize::new(0));
        let p = partition(&calls, |w| {
            w.aux[3] += Scalar::from(1u64);
            true
        });
        let path = p.matrix_path().unwrap();
        let (n, metrics) = (NativeWitnesses::new(true, 0), Metrics::default());
        let gadgets = synthesize_witness(circuit()).unwrap();
        for _ in 0..3 {
            assert_eq!(
                n.witness("c", path, &metrics).unwrap(),
                gadgets,
                "the gadgets'"
            );
        }
        assert_eq!(calls.load(Ordering::Relaxed), 1, "never asked again");
        match state(&n) {
            NativeWitnessState::Refused { reason } => {
                assert!(
                    reason.contains("aux values differ first at index 3"),
                    "{reason}"
                )
            }
            other => panic!("{other:?}"),
        }
        // A failing generator is refused the same way.
        let failing = partition(&calls, |_| false);
        let n = NativeWitnesses::new(true, 0);
        n.witness("c", failing.matrix_path().unwrap(), &metrics)
            .unwrap();
        assert!(
            matches!(state(&n), NativeWitnessState::Refused { reason } if reason.contains("generator failed"))
        );
    }

    /// A circuit whose synthesis panics while `fail` is set.
    #[derive(Clone)]
    struct Flaky(Arc<std::sync::atomic::AtomicBool>);

    impl bellpepper_core::Circuit<Scalar> for Flaky {
        fn synthesize<CS: bellpepper_core::ConstraintSystem<Scalar>>(
            self,
            cs: &mut CS,
        ) -> Result<(), SynthesisError> {
            assert!(!self.0.load(Ordering::Relaxed), "gadget bug");
            circuit().synthesize(cs)
        }
    }

    #[test]
    fn a_check_cut_short_is_made_again() {
        let fail = Arc::new(std::sync::atomic::AtomicBool::new(true));
        let p = Partition::from_circuit(Flaky(Arc::clone(&fail)), vec![])
            .with_native_witness(|| synthesize_witness(circuit()));
        let path = p.matrix_path().unwrap();
        let (n, metrics) = (NativeWitnesses::new(true, 0), Metrics::default());
        let caught = std::panic::catch_unwind(AssertUnwindSafe(|| n.witness("c", path, &metrics)));
        assert!(caught.is_err(), "the gadgets panicked");
        assert!(n.status().is_empty(), "not left checking");
        fail.store(false, Ordering::Relaxed);
        n.witness("c", path, &metrics).unwrap();
        assert_eq!(
            state(&n),
            NativeWitnessState::Trusted { checks: 1, uses: 0 }
        );
    }

    #[test]
    fn samples_are_checked_and_the_switch_turns_it_off() {
        let calls = Arc::new(AtomicUsize::new(0));
        let p = partition(&calls, |_| true);
        let path = p.matrix_path().unwrap();
        let (n, metrics) = (NativeWitnesses::new(true, 2), Metrics::default());
        for _ in 0..5 {
            n.witness("c", path, &metrics).unwrap();
        }
        // Partitions 1 and 3 (uses 2 and 4) compared again.
        assert_eq!(
            state(&n),
            NativeWitnessState::Trusted { checks: 3, uses: 4 }
        );
        let off = NativeWitnesses::new(false, 0);
        let before = calls.load(Ordering::Relaxed);
        off.witness("c", path, &metrics).unwrap();
        assert_eq!(
            calls.load(Ordering::Relaxed),
            before,
            "not called when disabled"
        );
        assert!(off.status().is_empty());
    }
}
