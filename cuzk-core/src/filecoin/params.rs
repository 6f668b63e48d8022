//! Random parameters for Filecoin's test sector sizes (`cuzk params generate`).
//!
//! Real networks prove with the parameters of the published ceremony; devnets and tests with
//! 2 KiB, 8 MiB or 512 MiB sectors need parameters too, and filecoin-proofs' own generator
//! takes minutes for the smallest PoRep circuit. This one synthesizes the circuit's blank
//! form (its constraints, no witness) and runs bellperson-lite's multi-threaded generator,
//! then writes `.params`, `.vk` and `.meta` under the names filecoin-proofs looks for, so
//! that filecoin-proofs (verification, its own proving) and cuzk share the cache.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use bellpepper_core::Circuit;
use bellperson_lite::generator::generate_random_parameters;
use bellperson_lite::params::{write_parameters, write_verifying_key};
use bellperson_lite::Scalar;
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

/// What [`generate_parameters`] did for one circuit.
#[derive(Clone, Debug)]
pub struct GeneratedParameters {
    pub circuit_id: String,
    /// The `.params` file.
    pub path: PathBuf,
    /// False when the file was there already and was left alone.
    pub generated: bool,
    pub elapsed: Duration,
}

/// Writes random parameters for `kinds` at `sector_size` into `folder`, skipping circuits
/// whose `.params` file exists. Production sizes (32 and 64 GiB) are refused unless `force`.
pub fn generate_parameters<R: RngCore>(
    folder: &Path,
    sector_size: u64,
    kinds: &[CircuitKind],
    force: bool,
    rng: &mut R,
) -> Result<Vec<GeneratedParameters>, FilecoinError> {
    if registry::is_production_size(sector_size) && !force {
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
        if generated {
            let generate = GenerateOne {
                folder,
                files: &files,
                circuit_id: &circuit_id,
                sector_size,
            };
            by_shape!(sector_size, generate_kind(kind, &generate, &mut *rng))?;
        }
        done.push(GeneratedParameters {
            circuit_id,
            path,
            generated,
            elapsed: started.elapsed(),
        });
    }
    Ok(done)
}

struct GenerateOne<'a> {
    folder: &'a Path,
    files: &'a ParameterFiles,
    circuit_id: &'a str,
    sector_size: u64,
}

/// The blank circuit of `kind` (the representative registered proof of each, as in
/// [`CircuitKind::cache_identifier`]) through [`GenerateOne::write`].
fn generate_kind<Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>>(
    kind: CircuitKind,
    out: &GenerateOne<'_>,
    rng: &mut dyn RngCore,
) -> Result<(), FilecoinError> {
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
    /// is what marks the set as done.
    fn write<C: Circuit<Scalar>>(
        &self,
        circuit: C,
        mut rng: &mut dyn RngCore,
    ) -> Result<(), FilecoinError> {
        let params =
            generate_random_parameters(circuit, &mut rng).map_err(|e| FilecoinError::Generate {
                circuit_id: self.circuit_id.to_string(),
                reason: e.to_string(),
            })?;
        let meta = serde_json::to_vec(&CacheEntryMetadata {
            sector_size: self.sector_size,
        })
        .map_err(|e| FilecoinError::Generate {
            circuit_id: self.circuit_id.to_string(),
            reason: e.to_string(),
        })?;
        self.write_file(&self.files.metadata, |f| f.write_all(&meta))?;
        self.write_file(&self.files.verifying_key, |f| {
            write_verifying_key(&params.vk, f)
        })?;
        self.write_file(&self.files.params, |f| write_parameters(&params, f))
    }

    fn write_file(
        &self,
        name: &str,
        write: impl FnOnce(&mut fs::File) -> std::io::Result<()>,
    ) -> Result<(), FilecoinError> {
        let path = self.folder.join(name);
        let temporary = self
            .folder
            .join(format!(".{name}.{}.partial", std::process::id()));
        let result = (|| {
            let mut file = fs::File::create(&temporary)?;
            write(&mut file)?;
            file.sync_all()?;
            fs::rename(&temporary, &path)
        })();
        result.map_err(|source| {
            let _ = fs::remove_file(&temporary);
            FilecoinError::Io { path, source }
        })
    }
}
