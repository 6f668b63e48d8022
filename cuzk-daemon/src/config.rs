//! The daemon's configuration file: the engine's sections (`cuzk_core::Config`) plus
//! `[daemon]`. `cuzk.example.toml` at the workspace root is every key with its default; a
//! test checks it parses to exactly the defaults.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use cuzk_core::Config as EngineConfig;
use serde::Deserialize;

/// The whole file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DaemonConfig {
    pub engine: EngineConfig,
    pub daemon: DaemonSection,
}

/// `[daemon]`.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DaemonSection {
    /// Where the gRPC service listens: "unix:///path/to.sock" or "host:port". Empty = the
    /// default socket (see [`default_socket`]). Default "".
    pub listen: String,
    /// Where `GET /metrics` and `GET /status` are served over HTTP ("host:port"); empty = off.
    /// Default "".
    pub status_listen: String,
    /// Allow TCP listeners on addresses other than loopback. Default false.
    pub allow_remote: bool,
    /// Largest gRPC message accepted or sent, in bytes (at least 256 MiB: a 32 GiB PoRep
    /// commit-phase-1 output is about 50 MB, and headroom is cheap). Default 512 MiB.
    pub max_message_bytes: usize,
    /// On SIGTERM, how long jobs in flight may run before they are cancelled. Default 300.
    pub drain_deadline_secs: u64,
    /// "auto" (human on a terminal, JSON otherwise), "human" or "json". Default "auto".
    pub log_format: String,
    /// Accept the TEST_CIRCUIT proof kind (cuzk's test circuits, parameters generated on
    /// first use). For tests and smoke checks, not production. Default false.
    pub test_circuits: bool,
}

impl Default for DaemonSection {
    fn default() -> Self {
        DaemonSection {
            listen: String::new(),
            status_listen: String::new(),
            allow_remote: false,
            max_message_bytes: 512 << 20,
            drain_deadline_secs: 300,
            log_format: "auto".into(),
            test_circuits: false,
        }
    }
}

/// A resolved listen address.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Listen {
    Unix(PathBuf),
    Tcp(SocketAddr),
}

impl std::fmt::Display for Listen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Listen::Unix(p) => write!(f, "unix://{}", p.display()),
            Listen::Tcp(a) => write!(f, "{a}"),
        }
    }
}

impl DaemonConfig {
    /// Parses and validates TOML text.
    pub fn from_toml(text: &str) -> Result<DaemonConfig> {
        let mut table: toml::Table = text.parse().context("configuration: not valid TOML")?;
        let daemon = match table.remove("daemon") {
            Some(v) => v
                .try_into::<DaemonSection>()
                .context("configuration: [daemon]")?,
            None => DaemonSection::default(),
        };
        let engine: EngineConfig = toml::Value::Table(table)
            .try_into()
            .context("configuration")?;
        engine.validate()?;
        let config = DaemonConfig { engine, daemon };
        config.validate()?;
        Ok(config)
    }

    /// Reads and validates a file.
    pub fn from_file(path: &Path) -> Result<DaemonConfig> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read the configuration file {}", path.display()))?;
        DaemonConfig::from_toml(&text).with_context(|| format!("in {}", path.display()))
    }

    fn validate(&self) -> Result<()> {
        let d = &self.daemon;
        if d.max_message_bytes < 256 << 20 {
            bail!("configuration key `daemon.max_message_bytes`: must be at least 268435456 (256 MiB)");
        }
        if !["auto", "human", "json"].contains(&d.log_format.as_str()) {
            bail!(
                "configuration key `daemon.log_format`: `{}` is not one of auto, human, json",
                d.log_format
            );
        }
        self.listen().context("configuration key `daemon.listen`")?;
        if !d.status_listen.is_empty() {
            self.status_listen()
                .context("configuration key `daemon.status_listen`")?;
        }
        Ok(())
    }

    /// The gRPC listen address.
    pub fn listen(&self) -> Result<Listen> {
        parse_listen(&self.daemon.listen, self.daemon.allow_remote)
    }

    /// The HTTP status address, if any.
    pub fn status_listen(&self) -> Result<Option<SocketAddr>> {
        if self.daemon.status_listen.is_empty() {
            return Ok(None);
        }
        match parse_listen(&self.daemon.status_listen, self.daemon.allow_remote)? {
            Listen::Tcp(a) => Ok(Some(a)),
            Listen::Unix(_) => bail!("the status listener takes host:port, not a unix socket"),
        }
    }
}

