//! The message of a caught panic, for the errors that report one (a synthesis, a proving
//! call or a native witness generator that panicked).

/// The panic's payload when it is a string (as `panic!` with a message makes it).
pub(crate) fn panic_message(panic: &Box<dyn std::any::Any + Send>) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "no message".into())
}
