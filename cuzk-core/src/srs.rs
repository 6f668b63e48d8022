//! The SRS manager: parameter sets by circuit id, loaded once and shared.
//!
//! A set comes either from a file in the parameter folder (`<id>.params`, or the name given
//! in `srs.files`), memory-mapped and decoded on first use, or from [`SrsManager::register`]
//! (parameters the embedder made or loaded itself). Users hold an `Arc<LoadedSrs>`; its
//! strong count is the reference count reported in status. When loading a file would take
//! the loaded sets over the budget, idle file-backed sets are evicted least recently used
//! first; sets in use are never dropped (the load then goes over the budget, with a warning).
//! Registered sets cannot be reloaded, so only an explicit [`SrsManager::evict`] drops them.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use bellperson_lite::params::{read_parameters_mmap, G1_UNCOMPRESSED_BYTES, G2_UNCOMPRESSED_BYTES};
use bellperson_lite::verifier::{prepare_verifying_key, PreparedVerifyingKey};
use bellperson_lite::{Parameters, ParamsError};

use crate::page_cache::resident_fraction;

/// Why a parameter set is not available.
#[derive(Debug, thiserror::Error)]
pub enum SrsError {
    #[error("unknown circuit id `{id}`: no parameters registered and no file {path}")]
    Unknown { id: String, path: PathBuf },
    #[error("parameters of `{id}`: {source}")]
    Load { id: String, source: ParamsError },
}

/// A parameter set in memory, with its prepared verifying key (for the self-check).
pub struct LoadedSrs {
    pub circuit_id: String,
    pub params: Arc<Parameters>,
    pub pvk: PreparedVerifyingKey,
    pub size_bytes: u64,
}

/// Where a set is (the wire protocol's tiers): HOT when loaded; an unloaded file is WARM when
/// at least half of it is in the page cache (loading it reads memory, not the disk), else
/// COLD.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SrsTier {
    Hot,
    Warm,
    Cold,
}

/// One line of [`SrsManager::status`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SrsStatus {
    pub circuit_id: String,
    pub tier: SrsTier,
    pub size_bytes: u64,
    /// Proofs in flight using it.
    pub ref_count: u32,
}

struct Slot {
    loaded: Arc<LoadedSrs>,
    last_used: u64,
    registered: bool,
}

/// See the module doc.
pub struct SrsManager {
    folder: PathBuf,
    files: BTreeMap<String, String>,
    budget: u64,
    check_points: bool,
    slots: Mutex<BTreeMap<String, Slot>>,
    /// Serializes file loads: two callers of one id load it once.
    loading: Mutex<()>,
    clock: AtomicU64,
}

impl SrsManager {
    pub fn new(
        folder: PathBuf,
        files: BTreeMap<String, String>,
        budget: u64,
        check_points: bool,
    ) -> SrsManager {
        SrsManager {
            folder,
            files,
            budget,
            check_points,
            slots: Mutex::default(),
            loading: Mutex::default(),
            clock: AtomicU64::new(0),
        }
    }

    fn slots(&self) -> MutexGuard<'_, BTreeMap<String, Slot>> {
        self.slots.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn tick(&self) -> u64 {
        self.clock.fetch_add(1, Ordering::Relaxed)
    }

    /// The file that holds `id`'s parameters.
    pub fn path_of(&self, id: &str) -> PathBuf {
        match self.files.get(id) {
            Some(name) => self.folder.join(name),
            None => self.folder.join(format!("{id}.params")),
        }
    }

    /// Whether `id` is loaded or has a file.
    pub fn is_known(&self, id: &str) -> bool {
        self.slots().contains_key(id) || self.path_of(id).is_file()
    }

    /// Makes `params` the set of `id` (replacing any other).
    pub fn register(&self, id: &str, params: Arc<Parameters>) {
        let loaded = Arc::new(LoadedSrs {
            circuit_id: id.to_string(),
            pvk: prepare_verifying_key(&params.vk),
            size_bytes: params_bytes(&params),
            params,
        });
        let last_used = self.tick();
        self.slots().insert(
            id.to_string(),
            Slot {
                loaded,
                last_used,
                registered: true,
            },
        );
    }

