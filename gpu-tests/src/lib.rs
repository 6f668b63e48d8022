//! cuzk-gpu-tests: the home of cuzk's GPU tests and GPU benchmarks.
//!
//! Nothing here runs on the development or CI machines, which have no GPU: the tests in
//! `tests/*.rs` are gated `#![cfg(feature = "cuda")]` and the benchmarks in `src/bin/*.rs`
//! have `required-features = ["cuda"]`. CI only compiles them (`.ci/run` builds with
//! `--features cuzk-gpu-tests/cuda`). They run on the GPU machine through the bundle:
//! `cargo xtask gpu-bundle` builds them (release, `cuda` on) into `gpu-bundle/` with a `run.sh`
//! that runs every test, then the tests again under compute-sanitizer with `CUZK_SMALL=1`, then
//! every benchmark, and prints a summary table.
//!
//! This library holds what the tests share: fresh random inputs every run, with the seed
//! printed so that a failure can be replayed, the switch to small sizes, edge-case circuits
//! (`circuits`), the benchmarks' `--abc` option ([`abc_on_gpu`]), the arithmetic roof their
//! figures are printed against (`roof`) and their JSON output (`report`).

pub mod circuits;
pub mod compare;
pub mod fp;
#[cfg(feature = "cuda")]
pub mod msm_checks;
pub mod points;
pub mod report;
pub mod roof;
pub mod scalars;

use std::time::{SystemTime, UNIX_EPOCH};

use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

/// Environment variable that fixes the random seed (decimal, or hex with `0x`).
pub const SEED_VAR: &str = "CUZK_TEST_SEED";
/// Environment variable that restricts the tests to small sizes (set by `run.sh` for the
/// compute-sanitizer runs, which are 10 to 100 times slower).
pub const SMALL_VAR: &str = "CUZK_SMALL";

/// The seed for this test: `CUZK_TEST_SEED` if set, else taken from the clock. Printed (to
/// stderr, which the test harness shows for a failing test) with the line that replays it.
///
/// # Panics
///
/// If `CUZK_TEST_SEED` is set but is not a number: a replay with the wrong seed would
/// silently test something else.
pub fn seed() -> u64 {
    let seed = match std::env::var(SEED_VAR) {
        Ok(text) => parse_seed(&text)
            .unwrap_or_else(|| panic!("{SEED_VAR}={text:?} is not a decimal or 0x-hex u64")),
        Err(_) => seed_from_clock(),
    };
    eprintln!("random inputs from seed {seed}; replay with {SEED_VAR}={seed}");
    seed
}

/// A ChaCha20 generator seeded by [`seed`]: what each test draws its inputs from.
pub fn rng() -> ChaCha20Rng {
    ChaCha20Rng::seed_from_u64(seed())
}

/// Whether `CUZK_SMALL` asks for small sizes only (set and not `0`, `false` or empty).
pub fn small() -> bool {
    std::env::var(SMALL_VAR).is_ok_and(|v| is_true(&v))
}

/// Parses a seed: decimal, or hexadecimal with a `0x` prefix.
pub fn parse_seed(text: &str) -> Option<u64> {
    let text = text.trim();
    match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => text.parse().ok(),
    }
}

fn is_true(value: &str) -> bool {
    !matches!(value.trim(), "" | "0" | "false" | "no")
}

fn seed_from_clock() -> u64 {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    // Nanoseconds mixed with the process id, so that two tests started in the same instant
    // (parallel test threads, or two binaries) still get different inputs.
    (now.as_nanos() as u64) ^ (u64::from(std::process::id()) << 40)
}

/// The benchmarks' `--abc gpu|cpu`: whether the GPUs evaluate a, b and c from their copy of
/// the constraint matrices (`gpus.matrices_on_gpu`).
pub fn abc_on_gpu(value: &str) -> Result<bool, String> {
    match value {
        "gpu" => Ok(true),
        "cpu" => Ok(false),
        other => Err(format!("--abc {other}: gpu or cpu")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::RngCore;

    #[test]
    fn seeds_parse_in_decimal_and_hex() {
        assert_eq!(parse_seed("42"), Some(42));
        assert_eq!(parse_seed(" 0x2a "), Some(42));
        assert_eq!(parse_seed("0XFF"), Some(255));
        assert_eq!(parse_seed(&u64::MAX.to_string()), Some(u64::MAX));
        assert_eq!(parse_seed("-1"), None);
        assert_eq!(parse_seed("0x"), None);
        assert_eq!(parse_seed("seed"), None);
    }

    #[test]
    fn small_switch_values() {
        for yes in ["1", "true", "yes"] {
            assert!(is_true(yes), "{yes}");
        }
        for no in ["", "0", "false", "no"] {
            assert!(!is_true(no), "{no}");
        }
    }

    #[test]
    fn the_seed_variable_replays_the_inputs() {
        // The only test that touches the environment, so no other test can race with it.
        std::env::set_var(SEED_VAR, "0x7");
        let replayed = rng().next_u64();
        std::env::remove_var(SEED_VAR);
        assert_eq!(replayed, ChaCha20Rng::seed_from_u64(7).next_u64());
    }
}
