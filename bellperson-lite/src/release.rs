//! Large buffers freed on a thread of their own ([`Release`]).

/// Frees a proof's large host buffers (the witness, a, b and c, the host splits: 17 GB for a
/// 32 GiB WindowPoSt partition) on a thread of its own, off the path of the thread that made
/// them: unmapping touched memory takes about 30 to 45 ms per GiB (the 2-core development VM,
/// 2026-12-04), which a GPU worker would otherwise spend before handing its proof to a
/// finalizer. [`Release::wait`] returns once they are freed: the engine's finalizer waits
/// there after delivering the proof (`GpuPending::finish_before_release`), so that the bytes
/// are free before the proof's RAM reservation is given back. Dropped without waiting, the
/// buffers are still freed, by the thread.
#[derive(Debug)]
pub struct Release(Option<std::thread::JoinHandle<()>>);

impl Release {
    /// Starts freeing `buffers`.
    pub fn start<T: Send + 'static>(buffers: T) -> Release {
        let spawned = std::thread::Builder::new()
            .name("cuzk-release".into())
            .spawn(move || drop(buffers));
        // Without a thread (the system refused one) the buffers were dropped by the failed
        // spawn, here: slower, not wrong.
        Release(spawned.ok())
    }

    /// Waits until the buffers are freed.
    pub fn wait(mut self) {
        if let Some(handle) = self.0.take() {
            // Dropping plain vectors does not panic; a panic in another Drop has nothing to
            // report here (the buffers are gone either way).
            let _ = handle.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Release;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    use std::time::Duration;

    /// Sets its flag when dropped, slowly, as a large buffer is freed.
    struct Slow(Arc<AtomicBool>);

    impl Drop for Slow {
        fn drop(&mut self) {
            std::thread::sleep(Duration::from_millis(500));
            self.0.store(true, Ordering::SeqCst);
        }
    }

    #[test]
    fn buffers_are_freed_elsewhere_and_wait_returns_after() {
        let freed = Arc::new(AtomicBool::new(false));
        let started = std::time::Instant::now();
        let release = Release::start(Slow(Arc::clone(&freed)));
        assert!(
            started.elapsed() < Duration::from_millis(400),
            "start returned only after the drop"
        );
        release.wait();
        assert!(
            freed.load(Ordering::SeqCst),
            "wait returned before the drop ended"
        );
    }

    #[test]
    fn buffers_are_freed_without_a_wait() {
        let freed = Arc::new(AtomicBool::new(false));
        drop(Release::start(Slow(Arc::clone(&freed))));
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while !freed.load(Ordering::SeqCst) && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        assert!(freed.load(Ordering::SeqCst), "never freed");
    }
}
