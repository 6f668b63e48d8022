//! Taking a faulty backend out of rotation.
//!
//! A backend whose start halves fail with device faults (kernel or driver errors, or injected
//! ones) [`FAULTS_TO_RETIRE`] times in a row, with no proof that worked between them, is taken
//! out of rotation while another backend remains: its workers put back what they hold and
//! stop, and the other backends prove it. The last backend in rotation stays: its faults then
//! count against the partitions as on a one-GPU host (one retry, then the job fails).

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Arc;

use parking_lot::Mutex;

/// Device faults in a row (no proof that worked between them) that take a backend out of
/// rotation. One is not enough: a single fault is retried, and may not repeat.
pub(crate) const FAULTS_TO_RETIRE: u32 = 2;

/// One backend's faults and place in the rotation.
pub(crate) struct Rotation {
    /// Device faults since the last proof that worked.
    faults_in_a_row: AtomicU32,
    /// Out of rotation: its workers take no more work.
    retired: AtomicBool,
    /// How many of the engine's backends are in rotation (shared by all of them): the last
    /// one is never taken out.
    in_rotation: Arc<Mutex<usize>>,
}

impl Rotation {
    /// The rotations of `count` backends, all in rotation.
    pub(crate) fn shared_by(count: usize) -> Vec<Rotation> {
        let in_rotation = Arc::new(Mutex::new(count));
        (0..count)
            .map(|_| Rotation {
                faults_in_a_row: AtomicU32::new(0),
                retired: AtomicBool::new(false),
                in_rotation: Arc::clone(&in_rotation),
            })
            .collect()
    }

    /// Counts a device fault; true if it takes the backend out of rotation (once, and never
    /// the last backend in rotation).
    pub(crate) fn fault(&self) -> bool {
        let faults = self.faults_in_a_row.fetch_add(1, Ordering::Relaxed) + 1;
        if faults < FAULTS_TO_RETIRE {
            return false;
        }
        let mut in_rotation = self.in_rotation.lock();
        if self.is_retired() || *in_rotation <= 1 {
            return false;
        }
        *in_rotation -= 1;
        self.retired.store(true, Ordering::Relaxed);
        true
    }

    /// A proof worked: the faults in a row start again from zero.
    pub(crate) fn clear_faults(&self) {
        self.faults_in_a_row.store(0, Ordering::Relaxed);
    }

    /// Out of rotation (see the module doc).
    pub(crate) fn is_retired(&self) -> bool {
        self.retired.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn faults_in_a_row_retire_all_but_the_last_backend() {
        let r = Rotation::shared_by(2);
        assert!(!r[0].fault(), "one fault is retried");
        r[0].clear_faults();
        assert!(!r[0].fault(), "a proof that worked resets the count");
        assert!(r[0].fault(), "the second in a row retires it");
        assert!(r[0].is_retired());
        assert!(!r[0].fault(), "retired once");
        assert!(!r[1].fault());
        assert!(!r[1].fault() && !r[1].is_retired(), "the last one stays");

        let alone = Rotation::shared_by(1);
        for _ in 0..5 {
            assert!(!alone[0].fault());
        }
        assert!(!alone[0].is_retired());
    }
}
