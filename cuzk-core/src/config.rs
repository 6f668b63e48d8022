//! The engine's configuration: one [`Config`], read from TOML, every field with a default.
//!
//! `cuzk.example.toml` at the workspace root is this file's defaults written out with their
//! explanations (plus the daemon's `[daemon]` section); a test checks that it parses to
//! exactly [`Config::default`], so the two cannot drift apart. Unknown keys are rejected (a misspelt key would otherwise be silently
//! ignored), and [`Config::validate`] names the key of any bad value.

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

use serde::{Deserialize, Deserializer};

pub use bellperson_lite::placement::{G2Placement, SplitPlacement};

/// Why a configuration was refused.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read the configuration file {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("configuration: {0}")]
    Parse(#[from] toml::de::Error),
    #[error("configuration key `{key}`: {message}")]
    Invalid { key: &'static str, message: String },
}

/// Everything the engine can be told. `Default` is what an empty file gives.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    pub engine: EngineConfig,
    pub memory: MemoryConfig,
    pub gpus: GpuConfig,
    pub srs: SrsConfig,
}

/// Queues, pools and checks.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct EngineConfig {
    /// Jobs that may wait in the queue; a submission beyond it is refused with a retryable
    /// error instead of growing the queue without bound. Default 1024.
    pub queue_capacity: usize,
    /// Threads that synthesize partitions; 0 = auto: every core when GPUs evaluate a, b and
    /// c from resident matrices (their workers and finalizers then mostly wait on the GPU),
    /// otherwise the cores minus two (at least one: provers and finalizers need CPU time).
    /// Synthesis is the bottleneck, so this is the main knob. Default 0.
    pub synthesis_threads: usize,
    /// Provers running on the CPU when no GPU is used (each uses every core through rayon
    /// while it proves). Default 1.
    pub cpu_provers: usize,
    /// Threads that finish GPU proofs (B in G2 and assembly). Default 2.
    pub finalizer_threads: usize,
    /// Verify every proof before returning it; a proof that fails is proved again once.
    /// Default true.
    pub self_check: bool,
    /// How partitions are synthesized: "matrices" (the constraint matrices of a circuit id
    /// recorded once, then per proof the witness and three sparse products; partitions whose
    /// kind opts out are synthesized in full) or "full" (always the full synthesis).
    /// Default "matrices".
    pub synthesis: SynthesisPath,
    /// Folder where recorded matrices are saved as `<circuit id>.r1cs`, then mapped from
    /// there (file pages the host can reclaim, not heap) and on the next start; empty = kept
    /// in memory only. A file is keyed by its circuit id: give a
    /// changed circuit a new id. Default "".
    pub matrix_cache: PathBuf,
    /// The CRITICAL lane: one more synthesis thread, and one more prover per GPU (or one more
    /// CPU prover), that take only CRITICAL partitions, plus `memory.critical_reserve`, so a
    /// WinningPoSt waits neither for a thread, nor for bytes, nor for a prover held by other
    /// work; on a GPU a CRITICAL proof also runs beside the proof holding the GPU instead of
    /// waiting for its kernels, and its CPU work (witness, scalar splits) runs on a thread
    /// pool of its own instead of queueing behind other partitions' parallel work
    /// (`docs/engine.md`). Idle otherwise. Default true.
    pub critical_lane: bool,
    /// Use a kind's native witness generator (the Filecoin kinds) for a circuit id once its first
    /// partition's native witness has equalled the gadgets' (`cuzk_core::native_witness`).
    /// Default true.
    pub native_witness: bool,
    /// Also compare the two witnesses on every Nth partition after that (0: only the
    /// first). Default 0.
    pub native_witness_check_every: u64,
}

/// See [`EngineConfig::synthesis`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SynthesisPath {
    #[default]
    Matrices,
    Full,
}

impl Default for EngineConfig {
    fn default() -> Self {
        EngineConfig {
            queue_capacity: 1024,
            synthesis_threads: 0,
            cpu_provers: 1,
            finalizer_threads: 2,
            self_check: true,
            synthesis: SynthesisPath::Matrices,
            matrix_cache: PathBuf::new(),
            critical_lane: true,
            native_witness: true,
            native_witness_check_every: 0,
        }
    }
}

