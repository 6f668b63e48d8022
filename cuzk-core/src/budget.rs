//! The host-memory budget for partitions in flight.
//!
//! A synthesis thread reserves a partition's estimated working set before synthesizing it and
//! the reservation travels with the synthesized partition until the prover no longer needs
//! its vectors (dropping it releases the bytes). A reservation that does not fit waits; one
//! larger than the whole budget is clamped to the budget, so it runs alone instead of never.
//! The estimate of a waiting reservation is asked again whenever it wakes
//! ([`MemoryBudget::reserve_with`]): a partition of a circuit not measured yet reserves the
//! whole budget, and without that every partition that began waiting before the first was
//! measured would still run alone, one after another.

use parking_lot::{Condvar, Mutex, MutexGuard};
use std::sync::Arc;

#[derive(Debug, Default)]
struct State {
    used: u64,
    peak: u64,
    closed: bool,
}

impl State {
    /// Counts `bytes` as reserved (the caller has checked that they fit).
    fn take(&mut self, bytes: u64) {
        self.used += bytes;
        self.peak = self.peak.max(self.used);
    }
}

/// Bytes shared by every stage; see the module doc.
#[derive(Debug)]
pub(crate) struct MemoryBudget {
    total: u64,
    /// Bytes beyond `total` that only CRITICAL partitions may take, so that a WinningPoSt
    /// never waits for a PoRep partition to free its bytes (`memory.critical_reserve`).
    critical_reserve: u64,
    state: Mutex<State>,
    freed: Condvar,
}

/// Bytes held from a [`MemoryBudget`]; released on drop.
#[derive(Debug)]
pub(crate) struct Reservation {
    budget: Arc<MemoryBudget>,
    bytes: u64,
}

impl Reservation {
    #[cfg(test)]
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Gives back what exceeds `bytes` (a reservation made on a guess, once the real size is
    /// known). A larger `bytes` changes nothing: growing could wait while holding.
    pub fn shrink_to(&mut self, bytes: u64) {
        if bytes >= self.bytes {
            return;
        }
        let mut s = self.budget.state();
        s.used -= self.bytes - bytes;
        self.bytes = bytes;
        drop(s);
        self.budget.freed.notify_all();
    }

    /// Grows the reservation by `bytes`, waiting at most `patience` for them to fit, and says
    /// whether it did. The wait is bounded because the holder keeps what it has while it
    /// waits: two holders waiting for each other's bytes give up instead of deadlocking.
    /// Growth that could never fit (past the whole budget) or a closed budget is refused at
    /// once.
    #[cfg(any(test, feature = "cuda"))]
    pub fn grow_within(&mut self, bytes: u64, patience: std::time::Duration) -> bool {
        let budget = Arc::clone(&self.budget);
        if self.bytes + bytes > budget.total {
            return false;
        }
        let deadline = std::time::Instant::now() + patience;
        let mut s = budget.state();
        while !s.closed && s.used + bytes > budget.total {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            if left.is_zero() {
                return false;
            }
            budget.freed.wait_for(&mut s, left);
        }
        if s.closed {
            return false;
        }
        s.take(bytes);
        self.bytes += bytes;
        true
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        let mut s = self.budget.state();
        s.used -= self.bytes;
        drop(s);
        self.budget.freed.notify_all();
    }
}

impl MemoryBudget {
    #[cfg(test)]
    pub fn new(total: u64) -> Arc<MemoryBudget> {
        MemoryBudget::with_critical_reserve(total, 0)
    }

    /// A budget of `total` bytes, and `critical_reserve` more for CRITICAL partitions.
    pub fn with_critical_reserve(total: u64, critical_reserve: u64) -> Arc<MemoryBudget> {
        Arc::new(MemoryBudget {
            total: total.max(1),
            critical_reserve,
            state: Mutex::default(),
            freed: Condvar::new(),
        })
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock()
    }

    pub fn total(&self) -> u64 {
        self.total
    }

    /// Bytes reserved now.
    pub fn used(&self) -> u64 {
        self.state().used
    }

    /// The most bytes ever reserved at once.
    pub fn peak(&self) -> u64 {
        self.state().peak
    }

    /// Waits until the bytes `estimate` gives (at most the whole budget) fit, then holds
    /// them; `estimate` is asked before the first check and after every wake-up (it may
    /// improve while waiting, see [`MemoryBudget::wake`]). `None` when the budget was closed
    /// (shutdown) while waiting.
    pub fn reserve_with(self: &Arc<Self>, estimate: impl FnMut() -> u64) -> Option<Reservation> {
        self.reserve_within(estimate, self.total)
    }

    /// [`MemoryBudget::reserve_with`] for a CRITICAL partition: it may also take the critical
    /// reserve.
    pub fn reserve_critical_with(
        self: &Arc<Self>,
        estimate: impl FnMut() -> u64,
    ) -> Option<Reservation> {
        self.reserve_within(estimate, self.total + self.critical_reserve)
    }

    fn reserve_within(
        self: &Arc<Self>,
        mut estimate: impl FnMut() -> u64,
        limit: u64,
    ) -> Option<Reservation> {
        let mut bytes = estimate().min(self.total);
        let mut s = self.state();
        while !s.closed && s.used + bytes > limit {
            self.freed.wait(&mut s);
            // Asked without the lock held: the estimate may take other locks.
            drop(s);
            bytes = estimate().min(self.total);
            s = self.state();
        }
        if s.closed {
            return None;
        }
        s.take(bytes);
        Some(Reservation {
            budget: Arc::clone(self),
            bytes,
        })
    }