    /// The set of `id`, loading it if needed; also how long the load took (zero when it was
    /// loaded already).
    pub fn get(&self, id: &str) -> Result<(Arc<LoadedSrs>, Duration), SrsError> {
        if let Some(found) = self.lookup(id) {
            return Ok((found, Duration::ZERO));
        }
        let _loading = self.loading.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(found) = self.lookup(id) {
            return Ok((found, Duration::ZERO));
        }
        let path = self.path_of(id);
        if !path.is_file() {
            return Err(SrsError::Unknown {
                id: id.to_string(),
                path,
            });
        }
        let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        self.make_room(size);
        let started = Instant::now();
        let params =
            read_parameters_mmap(&path, self.check_points).map_err(|source| SrsError::Load {
                id: id.to_string(),
                source,
            })?;
        let loaded = Arc::new(LoadedSrs {
            circuit_id: id.to_string(),
            pvk: prepare_verifying_key(&params.vk),
            size_bytes: size,
            params: Arc::new(params),
        });
        let last_used = self.tick();
        self.slots().insert(
            id.to_string(),
            Slot {
                loaded: Arc::clone(&loaded),
                last_used,
                registered: false,
            },
        );
        Ok((loaded, started.elapsed()))
    }

    fn lookup(&self, id: &str) -> Option<Arc<LoadedSrs>> {
        let tick = self.tick();
        let mut slots = self.slots();
        let slot = slots.get_mut(id)?;
        slot.last_used = tick;
        Some(Arc::clone(&slot.loaded))
    }

    /// Evicts idle file-backed sets, least recently used first, until `incoming` more bytes
    /// fit the budget (or nothing idle is left).
    fn make_room(&self, incoming: u64) {
        let mut slots = self.slots();
        loop {
            let loaded: u64 = slots.values().map(|s| s.loaded.size_bytes).sum();
            if loaded + incoming <= self.budget {
                return;
            }
            let victim = slots
                .iter()
                .filter(|(_, s)| !s.registered && Arc::strong_count(&s.loaded) == 1)
                .min_by_key(|(_, s)| s.last_used)
                .map(|(id, _)| id.clone());
            match victim {
                Some(id) => {
                    slots.remove(&id);
                }
                None => {
                    tracing::warn!(
                        "parameters: loading {incoming} bytes goes over the budget of {} bytes ({loaded} loaded, all in use)",
                        self.budget
                    );
                    return;
                }
            }
        }
    }

    /// Loads `id` now. Returns whether it was loaded already, and the load time.
    pub fn preload(&self, id: &str) -> Result<(bool, Duration), SrsError> {
        let already = self.slots().contains_key(id);
        let (_, took) = self.get(id)?;
        Ok((already, took))
    }

    /// Drops `id` from memory (in-flight proofs keep their reference until they end). Returns
    /// whether it was loaded and the bytes it held.
    pub fn evict(&self, id: &str) -> (bool, u64) {
        match self.slots().remove(id) {
            Some(slot) => (true, slot.loaded.size_bytes),
            None => (false, 0),
        }
    }

    /// Every loaded set, and the files of the ids named in the configuration that are not.
    pub fn status(&self) -> Vec<SrsStatus> {
        let slots = self.slots();
        let mut out: Vec<SrsStatus> = slots
            .iter()
            .map(|(id, s)| SrsStatus {
                circuit_id: id.clone(),
                tier: SrsTier::Hot,
                size_bytes: s.loaded.size_bytes,
                ref_count: (Arc::strong_count(&s.loaded) - 1) as u32,
            })
            .collect();
        for id in self.files.keys().filter(|id| !slots.contains_key(*id)) {
            let path = self.path_of(id);
            if let Ok(meta) = std::fs::metadata(&path) {
                let warm = resident_fraction(&path).is_some_and(|f| f >= 0.5);
                out.push(SrsStatus {
                    circuit_id: id.clone(),
                    tier: if warm { SrsTier::Warm } else { SrsTier::Cold },
                    size_bytes: meta.len(),
                    ref_count: 0,
                });
            }
        }
        out
    }