/// Host memory.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MemoryConfig {
    /// Bytes that partitions in flight (synthesized circuits waiting for or in a prover) may
    /// hold together; a partition waits until its estimated working set fits. "auto" = 80% of
    /// physical memory minus the parameter budget (`srs.budget`). Default "auto".
    pub total_budget: ByteSize,
    /// Bytes CRITICAL partitions may hold beyond `total_budget` (with `engine.critical_lane`),
    /// so that one never waits for other work to free memory. "auto" = 1/32 of the total
    /// budget, at least 1 GiB (a 32 GiB WinningPoSt partition holds well under that). Default
    /// "auto".
    pub critical_reserve: ByteSize,
}

/// GPUs (used when the engine is built with the `cuda` feature).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GpuConfig {
    /// Device ordinals to use; empty = every visible device. Default [].
    pub devices: Vec<u32>,
    /// Workers sharing each GPU through its memory and compute locks. Default 2.
    pub gpu_workers_per_device: usize,
    /// Use the CPU prover even when GPUs are present. Default false.
    pub cpu_only: bool,
    /// Where B's G2 sum runs: "auto" (per proof, on the GPU when the CPU, counting only the
    /// cores synthesis leaves free, would take longer than the GPU's kernels, as this card
    /// measured them, and its own sum there: circuits with many non-boolean witness values,
    /// any circuit on a busy host, and bit-heavy ones on a fast card), "cpu"
    /// (always on the CPU beside the GPU; b_g2 then takes no VRAM) or "gpu" (always on the
    /// GPU, inside the compute lock). Default "auto".
    #[serde(deserialize_with = "by_name")]
    pub b_g2: G2Placement,
    /// Where a proof's l, a and b_g1 scalars are split into zeros, ones and the rest: "auto"
    /// (per proof: on the GPU, from the witness uploaded once, when a sample of its values
    /// finds at least a twentieth of full-width ones, as in WindowPoSt; on the host for
    /// witnesses of bits, as in PoRep, whose splits shrink to bitmaps), "host" or "gpu"
    /// (always; a proof the GPU's VRAM budget puts on the bounded plan is split on the host
    /// anyway). Default "auto".
    #[serde(deserialize_with = "by_name")]
    pub scalar_splits: SplitPlacement,
    /// With `engine.synthesis = "matrices"`: keep each circuit id's constraint matrices on
    /// the GPUs and evaluate a = A w, b = B w, c = C w there, so that synthesis computes only
    /// the witness and a proof uploads only its split witness instead of three domain-sized
    /// vectors. Matrices that do not fit a GPU's VRAM budget are evaluated on the CPU for
    /// that GPU. Default true.
    pub matrices_on_gpu: bool,
    /// VRAM each GPU may hold for cuzk: resident parameters and matrices, and the working
    /// sets of proofs in flight (a proof waits until its working set fits). "auto" = the
    /// device's free memory when the engine starts, less a margin; a number leaves the rest
    /// to other processes sharing the card. Default "auto".
    pub vram_budget: ByteSize,
}

impl Default for GpuConfig {
    fn default() -> Self {
        GpuConfig {
            devices: Vec::new(),
            gpu_workers_per_device: 2,
            cpu_only: false,
            b_g2: G2Placement::Auto,
            scalar_splits: SplitPlacement::Auto,
            matrices_on_gpu: true,
            vram_budget: ByteSize::Auto,
        }
    }
}

/// Parameter sets (the SRS).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SrsConfig {
    /// Folder of the parameter files. Empty = `$FIL_PROOFS_PARAMETER_CACHE`, else
    /// `/var/tmp/filecoin-proof-parameters`. Default "".
    pub param_cache: PathBuf,
    /// Circuit ids loaded at start. Default [].
    pub preload: Vec<String>,
    /// Bytes of parameters kept loaded; idle sets are evicted least recently used first when
    /// a load would exceed it. "auto" = 40% of physical memory. Default "auto".
    pub budget: ByteSize,
    /// Circuit id -> file name in `param_cache` (a plain name, no folder part): the only way
    /// to give an id other than the Filecoin ones a file (an id is never used as a file name
    /// itself). With the `filecoin` feature the Filecoin circuit ids map to filecoin-proofs'
    /// file names already; entries here override them. Default empty.
    pub files: BTreeMap<String, String>,
    /// Check every point of a loaded file (on the curve, in the subgroup): slow for large
    /// files; a bad parameter file is also caught by the self-check. Default false.
    pub check_points: bool,
}

