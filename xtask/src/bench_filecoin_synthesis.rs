//! `cargo xtask bench-synthesis --kind porep-2k` (or `window-post-32g`, `snap-32g`, ...): the
//! synthesis comparison on a real Filecoin circuit with a synthetic input. Full synthesis, the
//! gadgets' witness and the native witness, each alone and then one per core side by side
//! (the aggregate over every core), every witness checked equal. `cuzk bench --witness-only`
//! does the work: it lives in the daemon binary so that a GPU host without Rust can run it, and
//! this task builds and runs it here.

use anyhow::{bail, Context, Result};

use crate::{cuzk_command, Options};

/// A kind as `--kind` names it: the Filecoin kind, a dash, the sector size's short form.
fn parse_kind(name: &str) -> Result<(&'static str, &'static str)> {
    const KINDS: [&str; 4] = ["porep", "winning-post", "window-post", "snap"];
    const SIZES: [(&str, &str); 5] = [
        ("2k", "2KiB"),
        ("8m", "8MiB"),
        ("512m", "512MiB"),
        ("32g", "32GiB"),
        ("64g", "64GiB"),
    ];
    let known = "porep, winning-post, window-post or snap, a dash, then 2k, 8m, 512m, 32g or 64g \
                 (e.g. porep-2k, window-post-32g)";
    let Some((kind, size)) = name.rsplit_once('-') else {
        bail!("--kind {name}: expected {known}");
    };
    let kind = KINDS.iter().find(|k| **k == kind);
    let size = SIZES.iter().find(|(short, _)| *short == size);
    match (kind, size) {
        (Some(kind), Some((_, size))) => Ok((kind, size)),
        _ => bail!("--kind {name}: expected {known}"),
    }
}

/// Whether a full synthesis is timed too. Side by side, one per core, full syntheses of a
/// production-size partition (a, b and c besides the witness: about 17 GB each at 32 GiB) do
/// not fit a host's memory, so at 32 and 64 GiB it is left out unless `--full` asks for it.
fn full_by_default(sector_size: &str) -> bool {
    !matches!(sector_size, "32GiB" | "64GiB")
}

pub fn run(name: &str, options: &Options) -> Result<()> {
    let (kind, sector_size) = parse_kind(name)?;
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let at_once: usize = options.number("at-once", cores)?;
    let runs: usize = options.number("runs", 2)?;
    let full = options.flag("full") || full_by_default(sector_size);
    println!(
        "bench-synthesis: {kind} {sector_size} (synthetic input), {runs} runs, {at_once} at once{}",
        if full { ", with full synthesis" } else { "" }
    );
    // The witnesses need no GPU: the plain build.
    let mut cargo = cuzk_command(false);
    cargo
        .args(["bench", "--kind", kind, "--sector-size", sector_size])
        .args(["--witness-only", "--jobs", &runs.to_string()])
        .args(["--at-once", &at_once.to_string()]);
    if full {
        cargo.arg("--full");
    }
    if let Some(json) = options.value("json") {
        cargo.args(["--json", json]);
    }
    let status = cargo.status().context("cannot run cargo")?;
    if !status.success() {
        bail!("cuzk bench --witness-only failed ({status})");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_name_a_circuit_and_a_sector_size() {
        assert_eq!(parse_kind("porep-2k").unwrap(), ("porep", "2KiB"));
        assert_eq!(
            parse_kind("window-post-32g").unwrap(),
            ("window-post", "32GiB")
        );
        assert_eq!(parse_kind("snap-512m").unwrap(), ("snap", "512MiB"));
        for bad in ["porep", "porep-3k", "post-2k", "-2k", "window-32g"] {
            let err = parse_kind(bad).unwrap_err().to_string();
            assert!(err.contains("porep-2k, window-post-32g"), "{bad}: {err}");
        }
        assert!(full_by_default("2KiB") && !full_by_default("32GiB"));
    }
}
