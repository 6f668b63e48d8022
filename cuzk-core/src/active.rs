//! A count of things under way, kept right when a panic unwinds.

use std::sync::atomic::{AtomicUsize, Ordering};

/// How many of something are under way (partitions in synthesis); [`ActiveCount::enter`]
/// counts one until its guard drops.
#[derive(Debug, Default)]
pub(crate) struct ActiveCount(AtomicUsize);

impl ActiveCount {
    pub(crate) fn enter(&self) -> ActiveGuard<'_> {
        self.0.fetch_add(1, Ordering::Relaxed);
        ActiveGuard(&self.0)
    }

    pub(crate) fn get(&self) -> usize {
        self.0.load(Ordering::Relaxed)
    }
}

/// One under way; counted down on drop (also when a panic unwinds through it).
pub(crate) struct ActiveGuard<'a>(&'a AtomicUsize);

impl Drop for ActiveGuard<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::ActiveCount;

    #[test]
    fn active_count_follows_its_guards_and_survives_a_panic() {
        let count = ActiveCount::default();
        let a = count.enter();
        let b = count.enter();
        assert_eq!(count.get(), 2);
        drop(a);
        assert_eq!(count.get(), 1);
        let unwound = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let _c = count.enter();
            assert_eq!(count.get(), 2);
            panic!("synthesis panicked");
        }));
        assert!(unwound.is_err());
        assert_eq!(count.get(), 1);
        drop(b);
        assert_eq!(count.get(), 0);
    }
}