impl Default for SrsConfig {
    fn default() -> Self {
        SrsConfig {
            param_cache: PathBuf::new(),
            preload: Vec::new(),
            budget: ByteSize::Auto,
            files: BTreeMap::new(),
            check_points: false,
        }
    }
}

impl Config {
    /// Parses TOML text and validates it.
    pub fn from_toml(text: &str) -> Result<Config, ConfigError> {
        let config: Config = toml::from_str(text)?;
        config.validate()?;
        Ok(config)
    }

    /// Reads and validates a TOML file.
    pub fn from_file(path: &std::path::Path) -> Result<Config, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        Config::from_toml(&text)
    }

    /// Values that parse but cannot work.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let invalid = |key, message: &str| {
            Err(ConfigError::Invalid {
                key,
                message: message.to_string(),
            })
        };
        if self.engine.queue_capacity == 0 {
            return invalid("engine.queue_capacity", "must be at least 1");
        }
        if self.engine.cpu_provers == 0 {
            return invalid("engine.cpu_provers", "must be at least 1");
        }
        if self.engine.finalizer_threads == 0 {
            return invalid("engine.finalizer_threads", "must be at least 1");
        }
        if !(1..=16).contains(&self.gpus.gpu_workers_per_device) {
            return invalid("gpus.gpu_workers_per_device", "must be between 1 and 16");
        }
        if self.memory.total_budget == ByteSize::Bytes(0) {
            return invalid(
                "memory.total_budget",
                "must be more than 0 bytes, or \"auto\"",
            );
        }
        if self.gpus.vram_budget == ByteSize::Bytes(0) {
            return invalid("gpus.vram_budget", "must be more than 0 bytes, or \"auto\"");
        }
        for id in &self.srs.preload {
            if let Err(e) = crate::circuit_id::check(id) {
                return invalid("srs.preload", &e.to_string());
            }
        }
        for (id, file) in &self.srs.files {
            if let Err(e) = crate::circuit_id::check(id) {
                return invalid("srs.files", &e.to_string());
            }
            if let Err(e) = crate::circuit_id::check_file_name(file) {
                return invalid("srs.files", &format!("the file of `{id}`: {e}"));
            }
        }
        let mut seen = std::collections::BTreeSet::new();
        if let Some(d) = self.gpus.devices.iter().find(|d| !seen.insert(**d)) {
            return invalid("gpus.devices", &format!("device {d} is listed twice"));
        }
        Ok(())
    }

    /// The synthesis thread count, `engine.synthesis_threads` resolved; `products_on_gpu`:
    /// the GPUs evaluate a, b and c (GPU provers with `gpus.matrices_on_gpu`).
    pub fn synthesis_threads(&self, products_on_gpu: bool) -> usize {
        match (self.engine.synthesis_threads, products_on_gpu) {
            (0, true) => num_cpus::get(),
            (0, false) => num_cpus::get().saturating_sub(2).max(1),
            (n, _) => n,
        }
    }

    /// The parameter folder, `srs.param_cache` resolved.
    pub fn param_cache(&self) -> PathBuf {
        if !self.srs.param_cache.as_os_str().is_empty() {
            return self.srs.param_cache.clone();
        }
        std::env::var_os("FIL_PROOFS_PARAMETER_CACHE")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from("/var/tmp/filecoin-proof-parameters"))
    }

    /// The parameter budget in bytes, `srs.budget` resolved.
    pub fn srs_budget(&self) -> u64 {
        self.srs.budget.resolve(|| physical_memory() / 5 * 2)
    }

    /// The bytes CRITICAL partitions may hold beyond the working-set budget:
    /// `memory.critical_reserve` resolved, 0 without the CRITICAL lane.
    pub fn critical_reserve(&self) -> u64 {
        if !self.engine.critical_lane {
            return 0;
        }
        self.memory
            .critical_reserve
            .resolve(|| (self.memory_budget() / 32).max(1 << 30))
    }

    /// The working-set budget in bytes, `memory.total_budget` resolved.
    pub fn memory_budget(&self) -> u64 {
        self.memory.total_budget.resolve(|| {
            (physical_memory() / 5 * 4)
                .saturating_sub(self.srs_budget())
                .max(1 << 30)
        })
    }
}

