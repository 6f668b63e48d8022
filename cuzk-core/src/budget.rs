//! The host-memory budget for partitions in flight.
//!
//! A synthesis thread reserves a partition's estimated working set before synthesizing it and
//! the reservation travels with the synthesized partition until the prover no longer needs
//! its vectors (dropping it releases the bytes). A reservation that does not fit waits; one
//! larger than the whole budget is clamped to the budget, so it runs alone instead of never.

use std::sync::{Arc, Condvar, Mutex, MutexGuard};

#[derive(Debug, Default)]
struct State {
    used: u64,
    peak: u64,
    closed: bool,
}

/// Bytes shared by every stage; see the module doc.
#[derive(Debug)]
pub(crate) struct MemoryBudget {
    total: u64,
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
    pub fn new(total: u64) -> Arc<MemoryBudget> {
        Arc::new(MemoryBudget {
            total: total.max(1),
            state: Mutex::default(),
            freed: Condvar::new(),
        })
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
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

    /// Waits until `bytes` (at most the whole budget) fit, then holds them. `None` when the
    /// budget was closed (shutdown) while waiting.
    pub fn reserve(self: &Arc<Self>, bytes: u64) -> Option<Reservation> {
        let bytes = bytes.min(self.total);
        let mut s = self.state();
        while !s.closed && s.used + bytes > self.total {
            s = self.freed.wait(s).unwrap_or_else(|e| e.into_inner());
        }
        if s.closed {
            return None;
        }
        s.used += bytes;
        s.peak = s.peak.max(s.used);
        Some(Reservation {
            budget: Arc::clone(self),
            bytes,
        })
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
    fn waits_until_it_fits_and_tracks_the_peak() {
        let budget = MemoryBudget::new(100);
        let a = budget.reserve(60).unwrap();
        let waiter = {
            let budget = Arc::clone(&budget);
            std::thread::spawn(move || budget.reserve(50).map(|r| r.bytes()))
        };
        std::thread::sleep(Duration::from_millis(50));
        assert_eq!(budget.used(), 60, "the second reservation must wait");
        drop(a);
        assert_eq!(waiter.join().unwrap(), Some(50));
        assert_eq!(budget.peak(), 60);
        assert_eq!(budget.used(), 0);
        // Larger than the whole budget: clamped, so it can run alone; shrunk once known.
        let mut guess = budget.reserve(1_000).unwrap();
        assert_eq!(guess.bytes(), 100);
        guess.shrink_to(30);
        assert_eq!(budget.used(), 30);
        guess.shrink_to(80);
        assert_eq!(budget.used(), 30, "never grows");
    }

    #[test]
    fn close_wakes_waiters() {
        let budget = MemoryBudget::new(10);
        let held = budget.reserve(10).unwrap();
        let waiter = {
            let budget = Arc::clone(&budget);
            std::thread::spawn(move || budget.reserve(5).is_none())
        };
        std::thread::sleep(Duration::from_millis(20));
        budget.close();
        assert!(waiter.join().unwrap());
        drop(held);
    }
}
