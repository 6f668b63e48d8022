//! Comparison of GPU results with CPU ones, with a short report on mismatch.

use std::fmt::Debug;

/// Panics unless `gpu == cpu` element-wise, naming `what`, how many differ and the first one
/// (with `inputs(i)` describing the operands of element `i`).
pub fn assert_same<T: PartialEq + Debug>(
    what: &str,
    gpu: &[T],
    cpu: &[T],
    inputs: impl Fn(usize) -> String,
) {
    assert_eq!(
        gpu.len(),
        cpu.len(),
        "{what}: GPU gave {} results, CPU {}",
        gpu.len(),
        cpu.len()
    );
    let mut bad = (0..gpu.len()).filter(|&i| gpu[i] != cpu[i]);
    if let Some(first) = bad.next() {
        let count = 1 + bad.count();
        panic!(
            "{what}: {count} of {} results differ; first at index {first}\n  inputs: {}\n  gpu: {:?}\n  cpu: {:?}",
            gpu.len(),
            inputs(first),
            gpu[first],
            cpu[first]
        );
    }
}
