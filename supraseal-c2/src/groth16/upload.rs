//! The signal a proof's CPU work waits on until its inputs have left the host, and the C
//! callback that sets it.

use std::ffi::c_void;
use std::sync::{Condvar, Mutex};

/// Set once the inputs of every circuit of a [`start`](super::start) call have left the host (or when the
/// call returns, whichever comes first), so that CPU work that would compete with the uploads
/// for cores and memory bandwidth can wait for it.
#[derive(Debug, Default)]
pub struct UploadSignal {
    done: Mutex<bool>,
    changed: Condvar,
}

impl UploadSignal {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn set(&self) {
        // A poisoned lock only means another thread panicked while holding it; the flag is
        // still a plain bool.
        *self.done.lock().unwrap_or_else(|e| e.into_inner()) = true;
        self.changed.notify_all();
    }

    /// Blocks until the signal is set.
    pub fn wait(&self) {
        let mut done = self.done.lock().unwrap_or_else(|e| e.into_inner());
        while !*done {
            done = self.changed.wait(done).unwrap_or_else(|e| e.into_inner());
        }
    }
}

/// What the upload callback reads: the signal to set and the circuit count.
pub(super) struct UploadHook<'a> {
    pub(super) signal: &'a UploadSignal,
    pub(super) count: usize,
}

pub(super) extern "C" fn on_uploaded(ctx: *mut c_void, circuit: usize) {
    // SAFETY: `ctx` is the `UploadHook` that `start` passed with this function; it lives on
    // start's stack for the whole call, and the library calls back only during that call.
    let hook = unsafe { &*(ctx as *const UploadHook<'_>) };
    if circuit + 1 >= hook.count {
        hook.signal.set();
    }
}