    /// Bytes of the loaded sets.
    pub fn loaded_bytes(&self) -> u64 {
        self.slots().values().map(|s| s.loaded.size_bytes).sum()
    }

    /// The folder the files are read from.
    pub fn folder(&self) -> &Path {
        &self.folder
    }
}

/// Bytes of a parameter set in the file format (uncompressed points).
fn params_bytes(p: &Parameters) -> u64 {
    let g1 = p.vk.ic.len() + 3 + p.h.len() + p.l.len() + p.a.len() + p.b_g1.len();
    let g2 = 3 + p.b_g2.len();
    (g1 * G1_UNCOMPRESSED_BYTES + g2 * G2_UNCOMPRESSED_BYTES) as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use bellperson_lite::circuits::MixCircuit;
    use bellperson_lite::generator::generate_random_parameters;
    use bellperson_lite::params::write_parameters;
    use rand::SeedableRng;
    use rand_chacha::ChaCha20Rng;

    fn params(log: u32) -> Parameters {
        let mut rng = ChaCha20Rng::seed_from_u64(u64::from(log));
        generate_random_parameters(MixCircuit::new(log, 0.5, 1), &mut rng).unwrap()
    }

    fn write(dir: &Path, name: &str, p: &Parameters) -> u64 {
        let path = dir.join(name);
        write_parameters(p, std::fs::File::create(&path).unwrap()).unwrap();
        std::fs::metadata(path).unwrap().len()
    }

    #[test]
    fn files_load_once_and_idle_sets_are_evicted_lru() {
        let dir = tempfile::tempdir().unwrap();
        let p = params(4);
        let size = write(dir.path(), "a.params", &p);
        write(dir.path(), "b.params", &p);
        write(dir.path(), "renamed-c.bin", &p);
        let files = BTreeMap::from([("c".to_string(), "renamed-c.bin".to_string())]);
        // Room for two sets.
        let m = SrsManager::new(dir.path().into(), files, 2 * size, false);

        let (a, _) = m.get("a").unwrap();
        assert_eq!(*a.params, p);
        assert!(Arc::ptr_eq(&a, &m.get("a").unwrap().0), "loaded once");
        let (b, _) = m.get("b").unwrap();
        drop(b);
        // `a` is in use and `b` idle: loading `c` evicts `b`.
        let (c, _) = m.get("c").unwrap();
        let hot: Vec<String> = m
            .status()
            .into_iter()
            .filter(|s| s.tier == SrsTier::Hot)
            .map(|s| s.circuit_id)
            .collect();
        assert_eq!(hot, ["a", "c"]);
        assert_eq!(m.status()[0].ref_count, 1);
        drop((a, c));
        assert_eq!(m.evict("a"), (true, size));
        assert_eq!(m.evict("a"), (false, 0));
        assert!(!m.preload("a").unwrap().0);
        assert!(m.preload("a").unwrap().0);
        // A configured file that is not loaded but was just written (in the page cache).
        assert!(m.evict("c").0);
        let c = m
            .status()
            .into_iter()
            .find(|s| s.circuit_id == "c")
            .unwrap();
        assert_eq!((c.tier, c.ref_count), (SrsTier::Warm, 0));
    }

    #[test]
    fn unknown_and_damaged_files_are_typed_errors() {
        let dir = tempfile::tempdir().unwrap();
        let m = SrsManager::new(dir.path().into(), BTreeMap::new(), u64::MAX, false);
        assert!(matches!(m.get("nope"), Err(SrsError::Unknown { .. })));
        std::fs::write(dir.path().join("short.params"), [1u8; 100]).unwrap();
        let err = m.get("short").err().unwrap();
        assert!(matches!(err, SrsError::Load { .. }), "{err}");
    }

    #[test]
    fn registered_sets_stay_until_evicted() {
        let dir = tempfile::tempdir().unwrap();
        let m = SrsManager::new(dir.path().into(), BTreeMap::new(), 1, false);
        m.register("mem", Arc::new(params(4)));
        assert!(m.get("mem").is_ok());
        assert!(m.evict("mem").0);
        assert!(matches!(m.get("mem"), Err(SrsError::Unknown { .. })));
    }
}
