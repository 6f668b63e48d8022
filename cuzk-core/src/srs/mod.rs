//! The SRS manager: parameter sets by circuit id, loaded once and shared.
//!
//! A set comes either from a file in the parameter folder, memory-mapped and decoded on first
//! use, or from [`SrsManager::register`] (parameters the embedder made or loaded itself). A
//! file's name comes only from the manager's table (the Filecoin circuits' names and the
//! configuration's `srs.files`), never from the id itself, and the file it resolves to,
//! symlinks followed, must lie inside the folder: an id from the network cannot name any
//! other file ([`crate::circuit_id`] checks every id first; `path` finds and opens the file). Users hold an `Arc<LoadedSrs>`; its
//! strong count is the reference count reported in status. When loading a file would take
//! the loaded sets over the budget, idle file-backed sets are evicted least recently used
//! first; sets in use are never dropped (the load then goes over the budget, with a warning).
//! Registered sets cannot be reloaded, so only an explicit [`SrsManager::evict`] drops them.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bellperson_lite::params::{
    read_parameters_mmap_file, G1_UNCOMPRESSED_BYTES, G2_UNCOMPRESSED_BYTES,
};
use bellperson_lite::verifier::{prepare_verifying_key, PreparedVerifyingKey};
use bellperson_lite::{Parameters, ParamsError};
use parking_lot::{Mutex, MutexGuard};

use crate::circuit_id::{self, InvalidCircuitId};
use crate::page_cache::resident_fraction;

mod path;

