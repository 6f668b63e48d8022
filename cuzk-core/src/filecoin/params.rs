//! Random parameters for Filecoin's test sector sizes (`cuzk params generate`).
//!
//! Real networks prove with the parameters of the published ceremony; devnets and tests with
//! 2 KiB, 8 MiB or 512 MiB sectors need parameters too, and filecoin-proofs' own generator
//! takes minutes for the smallest PoRep circuit. This one synthesizes the circuit's blank
//! form (its constraints, no witness) and runs bellperson-lite's multi-threaded generator,
//! with its fixed-base multiplications (most of the work) on the GPU when built with `cuda`
//! and one is visible, then writes `.params`, `.vk` and `.meta` under the names filecoin-proofs
//! looks for, so that filecoin-proofs (verification, its own proving) and cuzk share the cache.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use bellpepper_core::Circuit;
#[cfg(feature = "cuda")]
use bellperson_lite::generator::GpuFixedBase;
use bellperson_lite::generator::{
    setup_scalars, CpuFixedBase, FixedBaseMultiplier, FixedBaseTable, SetupSecrets,
};
use bellperson_lite::params::write_verifying_key;
use bellperson_lite::ProverError;
use bellperson_lite::Scalar;
use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective};
use filecoin_proofs::constants::DefaultPieceHasher;
use filecoin_proofs::parameters::{
    public_params, window_post_public_params, winning_post_public_params,
};
use filecoin_proofs::{MerkleTreeTrait, TreeRHasher};
use rand_core::RngCore;
use storage_proofs_core::compound_proof::CompoundProof;
use storage_proofs_core::parameter_cache::CacheEntryMetadata;
use storage_proofs_porep::stacked::{StackedCompound, StackedDrg};
use storage_proofs_post::fallback::{FallbackPoSt, FallbackPoStCompound};
use storage_proofs_update::{EmptySectorUpdate, EmptySectorUpdateCompound, PublicParams};

use super::error::FilecoinError;
use super::registry::{self, CircuitKind, ParameterFiles};

/// How [`generate_parameters`] works.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GenerateOptions {
    /// Generate production sizes (32 and 64 GiB) too, which real networks take from the
    /// published ceremony instead.
    pub force: bool,
    /// Multiply on the CPU even when a GPU is there (for comparisons, or to leave the GPU to
    /// a running daemon).
    pub cpu_only: bool,
}

/// What [`generate_parameters`] did for one circuit.
#[derive(Clone, Debug)]
pub struct GeneratedParameters {
    pub circuit_id: String,
    /// The `.params` file.
    pub path: PathBuf,
    /// False when the file was there already and was left alone.
    pub generated: bool,
    /// Whether all the fixed-base multiplications ran on the GPU (false when not generated,
    /// and when a GPU failure handed them to the CPU part-way).
    pub on_gpu: bool,
    pub elapsed: Duration,
    /// The `.params` file's size in bytes (0 when it was there already).
    pub file_bytes: u64,
}

/// Points made and written at a time: 400 MB of G1 (800 MB of G2) in flight, whatever the
/// file's size, and large enough that the GPU's share of each call dominates its overhead.
const CHUNK_POINTS: usize = 1 << 22;

/// Space left free beside a new parameter file (the folder's file system may hold other
/// things that grow while it is written).
const DISK_MARGIN_BYTES: u64 = 1 << 30;

/// Writes random parameters for `kinds` at `sector_size` into `folder`, skipping circuits
/// whose `.params` file exists. Production sizes (32 and 64 GiB) are refused unless
/// `options.force`.
pub fn generate_parameters<R: RngCore>(
    folder: &Path,
    sector_size: u64,
    kinds: &[CircuitKind],
    options: GenerateOptions,
    rng: &mut R,
) -> Result<Vec<GeneratedParameters>, FilecoinError> {
    if registry::is_production_size(sector_size) && !options.force {
        return Err(FilecoinError::ProductionSize { sector_size });
    }
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| FilecoinError::Io { path, source }
    };
    fs::create_dir_all(folder).map_err(io(folder))?;
    let mut done = Vec::new();
    for &kind in kinds {
        let circuit_id = kind.circuit_id(sector_size)?;
        let files = ParameterFiles::of(kind, sector_size)?;
        let path = folder.join(&files.params);
        let started = Instant::now();
        let generated = !path.is_file();
        let mut on_gpu = false;
        let mut file_bytes = 0;
        if generated {
            let multiplier = Multiplier::new(options.cpu_only);
            let generate = GenerateOne {
                folder,
                files: &files,
                circuit_id: &circuit_id,
                sector_size,
                multiplier: &multiplier,
            };
            file_bytes = by_shape!(sector_size, generate_kind(kind, &generate, &mut *rng))?;
            on_gpu = multiplier.used_gpu();
        }
        done.push(GeneratedParameters {
            circuit_id,
            path,
            generated,
            on_gpu,
            elapsed: started.elapsed(),
            file_bytes,
        });
    }
    Ok(done)
}

