//! The harness of the emulator tests: a C++ program under `tests/` that includes the kernels'
//! own headers (`src/` on the include path), built with a host compiler and run.

use std::path::Path;
use std::process::Command;

/// Builds `tests/<source>` with `c++` (or `$CXX`) and runs it with `args`; panics with the
/// compiler's or the program's output when either fails, and returns what the program printed.
pub fn build_and_run(source: &str, name: &str, args: &[&str]) -> String {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let binary = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".to_string());
    let built = Command::new(&cxx)
        .args([
            "-std=c++17",
            "-O2",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-Wno-unknown-pragmas",
            "-I",
        ])
        .arg(manifest.join("src"))
        .arg(manifest.join("tests").join(source))
        .arg("-o")
        .arg(&binary)
        .output()
        .unwrap_or_else(|e| panic!("running {cxx} (a host C++ compiler is needed): {e}"));
    assert!(
        built.status.success(),
        "building {name} failed:\n{}",
        String::from_utf8_lossy(&built.stderr)
    );
    let run = Command::new(&binary)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("running {name}: {e}"));
    let stdout = String::from_utf8_lossy(&run.stdout).into_owned();
    assert!(
        run.status.success(),
        "{name}: {stdout}{}",
        String::from_utf8_lossy(&run.stderr)
    );
    stdout
}
