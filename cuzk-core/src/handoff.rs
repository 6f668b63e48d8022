//! The hand-off from synthesis threads to provers: a bounded channel that is ordered by
//! priority on both sides.
//!
//! A plain bounded channel is FIFO: when ten PoRep partitions finish synthesis together and
//! wait to hand over (one slot per prover), a CRITICAL WinningPoSt partition finished a moment
//! later waits behind all ten, each taking the GPU for seconds (measured on the H200: 13-16 s
//! for a 0.3 s WinningPoSt under a 32 GiB PoRep load). Here the waiting senders are admitted in
//! priority order (FIFO within a priority), and a receiver takes the highest-priority partition
//! ready, so a CRITICAL partition waits for at most the provers' current work.
//!
//! The CRITICAL lane: `critical_slots` more slots that only CRITICAL items fill, and receivers
//! made with [`HandOffReceiver::only_critical`] that take nothing else, so a CRITICAL partition
//! neither waits for a slot held by other work nor for a prover busy with it.
//!
//! Like the channel it replaces: `send` blocks while the slots are full and fails (giving the
//! item back) once every receiver is gone; the receivers' iterator ends once every sender is
//! gone and nothing is left.

use std::collections::BinaryHeap;
use std::sync::Arc;

use parking_lot::{Condvar, Mutex, MutexGuard};

use crate::job::Priority;

/// A bounded hand-off of `capacity` slots (at least one), and `critical_slots` more for
/// CRITICAL items only.
pub(crate) fn handoff<T>(
    capacity: usize,
    critical_slots: usize,
) -> (HandOffSender<T>, HandOffReceiver<T>) {
    let shared = Arc::new(Shared {
        state: Mutex::new(State {
            ready: BinaryHeap::new(),
            waiting: BinaryHeap::new(),
            next_ticket: 0,
            senders: 1,
            receivers: 1,
        }),
        changed: Condvar::new(),
        capacity: capacity.max(1),
        critical_slots,
    });
    (
        HandOffSender {
            shared: Arc::clone(&shared),
        },
        HandOffReceiver {
            shared,
            min: Priority::Low,
        },
    )
}

struct Shared<T> {
    state: Mutex<State<T>>,
    /// Woken on every change: an item in or out, a sender admitted, a handle dropped.
    changed: Condvar,
    capacity: usize,
    /// Slots beyond `capacity` that only CRITICAL items take.
    critical_slots: usize,
}

struct State<T> {
    /// Handed over, not yet taken: the highest (priority, earliest ticket) first.
    ready: BinaryHeap<Entry<T>>,
    /// Senders blocked for a slot, the next to be admitted first.
    waiting: BinaryHeap<Ticket>,
    next_ticket: u64,
    senders: usize,
    receivers: usize,
}

/// A place in line: higher priority first, then the earlier ticket.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Ticket {
    priority: Priority,
    number: u64,
}

impl Ord for Ticket {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.priority
            .cmp(&other.priority)
            .then_with(|| other.number.cmp(&self.number))
    }
}

impl PartialOrd for Ticket {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

struct Entry<T> {
    ticket: Ticket,
    item: T,
}

impl<T> PartialEq for Entry<T> {
    fn eq(&self, other: &Self) -> bool {
        self.ticket == other.ticket
    }
}
impl<T> Eq for Entry<T> {}
impl<T> PartialOrd for Entry<T> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl<T> Ord for Entry<T> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.ticket.cmp(&other.ticket)
    }
}

impl<T> Shared<T> {
    /// The state (parking_lot: a panic while it is held leaves it usable, and every change
    /// is one push or pop, so it is consistent).
    fn lock(&self) -> MutexGuard<'_, State<T>> {
        self.state.lock()
    }

    fn wait(&self, guard: &mut MutexGuard<'_, State<T>>) {
        self.changed.wait(guard);
    }

    /// Whether an item of `priority` has a free slot: other items count against `capacity`
    /// alone, CRITICAL ones against every slot.
    fn has_room(&self, state: &State<T>, priority: Priority) -> bool {
        if priority == Priority::Critical {
            state.ready.len() < self.capacity + self.critical_slots
        } else {
            let others = state.ready.iter();
            others
                .filter(|e| e.ticket.priority != Priority::Critical)
                .count()
                < self.capacity
        }
    }
}

/// The synthesis threads' end; cloned per thread.
pub(crate) struct HandOffSender<T> {
    shared: Arc<Shared<T>>,
}

impl<T> HandOffSender<T> {
    /// Hands `item` over at `priority`, blocking while every slot is full or a sender ahead of
    /// it in line waits. `Err(item)` once no receiver is left.
    pub(crate) fn send(&self, item: T, priority: Priority) -> Result<(), T> {
        let shared = &self.shared;
        let mut state = shared.lock();
        let ticket = Ticket {
            priority,
            number: state.next_ticket,
        };
        state.next_ticket += 1;
        state.waiting.push(ticket);
        loop {
            if state.receivers == 0 {
                state.waiting.retain(|t| *t != ticket);
                shared.changed.notify_all();
                return Err(item);
            }
            if shared.has_room(&state, priority) && state.waiting.peek() == Some(&ticket) {
                state.waiting.pop();
                state.ready.push(Entry { ticket, item });
                shared.changed.notify_all();
                return Ok(());
            }
            shared.wait(&mut state);
        }
    }
}

impl<T> Clone for HandOffSender<T> {
    fn clone(&self) -> Self {
        self.shared.lock().senders += 1;
        HandOffSender {
            shared: Arc::clone(&self.shared),
        }
    }
}

impl<T> Drop for HandOffSender<T> {
    fn drop(&mut self) {
        self.shared.lock().senders -= 1;
        self.shared.changed.notify_all();
    }
}