struct GenerateOne<'a> {
    folder: &'a Path,
    files: &'a ParameterFiles,
    circuit_id: &'a str,
    sector_size: u64,
    multiplier: &'a Multiplier,
}

/// The GPU's fixed-base multiplications when built with `cuda`, allowed and a GPU is visible,
/// else the CPU's. A GPU that fails is reported and the CPU takes over for the rest: the
/// parameters are the same either way, so a broken GPU costs time, not the setup.
struct Multiplier {
    /// Set while the GPU is in use; cleared for good by its first failure.
    gpu: AtomicBool,
}

impl Multiplier {
    fn new(cpu_only: bool) -> Self {
        Self {
            gpu: AtomicBool::new(!cpu_only && gpu_visible()),
        }
    }

    fn used_gpu(&self) -> bool {
        self.gpu.load(Ordering::Relaxed)
    }

    /// `multiply()`'s points while the GPU is in use; `None` (the CPU's turn) when it is not
    /// or when this call fails, which also takes the GPU out for the calls after it.
    #[cfg(feature = "cuda")]
    fn try_gpu<T>(&self, multiply: impl FnOnce() -> Result<T, ProverError>) -> Option<T> {
        if !self.used_gpu() {
            return None;
        }
        match multiply() {
            Ok(points) => Some(points),
            Err(e) => {
                tracing::warn!(
                    error = %e,
                    "fixed-base multiplication failed on the GPU; the CPU does the rest"
                );
                self.gpu.store(false, Ordering::Relaxed);
                None
            }
        }
    }
}

#[cfg(feature = "cuda")]
fn gpu_visible() -> bool {
    supraseal_c2::device::device_count().is_ok_and(|n| n > 0)
}

/// Built without `cuda`: no GPU to multiply on.
#[cfg(not(feature = "cuda"))]
fn gpu_visible() -> bool {
    false
}

impl FixedBaseMultiplier for Multiplier {
    fn mul_g1(
        &self,
        table: &FixedBaseTable<G1Projective>,
        scalars: &[Scalar],
    ) -> Result<Vec<G1Affine>, ProverError> {
        #[cfg(feature = "cuda")]
        if let Some(points) = self.try_gpu(|| GpuFixedBase.mul_g1(table, scalars)) {
            return Ok(points);
        }
        CpuFixedBase.mul_g1(table, scalars)
    }

    fn mul_g2(
        &self,
        table: &FixedBaseTable<G2Projective>,
        scalars: &[Scalar],
    ) -> Result<Vec<G2Affine>, ProverError> {
        #[cfg(feature = "cuda")]
        if let Some(points) = self.try_gpu(|| GpuFixedBase.mul_g2(table, scalars)) {
            return Ok(points);
        }
        CpuFixedBase.mul_g2(table, scalars)
    }
}

/// The blank circuit of `kind` (the representative registered proof of each, as in
/// [`CircuitKind::cache_identifier`]) through [`GenerateOne::write`]; the `.params` file's size.
fn generate_kind<Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>>(
    kind: CircuitKind,
    out: &GenerateOne<'_>,
    rng: &mut dyn RngCore,
) -> Result<u64, FilecoinError> {
    let position = registry::SECTOR_SIZES
        .iter()
        .position(|&(size, _)| size == out.sector_size)
        .ok_or(FilecoinError::UnknownSectorSize(out.sector_size))?;
    let failed = |e: anyhow::Error| FilecoinError::Generate {
        circuit_id: out.circuit_id.to_string(),
        reason: format!("{e:#}"),
    };
    match kind {
        CircuitKind::PoRep => {
            let proof = registry::representative_seal(position);
            let params = public_params::<Tree>(&proof.as_v1_config()).map_err(failed)?;
            let circuit = <StackedCompound<Tree, DefaultPieceHasher> as CompoundProof<
                StackedDrg<'_, Tree, DefaultPieceHasher>,
                _,
            >>::blank_circuit(&params);
            out.write(circuit, rng)
        }
        CircuitKind::WinningPost | CircuitKind::WindowPost => {
            let config = registry::representative_post(kind, position).as_v1_config();
            let params = match kind {
                CircuitKind::WinningPost => winning_post_public_params::<Tree>(&config),
                _ => window_post_public_params::<Tree>(&config),
            }
            .map_err(failed)?;
            let circuit = <FallbackPoStCompound<Tree> as CompoundProof<
                FallbackPoSt<'_, Tree>,
                _,
            >>::blank_circuit(&params);
            out.write(circuit, rng)
        }
        CircuitKind::SnapDeals => {
            let params = PublicParams::from_sector_size(out.sector_size);
            let circuit = <EmptySectorUpdateCompound<Tree> as CompoundProof<
                EmptySectorUpdate<Tree>,
                _,
            >>::blank_circuit(&params);
            out.write(circuit, rng)
        }
    }
}