    /// Wakes every waiter, to ask its estimate again (a working set was just measured).
    pub fn wake(&self) {
        self.freed.notify_all();
    }

    /// Wakes every waiter with `None`; later reservations fail at once.
    pub fn close(&self) {
        self.state().closed = true;
        self.freed.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn critical_partitions_may_take_the_reserve_and_nobody_else() {
        let budget = MemoryBudget::with_critical_reserve(100, 10);
        let full = budget.reserve_with(|| 95).unwrap();
        let normal = {
            let budget = Arc::clone(&budget);
            std::thread::spawn(move || budget.reserve_with(|| 10).map(|r| r.bytes()))
        };
        // Fits in the reserve: at once, over the budget, while the normal one waits.
        let critical = budget.reserve_critical_with(|| 10).unwrap();
        assert_eq!((budget.used(), budget.peak()), (105, 105));
        std::thread::sleep(Duration::from_millis(50));
        assert!(
            !normal.is_finished(),
            "the reserve is not for normal partitions"
        );
        // More than the reserve holds waits like any other.
        let waiting = {
            let budget = Arc::clone(&budget);
            std::thread::spawn(move || budget.reserve_critical_with(|| 6).map(|r| r.bytes()))
        };
        std::thread::sleep(Duration::from_millis(50));
        assert!(!waiting.is_finished());
        drop(critical);
        assert_eq!(waiting.join().unwrap(), Some(6));
        drop(full);
        assert_eq!(normal.join().unwrap(), Some(10));
        assert_eq!(budget.used(), 0);
    }

    #[test]
    fn waits_until_it_fits_and_tracks_the_peak() {
        let budget = MemoryBudget::new(100);
        let a = budget.reserve_with(|| 60).unwrap();
        let waiter = {
            let budget = Arc::clone(&budget);
            std::thread::spawn(move || budget.reserve_with(|| 50).map(|r| r.bytes()))
        };
        std::thread::sleep(Duration::from_millis(50));
        assert_eq!(budget.used(), 60, "the second reservation must wait");
        drop(a);
        assert_eq!(waiter.join().unwrap(), Some(50));
        assert_eq!(budget.peak(), 60);
        assert_eq!(budget.used(), 0);
        // Larger than the whole budget: clamped, so it can run alone; shrunk once known.
        let mut guess = budget.reserve_with(|| 1_000).unwrap();
        assert_eq!(guess.bytes(), 100);
        guess.shrink_to(30);
        assert_eq!(budget.used(), 30);
        guess.shrink_to(80);
        assert_eq!(budget.used(), 30, "never grows");
        let none = Duration::ZERO;
        assert!(guess.grow_within(50, none));
        assert_eq!((guess.bytes(), budget.used(), budget.peak()), (80, 80, 100));
        assert!(
            !guess.grow_within(21, Duration::from_secs(60)),
            "past the budget: refused at once"
        );
        assert_eq!(budget.used(), 80);
    }

    #[test]
    fn growing_waits_for_freed_bytes_but_not_forever() {
        let budget = MemoryBudget::new(100);
        let mut grower = budget.reserve_with(|| 40).unwrap();
        let other = budget.reserve_with(|| 50).unwrap();
        // 40 + 50 + 20 > 100: nothing is freed within the patience, so it gives up.
        let started = std::time::Instant::now();
        assert!(!grower.grow_within(20, Duration::from_millis(50)));
        assert!(started.elapsed() >= Duration::from_millis(50));
        assert_eq!((grower.bytes(), budget.used()), (40, 90));
        // Freed while it waits: it grows.
        let freer = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(30));
            drop(other);
        });
        assert!(grower.grow_within(20, Duration::from_secs(10)));
        freer.join().unwrap();
        assert_eq!((grower.bytes(), budget.used()), (60, 60));
        // A closed budget refuses at once.
        budget.close();
        assert!(!grower.grow_within(1, Duration::from_secs(10)));
        assert_eq!(budget.used(), 60);
    }

    #[test]
    fn a_waiter_asks_its_estimate_again_when_woken() {
        let budget = MemoryBudget::new(100);
        let mut first = budget.reserve_with(|| 100).unwrap();
        let known = Arc::new(Mutex::new(None::<u64>));
        let (tx, rx) = std::sync::mpsc::channel();
        {
            let (budget, known) = (Arc::clone(&budget), Arc::clone(&known));
            // Unknown: the whole budget; once known, that.
            std::thread::spawn(move || {
                let r = budget.reserve_with(|| known.lock().unwrap_or(u64::MAX));
                let _ = tx.send(r.as_ref().map(Reservation::bytes));
            });
        }
        std::thread::sleep(Duration::from_millis(30));
        assert!(rx.try_recv().is_err(), "waits while nothing fits");
        // The first partition is measured and keeps only what it needs, as synthesis does.
        *known.lock() = Some(20);
        first.shrink_to(20);
        budget.wake();
        let admitted = rx.recv_timeout(Duration::from_secs(10));
        assert_eq!(
            admitted,
            Ok(Some(20)),
            "admitted beside the first, not after it"
        );
        drop(first);
    }

    #[test]
    fn close_wakes_waiters() {
        let budget = MemoryBudget::new(10);
        let held = budget.reserve_with(|| 10).unwrap();
        let waiter = {
            let budget = Arc::clone(&budget);
            std::thread::spawn(move || budget.reserve_with(|| 5).is_none())
        };
        std::thread::sleep(Duration::from_millis(20));
        budget.close();
        assert!(waiter.join().unwrap());
        drop(held);
    }
}