/// The provers' end; cloned per prover.
pub(crate) struct HandOffReceiver<T> {
    shared: Arc<Shared<T>>,
    /// The lowest priority this receiver takes (CRITICAL for the CRITICAL lane's provers).
    min: Priority,
}

impl<T> HandOffReceiver<T> {
    /// The highest-priority item handed over that this receiver takes, blocking until there
    /// is one; `None` once every sender is gone and nothing it takes is left.
    pub(crate) fn recv(&self) -> Option<T> {
        let shared = &self.shared;
        let mut state = shared.lock();
        loop {
            if state
                .ready
                .peek()
                .is_some_and(|e| e.ticket.priority >= self.min)
            {
                let entry = state.ready.pop()?;
                shared.changed.notify_all();
                return Some(entry.item);
            }
            if state.senders == 0 {
                return None;
            }
            shared.wait(&mut state);
        }
    }

    /// Another receiver that takes only CRITICAL items (a prover of the CRITICAL lane).
    pub(crate) fn only_critical(&self) -> HandOffReceiver<T> {
        let mut receiver = self.clone();
        receiver.min = Priority::Critical;
        receiver
    }
}

impl<T> Clone for HandOffReceiver<T> {
    fn clone(&self) -> Self {
        self.shared.lock().receivers += 1;
        HandOffReceiver {
            shared: Arc::clone(&self.shared),
            min: self.min,
        }
    }
}

impl<T> Drop for HandOffReceiver<T> {
    fn drop(&mut self) {
        self.shared.lock().receivers -= 1;
        self.shared.changed.notify_all();
    }
}

impl<T> Iterator for HandOffReceiver<T> {
    type Item = T;

    fn next(&mut self) -> Option<T> {
        self.recv()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// Waits until `n` senders are blocked in line.
    fn until_waiting<T>(rx: &HandOffReceiver<T>, n: usize) {
        for _ in 0..1000 {
            if rx.shared.lock().waiting.len() == n {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        panic!("{n} senders never waited");
    }

    /// With the slot full and normal senders in line, a critical sender is admitted first,
    /// and a receiver takes the highest priority ready; FIFO within a priority.
    #[test]
    fn critical_overtakes_waiting_senders_and_ready_items() {
        let (tx, rx) = handoff::<&'static str>(1, 0);
        tx.send("normal 0", Priority::Normal).unwrap();
        let mut threads = Vec::new();
        for (name, priority, waiting) in [
            ("normal 1", Priority::Normal, 1),
            ("normal 2", Priority::Normal, 2),
            ("critical", Priority::Critical, 3),
        ] {
            let tx = tx.clone();
            threads.push(std::thread::spawn(move || tx.send(name, priority).unwrap()));
            until_waiting(&rx, waiting);
        }
        drop(tx);
        let order: Vec<&str> = rx.collect();
        assert_eq!(order, ["normal 0", "critical", "normal 1", "normal 2"]);
        for t in threads {
            t.join().unwrap();
        }
    }

    /// With the ordinary slot full and its prover busy, a CRITICAL item takes the critical
    /// slot at once and goes to the lane's receiver, which takes nothing else.
    #[test]
    fn the_critical_lane_has_its_own_slot_and_receiver() {
        let (tx, rx) = handoff::<&'static str>(1, 1);
        let lane = rx.only_critical();
        tx.send("normal 0", Priority::Normal).unwrap();
        let blocked = {
            let tx = tx.clone();
            std::thread::spawn(move || tx.send("normal 1", Priority::Normal).unwrap())
        };
        until_waiting(&rx, 1);
        // Not blocked behind the full slot, nor behind the normal sender in line.
        tx.send("critical", Priority::Critical).unwrap();
        assert_eq!(lane.recv(), Some("critical"));
        // A second CRITICAL waits for the critical slot only while it is taken.
        tx.send("critical 2", Priority::Critical).unwrap();
        assert_eq!(
            rx.recv(),
            Some("critical 2"),
            "ordinary receivers take CRITICAL too"
        );
        assert_eq!(rx.recv(), Some("normal 0"));
        blocked.join().unwrap();
        drop(tx);
        assert_eq!(lane.recv(), None, "the lane never takes a normal item");
        assert_eq!(rx.recv(), Some("normal 1"));
        assert_eq!(rx.recv(), None);
    }

    #[test]
    fn the_highest_priority_ready_is_taken_first() {
        let (tx, rx) = handoff(3, 0);
        tx.send(1, Priority::Low).unwrap();
        tx.send(2, Priority::Normal).unwrap();
        tx.send(3, Priority::High).unwrap();
        drop(tx);
        assert_eq!(rx.collect::<Vec<_>>(), [3, 2, 1]);
    }

    /// Senders get their item back once the receivers are gone, also those already waiting;
    /// receivers end once the senders are gone and the items taken.
    #[test]
    fn closing_either_end_ends_the_other() {
        let (tx, rx) = handoff(1, 0);
        tx.send(1, Priority::Normal).unwrap();
        let waiting = {
            let tx = tx.clone();
            std::thread::spawn(move || tx.send(2, Priority::Critical))
        };
        until_waiting(&rx, 1);
        drop(rx);
        assert_eq!(waiting.join().unwrap(), Err(2));
        assert_eq!(tx.send(3, Priority::Normal), Err(3));

        let (tx, rx) = handoff(2, 0);
        let rx2 = rx.clone();
        tx.send("a", Priority::Normal).unwrap();
        drop(tx);
        assert_eq!(rx.recv(), Some("a"));
        assert_eq!(rx2.recv(), None);
    }
}