/// A size in bytes, or "auto". Written as an integer or a string with a unit: "512MiB",
/// "64GiB", "1TB" (KB/MB/GB/TB are powers of 1000, KiB/MiB/GiB/TiB of 1024).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ByteSize {
    #[default]
    Auto,
    Bytes(u64),
}

impl ByteSize {
    fn resolve(self, auto: impl FnOnce() -> u64) -> u64 {
        match self {
            ByteSize::Auto => auto(),
            ByteSize::Bytes(b) => b,
        }
    }
}

impl FromStr for ByteSize {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let s = s.trim();
        if s.eq_ignore_ascii_case("auto") {
            return Ok(ByteSize::Auto);
        }
        let split = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
        let (digits, unit) = s.split_at(split);
        let number: u64 = digits.parse().map_err(|_| {
            format!("`{s}` is not a size (expected e.g. 4096, \"64GiB\" or \"auto\")")
        })?;
        let scale: u64 = match unit.trim() {
            "" | "B" => 1,
            "KB" => 1_000,
            "MB" => 1_000_000,
            "GB" => 1_000_000_000,
            "TB" => 1_000_000_000_000,
            "KiB" => 1 << 10,
            "MiB" => 1 << 20,
            "GiB" => 1 << 30,
            "TiB" => 1 << 40,
            other => {
                return Err(format!(
                    "unknown unit `{other}` in `{s}` (use B, KB, MB, GB, TB, KiB, MiB, GiB or TiB)"
                ))
            }
        };
        number
            .checked_mul(scale)
            .map(ByteSize::Bytes)
            .ok_or_else(|| format!("`{s}` is too large"))
    }
}

impl fmt::Display for ByteSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ByteSize::Auto => f.write_str("auto"),
            ByteSize::Bytes(b) => write!(f, "{b}"),
        }
    }
}

impl<'de> Deserialize<'de> for ByteSize {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Number(u64),
            Text(String),
        }
        match Raw::deserialize(d)? {
            Raw::Number(n) => Ok(ByteSize::Bytes(n)),
            Raw::Text(t) => t.parse().map_err(serde::de::Error::custom),
        }
    }
}

/// Physical memory in bytes (from /proc/meminfo; 16 GiB when it cannot be read).
pub fn physical_memory() -> u64 {
    std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|text| {
            let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
            let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
            Some(kib * 1024)
        })
        .unwrap_or(16 << 30)
}

