//! The message of a caught panic, for the errors that report one (a synthesis, a proving
//! call or a native witness generator that panicked): bellperson-lite's helper, the one copy.

/// The panic's payload when it is a string (as `panic!` with a message makes it).
pub(crate) fn panic_message(panic: &Box<dyn std::any::Any + Send>) -> String {
    bellperson_lite::error::panic_message(panic.as_ref())
}