impl GenerateOne<'_> {
    /// Generates and writes the three files, each through a temporary name and a rename, so
    /// that a reader never sees half a file; the `.params` file goes last, since its presence
    /// is what marks the set as done. Its points are made and written a chunk at a time, so a
    /// production-size file (about 47 GB for a 32 GiB PoRep) is never held in memory; the
    /// folder's free space is checked for it first. Returns its size.
    fn write<C: Circuit<Scalar>>(
        &self,
        circuit: C,
        mut rng: &mut dyn RngCore,
    ) -> Result<u64, FilecoinError> {
        let failed = |e: ProverError| FilecoinError::Generate {
            circuit_id: self.circuit_id.to_string(),
            reason: e.to_string(),
        };
        let secrets = SetupSecrets::random(&mut rng);
        let synthesized = Instant::now();
        let scalars = setup_scalars(circuit, &secrets).map_err(failed)?;
        let counts = scalars.counts();
        let file_bytes = counts.file_bytes();
        let free = fs2::available_space(self.folder).map_err(|source| FilecoinError::Io {
            path: self.folder.to_path_buf(),
            source,
        })?;
        tracing::info!(
            circuit = self.circuit_id,
            domain = counts.h + 1,
            aux = counts.l,
            file_gb = file_bytes as f64 / 1e9,
            free_gb = free as f64 / 1e9,
            synthesis_and_qap_s = synthesized.elapsed().as_secs_f64(),
            "parameters: circuit evaluated, writing the file"
        );
        if free < file_bytes + DISK_MARGIN_BYTES {
            return Err(FilecoinError::Generate {
                circuit_id: self.circuit_id.to_string(),
                reason: format!(
                    "its .params file needs {:.1} GB and {} has {:.1} GB free",
                    file_bytes as f64 / 1e9,
                    self.folder.display(),
                    free as f64 / 1e9
                ),
            });
        }
        let vk = scalars.verifying_key(self.multiplier).map_err(failed)?;
        let meta = serde_json::to_vec(&CacheEntryMetadata {
            sector_size: self.sector_size,
        })
        .map_err(|e| FilecoinError::Generate {
            circuit_id: self.circuit_id.to_string(),
            reason: e.to_string(),
        })?;
        let io = |name: &str| {
            let path = self.folder.join(name);
            move |source| FilecoinError::Io { path, source }
        };
        self.write_file(&self.files.metadata, |f| {
            f.write_all(&meta).map_err(io(&self.files.metadata))
        })?;
        self.write_file(&self.files.verifying_key, |f| {
            write_verifying_key(&vk, f).map_err(io(&self.files.verifying_key))
        })?;
        self.write_file(&self.files.params, |f| {
            match scalars.write_parameters(&vk, self.multiplier, f, CHUNK_POINTS) {
                Ok(_) => Ok(()),
                Err(ProverError::WriteParameters(source)) => Err(io(&self.files.params)(source)),
                Err(other) => Err(failed(other)),
            }
        })?;
        Ok(file_bytes)
    }

    /// Writes the file `name` through a temporary one, renamed into place once `write` has
    /// filled it and it is on disk; on any failure the temporary file is removed.
    fn write_file(
        &self,
        name: &str,
        write: impl FnOnce(&mut fs::File) -> Result<(), FilecoinError>,
    ) -> Result<(), FilecoinError> {
        let path = self.folder.join(name);
        let temporary = self
            .folder
            .join(format!(".{name}.{}.partial", std::process::id()));
        let io = |source| FilecoinError::Io {
            path: path.clone(),
            source,
        };
        let result = fs::File::create(&temporary)
            .map_err(io)
            .and_then(|mut file| {
                write(&mut file)?;
                file.sync_all().map_err(io)
            })
            .and_then(|()| fs::rename(&temporary, &path).map_err(io));
        if result.is_err() {
            let _ = fs::remove_file(&temporary);
        }
        result
    }
}