/// Parses a listen address; empty = the default socket. A non-loopback TCP address needs
/// `allow_remote`.
pub fn parse_listen(text: &str, allow_remote: bool) -> Result<Listen> {
    let text = text.trim();
    if text.is_empty() {
        return Ok(Listen::Unix(default_socket()));
    }
    if let Some(path) = text.strip_prefix("unix://") {
        if !path.starts_with('/') {
            bail!("`{text}`: a unix socket path must be absolute (unix:///path/to.sock)");
        }
        return Ok(Listen::Unix(PathBuf::from(path)));
    }
    let addr: SocketAddr = text.parse().with_context(|| {
        format!("`{text}` is neither unix:///path nor host:port (e.g. 127.0.0.1:9820)")
    })?;
    if !addr.ip().is_loopback() && !allow_remote {
        bail!("`{text}` is not a loopback address; set daemon.allow_remote = true to listen on it");
    }
    Ok(Listen::Tcp(addr))
}

/// The default socket: `$RUNTIME_DIRECTORY/cuzk.sock` under systemd (`RuntimeDirectory=`),
/// else `$XDG_RUNTIME_DIR/cuzk/cuzk.sock` (a logged-in user), else `/tmp/cuzk-<uid>/cuzk.sock`.
pub fn default_socket() -> PathBuf {
    let var = |name| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    if let Some(dir) = var("RUNTIME_DIRECTORY") {
        // systemd may list several directories separated by colons; the first is ours.
        let first = dir
            .to_string_lossy()
            .split(':')
            .next()
            .unwrap_or_default()
            .to_string();
        return PathBuf::from(first).join("cuzk.sock");
    }
    if let Some(dir) = var("XDG_RUNTIME_DIR") {
        return dir.join("cuzk").join("cuzk.sock");
    }
    // SAFETY: getuid has no preconditions and cannot fail.
    let uid = unsafe { libc::getuid() };
    PathBuf::from(format!("/tmp/cuzk-{uid}")).join("cuzk.sock")
}

/// The default configuration file: `$CUZK_CONFIG`, else `/etc/cuzk/cuzk.toml` when it exists.
pub fn default_config_path() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("CUZK_CONFIG").filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(p));
    }
    let etc = PathBuf::from("/etc/cuzk/cuzk.toml");
    etc.is_file().then_some(etc)
}

/// `cuzk.example.toml`: every key with its default and its explanation.
pub const EXAMPLE: &str = include_str!("../../cuzk.example.toml");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_example_file_is_the_defaults() {
        assert_eq!(
            DaemonConfig::from_toml(EXAMPLE).unwrap(),
            DaemonConfig::default()
        );
        assert_eq!(
            DaemonConfig::from_toml("").unwrap(),
            DaemonConfig::default()
        );
    }

    #[test]
    fn bad_values_name_their_key() {
        for (text, key) in [
            (
                "[daemon]\nmax_message_bytes = 1024",
                "daemon.max_message_bytes",
            ),
            ("[daemon]\nlog_format = \"xml\"", "daemon.log_format"),
            ("[daemon]\nlisten = \"0.0.0.0:9820\"", "daemon.listen"),
            (
                "[daemon]\nlisten = \"unix://relative.sock\"",
                "daemon.listen",
            ),
            ("[daemon]\nlistne = \"x\"", "listne"),
            ("[engine]\nqueue_capacity = 0", "engine.queue_capacity"),
            ("[enigne]\nx = 1", "enigne"),
        ] {
            let err = format!("{:#}", DaemonConfig::from_toml(text).unwrap_err());
            assert!(err.contains(key), "`{text}`: {err}");
        }
    }

    #[test]
    fn listen_addresses() {
        assert_eq!(
            parse_listen("unix:///run/cuzk/cuzk.sock", false).unwrap(),
            Listen::Unix("/run/cuzk/cuzk.sock".into())
        );
        assert!(matches!(
            parse_listen("127.0.0.1:9820", false).unwrap(),
            Listen::Tcp(_)
        ));
        assert!(matches!(
            parse_listen("[::1]:9820", false).unwrap(),
            Listen::Tcp(_)
        ));
        assert!(parse_listen("0.0.0.0:9820", false).is_err());
        assert!(matches!(
            parse_listen("0.0.0.0:9820", true).unwrap(),
            Listen::Tcp(_)
        ));
        assert!(matches!(parse_listen("", false).unwrap(), Listen::Unix(_)));
    }
}
