//! `cuzk params`: inspect a parameter file, or generate random parameters (test sizes, and
//! production sizes for benchmarks under the rule of [`production_folder_check`]).
//! `cuzk bench --generate-params` generates through [`generate`] too.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use clap::Subcommand;
use cuzk_core::bellperson_lite::params::read_parameters_mmap;
use cuzk_core::filecoin::{
    generate_parameters, parse_sector_size, CircuitKind, FilecoinError, GenerateOptions,
};

use crate::config::{self, DaemonConfig};

#[derive(Subcommand)]
pub enum ParamsAction {
    /// Read a bellperson / Filecoin `.params` file and print its section sizes.
    Info {
        path: PathBuf,
        /// Skip the subgroup checks of the points.
        #[arg(long)]
        unchecked: bool,
    },
    /// Write random parameters for Filecoin circuits into a parameter folder, under the names
    /// filecoin-proofs uses (files already there are kept). For test sector sizes, and for
    /// production sizes with --force: those are not the network's parameters (no ceremony),
    /// so they go into a folder of their own, never the parameter cache unless
    /// --into-param-cache says so.
    Generate {
        /// 2KiB, 8MiB or 512MiB; 32GiB and 64GiB with --force and --param-cache.
        #[arg(long)]
        sector_size: String,
        /// Which circuits, comma-separated: porep, winning, wpost, snap (default: all).
        #[arg(
            long,
            value_delimiter = ',',
            default_value = "porep,winning,wpost,snap"
        )]
        kinds: Vec<String>,
        /// The parameter cache (default: $FIL_PROOFS_PARAMETER_CACHE, else
        /// /var/tmp/filecoin-proof-parameters).
        #[arg(long)]
        param_cache: Option<PathBuf>,
        /// Generate even for production sizes (benchmarks or a private network's parameters:
        /// real networks use the published ones).
        #[arg(long)]
        force: bool,
        /// Allow production-size parameters into the default parameter cache, where a node
        /// would take them for the network's.
        #[arg(long)]
        into_param_cache: bool,
        /// Multiply on the CPU even when built for and running on a GPU.
        #[arg(long)]
        cpu: bool,
    },
}

/// `cuzk params`.
pub fn run(action: ParamsAction) -> Result<()> {
    match action {
        ParamsAction::Info { path, unchecked } => info(&path, !unchecked),
        ParamsAction::Generate {
            sector_size,
            kinds,
            param_cache,
            force,
            into_param_cache,
            cpu,
        } => {
            // Its log says each circuit's size and the file's before the points are made,
            // which at production sizes takes minutes.
            crate::init_logging_at("human", "info");
            let sector_size = parse_sector_size(&sector_size)?;
            let kinds = kinds
                .iter()
                .map(|name| {
                    CircuitKind::from_name(name.trim()).with_context(|| {
                        format!("unknown circuit kind `{name}` (porep, winning, wpost or snap)")
                    })
                })
                .collect::<Result<Vec<_>>>()?;
            let folder = param_cache.unwrap_or_else(|| cuzk_core::Config::default().param_cache());
            // The folder of the daemon's configuration, where there is one (a production
            // size must not go there).
            let configured = match config::default_config_path() {
                Some(path) if force => Some(DaemonConfig::from_file(&path)?.engine.param_cache()),
                _ => None,
            };
            let options = GenerateOptions {
                force,
                cpu_only: cpu,
            };
            let folders = Folders {
                folder: &folder,
                configured: configured.as_deref(),
                into_param_cache,
            };
            generate(&folders, sector_size, &kinds, options)
        }
    }
}

fn info(path: &Path, checked: bool) -> Result<()> {
    let start = Instant::now();
    let params = read_parameters_mmap(path, checked)
        .with_context(|| format!("reading {}", path.display()))?;
    println!(
        "{}: read in {:.1} ms ({})",
        path.display(),
        start.elapsed().as_secs_f64() * 1e3,
        if checked {
            "subgroup-checked"
        } else {
            "unchecked"
        }
    );
    println!("  public inputs (ic): {}", params.vk.ic.len());
    println!(
        "  h:    {:>10} G1 (domain 2^{})",
        params.h.len(),
        (params.h.len() + 1).next_power_of_two().trailing_zeros()
    );
    println!("  l:    {:>10} G1", params.l.len());
    println!("  a:    {:>10} G1", params.a.len());
    println!("  b_g1: {:>10} G1", params.b_g1.len());
    println!("  b_g2: {:>10} G2", params.b_g2.len());
    Ok(())
}

/// Where random parameters go, and what they must not be mistaken for.
pub struct Folders<'a> {
    pub folder: &'a Path,
    /// The parameter folder of the daemon's configuration, if any.
    pub configured: Option<&'a Path>,
    /// Production sizes may go into a parameter cache (`--into-param-cache`).
    pub into_param_cache: bool,
}

/// Generates `kinds` at `sector_size` into `folders.folder` and prints what was done.
pub fn generate(
    folders: &Folders<'_>,
    sector_size: u64,
    kinds: &[CircuitKind],
    options: GenerateOptions,
) -> Result<()> {
    if options.force {
        production_folder_check(folders, sector_size)?;
    }
    println!(
        "generating parameters for {sector_size}-byte sectors in {}",
        folders.folder.display()
    );
    let done = generate_parameters(
        folders.folder,
        sector_size,
        kinds,
        options,
        &mut rand::rngs::OsRng,
    )
    .map_err(|e| match e {
        FilecoinError::ProductionSize { .. } => anyhow::anyhow!("{e}: pass --force"),
        other => other.into(),
    })?;
    for set in done {
        println!(
            "  {:<12} {} ({})",
            set.circuit_id,
            set.path.display(),
            if set.generated {
                format!(
                    "{:.2} GB, generated in {:.1} s, multiplied on the {}",
                    set.file_bytes as f64 / 1e9,
                    set.elapsed.as_secs_f64(),
                    if set.on_gpu { "GPU" } else { "CPU" }
                )
            } else {
                "already there, kept".to_string()
            }
        );
    }
    Ok(())
}

/// Random parameters of a production size are refused in a parameter cache node software or a
/// daemon would take for the network's (the default one, and the configured one) unless the
/// operator says so.
fn production_folder_check(folders: &Folders<'_>, sector_size: u64) -> Result<()> {
    if !cuzk_core::filecoin::registry::is_production_size(sector_size) || folders.into_param_cache {
        return Ok(());
    }
    let default = cuzk_core::Config::default().param_cache();
    let same = |a: &Path, b: &Path| match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    };
    let folder = folders.folder;
    if same(folder, &default) || folders.configured.is_some_and(|c| same(folder, c)) {
        bail!(
            "{} is the parameter cache: random {sector_size}-byte parameters there would be \
             taken for the network's. Generate into a folder of their own (--param-cache DIR), \
             or pass --into-param-cache if that is really meant",
            folder.display()
        );
    }
    Ok(())
}