/// A value parsed from its name in the file (`gpus.b_g2`: "auto", "cpu" or "gpu";
/// `gpus.scalar_splits`: "auto", "host" or "gpu"), the parse error as the file's error.
fn by_name<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: std::str::FromStr,
    T::Err: std::fmt::Display,
{
    let name = String::deserialize(d)?;
    name.parse().map_err(serde::de::Error::custom)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn b_g2_placements_parse_as_in_the_file() {
        for (name, placement) in [
            ("auto", G2Placement::Auto),
            ("cpu", G2Placement::Cpu),
            ("gpu", G2Placement::Gpu),
        ] {
            let c = Config::from_toml(&format!("[gpus]\nb_g2 = \"{name}\"")).unwrap();
            assert_eq!(c.gpus.b_g2, placement);
        }
        let err = Config::from_toml("[gpus]\nb_g2 = \"GPU\"").unwrap_err();
        assert!(err.to_string().contains("auto, cpu or gpu"), "{err}");
    }

    #[test]
    fn scalar_split_placements_parse_as_in_the_file() {
        for (name, placement) in [
            ("auto", SplitPlacement::Auto),
            ("host", SplitPlacement::Host),
            ("gpu", SplitPlacement::Gpu),
        ] {
            let c = Config::from_toml(&format!("[gpus]\nscalar_splits = \"{name}\"")).unwrap();
            assert_eq!(c.gpus.scalar_splits, placement);
        }
        let err = Config::from_toml("[gpus]\nscalar_splits = \"cpu\"").unwrap_err();
        assert!(err.to_string().contains("auto, host or gpu"), "{err}");
    }

    #[test]
    fn example_file_is_the_defaults() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../cuzk.example.toml");
        let mut table: toml::Table = std::fs::read_to_string(path).unwrap().parse().unwrap();
        // The daemon's section is the daemon's to check.
        table
            .remove("daemon")
            .expect("the example has a [daemon] section");
        let config: Config = toml::Value::Table(table).try_into().unwrap();
        assert_eq!(config, Config::default());
    }

    #[test]
    fn sizes_parse_with_units() {
        assert_eq!("auto".parse(), Ok(ByteSize::Auto));
        assert_eq!("4096".parse(), Ok(ByteSize::Bytes(4096)));
        assert_eq!("64GiB".parse(), Ok(ByteSize::Bytes(64 << 30)));
        assert_eq!("2 MB".parse(), Ok(ByteSize::Bytes(2_000_000)));
        assert!("12XB"
            .parse::<ByteSize>()
            .unwrap_err()
            .contains("unknown unit"));
        assert!("lots".parse::<ByteSize>().is_err());
        assert!("99999999999TiB"
            .parse::<ByteSize>()
            .unwrap_err()
            .contains("too large"));
        let c = Config::from_toml("[memory]\ntotal_budget = 1048576").unwrap();
        assert_eq!(c.memory_budget(), 1 << 20);
        assert_eq!(c.critical_reserve(), 1 << 30, "auto: at least 1 GiB");
        let c = Config::from_toml("[memory]\ntotal_budget = \"64GiB\"").unwrap();
        assert_eq!(c.critical_reserve(), 2 << 30, "auto: 1/32 of the budget");
        let c = Config::from_toml("[memory]\ncritical_reserve = \"3GiB\"").unwrap();
        assert_eq!(c.critical_reserve(), 3 << 30);
        let n =
            Config::from_toml("[engine]\nnative_witness = false\nnative_witness_check_every = 8")
                .unwrap();
        assert!(!n.engine.native_witness);
        assert_eq!(n.engine.native_witness_check_every, 8);
        assert!(Config::default().engine.native_witness, "on by default");
        let c = Config::from_toml("[engine]\ncritical_lane = false").unwrap();
        assert_eq!(c.critical_reserve(), 0, "no lane, no reserve");
    }

    #[test]
    fn bad_keys_and_values_are_named() {
        let err = Config::from_toml("[engine]\nqueue_capacty = 3").unwrap_err();
        assert!(err.to_string().contains("queue_capacty"), "{err}");
        let err = Config::from_toml("[gpus]\ngpu_workers_per_device = 0").unwrap_err();
        assert!(
            err.to_string().contains("gpus.gpu_workers_per_device"),
            "{err}"
        );
        let err = Config::from_toml("[gpus]\ndevices = [0, 0]").unwrap_err();
        assert!(err.to_string().contains("listed twice"), "{err}");
        let err = Config::from_toml("[memory]\ntotal_budget = \"10 parsecs\"").unwrap_err();
        assert!(err.to_string().contains("parsecs"), "{err}");
        let err = Config::from_toml("[gpus]\nvram_budget = 0").unwrap_err();
        assert!(err.to_string().contains("gpus.vram_budget"), "{err}");
        let c = Config::from_toml("[gpus]\nvram_budget = \"40GiB\"").unwrap();
        assert_eq!(c.gpus.vram_budget, ByteSize::Bytes(40 << 30));
        // Circuit ids and file names are names, not paths.
        for (text, key, says) in [
            (
                "[srs]\npreload = [\"../x\"]",
                "srs.preload",
                "circuit id `../x`",
            ),
            ("[srs]\npreload = [\"\"]", "srs.preload", "empty"),
            (
                "[srs.files]\n\"/abs\" = \"a.params\"",
                "srs.files",
                "circuit id `/abs`",
            ),
            (
                "[srs.files]\nporep-2k = \"/etc/passwd\"",
                "srs.files",
                "file name `/etc/passwd`",
            ),
            (
                "[srs.files]\nporep-2k = \"..\"",
                "srs.files",
                "starts with `.`",
            ),
        ] {
            let err = Config::from_toml(text).unwrap_err().to_string();
            assert!(err.contains(key) && err.contains(says), "{text}: {err}");
        }
        let c = Config::from_toml("[srs.files]\nmine = \"my-circuit.params\"").unwrap();
        assert_eq!(c.srs.files["mine"], "my-circuit.params");
    }

    #[test]
    fn auto_sizes_leave_room() {
        let c = Config::default();
        assert!(c.srs_budget() < physical_memory());
        assert!(c.memory_budget() + c.srs_budget() <= physical_memory().max(2 << 30));
        assert!(c.synthesis_threads(false) >= 1);
        assert!(c.synthesis_threads(true) >= c.synthesis_threads(false));
    }
}