/// Why a parameter set is not available.
#[derive(Debug, thiserror::Error)]
pub enum SrsError {
    /// The id is not a name (the request is wrong).
    #[error(transparent)]
    InvalidId(#[from] InvalidCircuitId),
    /// Nothing is registered under the id and no file is configured for it.
    #[error(
        "unknown circuit id `{id}`: no parameters registered under it and no parameter file \
         configured for it (known: the Filecoin circuit ids and the keys of [srs.files])"
    )]
    Unknown { id: String },
    /// The id is known but its file is not there (the daemon lacks a file).
    #[error(
        "no parameters for circuit id `{id}`: {path} does not exist (put the file in \
         srs.param_cache, or map the id to its file name in [srs.files])"
    )]
    Missing { id: String, path: PathBuf },
    /// The id's file is a symlink (or goes through one) to a file outside the folder.
    #[error(
        "the parameter file of `{id}`, {path}, leads to {target}, outside the parameter \
         folder {folder}: refused (copy or link the file into the folder's own tree)"
    )]
    OutsideFolder {
        id: String,
        path: PathBuf,
        target: PathBuf,
        folder: PathBuf,
    },
    /// The file (or the folder) could not be examined.
    #[error("the parameter file of `{id}`, {path}: {source}")]
    Unreadable {
        id: String,
        path: PathBuf,
        source: std::io::Error,
    },
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
        self.slots.lock()
    }

    fn tick(&self) -> u64 {
        self.clock.fetch_add(1, Ordering::Relaxed)
    }

    /// The file that holds `id`'s parameters: the name from the table, resolved inside the
    /// folder (`path`: symlinks followed only while they stay inside).
    pub fn resolve(&self, id: &str) -> Result<PathBuf, SrsError> {
        circuit_id::check(id)?;
        self.resolve_checked(id)
    }

    /// [`SrsManager::resolve`] of a checked id: unknown before missing, so an id without an
    /// entry is Unknown whether or not the folder exists.
    fn resolve_checked(&self, id: &str) -> Result<PathBuf, SrsError> {
        if !self.files.contains_key(id) {
            return Err(SrsError::Unknown { id: id.to_string() });
        }
        let folder = path::canonical_folder(&self.folder).map_err(|e| self.path_error(id, e))?;
        self.resolve_in(&folder, id)
    }

    /// [`SrsManager::resolve`] of a checked id, against the folder already resolved.
    fn resolve_in(&self, folder: &Path, id: &str) -> Result<PathBuf, SrsError> {
        let name = self
            .files
            .get(id)
            .ok_or_else(|| SrsError::Unknown { id: id.to_string() })?;
        path::resolve(folder, name).map_err(|e| self.path_error(id, e))
    }

    /// `e` about `id`'s file, as the error callers see.
    fn path_error(&self, id: &str, e: path::PathError) -> SrsError {
        let id = id.to_string();
        let path = match self.files.get(&id) {
            Some(name) => self.folder.join(name),
            None => self.folder.clone(),
        };
        match e {
            path::PathError::Missing => SrsError::Missing { id, path },
            path::PathError::Outside(target) => SrsError::OutsideFolder {
                id,
                path,
                target,
                folder: std::fs::canonicalize(&self.folder).unwrap_or_else(|_| self.folder.clone()),
            },
            path::PathError::Unreadable(source) => SrsError::Unreadable { id, path, source },
        }
    }

    /// Whether `id` can be had: registered, loaded, or with its file in the folder.
    pub fn check_available(&self, id: &str) -> Result<(), SrsError> {
        if self.slots().contains_key(id) {
            return Ok(());
        }
        self.resolve(id).map(drop)
    }

    /// Makes `params` the set of `id` (replacing any other).
    pub fn register(&self, id: &str, params: Arc<Parameters>) -> Result<(), SrsError> {
        circuit_id::check(id)?;
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
        Ok(())
    }

    /// The set of `id`, loading it if needed; also how long the load took (zero when it was
    /// loaded already).
    pub fn get(&self, id: &str) -> Result<(Arc<LoadedSrs>, Duration), SrsError> {
        circuit_id::check(id)?;
        if let Some(found) = self.lookup(id) {
            return Ok((found, Duration::ZERO));
        }
        let _loading = self.loading.lock();
        if let Some(found) = self.lookup(id) {
            return Ok((found, Duration::ZERO));
        }
        let path = self.resolve_checked(id)?;
        let unreadable = |e: std::io::Error| self.path_error(id, path::PathError::from(e));
        let file = path::open_resolved(&path).map_err(unreadable)?;
        let size = file.metadata().map_err(unreadable)?.len();
        self.make_room(size);
        let started = Instant::now();
        let params =
            read_parameters_mmap_file(&file, &path, self.check_points).map_err(|source| {
                SrsError::Load {
                    id: id.to_string(),
                    source,
                }
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
    pub fn evict(&self, id: &str) -> Result<(bool, u64), SrsError> {
        circuit_id::check(id)?;
        Ok(match self.slots().remove(id) {
            Some(slot) => (true, slot.loaded.size_bytes),
            None => (false, 0),
        })
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
        let Ok(folder) = path::canonical_folder(&self.folder) else {
            return out;
        };
        for id in self.files.keys().filter(|id| !slots.contains_key(*id)) {
            let Ok(path) = self.resolve_in(&folder, id) else {
                continue;
            };
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

    /// Circuit id -> file name, as the configuration's `srs.files` gives them.
    fn names(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(id, file)| (id.to_string(), file.to_string()))
            .collect()
    }

    #[test]
    fn files_load_once_and_idle_sets_are_evicted_lru() {
        let dir = tempfile::tempdir().unwrap();
        let p = params(4);
        let size = write(dir.path(), "a.params", &p);
        write(dir.path(), "b.params", &p);
        write(dir.path(), "renamed-c.bin", &p);
        let files = names(&[("a", "a.params"), ("b", "b.params"), ("c", "renamed-c.bin")]);
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
        assert_eq!(m.evict("a").unwrap(), (true, size));
        assert_eq!(m.evict("a").unwrap(), (false, 0));
        assert!(!m.preload("a").unwrap().0);
        assert!(m.preload("a").unwrap().0);
        // A configured file that is not loaded but was just written (in the page cache).
        assert!(m.evict("c").unwrap().0);
        let c = m
            .status()
            .into_iter()
            .find(|s| s.circuit_id == "c")
            .unwrap();
        assert_eq!((c.tier, c.ref_count), (SrsTier::Warm, 0));
    }

    #[test]
    fn unknown_missing_and_damaged_files_are_typed_errors() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("short.params"), [1u8; 100]).unwrap();
        // A file named like an id is not found by the id alone: names come from the table.
        std::fs::write(dir.path().join("nope.params"), [1u8; 100]).unwrap();
        let files = names(&[("short", "short.params"), ("gone", "gone.params")]);
        let m = SrsManager::new(dir.path().into(), files, u64::MAX, false);
        assert!(matches!(m.get("nope"), Err(SrsError::Unknown { .. })));
        let err = m.get("gone").err().unwrap();
        assert!(matches!(err, SrsError::Missing { .. }), "{err}");
        assert!(err.to_string().contains("gone.params"), "{err}");
        assert!(matches!(
            m.check_available("gone"),
            Err(SrsError::Missing { .. })
        ));
        let err = m.get("short").err().unwrap();
        assert!(matches!(err, SrsError::Load { .. }), "{err}");
        assert!(m.check_available("short").is_ok(), "the file is there");
    }

    #[test]
    fn ids_that_are_paths_are_refused_before_the_filesystem() {
        let root = tempfile::tempdir().unwrap();
        let folder = root.path().join("params");
        std::fs::create_dir(&folder).unwrap();
        // A valid parameter file outside the folder: were any id to reach it, it would load.
        let p = params(4);
        write(root.path(), "outside.params", &p);
        let outside = root.path().join("outside.params");
        let m = SrsManager::new(folder.clone(), BTreeMap::new(), u64::MAX, false);
        for id in [
            "../outside",
            "../outside.params",
            outside.to_str().unwrap(),
            "",
            &"x".repeat(crate::circuit_id::MAX_LEN + 1),
            "a/../../outside",
        ] {
            for result in [
                m.get(id).map(drop),
                m.preload(id).map(drop),
                m.evict(id).map(drop),
                m.check_available(id),
                m.register(id, Arc::new(p.clone())),
            ] {
                let err = result.expect_err(id);
                assert!(matches!(err, SrsError::InvalidId(_)), "{id:?}: {err}");
            }
        }
        assert!(m.status().is_empty(), "nothing was registered or loaded");
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_may_not_leave_the_folder() {
        use std::os::unix::fs::symlink;
        let root = tempfile::tempdir().unwrap();
        let folder = root.path().join("params");
        std::fs::create_dir_all(folder.join("store")).unwrap();
        let p = params(4);
        write(root.path(), "outside.params", &p);
        write(&folder.join("store"), "inside.params", &p);
        std::fs::create_dir(root.path().join("elsewhere")).unwrap();
        write(&root.path().join("elsewhere"), "x.params", &p);
        // Out by an absolute link, by a relative one, by a chain, by a linked folder.
        symlink(
            root.path().join("outside.params"),
            folder.join("abs.params"),
        )
        .unwrap();
        symlink("../outside.params", folder.join("rel.params")).unwrap();
        symlink("rel.params", folder.join("chain.params")).unwrap();
        symlink(root.path().join("elsewhere"), folder.join("linked-dir")).unwrap();
        // In: a link to a file of a subfolder, and a link to that link.
        symlink("store/inside.params", folder.join("in.params")).unwrap();
        symlink("in.params", folder.join("in2.params")).unwrap();
        // A relative link inside a linked subfolder resolves from the real folder, as the
        // kernel resolves it: `alias` is `store/deep`, and `alias/up.params` -> `../inside.params`
        // is `store/inside.params`, not `params/inside.params` (which does not exist).
        std::fs::create_dir(folder.join("store").join("deep")).unwrap();
        symlink("store/deep", folder.join("alias")).unwrap();
        symlink("../inside.params", folder.join("store/deep/up.params")).unwrap();
        // An absolute link written through a linked path to the folder itself.
        let via = root.path().join("via");
        symlink(&folder, &via).unwrap();
        symlink(
            via.join("store/inside.params"),
            folder.join("through.params"),
        )
        .unwrap();
        // A loop.
        symlink("loop-b.params", folder.join("loop-a.params")).unwrap();
        symlink("loop-a.params", folder.join("loop-b.params")).unwrap();
        let files = names(&[
            ("abs", "abs.params"),
            ("rel", "rel.params"),
            ("chain", "chain.params"),
            ("dir", "linked-dir"),
            ("in", "in.params"),
            ("in2", "in2.params"),
            ("up", "alias/up.params"),
            ("through", "through.params"),
            ("loop", "loop-a.params"),
        ]);
        let m = SrsManager::new(folder.clone(), files, u64::MAX, false);
        for id in ["abs", "rel", "chain"] {
            let err = m.get(id).err().unwrap();
            assert!(matches!(err, SrsError::OutsideFolder { .. }), "{id}: {err}");
            assert!(
                err.to_string().contains("outside the parameter folder"),
                "{err}"
            );
        }
        // The linked folder itself is outside: refused whatever it holds.
        let err = m.get("dir").err().unwrap();
        assert!(matches!(err, SrsError::OutsideFolder { .. }), "dir: {err}");
        let err = m.get("loop").err().unwrap();
        assert!(matches!(err, SrsError::Unreadable { .. }), "loop: {err}");
        for id in ["in", "in2", "up", "through"] {
            let (loaded, _) = m.get(id).unwrap_or_else(|e| panic!("{id}: {e}"));
            assert_eq!(*loaded.params, p, "{id}");
        }
    }

    #[test]
    fn registered_sets_stay_until_evicted() {
        let dir = tempfile::tempdir().unwrap();
        let m = SrsManager::new(dir.path().into(), BTreeMap::new(), 1, false);
        m.register("mem", Arc::new(params(4))).unwrap();
        assert!(m.get("mem").is_ok());
        assert!(m.evict("mem").unwrap().0);
        assert!(matches!(m.get("mem"), Err(SrsError::Unknown { .. })));
    }
}
